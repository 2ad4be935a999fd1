#include "sdk/python/engine/encoding.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tarock::python {
namespace {

int IndexOf(const std::vector<std::string>& names, const std::string& name) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

const std::vector<std::string>& PhaseNames() {
  static const std::vector<std::string> kNames = {
      "bidding", "declare", "king-call", "talon",    "discard", "announce", "play",
      "done",    "cut",     "stacks",    "prever",   "prever-talon", "throw-in", "draw",
      "other"};
  return kNames;
}

int PhaseId(const std::string& phase) {
  // Lengths first: most names differ in length, so this is a few integer
  // compares and one memcmp (VecEnv asks once or twice per decision; a hash
  // of the string cost more).
  const std::vector<std::string>& names = PhaseNames();
  const size_t n = names.size() - 1;  // "other" is the answer, not a name to match
  for (size_t i = 0; i < n; ++i)
    if (names[i].size() == phase.size() &&
        std::memcmp(names[i].data(), phase.data(), phase.size()) == 0)
      return static_cast<int>(i);
  return static_cast<int>(n);
}

int Encoder::Add(const std::string& name, int size, const std::string& doc) {
  fields_.push_back(Field{name, obs_size_, size, doc});
  const int offset = obs_size_;
  obs_size_ += size;
  return offset;
}

Encoder::Encoder(const Game& game)
    : game_(&game),
      space_(game),
      seats_(game.num_seats()),
      hand_size_(game.info().hand_size),
      talon_size_(game.info().talon_size) {
  const ActionCodec& c = game.codec();
  const int S = seats_, C = kNumCards;
  const int K = static_cast<int>(c.contracts.size());
  const int B = static_cast<int>(c.bonuses.size());
  const int T = static_cast<int>(c.kontra_targets.size());
  const int U = static_cast<int>(c.custom.size());
  const int P = static_cast<int>(PhaseNames().size());
  f_hand_ = Add("hand", C, "1 for each card in the seat's hand (card index order T1..SK)");
  f_played_ = Add("played", S * C,
                  "per relative seat, 1 for each card it played to a trick (this trick too)");
  f_trick_ = Add("trick", S * C, "per relative seat, 1 for its card in the current trick");
  f_leader_ = Add("trick_leader", S + 1, "relative seat that led the current trick; last: none");
  f_talon_ = Add("talon_seen", C, "1 for each talon card the seat sees");
  f_talon_hidden_ =
      Add("talon_hidden", 1, "talon cards the seat does not see, divided by the talon size");
  f_shown_ = Add("shown", S * C, "per relative seat, 1 for each card of it shown to everyone");
  f_own_discards_ = Add("own_discards", C, "1 for each card the seat itself discarded");
  f_discards_ = Add("discards", S,
                    "per relative seat, its discards (seen or hidden) divided by the hand size");
  f_dealer_ = Add("dealer", S, "one-hot relative seat of the dealer");
  f_to_act_ = Add("to_act", S + 1, "one-hot relative seat to act; last: nobody (hand over)");
  f_declarer_ = Add("declarer", S + 1, "one-hot relative seat of the declarer; last: none yet");
  f_partner_ = Add("partner", S + 1,
                   "one-hot relative seat of the declarer's partner as the seat knows it; last: "
                   "unknown or none");
  f_phase_ = Add("phase", P, "one-hot phase (PhaseNames order)");
  f_contract_ = Add("contract", K + 2,
                    "one-hot contract (codec contracts order); K: another named contract; K+1: none");
  f_king_ = Add("called_king", 5, "one-hot called king H D C S; last: none");
  f_bid_ = Add("bid", S * K, "per relative seat, 1 for each contract it bid");
  f_passed_ = Add("passed", S, "per relative seat, the passes it made, divided by 4");
  f_talon_choice_ = Add("talon_choice", talon_size_ + 1,
                        "one-hot talon group chosen (talon N); last: none");
  f_announced_ = Add("announced", S * B, "per relative seat, 1 for each bonus it announced");
  f_kontra_ = Add("kontra", T * 4,
                  "per kontra target, one-hot level reached (kontra, rekontra, subkontra, "
                  "mordkontra)");
  f_custom_ = Add("custom", S * U, "per relative seat, how often it chose each custom action");
  f_tricks_ = Add("tricks_won", S, "per relative seat, tricks won divided by the hand size");
  f_radli_ = Add("radli", S, "per relative seat, radli carried, divided by 4");
  f_cards_left_ = Add("cards_left", 1, "cards in the seat's hand divided by the hand size");
  // The longest history of a hand: every card played, plus room for the
  // auction, the talon and the announcements that no hand of the built-in
  // variants exceeds (encoding_test.cc plays random hands, which bid and
  // announce far more than bots do, and checks the bound).
  for (int i = 0; i < space_.size(); ++i) actions_by_text_[space_.Text(i)] = space_.ActionAt(i);
  max_history_ = hand_size_ * S + 48 + talon_size_ + 8 * S + 4 * U;
  // The compact form's table: what the text form makes of each action's text
  // (the same action: the table is the space's own) and of "discard ?".
  kind_by_index_.resize(space_.size());
  action_by_index_.resize(space_.size());
  for (int i = 0; i < space_.size(); ++i) {
    const Entry e = FromText(0, space_.Text(i));
    kind_by_index_[i] = e.kind;
    action_by_index_[i] = e.action;
  }
  const Entry unseen = FromText(0, "discard ?");
  unseen_kind_ = unseen.kind;
  unseen_action_ = unseen.action;
}

Encoder::Entry Encoder::FromText(int who, const std::string& text) const {
  Entry e{who, Kind::kSkip, 0};
  if (Lookup(text, &e.action)) e.kind = Kind::kAction;
  else if (text.rfind("discard", 0) == 0) e.kind = Kind::kUnknownDiscard;
  return e;
}

Encoder::Entry Encoder::FromOtherAction(int who, Action a) const {
  return FromText(who, game_->codec().ToString(a));
}

void Encoder::EncodeObservation(const Observation& obs, float* out) const {
  if (obs.history.empty()) EncodeObservationImpl<true>(obs, out);
  else EncodeObservationImpl<false>(obs, out);
}

template <bool kCompact>
void Encoder::EncodeObservationImpl(const Observation& obs, float* out) const {
  std::memset(out, 0, sizeof(float) * obs_size_);
  const ActionCodec& c = game_->codec();
  const int S = seats_, C = kNumCards;
  const int K = static_cast<int>(c.contracts.size());
  const int B = static_cast<int>(c.bonuses.size());
  const int T = static_cast<int>(c.kontra_targets.size());
  const int U = static_cast<int>(c.custom.size());
  const float inv_hand = hand_size_ > 0 ? 1.0f / hand_size_ : 1.0f;
  for (Card card : obs.hand) out[f_hand_ + card] = 1;
  out[f_cards_left_] = obs.hand.size() * inv_hand;
  // The relative seats (Rel) by table: no division per history entry.
  int rel_small[16];
  std::vector<int> rel_big;
  int* rel = rel_small;
  if (S > 16) {
    rel_big.resize(S);
    rel = rel_big.data();
  }
  for (int p = 0; p < S; ++p) rel[p] = Rel(obs, p);
  // The current trick: its cards are the last obs.trick.size() plays.
  const int in_trick = static_cast<int>(obs.trick.size());
  // Entry i of the history, of the form the observation has.
  auto entry = [&](int i) {
    if constexpr (kCompact) {
      return FromAction(obs.history_actions[i].first, obs.history_actions[i].second);
    } else {
      return FromText(obs.history[i].first, obs.history[i].second);
    }
  };
  const int length = kCompact ? static_cast<int>(obs.history_actions.size())
                              : static_cast<int>(obs.history.size());
  for (int i = 0; i < length; ++i) {
    const Entry e = entry(i);
    const int who = e.who;
    if (who < 0 || who >= S) continue;
    const int r = rel[who];
    if (e.kind != Kind::kAction) {
      if (e.kind == Kind::kUnknownDiscard) out[f_discards_ + r] += inv_hand;
      continue;
    }
    const Action a = e.action;
    const int arg = ArgOf(a);
    switch (VerbOf(a)) {
      case Verb::kPass: out[f_passed_ + r] += 0.25f; break;
      case Verb::kBid:
        if (arg < K) out[f_bid_ + r * K + arg] = 1;
        break;
      case Verb::kCall: break;  // obs.called_king says it
      case Verb::kTalon:
        if (arg < talon_size_) {
          for (int i = 0; i <= talon_size_; ++i) out[f_talon_choice_ + i] = 0;
          out[f_talon_choice_ + arg] = 1;
        }
        break;
      case Verb::kDiscard:
        out[f_discards_ + r] += inv_hand;
        if (who == obs.seat && arg < C) out[f_own_discards_ + arg] = 1;
        break;
      case Verb::kAnnounce:
        if (arg < B) out[f_announced_ + r * B + arg] = 1;
        break;
      case Verb::kKontra:
        if (arg < T) {
          int level = 0;
          for (int l = 0; l < 4; ++l)
            if (out[f_kontra_ + arg * 4 + l] != 0) level = l + 1;
          if (level < 4) {
            if (level > 0) out[f_kontra_ + arg * 4 + level - 1] = 0;
            out[f_kontra_ + arg * 4 + level] = 1;
          }
        }
        break;
      case Verb::kPlay:
        if (arg < C) out[f_played_ + r * C + arg] = 1;
        break;
      case Verb::kCustom:
        if (arg < U) out[f_custom_ + r * U + arg] += 1;
        break;
    }
  }
  // The current trick: the last `in_trick` plays of the history, with their seats.
  if (obs.trick_leader >= 0 && obs.trick_leader < S) {
    int left = in_trick;
    for (int i = length - 1; i >= 0 && left > 0; --i) {
      const Entry e = entry(i);
      if (e.who < 0 || e.who >= S || e.kind != Kind::kAction || VerbOf(e.action) != Verb::kPlay ||
          ArgOf(e.action) >= C)
        continue;
      out[f_trick_ + rel[e.who] * C + ArgOf(e.action)] = 1;
      --left;
    }
    out[f_leader_ + rel[obs.trick_leader]] = 1;
  } else {
    out[f_leader_ + S] = 1;
  }
  if (talon_size_ > 0) {
    int hidden = 0;
    for (const std::string& name : obs.talon) {
      if (name == "?") {  // no card (ParseCard would say so, building an error)
        ++hidden;
        continue;
      }
      absl::StatusOr<Card> card = ParseCard(name);
      if (card.ok()) out[f_talon_ + *card] = 1;
      else ++hidden;
    }
    out[f_talon_hidden_] = static_cast<float>(hidden) / talon_size_;
  }
  for (int p = 0; p < S && p < static_cast<int>(obs.shown.size()); ++p)
    for (Card card : obs.shown[p]) out[f_shown_ + rel[p] * C + card] = 1;
  if (obs.dealer >= 0 && obs.dealer < S) out[f_dealer_ + rel[obs.dealer]] = 1;
  out[f_to_act_ + (obs.to_act >= 0 && obs.to_act < S ? rel[obs.to_act] : S)] = 1;
  out[f_declarer_ + (obs.declarer >= 0 && obs.declarer < S ? rel[obs.declarer] : S)] = 1;
  out[f_partner_ + (obs.partner >= 0 && obs.partner < S ? rel[obs.partner] : S)] = 1;
  out[f_phase_ + PhaseId(obs.phase)] = 1;
  if (obs.contract.empty()) {
    out[f_contract_ + K + 1] = 1;
  } else {
    const int k = IndexOf(c.contracts, obs.contract);
    out[f_contract_ + (k >= 0 ? k : K)] = 1;
  }
  int king = 4;
  if (!obs.called_king.empty()) {
    absl::StatusOr<Card> card = ParseCard(obs.called_king);
    if (card.ok() && !IsTarock(*card)) king = SuitOf(*card);
  }
  out[f_king_ + king] = 1;
  for (int p = 0; p < S && p < static_cast<int>(obs.tricks_won.size()); ++p)
    out[f_tricks_ + rel[p]] = obs.tricks_won[p] * inv_hand;
  for (int p = 0; p < S && p < static_cast<int>(obs.radli.size()); ++p)
    out[f_radli_ + rel[p]] = obs.radli[p] * 0.25f;
}

absl::Status Encoder::EncodeInfoState(const Observation& obs, float* out) const {
  const int length = HistoryLength(obs);
  if (length > max_history_)
    return absl::FailedPreconditionError(absl::StrCat(
        "the history has ", length, " entries, more than the information-state "
        "tensor's ", max_history_));
  EncodeObservation(obs, out);
  float* h = out + obs_size_;
  const int E = history_entry_size();
  std::memset(h, 0, sizeof(float) * max_history_ * E);
  for (int i = 0; i < length; ++i) {
    const Entry entry = HistoryEntry(obs, i);
    const int who = entry.who;
    float* e = h + i * E;
    if (who >= 0 && who < seats_) e[Rel(obs, who)] = 1;
    int index = -1;
    if (entry.kind == Kind::kAction) index = space_.Index(entry.action);
    e[seats_ + (index >= 0 ? index : space_.size())] = 1;
  }
  return absl::OkStatus();
}

absl::Status Encoder::EncodeHistory(const Observation& obs, int16_t* out) const {
  const int length = HistoryLength(obs);
  if (length > max_history_)
    return absl::FailedPreconditionError(absl::StrCat(
        "the history has ", length, " entries, more than ", max_history_));
  for (int i = 0; i < max_history_; ++i) {
    if (i < length) {
      const Entry entry = HistoryEntry(obs, i);
      const int who = entry.who;
      int index = -1;
      if (entry.kind == Kind::kAction) index = space_.Index(entry.action);
      out[2 * i] = static_cast<int16_t>(who);
      out[2 * i + 1] = static_cast<int16_t>(index >= 0 ? index : space_.size());
    } else {
      out[2 * i] = out[2 * i + 1] = -1;
    }
  }
  return absl::OkStatus();
}

void Encoder::EncodeMask(const Observation& obs, uint8_t* out) const {
  std::memset(out, 0, space_.size());
  for (const std::string& text : obs.legal) {
    Action a;
    if (!Lookup(text, &a)) continue;
    const int i = space_.Index(a);
    if (i >= 0) out[i] = 1;
  }
}

std::string Encoder::Text(const Observation& obs) const {
  auto seat_name = [&](int s) { return s == obs.seat ? absl::StrCat("seat ", s, " (you)")
                                                     : absl::StrCat("seat ", s); };
  auto cards = [](CardSet set) {
    std::vector<std::string> names;
    for (Card c : set) names.push_back(CardName(c));
    return names.empty() ? std::string("none") : absl::StrJoin(names, " ");
  };
  std::string t;
  absl::StrAppend(&t, "Game: ", obs.variant, ", ", obs.num_seats, " seats. You are seat ",
                  obs.seat, ". Dealer: ", seat_name(obs.dealer), ".\n");
  absl::StrAppend(&t, "Phase: ", obs.phase, ". To act: ",
                  obs.to_act >= 0 ? seat_name(obs.to_act) : std::string("nobody (hand over)"),
                  ".\n");
  absl::StrAppend(&t, "Your hand (", obs.hand.size(), " cards): ", cards(obs.hand), ".\n");
  if (!obs.talon.empty())
    absl::StrAppend(&t, "Talon (? = not shown to you): ", absl::StrJoin(obs.talon, " "), ".\n");
  for (size_t p = 0; p < obs.shown.size(); ++p)
    if (!obs.shown[p].empty())
      absl::StrAppend(&t, "Shown by ", seat_name(p), ": ", cards(obs.shown[p]), ".\n");
  if (obs.declarer >= 0) {
    absl::StrAppend(&t, "Declarer: ", seat_name(obs.declarer), ", contract: ",
                    obs.contract.empty() ? std::string("not yet") : obs.contract);
    if (!obs.called_king.empty()) absl::StrAppend(&t, ", called king: ", obs.called_king);
    absl::StrAppend(&t, ", partner: ",
                    obs.partner >= 0 ? seat_name(obs.partner) : std::string("unknown or none"),
                    ".\n");
  } else if (!obs.contract.empty()) {
    absl::StrAppend(&t, "Contract: ", obs.contract, ".\n");
  }
  if (!obs.tricks_won.empty()) {
    absl::StrAppend(&t, "Tricks won:");
    for (size_t p = 0; p < obs.tricks_won.size(); ++p)
      absl::StrAppend(&t, " ", seat_name(p), " ", obs.tricks_won[p], p + 1 < obs.tricks_won.size() ? "," : ".\n");
  }
  if (!obs.radli.empty()) {
    absl::StrAppend(&t, "Radli:");
    for (size_t p = 0; p < obs.radli.size(); ++p)
      absl::StrAppend(&t, " ", seat_name(p), " ", obs.radli[p], p + 1 < obs.radli.size() ? "," : ".\n");
  }
  if (obs.trick_leader >= 0) {
    std::vector<std::string> names;
    for (Card c : obs.trick) names.push_back(CardName(c));
    absl::StrAppend(&t, "Current trick, led by ", seat_name(obs.trick_leader), ": ",
                    names.empty() ? std::string("no card yet") : absl::StrJoin(names, " "), ".\n");
  }
  absl::StrAppend(&t, "History (", obs.history.size(), " actions):\n");
  for (const auto& [who, text] : obs.history)
    absl::StrAppend(&t, "  ", seat_name(who), ": ", text, "\n");
  if (!obs.legal.empty())
    absl::StrAppend(&t, "Your legal actions: ", absl::StrJoin(obs.legal, ", "), ".\n");
  return t;
}

void Encoder::EncodePrivileged(const State& state, int seat, float* out) const {
  const Observation obs = state.Observe(seat);
  EncodeObservation(obs, out);
  float* p = out + obs_size_;
  std::memset(p, 0, sizeof(float) * (seats_ + 1) * kNumCards);
  for (int s = 0; s < seats_; ++s) {
    const CardSet hand = s == seat ? obs.hand : state.Observe(s).hand;
    for (Card c : hand) p[Rel(obs, s) * kNumCards + c] = 1;
  }
  for (Card c : state.GetDeal().talon) p[seats_ * kNumCards + c] = 1;
}

}  // namespace tarock::python
