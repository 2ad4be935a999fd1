// "example-high-card": a deliberately tiny Tarock variant, loaded at run time
// as a plugin. Two seats get four cards each from the 54-card pack; six more go
// to a talon that is never used and the other 40 cards are not in play. The seat
// after the dealer leads; the other must follow suit if it can, else may play
// anything. The higher card of the led suit wins, a tarock beats any colour card.
// After four tricks each seat scores its tricks minus two (a zero-sum hand).

#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "referee/engine/card.h"
#include "referee/engine/game.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"

namespace {

using namespace tarock;  // NOLINT: a small example; the engine is all in tarock::

constexpr int kSeats = 2;
constexpr int kHandSize = 4;
constexpr int kTalonSize = 6;

const VariantInfo& HighCardInfo() {
  static const VariantInfo* info = [] {
    auto* i = new VariantInfo;
    i->name = "example-high-card";
    i->title = "High card (example plugin)";
    i->rules_source = "examples/plugin-variant/README.md";
    i->num_seats = kSeats;
    i->hand_size = kHandSize;
    i->talon_size = kTalonSize;
    return i;
  }();
  return *info;
}

class HighCardGame;

class HighCardState final : public State {
 public:
  HighCardState(const HighCardGame& game, Deal deal, HandSetup setup);

  const Game& game() const override;
  int CurrentSeat() const override { return to_act_; }
  void LegalActions(ActionList* out) const override {
    out->clear();
    if (to_act_ == kTerminal) return;
    CardSet playable = hands_[to_act_];
    if (!trick_.empty()) {
      const CardSet follow = playable & SuitSet(SuitOf(trick_[0]));
      if (!follow.empty()) playable = follow;
    }
    for (Card c : playable) out->push(MakeAction(Verb::kPlay, c));
  }
  void Apply(Action a) override {
    const Card card = static_cast<Card>(ArgOf(a));
    hands_[to_act_].Remove(card);
    history_.emplace_back(to_act_, a);
    trick_.push_back(card);
    if (trick_.size() == 1) {
      to_act_ = 1 - to_act_;
      return;
    }
    const Card led = trick_[0], second = trick_[1];
    const bool second_wins = SuitOf(second) == SuitOf(led) ? RankOf(second) > RankOf(led)
                                                           : IsTarock(second);
    const int winner = second_wins ? to_act_ : leader_;
    ++tricks_[winner];
    won_[winner] |= CardSet::Of(led) | CardSet::Of(second);
    trick_.clear();
    leader_ = winner;
    to_act_ = hands_[winner].empty() ? kTerminal : winner;
  }
  HandResult Result() const override {
    HandResult r;
    r.contract = "high-card";
    r.radli = Radli();
    for (int s = 0; s < kSeats; ++s) {
      r.scores.push_back(tricks_[s] - kHandSize / 2);
      r.tricks.push_back(tricks_[s]);
      r.card_thirds.push_back(SetThirds(won_[s]));  // one per seat, as in Klop
    }
    return r;
  }
  Observation Observe(int seat) const override;
  std::unique_ptr<State> Clone() const override { return std::make_unique<HighCardState>(*this); }
  std::string PhaseName() const override { return to_act_ == kTerminal ? "done" : "play"; }
  std::vector<Action> History() const override {
    std::vector<Action> out;
    for (const auto& [seat, a] : history_) out.push_back(a);
    return out;
  }
  Deal GetDeal() const override { return deal_; }
  HandSetup Setup() const override { return setup_; }

 private:
  std::vector<int> Radli() const {  // carried through unchanged; this variant has none
    return setup_.radli.empty() ? std::vector<int>(kSeats, 0) : setup_.radli;
  }

  const HighCardGame* game_;
  Deal deal_;
  HandSetup setup_;
  std::array<CardSet, kSeats> hands_;
  std::array<CardSet, kSeats> won_{};
  std::array<int, kSeats> tricks_{};
  std::vector<Card> trick_;
  std::vector<std::pair<int, Action>> history_;  // (seat, action)
  int leader_;
  int to_act_;
};

class HighCardGame final : public Game {
 public:
  explicit HighCardGame(Options options) : options_(std::move(options)) {}

  const VariantInfo& info() const override { return HighCardInfo(); }
  const Options& options() const override { return options_; }
  const ActionCodec& codec() const override { return codec_; }  // only the built-in "play"

