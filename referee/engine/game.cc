#include "referee/engine/game.h"

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/engine/status_macros.h"

namespace tarock {
namespace {

const char* VerbName(Verb v) {
  switch (v) {
    case Verb::kPass: return "pass";
    case Verb::kBid: return "bid";
    case Verb::kCall: return "call";
    case Verb::kTalon: return "talon";
    case Verb::kDiscard: return "discard";
    case Verb::kAnnounce: return "announce";
    case Verb::kKontra: return "kontra";
    case Verb::kPlay: return "play";
    case Verb::kCustom: return "custom";
  }
  return "?";
}

absl::StatusOr<int> IndexOf(const std::vector<std::string>& names, absl::string_view name,
                            absl::string_view what) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ", what, " '", name, "' (known: ", absl::StrJoin(names, ", "), ")"));
}

}  // namespace

std::string ActionCodec::ToString(Action a) const {
  const Verb v = VerbOf(a);
  const int arg = ArgOf(a);
  auto name = [&](const std::vector<std::string>& names) {
    return arg < static_cast<int>(names.size()) ? names[arg] : absl::StrCat("#", arg);
  };
  switch (v) {
    case Verb::kPass: return "pass";
    case Verb::kBid: return absl::StrCat("bid ", name(contracts));
    case Verb::kCall: return absl::StrCat("call ", SuitName(static_cast<Suit>(arg & 3)));
    case Verb::kTalon: return absl::StrCat("talon ", arg);
    case Verb::kDiscard: return absl::StrCat("discard ", CardName(static_cast<Card>(arg)));
    case Verb::kAnnounce: return absl::StrCat("announce ", name(bonuses));
    case Verb::kKontra: return absl::StrCat("kontra ", name(kontra_targets));
    case Verb::kPlay: return absl::StrCat("play ", CardName(static_cast<Card>(arg)));
    case Verb::kCustom: return name(custom);
  }
  return absl::StrCat("?", a);
}

absl::StatusOr<Action> ActionCodec::Parse(absl::string_view text) const {
  for (size_t i = 0; i < custom.size(); ++i)
    if (custom[i] == text) return MakeAction(Verb::kCustom, static_cast<int>(i));
  const size_t space = text.find(' ');
  const absl::string_view verb = text.substr(0, space);
  const absl::string_view arg = space == absl::string_view::npos ? "" : text.substr(space + 1);
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("bad action '", text, "': ", why));
  };
  if (verb == "pass") {
    if (!arg.empty()) return bad("pass takes no argument");
    return kPassAction;
  }
  if (arg.empty()) {
    for (int v = 1; v < static_cast<int>(Verb::kCustom); ++v)
      if (verb == VerbName(static_cast<Verb>(v))) return bad("missing argument");
    return bad("unknown verb");
  }
  if (verb == "bid") {
    ASSIGN_OR_RETURN(int i, IndexOf(contracts, arg, "contract"));
    return MakeAction(Verb::kBid, i);
  }
  if (verb == "call") {
    ASSIGN_OR_RETURN(Suit s, ParseSuit(arg));
    return MakeAction(Verb::kCall, s);
  }
  if (verb == "talon") {
    int n;
    if (!absl::SimpleAtoi(arg, &n) || n < 0 || n > 255) return bad("talon wants a group number");
    return MakeAction(Verb::kTalon, n);
  }
  if (verb == "discard" || verb == "play") {
    ASSIGN_OR_RETURN(Card c, ParseCard(arg));
    return MakeAction(verb == "play" ? Verb::kPlay : Verb::kDiscard, c);
  }
  if (verb == "announce") {
    ASSIGN_OR_RETURN(int i, IndexOf(bonuses, arg, "bonus"));
    return MakeAction(Verb::kAnnounce, i);
  }
  if (verb == "kontra") {
    ASSIGN_OR_RETURN(int i, IndexOf(kontra_targets, arg, "kontra target"));
    return MakeAction(Verb::kKontra, i);
  }
  return bad("unknown verb");
}

absl::Status State::ApplyChecked(Action a) {
  ActionList legal;
  LegalActions(&legal);
  if (legal.Contains(a)) {
    Apply(a);
    return absl::OkStatus();
  }
  const ActionCodec& codec = game().codec();
  std::vector<std::string> names;
  for (Action l : legal) names.push_back(codec.ToString(l));
  if (names.empty())
    return absl::FailedPreconditionError(
        absl::StrCat("illegal action '", codec.ToString(a), "': the hand is over"));
  return absl::InvalidArgumentError(absl::StrCat("illegal action '", codec.ToString(a),
                                                 "' for seat ", CurrentSeat(), " in phase ",
                                                 PhaseName(), "; legal: ",
                                                 absl::StrJoin(names, ", ")));
}

absl::Status State::ApplyText(absl::string_view text) {
  ASSIGN_OR_RETURN(Action a, game().codec().Parse(text));
  return ApplyChecked(a);
}

void ClearObservation(Observation* obs) {
  obs->variant.clear();
  obs->seat = 0;
  obs->num_seats = 0;
  obs->dealer = 0;
  obs->phase.clear();
  obs->to_act = -1;
  obs->hand = CardSet();
  obs->history.clear();
  obs->talon.clear();
  obs->shown.clear();
  obs->declarer = -1;
  obs->contract.clear();
  obs->called_king.clear();
  obs->partner = -1;
  obs->trick_leader = -1;
  obs->trick.clear();
  obs->tricks_won.clear();
  obs->radli.clear();
  obs->legal.clear();
  obs->history_actions.clear();
}

std::string ObservationToJson(const Observation& obs) {
  using nlohmann::json;
  auto cards = [](CardSet s) {
    json a = json::array();
    for (Card c : s) a.push_back(CardName(c));
    return a;
  };
  json j;
  j["variant"] = obs.variant;
  j["seat"] = obs.seat;
  j["num_seats"] = obs.num_seats;
  j["dealer"] = obs.dealer;
  j["phase"] = obs.phase;
  j["to_act"] = obs.to_act;
  j["hand"] = cards(obs.hand);
  json history = json::array();
  for (const auto& [seat, action] : obs.history) history.push_back({{"seat", seat}, {"action", action}});
  j["history"] = std::move(history);
  j["talon"] = obs.talon;
  json shown = json::array();
  for (CardSet s : obs.shown) shown.push_back(cards(s));
  j["shown"] = std::move(shown);
  j["declarer"] = obs.declarer;
  j["contract"] = obs.contract;
  j["called_king"] = obs.called_king;
  j["partner"] = obs.partner;
  j["trick_leader"] = obs.trick_leader;
  json trick = json::array();
  for (Card c : obs.trick) trick.push_back(CardName(c));
  j["trick"] = std::move(trick);
  j["tricks_won"] = obs.tricks_won;
  j["radli"] = obs.radli;
  j["legal"] = obs.legal;
  return j.dump();
}

}  // namespace tarock
