#include "arena/server/grpc_bot_prober.h"

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace tarock::arena {

absl::Status GrpcBotProber::Probe(const std::string& endpoint, absl::Time deadline) {
  grpc::ChannelArguments args;
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      transport_.ChannelCredentials(endpoint, &args);
  if (!credentials.ok()) return credentials.status();
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(endpoint, *credentials, args);
  const auto when = absl::ToChronoTime(deadline);
  if (!channel->WaitForConnected(when))
    return absl::UnavailableError(absl::StrCat("cannot connect to ", endpoint));
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(when);
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = stub->Check(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) return absl::OkStatus();
  if (!status.ok())
    return absl::UnavailableError(absl::StrCat(endpoint, ": ", status.error_message()));
  if (response.status() != grpc::health::v1::HealthCheckResponse::SERVING)
    return absl::UnavailableError(absl::StrCat(
        endpoint, " is ",
        grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status())));
  return absl::OkStatus();
}

}  // namespace tarock::arena
