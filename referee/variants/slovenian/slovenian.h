// The Slovenian Tarok family: slovenian-4p, slovenian-3p, slovenian-5p (rule
// document 003) and slovenian-tapp (rule document 000). One engine serves all
// four; a Rules value, fixed when the Game is created, says where they differ.
// The rules pages beside this file cite the documents and record every choice.
//
// Thread-safety: SlovenianGame is immutable; a SlovenianState is a plain value
// (copyable, no heap memory) and not thread-safe.

#ifndef TAROCK_REFEREE_VARIANTS_SLOVENIAN_SLOVENIAN_H_
#define TAROCK_REFEREE_VARIANTS_SLOVENIAN_SLOVENIAN_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "referee/engine/game.h"
#include "referee/variants/common/trick_core.h"

namespace tarock::slovenian {

// Contracts of the whole family, lowest first. A variant offers a subset.
enum Contract : uint8_t {
  kKlop = 0,
  kThree,
  kTwo,
  kOne,
  kSoloThree,
  kSoloTwo,
  kSoloOne,
  kBeggar,
  kSoloWithout,
  kOpenBeggar,
  kColourValat,
  kValat,
  kNumContracts,
  kNoContract = 0xFF,
};

enum Bonus : uint8_t { kTrula = 0, kKings, kKingUltimo, kPagatUltimo, kValatBonus, kNumBonuses };
// Kontra targets: 0 is the game, 1 + b is bonus b.
inline constexpr int kKontraGame = 0;
inline constexpr int kNumKontraTargets = 1 + kNumBonuses;

enum class Phase : uint8_t { kBidding, kDeclare, kKingCall, kTalon, kDiscard, kAnnounce, kPlay, kDone };

enum class BiddingStyle : uint8_t {
  kOverbid,    // 003 §4.2: each bid beats the last; the dealer alone may take Klop or Three
  kSeniority,  // 000: the senior may hold a junior's bid; juniors raise one step
};

enum class MondRule : uint8_t {
  kMondfang,  // 003 §4.6.2: Mond falling in a trick with the Skis costs its player 20
  kLost21,    // 000: a Mond captured by the other side costs its player 21
};

struct Rules {
  std::string name;
  int num_seats = 4;
  int num_active = 4;           // seats that play a hand (5p: the dealer sits out)
  int hand_size = 12;
  int deal_packet = 6;          // cards per packet when dealing
  bool king_call = true;
  BiddingStyle bidding = BiddingStyle::kOverbid;
  MondRule mond_rule = MondRule::kMondfang;
  std::array<bool, kNumContracts> offered{};
  std::array<int, kNumContracts> value{};
  bool kontra = true;           // kontra chain on the game and on bonuses
  bool radli = true;
  bool radl_for_beggar = false; // radl also for a Beggar (003 §5.1 says: higher than Beggar)
  bool king_ultimo = true;
  bool bonuses_in_solo = true;  // 003: bonuses also in Solo Three/Two/One
  bool colour_valat_upgrade = true;  // 003 §5.2.3: solo declarer may raise to colour valat
  bool klop_talon_shown = true; // 003 §5.2.1: the Klop talon cards are turned up
  bool tapp_talon_groups = false;  // 000: rows of three, columns of two
  bool dealer_leads_positive = false;  // 000: the dealer leads Three/Two/One and Klop
  bool pagat_kept_when_announced = false;  // 000: an announced Pagat must be kept
  bool imperator = true;
  bool red_pips_numeric = false;
  // Where 003 is clear, its reading is the default and the earlier "real play"
  // reading an option (issue 11; the rules pages cite the sections).
  // 003 §4.5 "Angefangen beim Geber": the dealer (5p: the last playing seat)
  // opens the announcements; false: the declarer (000 says so for tapp).
  bool announce_dealer_first = false;
  // 003 §4.6.2 "bis und mit Solo Einer" includes Klop (§3 lists it first).
  bool mondfang_in_klop = false;
  // 003 §5.1 "(und die seines ev. Partners)": the partner's radl doubles the
  // side's score too (and is struck when it is positive).
  bool partner_radl = false;
  // 003 §4.5.2: Kontra (and Subkontra) on the game by any player but the
  // declarer, the partner included; Rekontra and Mordkontra by the declarer.
  // false: side against side (the partner says the even levels).
  bool kontra_game_by_seat = false;
  // The defenders take every trick against an announced valat (or the other
  // way round): true charges the silent valat and the failed announcement;
  // false only the announcement, as for every other announced bonus.
  bool failed_valat_both = false;
  // A Kontra on the game said before a Solo is raised to Colour Valat (by a
  // seat that spoke before the declarer, 003 §4.5) doubles the Colour Valat
  // too; false (option raise_kontra=void): the raise starts the game's chain
  // afresh. 003 §4.5.2 and §5.2.3 are silent.
  bool raise_keeps_kontra = true;
  int difference_rounding = 5;  // 1: exact; 5: to the nearest 5
  int klop_lose_thirds = 107;   // a Klop player with at least this many thirds loses
};

class SlovenianGame;

class SlovenianState final : public State {
 public:
  static constexpr int kMaxSeats = 5;
  static constexpr int kMaxHistory = 384;
  static constexpr int kMaxHandCards = 16 + 3;  // the largest hand, with talon cards before discarding

