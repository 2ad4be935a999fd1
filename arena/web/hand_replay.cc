#include "arena/web/hand_replay.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "referee/engine/record.h"
#include "referee/engine/registry.h"

namespace tarock::arena {
namespace {

using json = nlohmann::json;

json Cards(CardSet s) {
  json a = json::array();
  for (Card c : s) a.push_back(CardName(c));
  return a;
}

json Step(const State& state, int num_seats) {
  json j;
  const bool over = state.IsTerminal();
  j["phase"] = over ? "over" : state.PhaseName();
  j["to_act"] = over ? -1 : state.CurrentSeat();
  json hands = json::array();
  Observation pub;
  for (int s = 0; s < num_seats; ++s) {
    Observation o = state.Observe(s);
    hands.push_back(Cards(o.hand));
    if (s == 0) pub = std::move(o);
  }
  j["hands"] = std::move(hands);
  j["talon"] = pub.talon;
  json trick = json::array();
  for (Card c : pub.trick) trick.push_back(CardName(c));
  j["trick"] = std::move(trick);
  j["trick_leader"] = pub.trick_leader;
  j["tricks_won"] = pub.tricks_won;
  j["declarer"] = pub.declarer;
  j["contract"] = pub.contract;
  j["called_king"] = pub.called_king;
  // The choices of a talon phase (how many groups the talon is laid out in).
  if (!over && j["phase"].get<std::string>().find("talon") != std::string::npos) {
    ActionList legal;
    state.LegalActions(&legal);
    json a = json::array();
    for (Action x : legal) a.push_back(state.game().ActionToString(x));
    j["legal"] = std::move(a);
  }
  return j;
}

}  // namespace

absl::StatusOr<std::string> HandReplayJson(absl::string_view hand_record_json) {
  absl::StatusOr<HandRecord> record = ParseHandRecord(hand_record_json);
  if (!record.ok()) return absl::InvalidArgumentError(record.status().message());
  absl::StatusOr<std::unique_ptr<Game>> game =
      Registry::Global().Create(record->variant, record->options);
  if (!game.ok()) return absl::InvalidArgumentError(game.status().message());
  absl::StatusOr<std::unique_ptr<State>> state = (*game)->NewHand(record->deal, record->setup);
  if (!state.ok()) return absl::InvalidArgumentError(state.status().message());
  const int n = (*game)->info().num_seats;
  json out;
  out["num_seats"] = n;
  out["dealer"] = record->setup.dealer;
  json prev = Step(**state, n);
  out["initial"] = prev;
  json steps = json::array();
  for (size_t i = 0; i < record->actions.size(); ++i) {
    const int seat = (*state)->IsTerminal() ? -1 : (*state)->CurrentSeat();
    if (absl::Status s = (*state)->ApplyText(record->actions[i]); !s.ok())
      return absl::InvalidArgumentError(absl::StrCat("action ", i, " ('", record->actions[i],
                                                     "'): ", s.message()));
    json step = Step(**state, n);
    step["seat"] = seat;
    step["action"] = record->actions[i];
    // A discard the others saw as "discard ?".
    bool hidden = false;
    for (int s = 0; s < n && !hidden; ++s) {
      if (s == seat) continue;
      Observation o = (*state)->Observe(s);
      hidden = !o.history.empty() && o.history.back().second == "discard ?";
    }
    step["hidden"] = hidden;
    // A trick ended: the trick emptied and one seat won one more.
    if (!prev["trick"].empty() && step["trick"].empty() &&
        record->actions[i].rfind("play ", 0) == 0) {
      json cards = prev["trick"];
      cards.push_back(record->actions[i].substr(5));
      int winner = -1;
      for (int s = 0; s < n; ++s) {
        if (s < static_cast<int>(step["tricks_won"].size()) &&
            s < static_cast<int>(prev["tricks_won"].size()) &&
            step["tricks_won"][s].get<int>() > prev["tricks_won"][s].get<int>())
          winner = s;
      }
      step["trick_done"] = {{"cards", cards}, {"leader", prev["trick_leader"]}, {"winner", winner}};
    }
    prev = step;
    steps.push_back(std::move(step));
  }
  out["steps"] = std::move(steps);
  out["report"] = json::parse(ReplayReportJson(**game, **state));
  return out.dump();
}

}  // namespace tarock::arena
