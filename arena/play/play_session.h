// One person's seat in a match, played from the browser: the SeatConsumer the
// SeatRelay hands the referee's stream of that seat to. It keeps what the seat
// may see (exactly what the referee sent it: MatchStart, HandStart, the
// DecisionRequests' observations and legal actions, the HandResults'
// scores, MatchResult), the request waiting for an answer and its deadline,
// and sends the person's choice back as the Decision.
//
// Nothing of other seats' cards is ever added: the observation is the
// referee's (Observe(seat), the arena's security boundary), and a hand
// result's revealed record is not passed on (the stored match record shows
// it once the match is over).
//
// Thread-safety: thread-safe (the relay's callbacks and the HTTP handlers).

#ifndef TAROCK_ARENA_PLAY_PLAY_SESSION_H_
#define TAROCK_ARENA_PLAY_PLAY_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/play/seat_relay.h"
#include "nlohmann/json.hpp"
#include "tarock/v1/tarock.pb.h"

namespace tarock::arena::play {

class PlaySession final : public SeatConsumer {
 public:
  using Clock = std::function<absl::Time()>;
  // `id` is the session's secret (the only credential for the seat).
  PlaySession(std::string id, std::string match_id, int seat, Clock clock = &absl::Now);

  const std::string& id() const { return id_; }
  const std::string& match_id() const { return match_id_; }
  int seat() const { return seat_; }

  // SeatConsumer.
  void OnAttach(std::shared_ptr<RefereeLink> link) override;
  void OnMessage(const v1::RefereeMessage& message) override;
  void OnDetach(const RefereeLink* link) override;

  // What the browser shows (see docs/play.md for the fields).
  nlohmann::json View();
  // The person's answer to request `request_id`. Errors: FAILED_PRECONDITION
  // (no such request waiting: answered, replaced or timed out; or the stream
  // is gone), INVALID_ARGUMENT (not one of the legal actions).
  absl::Status Act(int64_t request_id, const std::string& action);
  // The match could not run (e.g. an opponent is unreachable): shown as failed.
  void Fail(const std::string& error);
  // The match ended without a MatchResult on this seat's stream (the referee
  // sends a forfeited seat nothing more): the result as the arena stored it.
  void Finish(const v1::MatchResult& result);
  // Done or failed, and since when.
  bool Ended(absl::Time* since = nullptr);
  // From `until` on the seat takes no more answers (Act is refused and the
  // referee plays for it, then forfeits it under the fault policy), so nobody
  // holds a play slot for ever by answering just before each deadline.
  void SetHoldUntil(absl::Time until);

 private:
  struct Pending {
    v1::DecisionRequest request;
    absl::Time deadline;  // time_left_ms after its arrival (the grace not included)
  };

  const std::string id_;
  const std::string match_id_;
  const int seat_;
  const Clock clock_;

  absl::Mutex mu_;
  absl::Time hold_until_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  std::shared_ptr<RefereeLink> link_ ABSL_GUARDED_BY(mu_);
  int attaches_ ABSL_GUARDED_BY(mu_) = 0;
  std::string status_ ABSL_GUARDED_BY(mu_) = "waiting";  // waiting, playing, done, failed
  std::string error_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::MatchStart> start_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::HandStart> hand_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::Observation> observation_ ABSL_GUARDED_BY(mu_);
  std::optional<Pending> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::HandResult> hand_results_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::MatchResult> result_ ABSL_GUARDED_BY(mu_);
  int decisions_ ABSL_GUARDED_BY(mu_) = 0;  // answered in time
  int missed_ ABSL_GUARDED_BY(mu_) = 0;     // requests replaced before an answer
  int64_t version_ ABSL_GUARDED_BY(mu_) = 0;  // bumps on every change
  absl::Time ended_at_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
};

}  // namespace tarock::arena::play

#endif  // TAROCK_ARENA_PLAY_PLAY_SESSION_H_
