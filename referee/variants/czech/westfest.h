// Westfest Tarock (Czech-Texan Tarock, rule document 004): four players, twelve
// cards each, a six-card talon, povinnost with a called tarock partner, prever,
// chips. The rules page beside this file (rules-westfest.md) cites the document
// and records every choice where it is silent or contradicts itself.
//
// Seats: the engine's seat i+1 is the right-hand neighbour of seat i, so the
// document's counter-clockwise order is seat order. The povinnost is the seat
// after the dealer; the cutter is the seat before the dealer (his left).
//
// A hand begins with the deal itself: the Deal carries the shuffled pack
// (Deal::deck) and empty hands; the cutter's `cut` or `tap N` (and after `tap
// stacks` the stack choices) distribute it, so the record replays the same deal.
//
// Thread-safety: WestfestGame is immutable; a WestfestState is a plain value
// (copyable, no heap memory) and not thread-safe.

#ifndef TAROCK_REFEREE_VARIANTS_CZECH_WESTFEST_H_
#define TAROCK_REFEREE_VARIANTS_CZECH_WESTFEST_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "referee/engine/game.h"
#include "referee/variants/common/trick_core.h"

namespace tarock::czech {

inline constexpr int kSeats = 4;
inline constexpr int kHandSize = 12;
inline constexpr int kTalonSize = 6;
inline constexpr int kTotalPoints = 106;  // card points counted raw (004 "Card Values")

enum Contract : uint8_t { kPovinnost = 0, kPrever = 1, kNumContracts = 2, kNoContract = 0xFF };

// Bonuses (004 "Bonus Points", "Pagat", "Valat"). Uni is paid without being
// announced; the others are announced (`announce NAME`).
enum Bonus : uint8_t {
  kTarocky = 0,          // 8 or more tarocks: 2 chips
  kTaroky,               // 10 or more tarocks: 4
  kTrul,                 // Skys, Mond and Pagat: 2
  kHonery,               // any four of the seven five-point cards: 2
  kKralovskeHonery,      // the four kings: 4
  kKralovskeHoneryPlus,  // the four kings and the Skys, Mond or Pagat: 6
  kTrulHonery,           // the trul and one or more kings: 4
  kUni,                  // no tarock: 4, paid without announcing
  kBida,                 // one or two tarocks: 2
  kPagatBonus,           // the called Pagat on the last trick: 4
  kValatBonus,           // the called valat: 40
  kNumBonuses,
};
// Kontra targets: the game (Contra, Rhea Contra, Suprhea) and the called Pagat.
enum KontraTarget : uint8_t { kKontraGame = 0, kKontraPagat = 1, kNumKontraTargets = 2 };
inline constexpr int kMaxKontra = 3;  // Suprhea: x8

// Custom actions (ActionCodec::custom), in this order.
enum Custom : uint8_t {
  kCut = 0,   // "cut": packets of 6
  kTap1,      // "tap 1": packets of 1
  kTap2,      // "tap 2"
  kTap3,      // "tap 3"
  kTap4,      // "tap 4"
  kTap12,     // "tap 12": twelve at a time, the povinnost first
  kTapStacks, // "tap stacks": four stacks of 12, chosen in turn from the povinnost
  kStack0,    // "stack 0" .. "stack 3": take that stack (the k-th 12 cards after the talon)
  kStack1,
  kStack2,
  kStack3,
  kThrowIn,   // "throw-in": the povinnost drew the called tarock and gives up the hand
  kNumCustom,
};

enum class Phase : uint8_t {
  kCut,         // the cutter: cut or tap N
  kStacks,      // after "tap stacks": the povinnost and the next two choose stacks
  kPrever,      // each seat from the povinnost: pass or bid prever
  kPreverTalon, // the prever player: keep (pass) or change sets (talon 1, then talon 0)
  kThrowIn,     // the povinnost drew the called tarock: pass or throw-in
  kDiscard,     // one discard CARD per card drawn
  kDraw,        // the next two seats: talon 1 / talon 2, or pass (uni or bida only)
  kAnnounce,    // bonuses, pagat, valat, Contra chain
  kPlay,
  kDone,
};

class WestfestGame;

class WestfestState final : public State {
 public:
  static constexpr int kMaxHistory = 256;

  // Starts a hand without checking the deal. Precondition: the deal and setup
  // are valid (as from DealInto, or checked by NewHand).
  WestfestState(const WestfestGame* game, const Deal& deal, const HandSetup& setup);

  const Game& game() const override;
  int CurrentSeat() const override { return phase_ == Phase::kDone ? kTerminal : to_act_; }
  void LegalActions(ActionList* out) const override;
  void Apply(Action a) override;
  HandResult Result() const override;
  Observation Observe(int seat) const override;
  bool ObserveCompact(int seat, Observation* out) const override;
  std::unique_ptr<State> Clone() const override { return std::make_unique<WestfestState>(*this); }
  std::string PhaseName() const override;
  std::vector<Action> History() const override;
  Deal GetDeal() const override;
  HandSetup Setup() const override;

  // Introspection for tests and simulations.
  Phase phase() const { return phase_; }
  int dealer() const { return dealer_; }
  int povinnost() const { return povinnost_; }
  int declarer() const { return declarer_; }
  int partner() const { return partner_; }
  Contract contract() const { return static_cast<Contract>(contract_); }
  Card called() const { return called_; }  // kNoCard when none
  CardSet hand(int seat) const { return hands_[seat]; }
  CardSet won(int seat) const { return won_[seat]; }
  int draw_multiplier() const { return draw_mult_; }
  int kontra_level(int target) const { return kontra_[target]; }
  // Card points counted raw (004): the sum of the card values of a set.
  static int Points(CardSet s);