  // Starts a hand without checking the deal. Precondition: the deal and setup
  // are valid for the game (as from DealInto, or checked by NewHand).
  SlovenianState(const SlovenianGame* game, const Deal& deal, const HandSetup& setup);

  const Game& game() const override;
  int CurrentSeat() const override { return phase_ == Phase::kDone ? kTerminal : to_act_; }
  void LegalActions(ActionList* out) const override;
  void Apply(Action a) override;
  HandResult Result() const override;
  Observation Observe(int seat) const override;
  bool ObserveCompact(int seat, Observation* out) const override;
  std::unique_ptr<State> Clone() const override { return std::make_unique<SlovenianState>(*this); }
  std::string PhaseName() const override;
  std::vector<Action> History() const override;
  Deal GetDeal() const override;
  HandSetup Setup() const override;

  // Introspection for tests and bots that simulate.
  Phase phase() const { return phase_; }
  int declarer() const { return declarer_; }
  int partner() const { return partner_; }
  Contract contract() const { return static_cast<Contract>(contract_); }
  CardSet hand(int seat) const { return hands_[seat]; }
  CardSet won(int seat) const { return won_[seat]; }

 private:
  // Observe (compact false) and ObserveCompact (true): one body, so both
  // say the same.
  void ObserveInto(int seat, bool compact, Observation* o) const;
  friend class SlovenianGame;
  const Rules& rules() const;
  int NextActive(int seat) const { return next_active_[seat]; }
  bool IsActive(int seat) const { return ((active_mask_ >> seat) & 1) != 0; }
  bool OnDeclarerSide(int seat) const { return seat == declarer_ || seat == partner_; }
  int DealerRole() const;  // the last active seat: the dealer, or in 5p the seat before
  int TalonGroupSize() const;
  int NumTalonGroups() const;
  CardSet TalonGroup(int g) const;
  bool ComputeNegative() const;
  bool IsNegative() const { return negative_; }  // valid in play
  bool BonusesAllowed() const;
  bool MondPenaltyApplies() const;
  int Leader() const;

  void LegalBids(ActionList* out) const;
  void LegalAnnouncements(ActionList* out) const;
  [[gnu::always_inline]] void LegalPlays(ActionList* out) const;
  [[gnu::always_inline]] CardSet PlayableCards() const;

  void ApplyBid(Action a);
  void ApplyAnnouncement(Action a);
  [[gnu::always_inline]] void ApplyPlay(Card c);
  void FinishBidding();
  void StartAfterBidding();
  void StartAnnouncements();
  void StartPlay();
  void FinishTrick();
  void Push(Action a);
  Action HistoryAt(int i) const;

  bool SideTookAll(bool declarer_side) const;
  int SideThirds(bool declarer_side) const;
  void ScoreBonuses(HandResult* r, int* declarer_side_score) const;

