// Scheduler: hosted bots (docs/hosting.md). Each seat a host played names the
// version in its Hello ("hosted:vID sha256:..."); the seat records it when it
// is a version of the seat's own bot (a bot cannot claim another's).

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "arena/scheduler/scheduler.h"

#include <algorithm>

#include "arena/scheduler/bot_health.h"
#include "nlohmann/json.hpp"

namespace tarock::arena {

int64_t HostedVersionOfHello(const std::string& hello_version) {
  absl::string_view v = hello_version;
  if (!absl::ConsumePrefix(&v, "hosted:v")) return 0;
  v = v.substr(0, v.find(' '));
  int64_t id = 0;
  return absl::SimpleAtoi(v, &id) && id > 0 ? id : 0;
}

void Scheduler::RecordHostedVersions(const v1::MatchFinished& finished,
                                     const std::vector<int>& unhosted, MatchResultRow* result) {
  if (!hosted_versions_) return;
  for (SeatRow& seat : result->seats) {
    if (seat.seat < 0 || seat.seat >= finished.seats_size()) continue;
    // A seat its owner's own connection played (some of): the Hello's
    // version is the owner's word, not a host's.
    if (std::find(unhosted.begin(), unhosted.end(), seat.seat) != unhosted.end()) continue;
    const int64_t id = HostedVersionOfHello(finished.seats(seat.seat).hello_version());
    if (id > 0 && hosted_versions_(id, seat.bot_id)) seat.version_id = id;
  }
}

bool IsAwayFault(const std::string& kind, const std::string& detail) {
  if (kind == "timeout") return true;
  return kind == "disconnect" &&
         (absl::StartsWith(detail, "not connected") || absl::StartsWith(detail, "the dial-in bot"));
}

std::string Scheduler::HostLostSeats(const Job& job, const std::vector<int>& dial_in,
                                     const v1::MatchFinished& finished) {
  if (dial_in_ == nullptr) return "";
  // The record is read only when a dial-in seat has faults (most matches: none).
  std::optional<nlohmann::json> record;
  std::vector<int> gone;
  std::string stalled;
  for (int s : dial_in) {
    const bool lost = dial_in_->TakeHostLost(job.match.id, s);
    if (s < finished.seats_size() && finished.seats(s).faults() == 0) continue;  // nothing missed
    if (!record) record = nlohmann::json::parse(finished.record_json(), nullptr, false);
    bool away = false;
    std::vector<std::pair<int, int>> timeouts;  // (hand_index, action_index)
    if (record->is_object())
      if (auto f = record->find("faults"); f != record->end() && f->is_array())
        for (const nlohmann::json& fault : *f) {
          if (!fault.is_object() || fault.value("seat", -1) != s) continue;
          const std::string kind = fault.value("kind", std::string());
          if (IsAwayFault(kind, fault.value("detail", std::string()))) away = true;
          if (kind == "timeout")
            timeouts.emplace_back(fault.value("hand_index", -1), fault.value("action_index", -1));
        }
    if (lost) {
      if (away) gone.push_back(s);  // else back in time (resumed): nothing missed
      continue;
    }
    // The host stayed connected: were the timeouts its bot's? Its account
    // lists the decisions the bot itself was slow on.
    if (timeouts.empty() || !seat_accounts_ || s >= static_cast<int>(job.match.bot_ids.size()))
      continue;
    absl::StatusOr<BotRow> bot = store_->BotById(job.match.bot_ids[s]);
    if (!bot.ok() || bot->endpoint != kHostedEndpoint) continue;
    std::optional<std::vector<std::pair<int, int>>> slow;
    const absl::Time deadline = absl::Now() + seat_account_wait_;
    while (!slow && !cancel_.load() && absl::Now() < deadline)
      slow = seat_accounts_(job.match.id, s, std::min(deadline, absl::Now() + absl::Milliseconds(200)));
    std::string why;
    if (!slow) {
      why = cancel_.load() ? std::string("sent no account of its decisions before the arena stopped")
                           : absl::StrCat("sent no account of its decisions within ",
                                          absl::ToInt64Seconds(seat_account_wait_), " s");
    } else {
      int excused = 0;
      for (const auto& t : timeouts)
        if (std::find(slow->begin(), slow->end(), t) == slow->end()) ++excused;
      if (excused == 0) continue;  // every timeout was the bot's own
      why = absl::StrCat("stalled: ", excused, " of the seat's ", timeouts.size(),
                         " timeouts were on decisions its bot answered in half its time or "
                         "never received");
    }
    absl::StrAppend(&stalled, stalled.empty() ? "" : "; ", "the bot host of seat ", s, " (",
                    job.spec.seats(s).name(), ") ", why);
  }
  std::string out;
  for (int s : gone)
    absl::StrAppend(&out, out.empty() ? "" : ", ", "seat ", s, " (", job.spec.seats(s).name(), ")");
  if (!out.empty()) out = absl::StrCat("the bot host of ", out, " was gone for a whole decision");
  if (!stalled.empty()) absl::StrAppend(&out, out.empty() ? "" : "; ", stalled);
  return out;
}

std::string Scheduler::HostLostUnreachable(const Job& job, const std::vector<int>& dial_in,
                                           const absl::Status& status) {
  if (dial_in_ == nullptr) return "";
  const std::optional<int> seat = UnreachableSeat(status);
  if (!seat || std::find(dial_in.begin(), dial_in.end(), *seat) == dial_in.end()) return "";
  const std::string who = absl::StrCat("the bot host of seat ", *seat, " (",
                                       job.spec.seats(*seat).name(), ") ");
  if (dial_in_->TakeHostLost(job.match.id, *seat))
    return absl::StrCat(who, "was gone when the seat was to be joined");
  // Connected, yet the seat was not joined: the host's doing, not the
  // program's (the host joins with the ticket before the program sees
  // anything). A dial-in bot's own process is its owner's business.
  if (*seat >= static_cast<int>(job.match.bot_ids.size())) return "";
  absl::StatusOr<BotRow> bot = store_->BotById(job.match.bot_ids[*seat]);
  if (!bot.ok() || bot->endpoint != kHostedEndpoint) return "";
  return absl::StrCat(who, "did not join the seat in time");
}

bool Scheduler::AwaitDialInBack(const Job& job, const std::vector<int>& dial_in) {
  const absl::Time deadline = absl::Now() + dial_in_wait_;
  for (int s : dial_in) {
    const int64_t bot = s < static_cast<int>(job.match.bot_ids.size()) ? job.match.bot_ids[s] : 0;
    while (!cancel_.load() && !dial_in_->Online(bot) && absl::Now() < deadline)
      dial_in_->AwaitOnline(bot, std::min(deadline, absl::Now() + absl::Milliseconds(200)));
    if (cancel_.load() || !dial_in_->Online(bot)) return false;
  }
  return true;
}

}  // namespace tarock::arena
