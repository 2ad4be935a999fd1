// Stopping a running match from outside at once: the referee's RunMatch
// caller went away, the match ran past its time bound, or the process shuts
// down. A match's cancel check is asked only between decisions; a match that
// waits for a silent bot with a long per-decision limit would hear of it only
// when that wait ends. Interrupt() also ends the wait: it interrupts every
// seat of the match (BotConnection::Interrupt closes the bot's stream; the
// pending decision ends as a disconnect), and the match then ends CANCELLED
// at its next check.
//
// Thread-safety: thread-safe. Interrupt() may come from any thread at any
// time, before, during or after the match; it never calls back into the
// match inline.

#ifndef TAROCK_REFEREE_CORE_MATCH_INTERRUPT_H_
#define TAROCK_REFEREE_CORE_MATCH_INTERRUPT_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "referee/core/bot_connection.h"

namespace tarock {

class MatchInterrupt {
 public:
  // Interrupts the match, saying `why` (kept from the first call).
  void Interrupt(const std::string& why);
  bool interrupted() const { return interrupted_.load(); }
  std::string why() const;

  // The runner's: the match's seats while it plays. Seats attached after an
  // Interrupt are interrupted at once. Detach before the connections go.
  void Attach(std::vector<BotConnection*> seats);
  void Detach();

 private:
  std::atomic<bool> interrupted_{false};
  mutable absl::Mutex mu_;
  std::string why_ ABSL_GUARDED_BY(mu_);
  std::vector<BotConnection*> seats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_CORE_MATCH_INTERRUPT_H_
