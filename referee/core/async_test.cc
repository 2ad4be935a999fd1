// The referee's coroutine plumbing (async.h) and its timers (timer_queue.h).

#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "referee/core/async.h"
#include "referee/core/timer_queue.h"

namespace tarock {
namespace {

// Adds the values `start` hands over, `n` times.
DetachedTask<int> SumOf(int n, std::function<void(absl::AnyInvocable<void(int)>)> start) {
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += co_await Await<int>([&start](absl::AnyInvocable<void(int)> done) {
      start(std::move(done));
    });
  }
  co_return sum;
}

TEST(AsyncTest, InlineCompletionsRunOnTheCallersThreadWithoutRecursion) {
  // A million inline completions would overflow the stack if each resumed
  // the coroutine from inside the previous one.
  int result = 0;
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id finished_on;
  SumOf(1000000, [](absl::AnyInvocable<void(int)> done) { done(1); })
      .Start([&](int sum) {
        result = sum;
        finished_on = std::this_thread::get_id();
      });
  EXPECT_EQ(result, 1000000);
  EXPECT_EQ(finished_on, caller);
}

TEST(AsyncTest, CompletionsFromOtherThreadsResumeTheCoroutine) {
  std::vector<std::thread> threads;
  absl::Mutex mu;
  absl::Notification finished;
  int result = 0;
  {
    auto start = [&](absl::AnyInvocable<void(int)> done) {
      absl::MutexLock lock(&mu);
      threads.emplace_back([done = std::move(done)]() mutable {
        absl::SleepFor(absl::Microseconds(50));
        done(2);
      });
    };
    SumOf(50, start).Start([&](int sum) {
      result = sum;
      finished.Notify();
    });
  }
  ASSERT_TRUE(finished.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(result, 100);
  absl::MutexLock lock(&mu);
  for (std::thread& t : threads) t.join();
}

TEST(AsyncTest, RacingCompletionsAreEachSeenOnce) {
  // The completion races the suspension: either order must resume once.
  for (int round = 0; round < 2000; ++round) {
    absl::Notification finished;
    std::thread completer;
    int result = 0;
    SumOf(1, [&](absl::AnyInvocable<void(int)> done) {
      completer = std::thread([done = std::move(done)]() mutable { done(7); });
    }).Start([&](int sum) {
      result = sum;
      finished.Notify();
    });
    finished.WaitForNotification();
    completer.join();
    ASSERT_EQ(result, 7);
  }
}

TEST(TimerQueueTest, FiresInDeadlineOrder) {
  TimerQueue timers;
  absl::Mutex mu;
  std::vector<int> order;
  absl::Notification last;
  const absl::Time now = absl::Now();
  for (int i : {3, 1, 2}) {
    timers.Schedule(now + absl::Milliseconds(20 * i), [&, i] {
      absl::MutexLock lock(&mu);
      order.push_back(i);
      if (order.size() == 3) last.Notify();
    });
  }
  ASSERT_TRUE(last.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::MutexLock lock(&mu);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(TimerQueueTest, ACancelledTimerNeverFires) {
  TimerQueue timers;
  std::atomic<int> fired{0};
  TimerQueue::Id id = timers.Schedule(absl::Now() + absl::Milliseconds(50), [&] { ++fired; });
  EXPECT_TRUE(timers.Cancel(id));
  EXPECT_FALSE(timers.Cancel(id));
  EXPECT_EQ(timers.size(), 0u);
  absl::Notification later;
  timers.Schedule(absl::Now() + absl::Milliseconds(100), [&] { later.Notify(); });
  ASSERT_TRUE(later.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(fired.load(), 0);
}

TEST(TimerQueueTest, AnEarlierTimerWakesTheQueue) {
  TimerQueue timers;
  timers.Schedule(absl::Now() + absl::Hours(1), [] {});
  absl::Notification soon;
  const absl::Time start = absl::Now();
  timers.Schedule(absl::Now() + absl::Milliseconds(10), [&] { soon.Notify(); });
  ASSERT_TRUE(soon.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(timers.size(), 1u);  // the hour-long one; dropped unrun with the queue
}

}  // namespace
}  // namespace tarock
