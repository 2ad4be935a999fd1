// The referee's match runner: plays one match from a MatchSpec between bots
// reached through a BotConnector, enforcing the rules (the engine), the time
// control and the fault policy, and producing the complete match record.
//
// A match is a coroutine (referee/core/async.h): Start() runs it until its
// first wait for a bot and returns; whatever completes the wait (a gRPC
// completion, a timer) resumes it. So matches hold no thread while they wait,
// and a referee runs thousands of them on a few threads. Every wait has a
// deadline, so a slow or silent bot delays only its own match. Run() is the
// synchronous form for tools and tests.
//
// Rules of the match (tarock.proto documents them for bot authors):
//  - N hands, a multiple of the seats; the dealer rotates; radli carry over;
//    the seed fixes every deal (MatchProgress, referee/engine/match.h).
//  - Time: TimeControl in the proto. Decision time runs from handing the request
//    to the transport to the answer's arrival; the bank is charged that time
//    minus the bot's fastest answer so far (an upper bound on the round trip);
//    each limit gets the grace on top.
//  - Faults: FaultPolicy in the proto. A bot unreachable at the start fails the
//    match at once with FAILED_PRECONDITION naming its seat and endpoint (not
//    UNAVAILABLE, which callers such as the arena read as "this referee is
//    down, try another").
//
// Thread-safety: a MatchRunner may run any number of matches concurrently;
// the connector and metrics must be thread-safe.

#ifndef TAROCK_REFEREE_CORE_MATCH_RUNNER_H_
#define TAROCK_REFEREE_CORE_MATCH_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "referee/core/async.h"
#include "referee/core/bot_connection.h"
#include "referee/core/match_interrupt.h"
#include "referee/core/referee_metrics.h"
#include "referee/engine/game.h"
#include "referee/engine/match.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock {

struct RefereeOptions {
  // How long to wait for every bot to accept its stream at the start.
  absl::Duration connect_timeout = absl::Seconds(10);
  // Used when the spec's TimeControl leaves a field at 0.
  int64_t default_per_decision_ms = 10000;
  int64_t default_grace_ms = 50;
  // How long to wait for each bot to close its stream at the end.
  absl::Duration finish_timeout = absl::Seconds(2);
  // Most hands a match may have (a guard against absurd specs).
  int max_hands = 100000;
  // Bounds on a spec's time control (0: no bound). tarock-referee sets them
  // from its flags; a spec beyond one is refused with INVALID_ARGUMENT.
  int64_t max_per_decision_ms = 0;
  int64_t max_match_bank_ms = 0;
  int64_t max_grace_ms = 0;
};

// A MatchSpec with every default filled in, or an error that says what is wrong.
absl::StatusOr<v1::MatchSpec> ValidateSpec(const v1::MatchSpec& spec, const RefereeOptions& options);

class MatchRunner {
 public:
  // `connector` and `metrics` (may be null) must outlive the runner.
  MatchRunner(RefereeOptions options, BotConnector* connector, RefereeMetrics* metrics)
      : options_(options), connector_(connector), metrics_(metrics) {}

  using EventSink = std::function<void(const v1::MatchEvent&)>;

  // Asked before every hand and every decision; true abandons the match.
  using CancelCheck = std::function<bool()>;

  // Plays the match. Progress (HandFinished, Fault) goes to `on_event` as it
  // happens, from the calling thread; the returned MatchFinished is not sent
  // there. Fails with INVALID_ARGUMENT on a bad spec, FAILED_PRECONDITION when a bot
  // cannot be reached at the start, CANCELLED when `cancelled` returns true.
  absl::StatusOr<v1::MatchFinished> Run(const v1::MatchSpec& spec, const EventSink& on_event,
                                        const CancelCheck& cancelled = nullptr);

  // Run without waiting: `done` gets what Run would return, on whichever
  // thread ends the match (the caller's, when the spec is refused or every
  // bot answers inline). `on_event` and `cancelled` are called from the
  // threads that run the match, one call at a time.
  // `interrupt` (may be null) stops the match from outside at once
  // (match_interrupt.h); `cancelled` should then also return true.
  using Done = absl::AnyInvocable<void(absl::StatusOr<v1::MatchFinished>)>;
  void Start(const v1::MatchSpec& spec, EventSink on_event, CancelCheck cancelled, Done done,
             std::shared_ptr<MatchInterrupt> interrupt = nullptr);

 private:
  DetachedTask<absl::StatusOr<v1::MatchFinished>> Play(absl::Time started, v1::MatchSpec spec,
                                                       std::unique_ptr<Game> game,
                                                       MatchProgress progress, EventSink on_event,
                                                       CancelCheck cancelled,
                                                       std::shared_ptr<MatchInterrupt> interrupt);

  RefereeOptions options_;
  BotConnector* connector_;
  RefereeMetrics* metrics_;
};

// "illegal_action", "timeout", "malformed", "disconnect".
std::string FaultKindName(v1::FaultKind kind);

}  // namespace tarock

#endif  // TAROCK_REFEREE_CORE_MATCH_RUNNER_H_
