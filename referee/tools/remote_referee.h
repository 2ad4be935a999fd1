// How the command-line tools (`tarock match`, `tarock compare`, `tarock
// check-bot`) reach referees and bots over the network: the TLS flags of
// tarock/transport/transport.h and --referee_token, read once from the flags.
//
// Thread-safety: thread-safe (the flags are read on first use; call after
// the command line is parsed).

#ifndef TAROCK_REFEREE_TOOLS_REMOTE_REFEREE_H_
#define TAROCK_REFEREE_TOOLS_REMOTE_REFEREE_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tarock/transport/transport.h"

namespace tarock {

// The transport the flags configure. Errors: unreadable or inconsistent
// certificate files.
absl::StatusOr<transport::Transport> ToolTransport();

// A channel to the referee at `target` (TLS per the flags; plaintext only to
// loopback unless --allow_plaintext).
absl::StatusOr<std::shared_ptr<grpc::Channel>> RefereeChannel(const std::string& target);

// Adds --referee_token (or $TAROCK_REFEREE_TOKEN) to a call, when one is set.
void AuthorizeRefereeCall(grpc::ClientContext* context);

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_REMOTE_REFEREE_H_
