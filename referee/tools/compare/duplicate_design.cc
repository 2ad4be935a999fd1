#include "referee/tools/compare/duplicate_design.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace tarock {

std::vector<Seating> HeadToHeadSeatings(int n) {
  std::set<Seating> seen;
  std::vector<Seating> out;
  for (int complement = 0; complement < 2; ++complement) {
    for (int r = 0; r < n; ++r) {
      Seating s(n);
      for (int i = 0; i < n; ++i) {
        const bool candidate = ((((i + r) % n) % 2) == 0) != (complement == 1);
        s[i] = candidate ? kCandidate : kBaseline;
      }
      if (seen.insert(s).second) out.push_back(s);
    }
  }
  return out;
}

std::vector<Seating> OpponentSeatings(int n, int num_opponents) {
  std::vector<Seating> out;
  for (int seat = 0; seat < n; ++seat) {
    for (int role : {kCandidate, kBaseline}) {
      Seating s(n);
      s[seat] = role;
      for (int j = 0; j + 1 < n; ++j) s[(seat + 1 + j) % n] = j % num_opponents;
      out.push_back(s);
    }
  }
  return out;
}

std::string SeatingName(const Seating& seating) {
  std::string out;
  for (int r : seating) {
    if (r == kCandidate) out += 'C';
    else if (r == kBaseline) out += 'B';
    else out += r < 10 ? static_cast<char>('0' + r) : '+';
  }
  return out;
}

absl::StatusOr<std::vector<PlayedHand>> HandsOfRecord(const std::string& record_json) {
  nlohmann::json record = nlohmann::json::parse(record_json, nullptr, false);
  if (record.is_discarded() || !record.contains("deals") || !record["deals"].is_array())
    return absl::InternalError("the match record has no deals");
  std::vector<PlayedHand> out;
  for (const nlohmann::json& deal : record["deals"]) {
    if (deal.value("redeal", false) && !deal.value("counts_as_hand", false)) continue;
    if (!deal.contains("scores") || !deal["scores"].is_array())
      return absl::InternalError("a deal of the match record has no scores");
    PlayedHand h;
    h.hand_index = deal.value("hand_index", static_cast<int>(out.size()));
    for (const nlohmann::json& s : deal["scores"]) h.scores.push_back(s.get<int64_t>());
    h.sits_out.assign(h.scores.size(), false);
    // A record that carries the deck (westfest's) has empty hands because the
    // deal is part of the hand: nobody sits out there.
    const bool has_deck = deal.contains("deck") && !deal["deck"].empty();
    if (!has_deck && deal.contains("hands") && deal["hands"].is_array()) {
      for (size_t s = 0; s < h.scores.size() && s < deal["hands"].size(); ++s)
        h.sits_out[s] = deal["hands"][s].empty();
    }
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<double> BlockDifferences(const std::vector<Seating>& seatings,
                                     const std::vector<std::vector<PlayedHand>>& hands,
                                     int hands_per_block) {
  std::vector<double> out;
  for (int h = 0; h < hands_per_block; ++h) {
    double sum_c = 0, sum_b = 0;
    int cnt_c = 0, cnt_b = 0;
    bool complete = true;
    for (size_t si = 0; si < seatings.size() && si < hands.size(); ++si) {
      const PlayedHand* hand = nullptr;
      for (const PlayedHand& p : hands[si])
        if (p.hand_index == h) hand = &p;
      if (hand == nullptr) {
        complete = false;
        break;
      }
      for (size_t seat = 0; seat < seatings[si].size() && seat < hand->scores.size(); ++seat) {
        if (hand->sits_out[seat]) continue;
        if (seatings[si][seat] == kCandidate) {
          sum_c += static_cast<double>(hand->scores[seat]);
          ++cnt_c;
        } else if (seatings[si][seat] == kBaseline) {
          sum_b += static_cast<double>(hand->scores[seat]);
          ++cnt_b;
        }
      }
    }
    if (!complete || hands.size() < seatings.size() || cnt_c == 0 || cnt_b == 0) continue;
    out.push_back(sum_c / cnt_c - sum_b / cnt_b);
  }
  return out;
}

}  // namespace tarock
