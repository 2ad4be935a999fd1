#include "referee/engine/record.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "referee/engine/registry.h"
#include "referee/engine/status_macros.h"

namespace tarock {
namespace {

using nlohmann::json;

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("bad record: ", what));
}

absl::StatusOr<std::vector<Card>> ParseCards(const json& j, absl::string_view where) {
  if (!j.is_array()) return Bad(absl::StrCat(where, " must be an array of card names"));
  std::vector<Card> out;
  for (const json& e : j) {
    if (!e.is_string()) return Bad(absl::StrCat(where, " must hold card names as strings"));
    absl::StatusOr<Card> c = ParseCard(e.get<std::string>());
    if (!c.ok()) return Bad(absl::StrCat(where, ": ", c.status().message()));
    out.push_back(*c);
  }
  return out;
}

absl::StatusOr<HandRecord> FromJson(const json& j, absl::string_view where) {
  if (!j.is_object()) return Bad(absl::StrCat(where, "a hand record must be a JSON object"));
  HandRecord r;
  if (!j.contains("variant") || !j["variant"].is_string())
    return Bad(absl::StrCat(where, "missing \"variant\" (a string)"));
  r.variant = j["variant"].get<std::string>();
  if (j.contains("options")) {
    if (!j["options"].is_object()) return Bad(absl::StrCat(where, "\"options\" must be an object"));
    for (const auto& [k, v] : j["options"].items()) {
      if (v.is_string()) r.options[k] = v.get<std::string>();
      else if (v.is_number_integer()) r.options[k] = std::to_string(v.get<int64_t>());
      else if (v.is_boolean()) r.options[k] = v.get<bool>() ? "on" : "off";
      else return Bad(absl::StrCat(where, "option '", k, "' must be a string, integer or boolean"));
    }
  }
  if (!j.contains("dealer") || !j["dealer"].is_number_integer())
    return Bad(absl::StrCat(where, "missing \"dealer\" (a seat number)"));
  r.setup.dealer = j["dealer"].get<int>();
  if (!j.contains("hands") || !j["hands"].is_array())
    return Bad(absl::StrCat(where, "missing \"hands\" (one array of cards per seat)"));
  for (size_t s = 0; s < j["hands"].size(); ++s) {
    ASSIGN_OR_RETURN(std::vector<Card> cards,
                     ParseCards(j["hands"][s], absl::StrCat(where, "hands[", s, "]")));
    CardSet set;
    for (Card c : cards) {
      if (set.Contains(c)) return Bad(absl::StrCat(where, "card ", CardName(c), " is dealt twice"));
      set.Add(c);
    }
    r.deal.hands.push_back(set);
  }
  if (!j.contains("talon")) return Bad(absl::StrCat(where, "missing \"talon\""));
  ASSIGN_OR_RETURN(r.deal.talon, ParseCards(j["talon"], absl::StrCat(where, "talon")));
  if (j.contains("deck")) {
    ASSIGN_OR_RETURN(r.deal.deck, ParseCards(j["deck"], absl::StrCat(where, "deck")));
  }
  if (j.contains("radli") && !j["radli"].is_null()) {
    if (!j["radli"].is_array()) return Bad(absl::StrCat(where, "\"radli\" must be an array of integers"));
    for (const json& v : j["radli"]) {
      if (!v.is_number_integer()) return Bad(absl::StrCat(where, "\"radli\" must be an array of integers"));
      r.setup.radli.push_back(v.get<int>());
    }
  }
  if (j.contains("forced_klop")) {
    if (!j["forced_klop"].is_boolean()) return Bad(absl::StrCat(where, "\"forced_klop\" must be true or false"));
    r.setup.forced_klop = j["forced_klop"].get<bool>();
  }
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned() && !j["seed"].is_number_integer())
      return Bad(absl::StrCat(where, "\"seed\" must be an integer"));
    r.seed = j["seed"].get<uint64_t>();
  }
  if (j.contains("actions")) {
    if (!j["actions"].is_array()) return Bad(absl::StrCat(where, "\"actions\" must be an array of strings"));
    for (const json& a : j["actions"]) {
      if (!a.is_string()) return Bad(absl::StrCat(where, "\"actions\" must be an array of strings"));
      r.actions.push_back(a.get<std::string>());
    }
  }
  if (j.contains("scores") && j["scores"].is_array()) {
    std::vector<int> scores;
    for (const json& v : j["scores"]) {
      if (!v.is_number_integer()) return Bad(absl::StrCat(where, "\"scores\" must be integers"));
      scores.push_back(v.get<int>());
    }
    r.scores = std::move(scores);
  }
  return r;
}

absl::StatusOr<json> ParseJson(absl::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Parse again with exceptions only to get the position of the error.
    try {
      (void)json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
      return absl::InvalidArgumentError(absl::StrCat("malformed JSON at byte ", e.byte));
    } catch (const json::exception& e) {
      // Not only syntax: a number too large for a double is out_of_range
      // (found by tests/fuzz/record_fuzz; it used to end the process).
      return absl::InvalidArgumentError(absl::StrCat("malformed JSON: ", e.what()));
    }
    return absl::InvalidArgumentError("malformed JSON");
  }
  return j;
}

json CardsJson(CardSet s) {
  json a = json::array();
  for (Card c : s) a.push_back(CardName(c));
  return a;
}

}  // namespace

absl::StatusOr<HandRecord> ParseHandRecord(absl::string_view json_text) {
  ASSIGN_OR_RETURN(json j, ParseJson(json_text));
  return FromJson(j, "");
}

