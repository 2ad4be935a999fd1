#include "referee/core/match_interrupt.h"

#include <utility>

namespace tarock {

void MatchInterrupt::Interrupt(const std::string& why) {
  absl::MutexLock lock(&mu_);
  if (interrupted_.exchange(true)) return;
  why_ = why;
  for (BotConnection* seat : seats_) seat->Interrupt();
}

std::string MatchInterrupt::why() const {
  absl::MutexLock lock(&mu_);
  return why_;
}

void MatchInterrupt::Attach(std::vector<BotConnection*> seats) {
  absl::MutexLock lock(&mu_);
  seats_ = std::move(seats);
  if (interrupted_.load())
    for (BotConnection* seat : seats_) seat->Interrupt();
}

void MatchInterrupt::Detach() {
  absl::MutexLock lock(&mu_);
  seats_.clear();
}

}  // namespace tarock
