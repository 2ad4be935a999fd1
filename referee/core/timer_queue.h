// Deadlines for waits that no transport times out by itself: one thread runs
// each callback at (or just after) its time, unless it was cancelled first.
// The referee's bot connections arm one timer per decision and cancel it when
// the answer comes, so a timer is cheap to add and to cancel (a balanced tree
// under a mutex; the thread is woken only when a new earliest deadline comes).
//
// Callbacks run on the queue's thread, one at a time, and must not block for
// long: they finish a wait (a timeout) and return.
//
// Thread-safety: thread-safe. Cancel() may race with the timer firing: it
// returns false then, and the callback runs (or is running); callers decide
// which of "answer" and "timeout" wins with their own lock.

#ifndef TAROCK_REFEREE_CORE_TIMER_QUEUE_H_
#define TAROCK_REFEREE_CORE_TIMER_QUEUE_H_

#include <cstdint>
#include <map>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tarock {

class TimerQueue {
 public:
  using Id = uint64_t;

  TimerQueue();
  // Drops the callbacks not yet run (without running them) and joins the thread.
  ~TimerQueue();
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  // Runs `fn` on the queue's thread at `when` (at once if it has passed).
  // Returns an id for Cancel; never 0.
  Id Schedule(absl::Time when, absl::AnyInvocable<void()> fn);
  // Removes a timer that has not fired. True when it was removed (its callback
  // is destroyed, unrun); false when it has fired, is firing, or never existed.
  bool Cancel(Id id);

  // Timers waiting.
  size_t size();

  // A queue shared by everything in the process that needs one.
  static TimerQueue& Default();

 private:
  void Loop();

  absl::Mutex mu_;
  // By deadline, then by id (ids grow, so equal deadlines fire in order).
  std::map<std::pair<absl::Time, Id>, absl::AnyInvocable<void()>> timers_ ABSL_GUARDED_BY(mu_);
  std::map<Id, absl::Time> when_ ABSL_GUARDED_BY(mu_);
  Id next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // The deadline the thread sleeps until; a new timer before it wakes it.
  absl::Time sleeping_until_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  absl::CondVar wake_;
  std::thread thread_;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_CORE_TIMER_QUEUE_H_
