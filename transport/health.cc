#include "tarock/transport/health.h"

#include <grpcpp/health_check_service_interface.h>

#include <string>

namespace tarock::transport {

void EnableHealthService() { grpc::EnableDefaultHealthCheckService(true); }

void SetServing(grpc::Server& server, bool serving, std::initializer_list<const char*> services) {
  grpc::HealthCheckServiceInterface* health = server.GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(serving);  // "" and every service registered so far
  for (const char* service : services) health->SetServingStatus(service, serving);
}

}  // namespace tarock::transport
