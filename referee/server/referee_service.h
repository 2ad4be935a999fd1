// The Referee gRPC service: a thin class that turns a MatchSpec into a
// MatchRunner::Start call and its events into the response stream, and
// statuses into grpc::Status in one place (grpc_status.h).
//
// It is a callback-API service: a RunMatch call holds no thread. The match is
// a coroutine that runs on whichever thread resumes it (the bot connections'
// completion loop), its events are queued for the stream, and the call
// finishes when the match does; so thousands of matches run on a few threads.
//
// Thread-safety: thread-safe; serves any number of concurrent calls.

#ifndef TAROCK_REFEREE_SERVER_REFEREE_SERVICE_H_
#define TAROCK_REFEREE_SERVER_REFEREE_SERVICE_H_

#include <atomic>
#include <string>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "referee/core/match_runner.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock {

class RefereeService final : public v1::Referee::CallbackService {
 public:
  // `runner` must outlive the service. A non-empty `required_token` must come
  // with every call as "authorization: Bearer TOKEN" (else UNAUTHENTICATED).
  explicit RefereeService(MatchRunner* runner, std::string required_token = "")
      : runner_(runner), required_token_(std::move(required_token)) {}

  grpc::ServerWriteReactor<v1::MatchEvent>* RunMatch(grpc::CallbackServerContext* context,
                                                     const v1::MatchSpec* spec) override;

  // Cancels every running match at its next decision (before a shutdown, so
  // the process does not wait for matches whose bots may be gone).
  void CancelAll() { stopping_.store(true); }
  // Waits until no match is running or `deadline` passes; true when none is.
  bool AwaitIdle(absl::Time deadline);
  // Matches running now.
  int active();

 private:
  class MatchCall;
  friend class MatchCall;
  void MatchEnded();

  MatchRunner* runner_;
  const std::string required_token_;
  std::atomic<bool> stopping_{false};
  absl::Mutex mu_;
  int active_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_REFEREE_SERVICE_H_
