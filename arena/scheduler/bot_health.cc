#include "arena/scheduler/bot_health.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"

namespace tarock::arena {

std::optional<int> UnreachableSeat(const absl::Status& status) {
  // "seat 2 (ghost) at 127.0.0.1:9 is unreachable: ..." (match_runner.cc).
  absl::string_view m = status.message();
  if (!absl::ConsumePrefix(&m, "seat ")) return std::nullopt;
  const size_t space = m.find(' ');
  int seat = 0;
  if (space == absl::string_view::npos || !absl::SimpleAtoi(m.substr(0, space), &seat) || seat < 0)
    return std::nullopt;
  if (m.find(" is unreachable") == absl::string_view::npos) return std::nullopt;
  return seat;
}

void BotHealth::Bench(BotHealthState& s, const std::string& state, const std::string& error,
                      absl::Time now) {
  if (s.state != state) s.since = now;
  s.state = state;
  s.probing = false;
  s.last_error = error.substr(0, 300);
  // 2 s, 4 s, 8 s, ... up to max_backoff.
  absl::Duration wait = options_.first_backoff;
  for (int i = 0; i < s.failures && wait < options_.max_backoff; ++i) wait *= 2;
  s.retry_at = now + std::min(wait, options_.max_backoff);
  ++s.failures;
}

void BotHealth::MarkUnreachable(int64_t bot, const std::string& error, absl::Time now) {
  absl::MutexLock lock(&mu_);
  Bench(bots_[bot], "unreachable", error, now);
}

void BotHealth::OnSeatFinished(int64_t bot, bool forfeited, int silent_faults, absl::Time now,
                               bool sealed) {
  absl::MutexLock lock(&mu_);
  BotHealthState& s = bots_[bot];
  if (forfeited || silent_faults >= options_.unresponsive_faults) {
    Bench(s, "unresponsive",
          forfeited ? "forfeited a match by not answering"
                    : "stopped answering in a match (" + std::to_string(silent_faults) +
                          " timeouts or disconnects)",
          now);
    return;
  }
  if (sealed) return;  // a benched bot's clean seat at a sealed table: a probe decides
  // Online since it entered the state: a clean seat of a bot online already
  // changes nothing public (when it ended would tell when its table did,
  // which is sealed with its deal: docs/security.md, "Secret deals").
  const absl::Time since = s.benched() ? now : s.since;
  s = BotHealthState{};
  s.since = since;
}

void BotHealth::OnProbe(int64_t bot, const absl::Status& result, absl::Time now) {
  absl::MutexLock lock(&mu_);
  BotHealthState& s = bots_[bot];
  if (result.ok()) {
    s = BotHealthState{};
    s.since = now;
    return;
  }
  Bench(s, s.benched() ? s.state : "unreachable", std::string(result.message()), now);
}

bool BotHealth::Benched(int64_t bot) {
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(bot);
  return it != bots_.end() && it->second.benched();
}

std::vector<int64_t> BotHealth::DueForProbe(absl::Time now) {
  absl::MutexLock lock(&mu_);
  std::vector<int64_t> out;
  for (auto& [bot, s] : bots_) {
    if (!s.benched() || s.retry_at > now) continue;
    out.push_back(bot);
    s.retry_at = now + absl::Minutes(1);  // in flight; OnProbe sets the next
    s.probing = true;
  }
  return out;
}

void BotHealth::Expedite(int64_t bot, absl::Time at) {
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(bot);
  if (it == bots_.end() || !it->second.benched() || it->second.probing) return;
  it->second.retry_at = std::min(it->second.retry_at, at);
}

BotHealthState BotHealth::Of(int64_t bot) {
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(bot);
  return it == bots_.end() ? BotHealthState{} : it->second;
}

}  // namespace tarock::arena
