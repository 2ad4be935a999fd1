// Duplicate set designs: see duplicate_design.h.

#include "arena/scheduler/duplicate_design.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "referee/engine/random.h"

namespace tarock::arena {

absl::StatusOr<LadderFormat> ParseLadderFormat(std::string_view name) {
  if (name == "match") return LadderFormat::kMatch;
  if (name == "duplicate") return LadderFormat::kDuplicate;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ladder format '", std::string(name), "' (valid: match, duplicate)"));
}

std::string LadderFormatName(LadderFormat format) {
  return format == LadderFormat::kDuplicate ? "duplicate" : "match";
}

std::string SetDesignName(SetDesign design) {
  return design == SetDesign::kRotated ? "rotated" : "bridge";
}

SetDesign ChooseSetDesign(bool every_bot_hosted, int machines_per_bot, int seats) {
  return every_bot_hosted && seats >= 2 && machines_per_bot >= seats ? SetDesign::kRotated
                                                                       : SetDesign::kBridge;
}

TournamentDealPlan PlanTournamentDeals(const std::vector<std::vector<int>>& groups,
                                       const std::vector<bool>& hosted, int seats,
                                       int machines_per_bot) {
  TournamentDealPlan plan;
  plan.deals.assign(groups.size(), GroupDeals::kRotated);
  plan.partner.assign(groups.size(), -1);
  std::vector<size_t> candidates;  // groups that may not rotate, in order
  for (size_t g = 0; g < groups.size(); ++g) {
    const bool any_hosted = std::any_of(groups[g].begin(), groups[g].end(), [&](int i) {
      return i >= 0 && static_cast<size_t>(i) < hosted.size() && hosted[i];
    });
    if (any_hosted && machines_per_bot < seats) {
      plan.deals[g] = GroupDeals::kFresh;
      candidates.push_back(g);
    }
  }
  auto disjoint = [&](size_t a, size_t b) {
    for (int x : groups[a])
      if (std::find(groups[b].begin(), groups[b].end(), x) != groups[b].end()) return false;
    return true;
  };
  for (size_t i = 0; i < candidates.size(); ++i) {
    const size_t g = candidates[i];
    if (plan.partner[g] >= 0) continue;
    for (size_t j = i + 1; j < candidates.size(); ++j) {
      const size_t h = candidates[j];
      if (plan.partner[h] >= 0 || !disjoint(g, h)) continue;
      plan.partner[g] = static_cast<int>(h);
      plan.partner[h] = static_cast<int>(g);
      plan.deals[g] = plan.deals[h] = GroupDeals::kBridged;
      break;
    }
  }
  return plan;
}

int BotsPerSet(SetDesign design, int seats) {
  return design == SetDesign::kBridge ? 2 * seats : seats;
}

absl::StatusOr<DuplicateDesign> RotatedDesign(int num_bots, int seats) {
  if (seats < 2 || num_bots != seats)
    return absl::InvalidArgumentError(absl::StrCat("a rotated set of ", seats,
                                                   " seats needs ", seats, " bots, got ",
                                                   num_bots));
  DuplicateDesign out;
  for (int t = 0; t < seats; ++t) {
    std::vector<int> table(seats);
    for (int s = 0; s < seats; ++s) table[s] = (s + t) % seats;
    out.tables.push_back(std::move(table));
  }
  return out;
}

absl::StatusOr<DuplicateDesign> BridgeDesign(int num_bots, int seats, uint64_t seat_shuffle) {
  if (seats < 2 || num_bots < 2 * seats || num_bots % seats != 0)
    return absl::InvalidArgumentError(
        absl::StrCat("a bridge set of ", seats, " seats needs a multiple of ", seats,
                     " bots, at least ", 2 * seats, ", got ", num_bots));
  const int k = num_bots / seats;
  // Which seat group g holds.
  std::vector<int> seat_of(seats);
  std::iota(seat_of.begin(), seat_of.end(), 0);
  if (seat_shuffle != 0) {
    Rng rng(seat_shuffle);
    for (int i = seats - 1; i > 0; --i) std::swap(seat_of[i], seat_of[rng.Below(i + 1)]);
  }
  DuplicateDesign out;
  out.tables.assign(k, std::vector<int>(seats, -1));
  for (int g = 0; g < seats; ++g)
    for (int j = 0; j < k; ++j) {
      const int table = g % 2 == 0 ? j : k - 1 - j;  // snake
      out.tables[table][seat_of[g]] = g * k + j;
    }
  return out;
}

absl::StatusOr<DuplicateSet> SetFromTables(
    const std::vector<std::vector<int64_t>>& table_bots,
    const std::vector<std::vector<std::vector<int>>>& hand_scores, int num_hands,
    const std::function<bool(int hand, int seat)>& sits_out) {
  if (table_bots.empty() || table_bots.size() != hand_scores.size() || num_hands < 0)
    return absl::InvalidArgumentError("a set needs tables, each with its hand scores");
  DuplicateSet out;
  for (size_t t = 0; t < table_bots.size(); ++t) {
    const size_t seats = table_bots[t].size();
    if (seats != table_bots[0].size() || hand_scores[t].size() != seats)
      return absl::InvalidArgumentError(
          absl::StrCat("table ", t, " has ", seats, " seats and ", hand_scores[t].size(),
                       " seats of scores; table 0 has ", table_bots[0].size(), " seats"));
    DuplicateTable table;
    table.bots = table_bots[t];
    for (int h = 0; h < num_hands; ++h) {
      std::vector<std::optional<double>> row(seats);
      for (size_t s = 0; s < seats; ++s)
        if (h < static_cast<int>(hand_scores[t][s].size()) && !sits_out(h, static_cast<int>(s)))
          row[s] = hand_scores[t][s][h];
      table.scores.push_back(std::move(row));
    }
    out.tables.push_back(std::move(table));
  }
  return out;
}

}  // namespace tarock::arena
