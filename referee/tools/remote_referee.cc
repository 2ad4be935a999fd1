#include "referee/tools/remote_referee.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, referee_token, "",
          "token sent to a remote --referee with every match (its --referee_token); default "
          "$TAROCK_REFEREE_TOKEN");

namespace tarock {

absl::StatusOr<sdk::Transport> ToolTransport() {
  static const absl::StatusOr<sdk::Transport>* transport =
      new absl::StatusOr<sdk::Transport>(sdk::Transport::FromFlags());
  return *transport;
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> RefereeChannel(const std::string& target) {
  absl::StatusOr<sdk::Transport> transport = ToolTransport();
  if (!transport.ok()) return transport.status();
  return transport->Channel(target);
}

void AuthorizeRefereeCall(grpc::ClientContext* context) {
  static const std::string* token = new std::string(
      sdk::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_referee_token), "TAROCK_REFEREE_TOKEN"));
  sdk::AddBearerToken(context, *token);
}

}  // namespace tarock
