// The Referee gRPC service: a thin class that turns a MatchSpec into a
// MatchRunner::Start call and its events into the response stream, and
// statuses into grpc::Status in one place (grpc_status.h).
//
// It is a callback-API service: a RunMatch call holds no thread. The match is
// a coroutine that runs on whichever thread resumes it (the bot connections'
// completion loop), its events are queued for the stream, and the call
// finishes when the match does; so thousands of matches run on a few threads.
//
// It bounds what it runs (issue 29): at most `max_concurrent_matches` calls
// at once (more: RESOURCE_EXHAUSTED), at most `max_match_time` per match
// (then DEADLINE_EXCEEDED), and a match whose caller went away (the call was
// cancelled, or its stream broke) is interrupted at once: its bot streams are
// closed (match_interrupt.h). The spec bounds (hands, times, sizes) are the
// runner's (RefereeOptions, ValidateSpec).
//
// Thread-safety: thread-safe; serves any number of concurrent calls.

#ifndef TAROCK_REFEREE_SERVER_REFEREE_SERVICE_H_
#define TAROCK_REFEREE_SERVER_REFEREE_SERVICE_H_

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "referee/core/match_interrupt.h"
#include "referee/core/match_runner.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock {

struct RefereeServiceOptions {
  // A non-empty token must come with every call as "authorization: Bearer
  // TOKEN" (else UNAUTHENTICATED).
  std::string required_token;
  // RunMatch calls running at once; more are refused with RESOURCE_EXHAUSTED
  // (0: no limit).
  int max_concurrent_matches = 0;
  // A match still running after this long is interrupted and ends with
  // DEADLINE_EXCEEDED (zero: no limit).
  absl::Duration max_match_time = absl::ZeroDuration();
};

class RefereeService final : public v1::Referee::CallbackService {
 public:
  // `runner` must outlive the service.
  explicit RefereeService(MatchRunner* runner, RefereeServiceOptions options = {})
      : runner_(runner), options_(std::move(options)) {}

  grpc::ServerWriteReactor<v1::MatchEvent>* RunMatch(grpc::CallbackServerContext* context,
                                                     const v1::MatchSpec* spec) override;

  // Interrupts every running match now (before a shutdown, so the process
  // does not wait for matches whose bots may be gone), and refuses new ones.
  void CancelAll();
  // Waits until no match is running or `deadline` passes; true when none is.
  bool AwaitIdle(absl::Time deadline);
  // Matches running now.
  int active();

 private:
  class MatchCall;
  friend class MatchCall;
  // A call starts a match: its interrupt, or an error when it may not.
  absl::Status Begin(const std::shared_ptr<MatchInterrupt>& interrupt);
  void MatchEnded(const std::shared_ptr<MatchInterrupt>& interrupt);

  MatchRunner* runner_;
  const RefereeServiceOptions options_;
  std::atomic<bool> stopping_{false};
  absl::Mutex mu_;
  int active_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<std::shared_ptr<MatchInterrupt>> running_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_REFEREE_SERVICE_H_
