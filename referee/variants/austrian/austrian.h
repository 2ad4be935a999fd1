// Austrian Tapp-Tarock for three: tapp-tarock (rule document 001, the blog
// rules) and tapp-tarock-classic (rule document 002, the encyclopedia article).
// One engine serves both; a Rules value, fixed when the Game is created, says
// where they differ (the bids and their tapp groups, what an all-pass does, where
// the tapp cards not taken go, which discards are shown, and how bonuses pay).
// The rules pages beside this file cite the documents and record every choice.
//
// Thread-safety: AustrianGame is immutable; an AustrianState is a plain value
// (copyable, no heap memory) and not thread-safe.

#ifndef TAROCK_REFEREE_VARIANTS_AUSTRIAN_AUSTRIAN_H_
#define TAROCK_REFEREE_VARIANTS_AUSTRIAN_AUSTRIAN_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "referee/engine/game.h"
#include "referee/variants/common/trick_core.h"

namespace tarock::austrian {

inline constexpr int kSeats = 3;
inline constexpr int kHandSize = 16;
inline constexpr int kTalonSize = 6;
inline constexpr int kTricks = 16;

// Contracts (bid arguments), lowest first. tapp-tarock: three, two, one, solo;
// tapp-tarock-classic: three, bottom-three, top-three, solo. kBridscher is
// never bid: it is played when all pass in tapp-tarock.
inline constexpr int kMaxContracts = 4;
inline constexpr uint8_t kBridscher = 4;
inline constexpr uint8_t kNoContract = 0xFF;

// Bonuses (announce arguments). tapp-tarock: all five, each a player's own;
// tapp-tarock-classic: pagat-ultimo and valat, the declarer's only.
inline constexpr int kPagatUltimo = 0;
inline constexpr int kTrull = 1;        // tapp-tarock
inline constexpr int kFourKings = 2;    // tapp-tarock
inline constexpr int kAbsolut = 3;      // tapp-tarock
inline constexpr int kGrandpointe = 4;  // tapp-tarock
inline constexpr int kValat = 1;        // tapp-tarock-classic
inline constexpr int kMaxBonuses = 5;

enum class Phase : uint8_t { kBidding, kTalon, kDiscard, kAnnounce, kPlay, kDone };

// What happens when all three pass.
enum class AllPass : uint8_t {
  kBridscher,  // 001: a Bridscher is played; the player with most points loses
  kThrowIn,    // 002 is silent: the deal is void and dealt again
};

// Where the tapp cards the declarer does not take go.
enum class TalonRest : uint8_t {
  kTouchedPacksToDeclarer,  // 001: the rest of a pack he took from is his, untouched packs the defenders'
  kToDefenders,             // 002: every card not taken is the defenders'
};

// How bonuses are won and paid.
enum class BonusModel : uint8_t {
  kPlayers,   // 001: any player may win or announce any bonus; the other two pay her
  kDeclarer,  // 002: contracts of the declarer (Pagat Ultimo, Valat), paid by each defender
};

struct ContractRule {
  std::string name;      // the bid name
  int value = 0;         // each defender pays the declarer this on a win; she pays each on a loss
  int take = 0;          // tapp cards the declarer takes (0: none)
  bool exposed = false;  // the whole tapp is turned up for everyone before the choice
  // The groups the declarer may take, as masks of tapp positions (bit i = tapp
  // card i in deal order), in `talon N` order. A single unexposed group is taken
  // without a choice (002 Bottom 3, Top 3).
  std::vector<uint8_t> groups;
};

struct BonusRule {
  std::string name;
  int silent = 0;           // paid when won unannounced
  int announced = 0;        // paid when announced and won, and paid out when announced and missed
  bool times_bid = false;   // 002 Valat: the values multiply the bid
};

struct Rules {
  std::string name;
  std::vector<ContractRule> contracts;  // index = bid argument
  std::vector<BonusRule> bonuses;       // index = announce argument
  bool first_bid_lowest = false;        // 001: "The first bid is always three"
  AllPass all_pass = AllPass::kBridscher;
  int bridscher_value = 10;             // 001: the Bridscher loser pays each other player this
  TalonRest talon_rest = TalonRest::kTouchedPacksToDeclarer;
  bool all_discards_shown = false;      // 002: all discards shown; 001: only tarocks
  BonusModel bonus_model = BonusModel::kPlayers;
  bool simplified_counting = false;     // 001 option: add card values, no counting in threes
  // 001 option absolut=at-least-40: an announced Absolut is made with 40 or
  // more (default, 001 Bonus Values "Win with 40-49 points": 40-49 announced too).
  bool announced_absolut_open_ended = false;
  // 001 option pagat_ultimo=pagat-wins: the Pagat itself must win the last
  // trick (002's and the tradition's meaning). Default (takes-pagat), 001 Bonus
  // Values "Win the Pagat (1) in the last trick": the player who takes the
  // last trick with the Pagat in it wins the bonus.
  bool pagat_ultimo_pagat_wins = false;
  // 002, all pass (AllPass::kThrowIn): the thrown-in deal counts as one of the
  // match's hands (option thrown_in=hand, the default), or is dealt again
  // (thrown_in=redeal).
  bool thrown_in_counts_as_hand = true;
};

class AustrianGame;

class AustrianState final : public State {
 public:
  static constexpr int kMaxHistory = 128;

