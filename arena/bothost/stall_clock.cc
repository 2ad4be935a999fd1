#include "arena/bothost/stall_clock.h"

#include <algorithm>

namespace tarock::bothost {

StallClock::StallClock(absl::Duration period, absl::Duration tolerance)
    : period_(period), tolerance_(tolerance), last_tick_(absl::Now()) {
  ticker_ = std::thread([this] { Run(); });
}

StallClock::~StallClock() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  ticker_.join();
}

absl::Duration StallClock::Stalled() const {
  absl::MutexLock lock(&mu_);
  const absl::Duration going_on = absl::Now() - last_tick_ - period_ - tolerance_;
  return stalled_ + std::max(absl::ZeroDuration(), going_on);
}

void StallClock::Run() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    // Sleeps `period` (or until stopped); the lock is released meanwhile.
    mu_.AwaitWithTimeout(absl::Condition(&stop_), period_);
    const absl::Time now = absl::Now();
    stalled_ += std::max(absl::ZeroDuration(), now - last_tick_ - period_ - tolerance_);
    last_tick_ = now;
  }
}

}  // namespace tarock::bothost
