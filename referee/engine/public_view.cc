#include "referee/engine/public_view.h"

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

namespace tarock {

Observation PublicView(const State& state) {
  const int n = state.game().num_seats();
  std::vector<Observation> seen;
  seen.reserve(n);
  for (int s = 0; s < n; ++s) seen.push_back(state.Observe(s));
  const Observation& first = seen[0];
  Observation out;
  out.variant = first.variant;
  out.seat = -1;
  out.num_seats = first.num_seats;
  out.dealer = first.dealer;
  out.phase = first.phase;
  out.to_act = first.to_act;
  out.radli = first.radli;
  out.trick_leader = first.trick_leader;
  out.tricks_won = first.tricks_won;
  out.trick = first.trick;
  auto all_agree = [&](auto field) {
    for (int s = 1; s < n; ++s)
      if (!(field(seen[s]) == field(first))) return false;
    return true;
  };
  // Fields every seat must see alike; if one does not (it never should), the
  // field stays unknown rather than showing one seat's view.
  if (all_agree([](const Observation& o) { return o.declarer; })) out.declarer = first.declarer;
  if (all_agree([](const Observation& o) { return o.contract; })) out.contract = first.contract;
  if (all_agree([](const Observation& o) { return o.called_king; })) out.called_king = first.called_king;
  if (all_agree([](const Observation& o) { return o.partner; })) out.partner = first.partner;
  if (!all_agree([](const Observation& o) { return o.trick; })) out.trick.clear();
  // Actions: the text all seats see, else the one every seat but the actor
  // sees, else only the verb.
  size_t actions = first.history.size();
  for (const Observation& o : seen) actions = std::min(actions, o.history.size());
  for (size_t i = 0; i < actions; ++i) {
    const int actor = first.history[i].first;
    std::string text;
    bool agreed = true;
    bool have = false;
    for (int s = 0; s < n; ++s) {
      if (s == actor && n > 1) continue;
      const std::string& t = seen[s].history[i].second;
      if (!have) {
        text = t;
        have = true;
      } else if (t != text) {
        agreed = false;
      }
    }
    if (!agreed) text = text.substr(0, text.find(' ')) + " ?";
    out.history.emplace_back(actor, std::move(text));
  }
  // The talon: a card only where every seat sees it.
  out.talon = first.talon;
  for (size_t i = 0; i < out.talon.size(); ++i)
    for (int s = 1; s < n; ++s)
      if (i >= seen[s].talon.size() || seen[s].talon[i] != out.talon[i]) out.talon[i] = "?";
  // Shown cards: those every seat sees shown.
  out.shown = first.shown;
  for (size_t p = 0; p < out.shown.size(); ++p)
    for (int s = 1; s < n; ++s)
      out.shown[p] = p < seen[s].shown.size() ? (out.shown[p] & seen[s].shown[p]) : CardSet();
  return out;
}

std::string PublicViewToJson(const Observation& view, bool with_history) {
  // Built directly (not through ObservationToJson and a parse): the referee
  // makes one per action of a match with spectators.
  using nlohmann::json;
  auto cards = [](CardSet s) {
    json a = json::array();
    for (Card c : s) a.push_back(CardName(c));
    return a;
  };
  json j;
  j["variant"] = view.variant;
  j["num_seats"] = view.num_seats;
  j["dealer"] = view.dealer;
  j["phase"] = view.phase;
  j["to_act"] = view.to_act;
  if (with_history) {
    json history = json::array();
    for (const auto& [seat, action] : view.history) history.push_back({{"seat", seat}, {"action", action}});
    j["history"] = std::move(history);
  }
  j["talon"] = view.talon;
  json shown = json::array();
  for (CardSet s : view.shown) shown.push_back(cards(s));
  j["shown"] = std::move(shown);
  j["declarer"] = view.declarer;
  j["contract"] = view.contract;
  j["called_king"] = view.called_king;
  j["partner"] = view.partner;
  j["trick_leader"] = view.trick_leader;
  json trick = json::array();
  for (Card c : view.trick) trick.push_back(CardName(c));
  j["trick"] = std::move(trick);
  j["tricks_won"] = view.tricks_won;
  j["radli"] = view.radli;
  return j.dump();
}

}  // namespace tarock
