// StallClock: how long this process has been stopped so far: by SIGSTOP, a
// paused virtual machine, or a machine too loaded to run it. A thread ticks
// every `period`; the time between two ticks beyond `period` and `tolerance`
// counts as stalled. Stalled() includes a stall still going on (no tick
// since), so a thread that has just resumed sees the stall before the ticker
// does.
//
// tarock-bothost subtracts it from a bot's time to answer (StdioOptions::
// stalled): a decision the host itself was stopped through is not the bot's
// slow answer (docs/hosting.md, "A host that stalls").
//
// Thread-safety: thread-safe.

#ifndef TAROCK_ARENA_BOTHOST_STALL_CLOCK_H_
#define TAROCK_ARENA_BOTHOST_STALL_CLOCK_H_

#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tarock::bothost {

class StallClock {
 public:
  // Starts the ticker thread.
  explicit StallClock(absl::Duration period = absl::Milliseconds(10),
                      absl::Duration tolerance = absl::Milliseconds(20));
  ~StallClock();  // stops the ticker
  StallClock(const StallClock&) = delete;
  StallClock& operator=(const StallClock&) = delete;

  // The time stalled since the clock started, a stall going on included.
  // Never decreases.
  absl::Duration Stalled() const;

 private:
  void Run();

  const absl::Duration period_;
  const absl::Duration tolerance_;
  mutable absl::Mutex mu_;
  absl::Time last_tick_ ABSL_GUARDED_BY(mu_);
  absl::Duration stalled_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread ticker_;
};

}  // namespace tarock::bothost

#endif  // TAROCK_ARENA_BOTHOST_STALL_CLOCK_H_
