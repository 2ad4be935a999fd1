// Scheduler: seats of bots that dial in, and the relay's capabilities.

#include "arena/scheduler/scheduler.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "arena/scheduler/scheduler_internal.h"
#include "referee/net/secure_random.h"

namespace tarock::arena {

// ---------------------------------------------------------------------------
// Bots that dial in (docs/dial-in.md).

void Scheduler::SetDialIn(DialInSeats* seats, std::string relay_endpoint, absl::Duration wait) {
  dial_in_ = seats;
  relay_endpoint_ = std::move(relay_endpoint);
  dial_in_wait_ = wait;
}

absl::Status Scheduler::PrepareDialIn(Job& job, std::vector<int>* prepared) {
  for (int s = 0; s < job.spec.seats_size(); ++s) {
    v1::SeatSpec* seat = job.spec.mutable_seats(s);
    if (!ThroughGateway(seat->endpoint())) continue;
    if (dial_in_ == nullptr)
      return absl::FailedPreconditionError("this arena has no gateway for dial-in bots");
    const int64_t bot = s < static_cast<int>(job.match.bot_ids.size()) ? job.match.bot_ids[s] : 0;
    // An event's final does not wait for a bot that dropped out of it: its
    // seat is prepared all the same and played by the fallback while it is
    // away (the hub answers Absent), so the others keep every deal the
    // design gives them; a bot that comes back plays on (docs/events.md).
    const bool final_seat = job.match.kind == "tournament" && job.match.event_id != 0;
    if (!final_seat && !dial_in_->Online(bot)) {
      // A table of a sealed deal is not named (its twins waiting for the same
      // bot say it once): which of its tables wait (after a referee failed,
      // say) would tell which had ended (docs/security.md, "Secret deals").
      {
        absl::MutexLock lock(&mu_);
        waiting_[job.match.id] = absl::StrCat(
            job.spec.withhold_hand_records() ? "a table of a sealed deal" : job.match.id, ": ",
            seat->name());
      }
      std::fprintf(stderr, "tarock-arena: match %s waits up to %lld s for dial-in bot '%s'\n",
                   job.match.id.c_str(),
                   static_cast<long long>(absl::ToInt64Seconds(dial_in_wait_)), seat->name().c_str());
      const absl::Time deadline = absl::Now() + dial_in_wait_;
      while (!cancel_.load() && absl::Now() < deadline &&
             !dial_in_->AwaitOnline(bot, std::min(deadline, absl::Now() + absl::Milliseconds(200)))) {
      }
      absl::MutexLock lock(&mu_);
      waiting_.erase(job.match.id);
    }
    if (cancel_.load()) return absl::CancelledError("the arena is stopping");
    if (!final_seat && !dial_in_->Online(bot))
      return absl::FailedPreconditionError(absl::StrCat(
          "dial-in bot '", seat->name(), "' did not connect within ",
          absl::ToInt64Seconds(dial_in_wait_), " s"));
    if (absl::Status st = dial_in_->Prepare(job.match.id, s, bot, seat->name()); !st.ok()) return st;
    prepared->push_back(s);
    seat->set_endpoint(relay_endpoint_);
  }
  return absl::OkStatus();
}

void Scheduler::SetDirectDialIn(std::map<std::string, std::string> bot_addresses,
                                absl::Duration join_wait) {
  direct_dial_in_ = true;
  referee_bot_addresses_ = std::move(bot_addresses);
  dial_in_join_wait_ = join_wait;
}

void Scheduler::RouteDialIn(Job& job, const std::vector<int>& prepared, const std::string& referee,
                            int32_t connect_timeout_ms) {
  job.spec.set_connect_timeout_ms(connect_timeout_ms);
  bool falls_back = false;  // a seat waits for its join before the relay
  for (int s : prepared) {
    v1::SeatSpec* seat = job.spec.mutable_seats(s);
    seat->clear_dial_in_ticket();
    seat->clear_dial_in_join_wait_ms();
    if (!direct_dial_in_) continue;
    const int64_t bot = s < static_cast<int>(job.match.bot_ids.size()) ? job.match.bot_ids[s] : 0;
    if (!dial_in_->CanJoinReferee(bot)) continue;  // an older SDK: relayed
    auto mapped = referee_bot_addresses_.find(referee);
    const std::string& address = mapped != referee_bot_addresses_.end() ? mapped->second : referee;
    absl::StatusOr<std::string> ticket = NewToken();
    if (!ticket.ok()) continue;  // no ticket: the seat stays relayed
    if (dial_in_->RouteToReferee(job.match.id, s, address, *ticket).ok()) {
      seat->set_dial_in_ticket(*ticket);
      // The seat's endpoint stays the relay: the referee's fallback.
      seat->set_dial_in_join_wait_ms(
          static_cast<int32_t>(absl::ToInt64Milliseconds(dial_in_join_wait_)));
      if (seat->dial_in_join_wait_ms() > 0) falls_back = true;
    }
  }
  // The referee's connect deadline bounds the join wait too: without this a
  // ladder (connect 3 s) with the default wait (3 s) never fell back.
  if (falls_back && connect_timeout_ms > 0)
    job.spec.set_connect_timeout_ms(static_cast<int32_t>(std::min<int64_t>(
        INT32_MAX, int64_t{connect_timeout_ms} + absl::ToInt64Milliseconds(dial_in_join_wait_))));
}

absl::Status Scheduler::AuthorizeRelayedSeats(Job& job, const std::vector<int>& relayed) {
  for (int s : relayed) {
    if (relay_gate_ == nullptr)
      return absl::FailedPreconditionError("this arena has no seat relay for relayed seats");
    absl::StatusOr<std::string> capability = net::SecureRandomHex(32);
    if (!capability.ok()) return capability.status();
    if (absl::Status st = relay_gate_->Authorize(job.match.id, s, *capability); !st.ok()) return st;
    job.spec.mutable_seats(s)->set_referee_proof(*capability);
  }
  return absl::OkStatus();
}

void Scheduler::ReleaseDialIn(const std::string& match_id, const std::vector<int>& prepared) {
  for (int s : prepared) dial_in_->Release(match_id, s);
}

}  // namespace tarock::arena