  // Starts a hand without checking the deal. Precondition: the deal and setup
  // are valid for the game (as from DealInto, or checked by NewHand).
  AustrianState(const AustrianGame* game, const Deal& deal, const HandSetup& setup);

  const Game& game() const override;
  int CurrentSeat() const override { return phase_ == Phase::kDone ? kTerminal : to_act_; }
  void LegalActions(ActionList* out) const override;
  void Apply(Action a) override;
  HandResult Result() const override;
  Observation Observe(int seat) const override;
  bool ObserveCompact(int seat, Observation* out) const override;
  std::unique_ptr<State> Clone() const override { return std::make_unique<AustrianState>(*this); }
  std::string PhaseName() const override;
  std::vector<Action> History() const override;
  Deal GetDeal() const override;
  HandSetup Setup() const override;

  // Introspection for tests and bots that simulate.
  Phase phase() const { return phase_; }
  int declarer() const { return declarer_; }
  int contract() const { return contract_; }  // kNoContract while bidding, kBridscher
  CardSet hand(int seat) const { return hands_[seat]; }
  CardSet won(int seat) const { return won_[seat]; }  // cards taken in tricks
  CardSet discards() const { return discards_; }
  CardSet taken() const { return taken_; }  // tapp cards the declarer took into her hand
  // The whole pile of each side for the count: the declarer's tricks, discards
  // and tapp cards that count for her; the defenders' tricks and their tapp cards.
  CardSet DeclarerPile() const;
  CardSet DefenderTapp() const { return defence_tapp_; }
  bool TalonExposed() const;  // the whole tapp is public now
  bool thrown_in() const { return thrown_in_; }

 private:
  // Observe (compact false) and ObserveCompact (true): one body, so both
  // say the same.
  void ObserveInto(int seat, bool compact, Observation* o) const;
  friend class AustrianGame;
  const Rules& rules() const;
  static int Next(int seat) { return seat == kSeats - 1 ? 0 : seat + 1; }

  void LegalBids(ActionList* out) const;
  void LegalDiscards(ActionList* out) const;
  void LegalAnnouncements(ActionList* out) const;
  [[gnu::always_inline]] void LegalPlays(ActionList* out) const;

  void ApplyBid(Action a);
  void TakeGroup(uint8_t positions);
  void ApplyAnnouncement(Action a);
  [[gnu::always_inline]] void ApplyPlay(Card c);
  void StartExchange();
  void StartAnnouncements();
  void StartPlay(int leader);
  void FinishTrick();
  void Push(Action a);
  Action HistoryAt(int i) const;

  int Thirds(CardSet s) const;
  void ScorePlayerBonuses(HandResult* r, const std::array<int, kSeats>& thirds) const;
  void ScoreDeclarerContracts(HandResult* r, int* per_defender) const;