 private:
  // Observe (compact false) and ObserveCompact (true): one body, so both
  // say the same.
  void ObserveInto(int seat, bool compact, Observation* o) const;
  friend class WestfestGame;
  int Next(int seat) const { return (seat + 1) & 3; }
  bool OnDeclarerSide(int seat) const { return seat == declarer_ || seat == partner_; }
  void Push(Action a);
  Action HistoryAt(int i) const;

  void DealOut();
  void FinishPreverRound();
  void StartPovinnostDraw();
  void AfterDiscards();
  void StartDraw(int step);
  void StartAnnouncements();
  void StartPlay();
  void FinishTrick();
  void LegalAnnouncements(ActionList* out) const;
  unsigned AnnounceableBonuses(int seat) const;
  CardSet LegalDiscards(int seat) const;
  CardSet PlayableCards() const;

  // Settlement helpers for Result (chips, zero-sum).
  void SettleSides(int x, std::vector<int>* scores) const;
  static void SettlePersonal(int seat, int x, std::vector<int>* scores);

  const WestfestGame* game_;
  Phase phase_ = Phase::kCut;
  uint8_t dealer_ = 0;
  uint8_t povinnost_ = 1;
  uint8_t to_act_ = 0;
  // The deal.
  std::array<Card, 54> deck_{};
  std::array<Card, kTalonSize> talon_{};
  uint8_t dealing_ = 0xFF;       // the Custom action that chose the dealing
  uint8_t stacks_taken_ = 0;     // bit per stack
  std::array<int8_t, kSeats> stack_of_{-1, -1, -1, -1};
  // Bidding and the talon.
  uint8_t prever_passes_ = 0;
  int8_t declarer_ = -1;
  int8_t partner_ = -1;
  uint8_t contract_ = kNoContract;
  Card called_ = kNoCard;
  bool thrown_in_ = false;
  uint8_t prever_stage_ = 0;     // 0: holding set 0; 1: changed to set 1; 2: settled
  uint8_t draw_mult_ = 1;        // prever: 1, 2 (second set) or 4 (back to the first)
  uint8_t draw_step_ = 0;        // 0: the declarer discards; 1, 2: the seats after the povinnost
  uint8_t discards_left_ = 0;
  std::array<uint8_t, kSeats> talon_seen_{};  // per seat: bit i = talon card i seen
  uint8_t talon_taken_ = 0;      // bit i = talon card i is in a hand (or was discarded from one)
  bool called_shown_ = false;    // the called tarock was played or discarded face up
  // Announcements.
  std::array<uint16_t, kSeats> announced_{};  // per seat: bonus bits it announced
  std::array<CardSet, kSeats> final_hand_{};  // the hands when the announcements begin
  int8_t pagat_announcer_ = -1;
  int8_t valat_announcer_ = -1;
  std::array<uint8_t, kNumKontraTargets> kontra_{};
  uint8_t consecutive_passes_ = 0;
  // Play.
  std::array<CardSet, kSeats> hands_{};
  std::array<CardSet, kSeats> won_{};   // tricks and the seat's own discards
  std::array<uint8_t, kSeats> tricks_won_{};
  trick::Trick<kSeats> trick_;   // trick_core.h
  uint8_t tricks_played_ = 0;
  int8_t pagat_last_seat_ = -1;  // the seat that played the Pagat in the last trick
  bool pagat_last_won_ = false;
  // History.
  uint16_t history_len_ = 0;
  std::array<Action, kMaxHistory> history_{};
  std::array<uint8_t, kMaxHistory> history_seat_{};
};

class WestfestGame final : public Game {
 public:
  WestfestGame(VariantInfo info, Options options);

  const VariantInfo& info() const override { return info_; }
  const Options& options() const override { return options_; }
  Deal DealCards(uint64_t seed, int dealer) const override;
  // The same deal into `deal`, reusing its memory.
  void DealInto(uint64_t seed, int dealer, Deal* deal) const;
  absl::StatusOr<std::unique_ptr<State>> NewHand(const Deal& deal,
                                                 const HandSetup& setup) const override;
  const ActionCodec& codec() const override { return codec_; }
  absl::StatusOr<WestfestState> NewWestfestHand(const Deal& deal, const HandSetup& setup) const;

  // Trick strength of each card (higher wins within a suit; tarocks beat suits).
  const std::array<uint8_t, kNumCards>& strength() const { return strength_; }
  // The cards that beat each card led or winning so far; entry kNumCards (before
  // the lead) holds every card.
  const trick::CardTable& beaters() const { return beaters_; }

  // Option throw_in=xix-to-xv: the povinnost may throw in after drawing any of
  // T19..T15 (004 ¶7 read card by card); default called-tarock: only after
  // drawing its called tarock.
  bool throw_in_any_xix_to_xv() const { return throw_in_any_xix_to_xv_; }

  // 004 "Counting Of Score": (|points - 53| + 10) x 2, then tens rounded half up.
  static int GameChips(int points);
  // 004 "Calculating Prever Score": the same with x 3.
  static int PreverChips(int points);

 private:
  absl::Status ValidateDeal(const Deal& deal, const HandSetup& setup) const;

  VariantInfo info_;
  Options options_;
  ActionCodec codec_;
  std::array<uint8_t, kNumCards> strength_{};
  trick::CardTable beaters_{};
  bool throw_in_any_xix_to_xv_ = false;
};

VariantInfo WestfestInfo();

}  // namespace tarock::czech

#endif  // TAROCK_REFEREE_VARIANTS_CZECH_WESTFEST_H_
