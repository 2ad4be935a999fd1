#include "arena/play/seat_relay.h"

#include "absl/strings/str_cat.h"

namespace tarock::arena::play {
namespace {

bool ConstantTimeEquals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

absl::Status SeatRelay::Register(const std::string& match_id, int seat,
                                 std::shared_ptr<SeatConsumer> consumer) {
  absl::MutexLock lock(&mu_);
  Entry entry;
  entry.consumer = std::move(consumer);
  auto [it, added] = consumers_.emplace(Key{match_id, seat}, std::move(entry));
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

absl::Status SeatRelay::Authorize(const std::string& match_id, int seat,
                                  const std::string& capability) {
  if (capability.size() < 32)
    return absl::InvalidArgumentError("a seat capability has at least 32 characters");
  absl::MutexLock lock(&mu_);
  auto it = consumers_.find(Key{match_id, seat});
  if (it == consumers_.end())
    return absl::NotFoundError(absl::StrCat("nobody holds seat ", seat, " of match ", match_id));
  it->second.capability = capability;
  it->second.used = false;
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<SeatConsumer>> SeatRelay::Attach(
    const v1::RefereeMessage& first, const std::string& capability,
    std::shared_ptr<RefereeLink> link) {
  if (!first.has_match_start())
    return absl::InvalidArgumentError("the first message of a Bot stream must be MatchStart");
  const v1::MatchStart& start = first.match_start();
  std::shared_ptr<SeatConsumer> consumer;
  std::shared_ptr<RefereeLink> earlier;
  {
    absl::MutexLock lock(&mu_);
    auto it = consumers_.find(Key{start.match_id(), start.seat()});
    if (it == consumers_.end())
      return absl::NotFoundError(absl::StrCat("nobody holds seat ", start.seat(), " of match '",
                                              start.match_id(), "' at this arena"));
    Entry& e = it->second;
    if (e.capability.empty() || !ConstantTimeEquals(e.capability, capability))
      return absl::PermissionDeniedError(
          absl::StrCat("seat ", start.seat(), " of match '", start.match_id(),
                       "' is opened only by the referee that runs it"));
    if (e.used)
      return absl::AlreadyExistsError(absl::StrCat("seat ", start.seat(), " of match '",
                                                   start.match_id(), "' is already open"));
    e.used = true;
    earlier = e.attached.lock();  // an earlier attempt's stream, still open
    e.attached = link;
    consumer = e.consumer;
  }
  if (earlier) earlier->Revoke();
  consumer->OnAttach(std::move(link));
  consumer->OnMessage(first);
  return consumer;
}

}  // namespace tarock::arena::play