  const SlovenianGame* game_;
  Phase phase_ = Phase::kBidding;
  uint8_t num_seats_;
  uint8_t dealer_;
  uint8_t to_act_ = 0;
  uint8_t active_mask_ = 0;
  std::array<uint8_t, kMaxSeats> next_active_{};  // the next playing seat after each seat
  bool forced_klop_ = false;
  bool redeal_ = false;
  // Bidding.
  uint8_t passed_mask_ = 0;
  uint8_t best_bid_ = kNoContract;
  int8_t best_bidder_ = -1;
  int8_t senior_ = -1;     // seniority bidding: the holder
  int8_t challenger_ = -1; // seniority bidding: the junior in the duel
  uint8_t spoken_mask_ = 0;
  // Contract.
  int8_t declarer_ = -1;
  int8_t partner_ = -1;
  uint8_t contract_ = kNoContract;
  int8_t called_suit_ = -1;
  int8_t talon_group_ = -1;
  uint8_t discards_left_ = 0;
  CardSet talon_set_;
  CardSet talon_taken_;
  CardSet discards_;
  CardSet shown_discards_;
  // Announcements.
  uint8_t announced_mask_ = 0;
  std::array<uint8_t, 2> announceable_{};  // bonus masks: [defenders, declarer side]
  std::array<int8_t, kNumBonuses> announcer_{};
  std::array<uint8_t, kNumKontraTargets> kontra_{};
  uint8_t kontra_open_ = 0;   // targets that may still be kontra'd (bit per target)
  uint8_t kontra_owner_ = 0;  // targets owned by the declarer side
  uint8_t kontra_even_ = 0;   // targets at an even kontra level
  uint8_t consecutive_passes_ = 0;
  bool upgrade_possible_ = false;
  bool partner_kontra_flip_ = false;  // Rules::kontra_game_by_seat and a partner exists
  // Play.
  std::array<CardSet, kMaxSeats> hands_{};
  std::array<CardSet, kMaxSeats> won_{};
  std::array<uint8_t, kMaxSeats> tricks_won_{};
  std::array<int, kMaxSeats> mond_penalty_{};
  bool negative_ = false;  // Klop, Beggar, Open Beggar: set when play starts
  bool trumps_ = true;     // tarocks are trumps (all but Colour Valat)
  // Copied from the Rules when play starts, so the play path needs no rules() load.
  bool imperator_ = true;
  uint8_t num_active_ = 0;
  uint8_t pagat_guard_ = 0;  // seats that must keep the Pagat back unless it is forced
  // The play path tests bits of masks from tables instead of branching on
  // suits and ranks (trick_core.h).
  trick::Trick<kMaxSeats> trick_;
  const CardSet* beaters_ = nullptr;  // the game's table for this contract (see there)
  uint8_t tricks_played_ = 0;
  uint8_t total_tricks_ = 0;
  uint8_t klop_gifts_ = 0;
  bool ended_early_ = false;
  // The deal and setup, kept as fixed arrays so a State never allocates.
  std::array<CardSet, kMaxSeats> dealt_{};
  std::array<Card, 6> talon_{};
  std::array<uint8_t, kMaxSeats> radli_{};
  // Facts of the last trick for the Ultimo bonuses: -1 unknown/absent.
  int8_t pagat_last_seat_ = -1;     // seat that played the Pagat in the last trick
  bool pagat_last_won_ = false;
  int8_t king_last_winner_ = -1;    // winner of the last trick holding the called king
  // History: only the first history_len_ entries are ever written or read.
  // The arrays are left uninitialised (a hand would otherwise start with 1 KB
  // of zeroes) and hold unsigned chars, whose indeterminate values may be
  // copied with the State. Action i is in history_[2i, 2i+2) (HistoryAt).
  uint16_t history_len_ = 0;
  std::array<uint8_t, sizeof(Action) * kMaxHistory> history_;
  std::array<uint8_t, kMaxHistory> history_seat_;
};

class SlovenianGame final : public Game {
 public:
  SlovenianGame(Rules rules, VariantInfo info, Options options);

  const VariantInfo& info() const override { return info_; }
  const Options& options() const override { return options_; }
  Deal DealCards(uint64_t seed, int dealer) const override;
  // The same deal into `deal`, reusing its memory: no allocation once warm.
  void DealInto(uint64_t seed, int dealer, Deal* deal) const;
  absl::StatusOr<std::unique_ptr<State>> NewHand(const Deal& deal,
                                                 const HandSetup& setup) const override;
  const ActionCodec& codec() const override { return codec_; }

  // Concrete-typed start of a hand for simulation (no virtual dispatch).
  absl::StatusOr<SlovenianState> NewSlovenianHand(const Deal& deal, const HandSetup& setup) const;

  const Rules& rules() const { return rules_; }
  const RankTable& ranks() const { return ranks_; }

 private:
  friend class SlovenianState;
  absl::Status ValidateDeal(const Deal& deal, const HandSetup& setup) const;

  Rules rules_;
  VariantInfo info_;
  Options options_;
  ActionCodec codec_;
  RankTable ranks_;
  // The cards that take the lead from each card: [0] without trumps (Colour
  // Valat) the higher cards of its suit, [1] with trumps those plus, for a colour card, every
  // tarock. Entry kNumCards, the best card before the lead, holds every card.
  std::array<trick::CardTable, 2> beaters_{};
  // Row f: the bids of the offered contracts from f up, lowest first.
  struct BidRow {
    std::array<Action, kNumContracts> bids{};
    int size = 0;
  };
  std::array<BidRow, kNumContracts + 1> bids_from_{};
  // Per dealer: the seats that play a hand, and the next playing seat after each seat.
  struct Seating {
    uint8_t active_mask = 0;
    std::array<uint8_t, SlovenianState::kMaxSeats> next_active{};
  };
  std::array<Seating, SlovenianState::kMaxSeats> seating_{};
};

// The variant descriptions (for the registry and `tarock variants`).
VariantInfo Info4p();
VariantInfo Info3p();
VariantInfo Info5p();
VariantInfo InfoTapp();
// Builds the Rules of a variant from complete options.
Rules MakeRules(const std::string& variant, const Options& options);

}  // namespace tarock::slovenian

#endif  // TAROCK_REFEREE_VARIANTS_SLOVENIAN_SLOVENIAN_H_
