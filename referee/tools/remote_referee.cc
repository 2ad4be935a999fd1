#include "referee/tools/remote_referee.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, referee_token, "",
          "token sent to a remote --referee with every match (its --referee_token); default "
          "$TAROCK_REFEREE_TOKEN");

namespace tarock {

absl::StatusOr<transport::Transport> ToolTransport() {
  static const absl::StatusOr<transport::Transport>* transport =
      new absl::StatusOr<transport::Transport>(transport::Transport::FromFlags());
  return *transport;
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> RefereeChannel(const std::string& target) {
  absl::StatusOr<transport::Transport> transport = ToolTransport();
  if (!transport.ok()) return transport.status();
  return transport->Channel(target);
}

void AuthorizeRefereeCall(grpc::ClientContext* context) {
  static const std::string* token = new std::string(
      transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_referee_token), "TAROCK_REFEREE_TOKEN"));
  transport::AddBearerToken(context, *token);
}

}  // namespace tarock
