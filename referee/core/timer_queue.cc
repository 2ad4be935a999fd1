#include "referee/core/timer_queue.h"

namespace tarock {

TimerQueue::TimerQueue() : thread_([this] { Loop(); }) {}

TimerQueue::~TimerQueue() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.Signal();
  }
  thread_.join();
}

TimerQueue::Id TimerQueue::Schedule(absl::Time when, absl::AnyInvocable<void()> fn) {
  absl::MutexLock lock(&mu_);
  const Id id = next_id_++;
  timers_.emplace(std::make_pair(when, id), std::move(fn));
  when_.emplace(id, when);
  if (when < sleeping_until_) wake_.Signal();
  return id;
}

bool TimerQueue::Cancel(Id id) {
  absl::AnyInvocable<void()> dropped;  // destroyed outside the lock
  absl::MutexLock lock(&mu_);
  auto it = when_.find(id);
  if (it == when_.end()) return false;
  auto timer = timers_.find(std::make_pair(it->second, id));
  dropped = std::move(timer->second);
  timers_.erase(timer);
  when_.erase(it);
  return true;
}

size_t TimerQueue::size() {
  absl::MutexLock lock(&mu_);
  return timers_.size();
}

void TimerQueue::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const absl::Time now = absl::Now();
    if (!timers_.empty() && timers_.begin()->first.first <= now) {
      auto first = timers_.begin();
      absl::AnyInvocable<void()> fn = std::move(first->second);
      when_.erase(first->first.second);
      timers_.erase(first);
      mu_.Unlock();
      fn();
      fn = nullptr;  // whatever it holds is released outside the lock too
      mu_.Lock();
      continue;
    }
    sleeping_until_ = timers_.empty() ? absl::InfiniteFuture() : timers_.begin()->first.first;
    wake_.WaitWithDeadline(&mu_, sleeping_until_);
    sleeping_until_ = absl::InfinitePast();  // awake: no need to signal
  }
}

TimerQueue& TimerQueue::Default() {
  static TimerQueue* queue = new TimerQueue();
  return *queue;
}

}  // namespace tarock
