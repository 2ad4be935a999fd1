// The standard gRPC health service (grpc.health.v1.Health, Check and Watch)
// on the gRPC servers of Tarock Arena: the referee, the arena and every bot
// served by the C++ SDK. It is libgrpc++'s own DefaultHealthCheckService, so
// Kubernetes `grpc:` probes, grpc_health_probe and tarock-health-probe all
// work against it. The overall status (service "") and each named service
// report SERVING once the process is ready and NOT_SERVING while it drains or
// shuts down (grpc::Server::Shutdown also turns every status NOT_SERVING).
//
// Thread-safety: EnableHealthService must run before the ServerBuilder is
// built (it sets a process-wide default); SetServing is thread-safe.

#ifndef TAROCK_TRANSPORT_HEALTH_H_
#define TAROCK_TRANSPORT_HEALTH_H_

#include <grpcpp/grpcpp.h>

#include <initializer_list>

namespace tarock::transport {

// Makes every grpc::Server started afterwards in this process serve
// grpc.health.v1.Health (the overall status starts as SERVING).
void EnableHealthService();

// Sets the overall status and that of each of `services` (full service names,
// e.g. "tarock.v1.Referee"). No effect on a server built before
// EnableHealthService().
void SetServing(grpc::Server& server, bool serving, std::initializer_list<const char*> services = {});

}  // namespace tarock::transport

#endif  // TAROCK_TRANSPORT_HEALTH_H_
