#include "referee/server/referee_service.h"

#include "referee/server/grpc_status.h"
#include "tarock/sdk/transport.h"

namespace tarock {

grpc::Status RefereeService::RunMatch(grpc::ServerContext* context, const v1::MatchSpec* spec,
                                      grpc::ServerWriter<v1::MatchEvent>* writer) {
  if (!sdk::HasBearerToken(*context, required_token_))
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "RunMatch needs this referee's token (authorization: Bearer ..., "
                        "--referee_token of the client)");
  bool lost_client = false;
  auto on_event = [&](const v1::MatchEvent& event) {
    if (spec->result_only()) return;
    if (!writer->Write(event)) lost_client = true;
  };
  // A client that went away, or a shutdown, cancels the match at its next decision.
  auto cancelled = [&] { return lost_client || stopping_.load() || context->IsCancelled(); };
  absl::StatusOr<v1::MatchFinished> finished = runner_->Run(*spec, on_event, cancelled);
  if (!finished.ok()) return ToGrpcStatus(finished.status());
  v1::MatchEvent last;
  *last.mutable_match_finished() = std::move(*finished);
  writer->Write(last);
  return grpc::Status::OK;
}

}  // namespace tarock