absl::StatusOr<std::vector<HandRecord>> ParseRecords(absl::string_view json_text) {
  ASSIGN_OR_RETURN(json j, ParseJson(json_text));
  std::vector<HandRecord> out;
  if (j.is_object() && j.contains("deals")) {
    if (!j["deals"].is_array()) return Bad("\"deals\" must be an array of hand records");
    for (size_t i = 0; i < j["deals"].size(); ++i) {
      json hand = j["deals"][i];
      // A match record may give the variant and options once at the top.
      if (hand.is_object()) {
        if (!hand.contains("variant") && j.contains("variant")) hand["variant"] = j["variant"];
        if (!hand.contains("options") && j.contains("options")) hand["options"] = j["options"];
      }
      ASSIGN_OR_RETURN(HandRecord r, FromJson(hand, absl::StrCat("deals[", i, "]: ")));
      out.push_back(std::move(r));
    }
    return out;
  }
  ASSIGN_OR_RETURN(HandRecord r, FromJson(j, ""));
  out.push_back(std::move(r));
  return out;
}

std::string HandRecordToJson(const HandRecord& r, int indent) {
  json j;
  j["variant"] = r.variant;
  j["options"] = json::object();
  for (const auto& [k, v] : r.options) j["options"][k] = v;
  j["dealer"] = r.setup.dealer;
  j["hands"] = json::array();
  for (CardSet h : r.deal.hands) j["hands"].push_back(CardsJson(h));
  j["talon"] = json::array();
  for (Card c : r.deal.talon) j["talon"].push_back(CardName(c));
  if (!r.deal.deck.empty()) {
    j["deck"] = json::array();
    for (Card c : r.deal.deck) j["deck"].push_back(CardName(c));
  }
  if (!r.setup.radli.empty()) j["radli"] = r.setup.radli;
  if (r.setup.forced_klop) j["forced_klop"] = true;
  if (r.seed) j["seed"] = *r.seed;
  j["actions"] = r.actions;
  if (r.scores) j["scores"] = *r.scores;
  return j.dump(indent);
}

absl::StatusOr<HandRecord> DealRecord(const std::string& variant, const Options& options,
                                      uint64_t seed, int dealer) {
  ASSIGN_OR_RETURN(std::unique_ptr<Game> game, Registry::Global().Create(variant, options));
  if (dealer < 0 || dealer >= game->num_seats())
    return absl::InvalidArgumentError(absl::StrCat("dealer ", dealer, " is not a seat of ", variant));
  HandRecord r;
  r.variant = variant;
  r.options = game->options();
  r.deal = game->DealCards(seed, dealer);
  r.setup.dealer = dealer;
  r.seed = seed;
  return r;
}

HandRecord RecordOf(const Game& game, const State& state, std::optional<uint64_t> seed) {
  HandRecord r;
  r.variant = game.info().name;
  r.options = game.options();
  r.deal = state.GetDeal();
  r.setup = state.Setup();
  r.seed = seed;
  for (Action a : state.History()) r.actions.push_back(game.ActionToString(a));
  if (state.IsTerminal()) r.scores = state.Result().scores;
  return r;
}

absl::StatusOr<Replay> ReplayRecord(const HandRecord& record) {
  Replay out;
  ASSIGN_OR_RETURN(out.game, Registry::Global().Create(record.variant, record.options));
  absl::StatusOr<std::unique_ptr<State>> state = out.game->NewHand(record.deal, record.setup);
  if (!state.ok()) return Bad(state.status().message());
  out.state = std::move(*state);
  for (size_t i = 0; i < record.actions.size(); ++i) {
    absl::Status st = out.state->ApplyText(record.actions[i]);
    if (!st.ok())
      return absl::InvalidArgumentError(absl::StrCat("action ", i, " ('", record.actions[i], "'): ",
                                                     st.message()));
  }
  return out;
}

std::string ReplayReportJson(const Game& game, const State& state, int indent) {
  json j;
  j["variant"] = game.info().name;
  j["actions"] = state.History().size();
  if (!state.IsTerminal()) {
    j["finished"] = false;
    j["phase"] = state.PhaseName();
    j["to_act"] = state.CurrentSeat();
    ActionList legal;
    state.LegalActions(&legal);
    j["legal"] = json::array();
    for (Action a : legal) j["legal"].push_back(game.ActionToString(a));
    return j.dump(indent);
  }
  const HandResult r = state.Result();
  j["finished"] = true;
  j["redeal"] = r.redeal;
  j["next_forced_klop"] = r.next_forced_klop;
  j["scores"] = r.scores;
  j["radli"] = r.radli;
  j["declarer"] = r.declarer;
  j["contract"] = r.contract;
  j["partner"] = r.partner;
  j["declarer_won"] = r.declarer_won;
  j["game_kontra_level"] = r.game_kontra_level;
  // Card points in thirds and in rounded points, per side (or per seat in Klop).
  j["card_points_thirds"] = r.card_thirds;
  json points = json::array();
  for (int t : r.card_thirds) points.push_back(RoundThirds(t));
  j["card_points"] = points;
  j["tricks"] = r.tricks;
  j["bonuses"] = json::array();
  for (const BonusResult& b : r.bonuses) {
    j["bonuses"].push_back({{"name", b.name}, {"side", b.side}, {"announcer", b.announcer},
                            {"won", b.won}, {"kontra_level", b.kontra_level}, {"value", b.value}});
    if (b.seat >= 0) j["bonuses"].back()["seat"] = b.seat;  // a player's own bonus
  }
  j["penalties"] = json::array();
  for (const Penalty& p : r.penalties)
    j["penalties"].push_back({{"seat", p.seat}, {"points", p.points}, {"reason", p.reason}});
  return j.dump(indent);
}

}  // namespace tarock
