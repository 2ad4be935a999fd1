// How the scheduler reaches a referee: run one MatchSpec on the referee at an
// address and get its result. The gRPC implementation is in arena/server; the
// scheduler itself never includes grpcpp.
//
// Thread-safety: implementations must be thread-safe (one call per worker).

#ifndef TAROCK_ARENA_SCHEDULER_REFEREE_CLIENT_H_
#define TAROCK_ARENA_SCHEDULER_REFEREE_CLIENT_H_

#include <atomic>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock::arena {

class RefereeClient {
 public:
  virtual ~RefereeClient() = default;
  // Runs `spec` on the referee at `address` and waits for the result. Returns
  // UNAVAILABLE (or another transport error) when the referee cannot be reached
  // or dies mid-match; the referee's own errors (INVALID_ARGUMENT for a bad
  // spec, FAILED_PRECONDITION for an unreachable bot) come back unchanged.
  // Setting `*cancel` and then calling CancelAll() abandons the call with
  // CANCELLED (an implementation may also notice the flag on its own).
  virtual absl::StatusOr<v1::MatchFinished> RunMatch(const std::string& address,
                                                     const v1::MatchSpec& spec,
                                                     const std::atomic<bool>* cancel) = 0;
  // As RunMatch, and every event the referee streams before the result
  // (PublicAction and HandFinished when spec.public_events is set) goes to
  // `on_event` on the calling thread as it arrives. The default ignores
  // events (clients that have none to give).
  using EventCallback = std::function<void(const v1::MatchEvent&)>;
  virtual absl::StatusOr<v1::MatchFinished> RunMatchWithEvents(const std::string& address,
                                                               const v1::MatchSpec& spec,
                                                               const std::atomic<bool>* cancel,
                                                               const EventCallback& on_event) {
    (void)on_event;
    return RunMatch(address, spec, cancel);
  }
  // Cancels the calls in flight whose cancel flag is set (the scheduler's
  // Stop). The default relies on implementations checking the flag themselves.
  virtual void CancelAll() {}
  // A table whose deal other tables share (spec.withhold_hand_records): an
  // implementation that records metrics of its calls (how long each took,
  // how it ended) holds those of its RunMatch calls back, as the match's
  // end is sealed with its deal (docs/security.md, "Secret deals"), until the
  // scheduler calls this with the match id once the deal is public. The
  // default records nothing.
  virtual void ReleaseHeldMetrics(const std::string& match_id) { (void)match_id; }
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_REFEREE_CLIENT_H_
