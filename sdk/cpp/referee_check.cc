// CheckRefereeProof (serve.h): apart from serve.cc, so that servers of their
// own (the stdio bridge) can use it without BotMain's flags.

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "tarock/sdk/referee_proof.h"
#include "tarock/sdk/serve.h"

namespace tarock::sdk {

absl::Status CheckRefereeProof(const grpc::ServerContext& context, const std::string& secret,
                               const v1::RefereeMessage& first) {
  if (!first.has_match_start())
    return absl::UnauthenticatedError("the first message is not a MatchStart");
  auto found = context.client_metadata().find(kRefereeProofHeader);
  if (found == context.client_metadata().end())
    return absl::UnauthenticatedError(
        "the referee presented no proof of this bot's referee secret (not sent by its arena)");
  absl::string_view proof(found->second.data(), found->second.size());
  if (!RefereeProofMatches(secret, first.match_start().match_id(), first.match_start().seat(),
                           proof))
    return absl::UnauthenticatedError(
        "the referee's proof does not match this bot's referee secret (not sent by its arena)");
  return absl::OkStatus();
}

}  // namespace tarock::sdk
