// What the arena knows of each bot's health, and the bench: a bot that cannot
// be reached, or that stopped answering, sits out new ladder matches at once
// and is probed with backoff until it answers again (issue 30).
//
// States (BotInfo.health):
//   online        no trouble seen (or answered a probe since)
//   unreachable   a match could not connect its seat; last error and when
//   unresponsive  connected, then stopped answering: its seat in a match
//                 forfeited or took kUnresponsiveFaults timeout/disconnect
//                 faults
//   retired       retired by its owner (the scheduler knows; not kept here)
// A benched bot (unreachable or unresponsive) is due for a probe at
// `retry_at`; a failed probe doubles the wait (from `first_backoff` up to
// `max_backoff`), a successful one, or a match it finishes cleanly, makes it
// online again. Probes are the scheduler's (BotProber: a gRPC health check
// for a listening bot, a live gateway connection for a dial-in one).
//
// Pure bookkeeping: no clock of its own (every call takes `now`), no I/O, so
// it is unit-tested with made-up times. Nothing here is stored: a restarted
// arena starts with every bot online and benches again from what it sees.
//
// Thread-safety: thread-safe.

#ifndef TAROCK_ARENA_SCHEDULER_BOT_HEALTH_H_
#define TAROCK_ARENA_SCHEDULER_BOT_HEALTH_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tarock::arena {

struct BotHealthOptions {
  absl::Duration first_backoff = absl::Seconds(2);  // first probe after benching
  absl::Duration max_backoff = absl::Minutes(5);    // the longest wait between probes
  // Timeout and disconnect faults in one match that make a seat unresponsive.
  int unresponsive_faults = 3;
};

struct BotHealthState {
  std::string state = "online";  // online, unreachable, unresponsive
  std::string last_error;        // why it was benched ("" when online)
  absl::Time since = absl::InfinitePast();     // when it entered the state
  absl::Time retry_at = absl::InfinitePast();  // the next probe (benched only)
  int failures = 0;  // consecutive benchings and failed probes
  bool probing = false;  // handed out by DueForProbe, not yet reported
  bool benched() const { return state != "online"; }
};

// The seat named by a referee's "seat N (NAME) at ENDPOINT is unreachable"
// refusal (referee/core/match_runner.cc), or nullopt for another error.
std::optional<int> UnreachableSeat(const absl::Status& status);

class BotHealth {
 public:
  explicit BotHealth(BotHealthOptions options = {}) : options_(options) {}

  // A match could not connect the bot's seat: unreachable, benched.
  void MarkUnreachable(int64_t bot, const std::string& error, absl::Time now);
  // The bot's seat in a finished match: `forfeited`, and how many of its
  // faults were timeouts or disconnects. Unresponsive when over the limit,
  // else online again, unless `sealed` (the match's deal is still played at
  // another table): a clean seat then changes nothing (a benched bot stays
  // benched until a probe): the bot's page turning online would tell when
  // that table ended (docs/security.md, "Secret deals").
  void OnSeatFinished(int64_t bot, bool forfeited, int silent_faults, absl::Time now,
                      bool sealed = false);
  // A probe's outcome: OK makes the bot online; an error re-benches it with
  // a doubled wait.
  void OnProbe(int64_t bot, const absl::Status& result, absl::Time now);

  // Someone waits for the bot (a tournament, within its wait): its next
  // probe is at `at` at the latest (the backoff itself is unchanged).
  void Expedite(int64_t bot, absl::Time at);
  // Whether the bot sits out new ladder matches now.
  bool Benched(int64_t bot);
  // Benched bots whose probe is due at `now`; each is not returned again
  // until its probe is reported (OnProbe) or a minute passes.
  std::vector<int64_t> DueForProbe(absl::Time now);
  BotHealthState Of(int64_t bot);

 private:
  void Bench(BotHealthState& s, const std::string& state, const std::string& error, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const BotHealthOptions options_;
  absl::Mutex mu_;
  std::map<int64_t, BotHealthState> bots_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_BOT_HEALTH_H_