  const AustrianGame* game_;
  Phase phase_ = Phase::kBidding;
  uint8_t dealer_ = 0;
  uint8_t to_act_ = 0;
  bool thrown_in_ = false;
  // Bidding.
  uint8_t passed_mask_ = 0;
  uint8_t best_bid_ = kNoContract;
  int8_t best_bidder_ = -1;
  // Contract and exchange.
  int8_t declarer_ = -1;
  uint8_t contract_ = kNoContract;
  uint8_t taken_mask_ = 0;   // tapp positions taken
  uint8_t discards_left_ = 0;
  CardSet taken_;
  CardSet discards_;
  CardSet declarer_tapp_;  // tapp cards not taken that count for the declarer (001)
  CardSet defence_tapp_;   // tapp cards that count for the defenders
  // Announcements.
  uint8_t announced_mask_ = 0;
  std::array<int8_t, kMaxBonuses> announcer_{};
  uint8_t consecutive_passes_ = 0;
  // Play (the trick: trick_core.h).
  std::array<CardSet, kSeats> hands_{};
  std::array<CardSet, kSeats> won_{};
  std::array<uint8_t, kSeats> tricks_won_{};
  trick::Trick<kSeats> trick_;
  uint8_t tricks_played_ = 0;
  int8_t pagat_last_seat_ = -1;  // seat that played the Pagat in the last trick
  bool pagat_last_won_ = false;
  int8_t pagat_last_taker_ = -1;  // seat that took the last trick with the Pagat in it
  // The deal, kept in fixed arrays so a State never allocates.
  std::array<CardSet, kSeats> dealt_{};
  std::array<Card, kTalonSize> talon_{};
  // History: only the first history_len_ entries are ever written or read. The
  // arrays are left uninitialised and hold unsigned chars, whose indeterminate
  // values may be copied with the State (as in the Slovenian engine). Action i
  // is in history_[2i, 2i+2) (HistoryAt).
  uint16_t history_len_ = 0;
  std::array<uint8_t, sizeof(Action) * kMaxHistory> history_;
  std::array<uint8_t, kMaxHistory> history_seat_;
};

class AustrianGame final : public Game {
 public:
  AustrianGame(Rules rules, VariantInfo info, Options options);

  const VariantInfo& info() const override { return info_; }
  const Options& options() const override { return options_; }
  Deal DealCards(uint64_t seed, int dealer) const override;
  // The same deal into `deal`, reusing its memory: no allocation once warm.
  void DealInto(uint64_t seed, int dealer, Deal* deal) const;
  absl::StatusOr<std::unique_ptr<State>> NewHand(const Deal& deal,
                                                 const HandSetup& setup) const override;
  const ActionCodec& codec() const override { return codec_; }

  // Concrete-typed start of a hand for simulation (no virtual dispatch).
  absl::StatusOr<AustrianState> NewAustrianHand(const Deal& deal, const HandSetup& setup) const;

  const Rules& rules() const { return rules_; }
  // Card points of a card in thirds under this game's counting: traditional
  // 3v-2 (a pile of 3k cards makes its traditional count exactly), simplified 3v
  // (with v 0 for the one-pointers).
  int CardThirdsOf(Card c) const { return thirds_.Of(c); }
  int TotalThirds() const { return thirds_.total(); }

 private:
  friend class AustrianState;
  absl::Status ValidateDeal(const Deal& deal, const HandSetup& setup) const;

  Rules rules_;
  VariantInfo info_;
  Options options_;
  ActionCodec codec_;
  trick::ThirdsTable thirds_;
  // The cards that take the lead from each card (tarocks are always trumps);
  // entry kNumCards, the best card before the lead, holds every card.
  trick::CardTable beaters_{};
};

// The variant descriptions (for the registry and `tarock variants`).
VariantInfo InfoTapp();
VariantInfo InfoClassic();
// Builds the Rules of a variant from complete options.
Rules MakeRules(const std::string& variant, const Options& options);

}  // namespace tarock::austrian

#endif  // TAROCK_REFEREE_VARIANTS_AUSTRIAN_AUSTRIAN_H_
