// The Referee gRPC service: a thin class that turns a MatchSpec into a
// MatchRunner::Run call and its events into the response stream, and statuses
// into grpc::Status in one place (grpc_status.h).
//
// Each RunMatch call runs its match on the call's own thread (gRPC's sync
// server), so matches never wait for each other.
//
// Thread-safety: thread-safe; serves any number of concurrent calls.

#ifndef TAROCK_REFEREE_SERVER_REFEREE_SERVICE_H_
#define TAROCK_REFEREE_SERVER_REFEREE_SERVICE_H_

#include <atomic>
#include <string>
#include <utility>

#include "referee/core/match_runner.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock {

class RefereeService final : public v1::Referee::Service {
 public:
  // `runner` must outlive the service. A non-empty `required_token` must come
  // with every call as "authorization: Bearer TOKEN" (else UNAUTHENTICATED).
  explicit RefereeService(MatchRunner* runner, std::string required_token = "")
      : runner_(runner), required_token_(std::move(required_token)) {}

  grpc::Status RunMatch(grpc::ServerContext* context, const v1::MatchSpec* spec,
                        grpc::ServerWriter<v1::MatchEvent>* writer) override;

  // Cancels every running match at its next decision (before a shutdown, so
  // the process does not wait for matches whose bots may be gone).
  void CancelAll() { stopping_.store(true); }

 private:
  MatchRunner* runner_;
  const std::string required_token_;
  std::atomic<bool> stopping_{false};
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_REFEREE_SERVICE_H_
