// `tarock-health-probe`: asks a gRPC server for its health
// (grpc.health.v1.Health/Check) and exits with the answer, like
// grpc_health_probe: for container health checks (Compose, exec probes where
// Kubernetes' own `grpc:` probe cannot be used, e.g. behind TLS) and tests.
//
//   tarock-health-probe --addr=127.0.0.1:7701 [--service=tarock.v1.Referee]
//
// Exit status: 0 SERVING, 2 cannot connect within --timeout_ms, 3 the call
// failed (e.g. UNIMPLEMENTED: no health service), 4 any other status
// (NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN). It prints "status: NAME". TLS
// through the usual --tls_* flags (tarock/transport/transport.h).

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "referee/tools/program_usage.h"
#include "tarock/transport/transport.h"

ABSL_FLAG(std::string, addr, "", "HOST:PORT of the server to ask");
ABSL_FLAG(std::string, service, "", "the service whose status to ask for (empty: the server's)");
ABSL_FLAG(int, timeout_ms, 1000, "time for connecting and for the call, each");

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "tarock-health-probe --addr=HOST:PORT [--service=NAME] [--timeout_ms=N] [TLS flags]\n"
      "Asks a gRPC server for grpc.health.v1.Health/Check and exits 0 when it is SERVING,\n"
      "2 when it cannot be reached, 3 when the call fails, 4 for any other status.");
  tarock::ParseCommandLine(argc, argv);
  const std::string addr = absl::GetFlag(FLAGS_addr);
  if (addr.empty()) {
    std::fprintf(stderr, "tarock-health-probe: give --addr=HOST:PORT\n");
    return 1;
  }
  absl::StatusOr<tarock::transport::Transport> transport = tarock::transport::Transport::FromFlags();
  if (!transport.ok()) {
    std::fprintf(stderr, "tarock-health-probe: %s\n", std::string(transport.status().message()).c_str());
    return 1;
  }
  grpc::ChannelArguments args;
  auto credentials = transport->ChannelCredentials(addr, &args);
  if (!credentials.ok()) {
    std::fprintf(stderr, "tarock-health-probe: %s\n", std::string(credentials.status().message()).c_str());
    return 1;
  }
  const auto timeout = std::chrono::milliseconds(absl::GetFlag(FLAGS_timeout_ms));
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(addr, *credentials, args);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + timeout)) {
    std::fprintf(stderr, "tarock-health-probe: cannot connect to %s\n", addr.c_str());
    return 2;
  }
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(absl::GetFlag(FLAGS_service));
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = stub->Check(&context, request, &response);
  if (!status.ok()) {
    std::fprintf(stderr, "tarock-health-probe: %s: %s\n", addr.c_str(), status.error_message().c_str());
    return 3;
  }
  std::printf("status: %s\n",
              grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status()).c_str());
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING ? 0 : 4;
}
