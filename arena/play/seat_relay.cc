#include "arena/play/seat_relay.h"

#include "absl/strings/str_cat.h"

namespace tarock::arena::play {

absl::Status SeatRelay::Register(const std::string& match_id, int seat,
                                 std::shared_ptr<SeatConsumer> consumer) {
  absl::MutexLock lock(&mu_);
  auto [it, added] = consumers_.emplace(Key{match_id, seat}, std::move(consumer));
  if (!added)
    return absl::AlreadyExistsError(
        absl::StrCat("seat ", seat, " of match ", match_id, " is already relayed"));
  return absl::OkStatus();
}

void SeatRelay::Unregister(const std::string& match_id, int seat) {
  absl::MutexLock lock(&mu_);
  consumers_.erase(Key{match_id, seat});
}

bool SeatRelay::Registered(const std::string& match_id, int seat) {
  absl::MutexLock lock(&mu_);
  return consumers_.count(Key{match_id, seat}) > 0;
}

absl::StatusOr<std::shared_ptr<SeatConsumer>> SeatRelay::Attach(
    const v1::RefereeMessage& first, std::shared_ptr<RefereeLink> link) {
  if (!first.has_match_start())
    return absl::InvalidArgumentError("the first message of a Bot stream must be MatchStart");
  const v1::MatchStart& start = first.match_start();
  std::shared_ptr<SeatConsumer> consumer;
  {
    absl::MutexLock lock(&mu_);
    auto it = consumers_.find(Key{start.match_id(), start.seat()});
    if (it != consumers_.end()) consumer = it->second;
  }
  if (!consumer)
    return absl::NotFoundError(absl::StrCat("nobody holds seat ", start.seat(), " of match '",
                                            start.match_id(), "' at this arena"));
  consumer->OnAttach(std::move(link));
  consumer->OnMessage(first);
  return consumer;
}

}  // namespace tarock::arena::play
