#include "referee/server/referee_service.h"

#include <atomic>

#include "referee/server/grpc_status.h"

namespace tarock {

grpc::Status RefereeService::RunMatch(grpc::ServerContext* context, const v1::MatchSpec* spec,
                                      grpc::ServerWriter<v1::MatchEvent>* writer) {
  std::atomic<bool> cancelled{false};
  auto on_event = [&](const v1::MatchEvent& event) {
    // A client that went away cancels its match at the next hand.
    if (context->IsCancelled() || !writer->Write(event)) cancelled.store(true);
  };
  absl::StatusOr<v1::MatchFinished> finished = runner_->Run(*spec, on_event, &cancelled);
  if (!finished.ok()) return ToGrpcStatus(finished.status());
  v1::MatchEvent last;
  *last.mutable_match_finished() = std::move(*finished);
  writer->Write(last);
  return grpc::Status::OK;
}

}  // namespace tarock