  Deal DealCards(uint64_t seed, int dealer) const override {
    std::array<Card, kNumCards> pack;
    for (int i = 0; i < kNumCards; ++i) pack[i] = static_cast<Card>(i);
    Rng rng(seed);
    rng.Shuffle(pack.data(), kNumCards);
    Deal deal;
    deal.hands.resize(kSeats);
    for (int i = 0; i < kSeats * kHandSize; ++i) deal.hands[(dealer + 1 + i) % kSeats].Add(pack[i]);
    deal.talon.assign(pack.begin() + kSeats * kHandSize, pack.begin() + kSeats * kHandSize + kTalonSize);
    return deal;
  }

  absl::StatusOr<std::unique_ptr<State>> NewHand(const Deal& deal,
                                                 const HandSetup& setup) const override {
    if (deal.hands.size() != kSeats)
      return absl::InvalidArgumentError(absl::StrCat("example-high-card deals ", kSeats,
                                                     " hands, got ", deal.hands.size()));
    if (deal.talon.size() != kTalonSize)
      return absl::InvalidArgumentError(absl::StrCat("example-high-card has a talon of ", kTalonSize,
                                                     " cards, got ", deal.talon.size()));
    CardSet seen;
    for (int s = 0; s < kSeats; ++s) {
      const CardSet hand = deal.hands[s];
      if (hand.size() != kHandSize || !kAllCards.ContainsAll(hand))
        return absl::InvalidArgumentError(absl::StrCat("seat ", s, " must hold ", kHandSize,
                                                       " cards, got ", hand.size()));
      if (!(seen & hand).empty())
        return absl::InvalidArgumentError(absl::StrCat("card ", CardName((seen & hand).First()),
                                                       " is dealt twice"));
      seen |= hand;
    }
    for (Card c : deal.talon) {
      if (c >= kNumCards) return absl::InvalidArgumentError("the talon holds a card that does not exist");
      if (seen.Contains(c))
        return absl::InvalidArgumentError(absl::StrCat("card ", CardName(c), " is dealt twice"));
      seen.Add(c);
    }
    if (setup.dealer < 0 || setup.dealer >= kSeats)
      return absl::InvalidArgumentError(absl::StrCat("dealer ", setup.dealer, " is not a seat"));
    if (!setup.radli.empty() && setup.radli.size() != kSeats)
      return absl::InvalidArgumentError(absl::StrCat("radli must have ", kSeats, " entries"));
    if (setup.forced_klop)
      return absl::InvalidArgumentError("example-high-card has no forced Klop");
    return std::unique_ptr<State>(std::make_unique<HighCardState>(*this, deal, setup));
  }

 private:
  Options options_;
  ActionCodec codec_;
};

HighCardState::HighCardState(const HighCardGame& game, Deal deal, HandSetup setup)
    : game_(&game),
      deal_(std::move(deal)),
      setup_(std::move(setup)),
      hands_{deal_.hands[0], deal_.hands[1]},
      leader_((setup_.dealer + 1) % kSeats),
      to_act_(leader_) {}

const Game& HighCardState::game() const { return *game_; }

Observation HighCardState::Observe(int seat) const {
  Observation o;
  o.variant = HighCardInfo().name;
  o.seat = seat;
  o.num_seats = kSeats;
  o.dealer = setup_.dealer;
  o.phase = PhaseName();
  o.to_act = to_act_;
  o.hand = hands_[seat];  // only the seat's own cards
  for (const auto& [who, a] : history_) o.history.emplace_back(who, game_->ActionToString(a));
  o.talon.assign(deal_.talon.size(), "?");  // never shown
  o.shown.assign(kSeats, CardSet());
  o.contract = "high-card";
  o.trick_leader = to_act_ == kTerminal ? -1 : leader_;
  o.trick = trick_;
  o.tricks_won.assign(tricks_.begin(), tricks_.end());
  o.radli = Radli();
  if (to_act_ == seat) {
    ActionList legal;
    LegalActions(&legal);
    for (Action a : legal) o.legal.push_back(game_->ActionToString(a));
  }
  return o;
}

}  // namespace

// The two entry points the engine looks up with dlsym (registry.h).
extern "C" int tarock_plugin_abi_version() { return tarock::kPluginAbiVersion; }

extern "C" void tarock_register_variants(tarock::Registry* registry) {
  absl::Status s = registry->Register(HighCardInfo(), [](const tarock::Options& options) {
    return std::unique_ptr<tarock::Game>(std::make_unique<HighCardGame>(options));
  });
  // The hook cannot return an error; say why the variant is missing instead.
  if (!s.ok()) std::fprintf(stderr, "example-high-card plugin: %s\n", std::string(s.message()).c_str());
}
