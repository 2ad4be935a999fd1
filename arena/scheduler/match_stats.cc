#include "arena/scheduler/match_stats.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "referee/engine/record.h"

namespace tarock::arena {

void AddSeatStats(const v1::MatchFinished& finished, MatchResultRow* result) {
  const int n = static_cast<int>(result->seats.size());
  for (int s = 0; s < n && s < finished.seats_size(); ++s) {
    SeatRow& seat = result->seats[s];
    seat.decisions = finished.seats(s).decisions();
    seat.decision_ms = finished.seats(s).mean_decision_ms() * finished.seats(s).decisions();
  }
  using json = nlohmann::json;
  json record = json::parse(finished.record_json(), nullptr, false);
  if (!record.is_object()) return;
  std::vector<std::map<std::string, int>> kinds(n);
  if (const auto f = record.find("faults"); f != record.end() && f->is_array()) {
    for (const json& fault : *f) {
      const int s = fault.value("seat", -1);
      if (s >= 0 && s < n) ++kinds[s][fault.value("kind", std::string("unknown"))];
    }
  }
  for (int s = 0; s < n; ++s) {
    std::string text;
    for (const auto& [kind, count] : kinds[s]) absl::StrAppend(&text, text.empty() ? "" : ",", kind, ":", count);
    result->seats[s].fault_kinds = text;
  }
  const auto deals = record.find("deals");
  if (deals == record.end() || !deals->is_array()) return;
  for (const json& deal : *deals) {
    if (deal.value("redeal", false)) continue;
    absl::StatusOr<HandRecord> hand = ParseHandRecord(deal.dump());
    if (!hand.ok()) continue;
    absl::StatusOr<Replay> replay = ReplayRecord(*hand);
    if (!replay.ok() || !replay->state->IsTerminal()) continue;
    const HandResult r = replay->state->Result();
    if (r.redeal || r.declarer < 0) continue;
    for (int s = 0; s < n && s < static_cast<int>(r.scores.size()); ++s) {
      SeatRow& seat = result->seats[s];
      if (s == r.declarer || s == r.partner) {
        ++seat.declarer_hands;
        seat.declarer_won += r.declarer_won ? 1 : 0;
        seat.declarer_score += r.scores[s];
      } else {
        ++seat.defender_hands;
        seat.defender_won += r.declarer_won ? 0 : 1;
        seat.defender_score += r.scores[s];
      }
    }
  }
}

}  // namespace tarock::arena
