#include "referee/variants/slovenian/slovenian.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"

namespace tarock::slovenian {
namespace {

constexpr const char* kContractNames[kNumContracts] = {
    "klop",    "three",        "two",         "one",         "solo-three",   "solo-two",
    "solo-one", "beggar",      "solo-without", "open-beggar", "colour-valat", "valat"};
constexpr const char* kBonusNames[kNumBonuses] = {"trula", "kings", "king-ultimo", "pagat-ultimo",
                                                  "valat"};
constexpr int kSilentValue[kNumBonuses] = {10, 10, 10, 25, 250};
constexpr int kAnnouncedValue[kNumBonuses] = {20, 20, 20, 50, 500};
constexpr int kTotalThirds = 210;

bool HasDifference(int c) { return c >= kThree && c <= kSoloOne; }
int TalonCardsOf(int c) {
  switch (c) {
    case kThree: case kSoloThree: return 3;
    case kTwo: case kSoloTwo: return 2;
    case kOne: case kSoloOne: return 1;
    default: return 0;
  }
}

// kBitActions[0][m]: "announce b" for each bit b of m, lowest first;
// kBitActions[1][m]: "kontra t" for each bit t. Rows are padded: a list
// copies a whole row and counts only popcount(m) of it.
static_assert(kNumBonuses <= 6 && kNumKontraTargets <= 6);
constexpr auto kBitActions = [] {
  std::array<std::array<std::array<Action, 8>, 64>, 2> t{};
  const Verb verbs[2] = {Verb::kAnnounce, Verb::kKontra};
  for (int v = 0; v < 2; ++v) {
    for (int m = 0; m < 64; ++m) {
      int n = 0;
      for (int b = 0; b < 6; ++b)
        if ((m >> b) & 1) t[v][m][n++] = MakeAction(verbs[v], b);
    }
  }
  return t;
}();

}  // namespace

// ---------------------------------------------------------------------------
// State: construction and small helpers.

SlovenianState::SlovenianState(const SlovenianGame* game, const Deal& deal,
                               const HandSetup& setup)
    : game_(game) {
  const Rules& r = game->rules();
  num_seats_ = static_cast<uint8_t>(r.num_seats);
  dealer_ = static_cast<uint8_t>(setup.dealer);
  // Who plays and in what order depends on the dealer only: from the game.
  active_mask_ = game->seating_[dealer_].active_mask;
  next_active_ = game->seating_[dealer_].next_active;
  const bool radli = !setup.radli.empty();
  for (int s = 0; s < num_seats_; ++s) {
    hands_[s] = dealt_[s] = deal.hands[s];
    radli_[s] = radli ? static_cast<uint8_t>(setup.radli[s]) : 0;
  }
  for (int i = 0; i < 6; ++i) {
    talon_[i] = deal.talon[i];
    talon_set_.Add(deal.talon[i]);
  }
  forced_klop_ = setup.forced_klop;
  total_tricks_ = static_cast<uint8_t>(r.hand_size);
  for (int s = 0; s < num_seats_; ++s) {
    if (IsActive(s) && (hands_[s] & kTarockSet).empty()) {
      // 003 §4.1.1, 000: a hand without tarocks is shown and the deal is void.
      redeal_ = true;
      phase_ = Phase::kDone;
      return;
    }
  }
  if (forced_klop_ && r.bidding == BiddingStyle::kSeniority) {
    contract_ = kKlop;  // 000: a compulsory Klop, without an auction
    StartPlay();
    return;
  }
  phase_ = Phase::kBidding;
  to_act_ = r.bidding == BiddingStyle::kSeniority ? dealer_ : NextActive(dealer_);
  if (r.bidding == BiddingStyle::kSeniority) spoken_mask_ = 1 << to_act_;
}

const Game& SlovenianState::game() const { return *game_; }
const Rules& SlovenianState::rules() const { return game_->rules(); }

int SlovenianState::DealerRole() const {
  return IsActive(dealer_) ? dealer_ : (dealer_ + num_seats_ - 1) % num_seats_;
}

int SlovenianState::TalonGroupSize() const { return TalonCardsOf(contract_); }

int SlovenianState::NumTalonGroups() const {
  const int k = TalonGroupSize();
  if (rules().tapp_talon_groups) return k == 3 ? 2 : k == 2 ? 3 : 6;
  return 6 / k;
}

CardSet SlovenianState::TalonGroup(int g) const {
  const int k = TalonGroupSize();
  // 000: two cards in a column of the 2x3 layout; else k cards in a row.
  const unsigned positions = rules().tapp_talon_groups && k == 2 ? (1u << g) | (1u << (g + 3))
                                                                 : ((1u << k) - 1) << (g * k);
  return trick::CardsAt(talon_, positions);
}

bool SlovenianState::ComputeNegative() const {
  return contract_ == kKlop || contract_ == kBeggar || contract_ == kOpenBeggar;
}

bool SlovenianState::BonusesAllowed() const {
  if (contract_ >= kThree && contract_ <= kOne) return true;
  return rules().bonuses_in_solo && contract_ >= kSoloThree && contract_ <= kSoloOne;
}

bool SlovenianState::MondPenaltyApplies() const {
  // 003 §4.6.2 "bis und mit Solo Einer": Klop is the lowest of those bids (§3);
  // option mondfang_in_klop=no leaves it out. 000's Lost 21 needs an "other
  // team", which Klop does not have.
  if (contract_ == kKlop) return rules().mondfang_in_klop && rules().mond_rule == MondRule::kMondfang;
  if (rules().mond_rule == MondRule::kMondfang) return contract_ <= kSoloOne;
  return true;
}

int SlovenianState::Leader() const {
  const Rules& r = rules();
  if (r.dealer_leads_positive) {  // 000: declarer leads Beggar and Solo Without, else the dealer
    return (contract_ == kBeggar || contract_ == kSoloWithout) ? declarer_ : dealer_;
  }
  if (contract_ == kColourValat) return DealerRole();  // 003 §4.6 exception
  if (contract_ > kSoloOne) return declarer_;
  return NextActive(dealer_);
}

void SlovenianState::Push(Action a) {
  if (history_len_ < kMaxHistory) {
    std::memcpy(&history_[sizeof(Action) * history_len_], &a, sizeof(Action));
    history_seat_[history_len_] = to_act_;
    ++history_len_;
  }
}

Action SlovenianState::HistoryAt(int i) const {
  Action a;
  std::memcpy(&a, &history_[sizeof(Action) * i], sizeof(Action));
  return a;
}

// ---------------------------------------------------------------------------
// Legal actions.

void SlovenianState::LegalActions(ActionList* out) const {
  if (phase_ == Phase::kPlay) {  // the hot path first
    LegalPlays(out);
    return;
  }
  out->clear();
  switch (phase_) {
    case Phase::kBidding:
      LegalBids(out);
      return;
    case Phase::kDeclare:
      for (int c = best_bid_; c < kNumContracts; ++c)
        if (rules().offered[c]) out->push(MakeAction(Verb::kBid, c));
      return;
    case Phase::kKingCall:
      for (int s = 0; s < 4; ++s) out->push(MakeAction(Verb::kCall, s));
      return;
    case Phase::kTalon:
      for (int g = 0; g < NumTalonGroups(); ++g) out->push(MakeAction(Verb::kTalon, g));
      return;
    case Phase::kDiscard:
      // Kings and the trula cards may never be laid away (003 real play; 000).
      for (Card c : hands_[declarer_] - kKingSet - kTrulaSet) out->push(MakeAction(Verb::kDiscard, c));
      return;
    case Phase::kAnnounce:
      LegalAnnouncements(out);
      return;
    case Phase::kPlay:
      LegalPlays(out);
      return;
    case Phase::kDone:
      return;
  }
}

void SlovenianState::LegalBids(ActionList* out) const {
  const Rules& r = rules();
  const int s = to_act_;
  if (r.bidding == BiddingStyle::kSeniority) {
    if (senior_ < 0) {  // the opener may only name the lowest bid
      out->push(kPassAction);
      out->push(MakeAction(Verb::kBid, kThree));
      return;
    }
    out->push(kPassAction);
    if (s == senior_) {
      out->push(MakeAction(Verb::kBid, best_bid_));  // hold
    } else {
      for (int c = best_bid_ + 1; c < kNumContracts; ++c) {
        if (r.offered[c]) {
          out->push(MakeAction(Verb::kBid, c));  // the next higher bid only
          break;
        }
      }
    }
    return;
  }
  const int lowest = forced_klop_ ? kSoloWithout : kTwo;
  const int passed = std::popcount(passed_mask_);
  Action* items = out->items;
  int n = out->size;
  int from;
  if (best_bid_ == kNoContract && passed == r.num_active - 1) {
    // 003 §3, §4.2: all others passed; the dealer takes Klop, Three or any higher bid.
    items[n++] = MakeAction(Verb::kBid, kKlop);
    if (!forced_klop_) items[n++] = MakeAction(Verb::kBid, kThree);
    from = lowest;
  } else {
    items[n++] = kPassAction;
    from = best_bid_ == kNoContract ? lowest : std::max<int>(lowest, best_bid_ + 1);
  }
  // The offered contracts from `from` up, lowest first: a whole row of the
  // game's table is copied (the list has room), its size says what counts.
  const SlovenianGame::BidRow& row = game_->bids_from_[from];
  std::memcpy(items + n, row.bids.data(), sizeof row.bids);
  static_assert(2 + kNumContracts <= ActionList::kCapacity);
  out->size = n + row.size;
}

void SlovenianState::LegalAnnouncements(ActionList* out) const {
  // Random play makes the lists vary from call to call, so they are written
  // without branches: conditional items are stored and counted or not, and
  // the bonuses and kontra targets are copied from kBitActions rows.
  const int s = to_act_;
  Action* items = out->items;
  int n = 0;
  items[n++] = kPassAction;
  items[n] = MakeAction(Verb::kBid, kColourValat);
  n += upgrade_possible_ & (s == declarer_);
  const int side = (s == declarer_) | (s == partner_);  // OnDeclarerSide(s)
  unsigned bonuses = announceable_[side] & ~announced_mask_;
  // Pagat Ultimo only for the holder of the Pagat (bit 0 of a hand).
  bonuses &= ~((~hands_[s].bits() & 1) << kPagatUltimo);
  static_assert(kPagat == 0);
  std::memcpy(items + n, kBitActions[0][bonuses].data(), sizeof(kBitActions[0][0]));
  n += std::popcount(bonuses);
  // Kontra: odd levels (kontra, subkontra) belong to the side against the
  // target, even levels (rekontra, mordkontra) to the side that owns it. Per
  // target t (bit t; 0 the game, 1 + b bonus b): even level <=> bit in
  // kontra_even_, owned by the declarer side <=> bit in kontra_owner_.
  // With kontra_game_by_seat (003 §4.5.2) the partner stands with the
  // defenders for the game's chain only: bit 0 of `mine` flips for him.
  const unsigned mine = (kontra_owner_ ^ (0u - side)) ^ (partner_kontra_flip_ & (s == partner_));
  const unsigned targets = ~(kontra_even_ ^ mine) & kontra_open_;
  std::memcpy(items + n, kBitActions[1][targets].data(), sizeof(kBitActions[1][0]));
  n += std::popcount(targets);
  out->size = n;
}

inline CardSet SlovenianState::PlayableCards() const {
  // Branch-free (see trick_core.h): follow suit, else trump (also in colour
  // valat), else any card.
  const int s = to_act_;
  uint64_t cand = trick::FollowOrTrump(hands_[s].bits(), trick_.led());
  if (IsNegative()) {  // the same in every trick of a hand: well predicted
    // 003 §4.6.3 / 000: beat the highest card on the table if possible.
    cand = trick::MustBeat(cand, beaters_[trick_.best_card()], trick_.set, imperator_);
  }
  // The Pagat only when forced: in negative contracts (003 §4.6.3), and for an
  // announced Pagat Ultimo where the variant says so (000); see StartPlay.
  return CardSet(trick::KeepPagatBack(cand, pagat_guard_ >> s));
}

inline void SlovenianState::LegalPlays(ActionList* out) const {
  trick::WritePlays(PlayableCards().bits(), out);
}

// ---------------------------------------------------------------------------
// Applying actions.

void SlovenianState::Apply(Action a) {
  Push(a);
  if (phase_ == Phase::kPlay) {  // the hot path first
    ApplyPlay(static_cast<Card>(ArgOf(a)));
    return;
  }
  const Verb v = VerbOf(a);
  const int arg = ArgOf(a);
  switch (phase_) {
    case Phase::kBidding:
      ApplyBid(a);
      return;
    case Phase::kDeclare:
      contract_ = static_cast<uint8_t>(arg);
      StartAfterBidding();
      return;
    case Phase::kKingCall: {
      called_suit_ = static_cast<int8_t>(arg);
      const Card king = King(static_cast<Suit>(arg));
      partner_ = -1;
      for (int s = 0; s < num_seats_; ++s)
        if (s != declarer_ && hands_[s].Contains(king)) partner_ = static_cast<int8_t>(s);
      phase_ = Phase::kTalon;
      return;
    }
    case Phase::kTalon: {
      talon_group_ = static_cast<int8_t>(arg);
      talon_taken_ = TalonGroup(arg);
      hands_[declarer_] |= talon_taken_;
      discards_left_ = static_cast<uint8_t>(talon_taken_.size());
      // A Mond left in the talon is charged when play starts (StartPlay), under
      // the contract that is played: a Solo raised to Colour Valat is no longer
      // one of the bids "bis und mit Solo Einer" (003 §4.6.2, §5.2.3).
      phase_ = Phase::kDiscard;
      return;
    }
    case Phase::kDiscard: {
      const Card c = static_cast<Card>(arg);
      hands_[declarer_].Remove(c);
      discards_.Add(c);
      won_[declarer_].Add(c);
      if (IsTarock(c)) shown_discards_.Add(c);
      if (--discards_left_ == 0) StartAnnouncements();
      return;
    }
    case Phase::kAnnounce:
      ApplyAnnouncement(a);
      return;
    case Phase::kPlay:
      ApplyPlay(static_cast<Card>(arg));
      return;
    case Phase::kDone:
      return;
  }
  (void)v;
}

void SlovenianState::ApplyBid(Action a) {
  const Rules& r = rules();
  const int s = to_act_;
  const bool is_pass = VerbOf(a) == Verb::kPass;
  if (r.bidding == BiddingStyle::kSeniority) {
    // The order of entry: the dealer first, then each next seat once.
    auto next_entrant = [&]() -> int {
      int e = s;
      for (int i = 0; i < num_seats_; ++i) {
        e = NextActive(e);
        if (!(spoken_mask_ & (1 << e))) return e;
      }
      return -1;
    };
    if (senior_ < 0) {
      if (is_pass) {
        passed_mask_ |= 1 << s;
      } else {
        senior_ = static_cast<int8_t>(s);
        best_bid_ = static_cast<uint8_t>(ArgOf(a));
      }
      const int e = next_entrant();
      if (e < 0) {
        if (senior_ < 0) {
          contract_ = kKlop;
          StartAfterBidding();
        } else {
          FinishBidding();
        }
        return;
      }
      spoken_mask_ |= 1 << e;
      if (senior_ >= 0) challenger_ = static_cast<int8_t>(e);
      to_act_ = static_cast<uint8_t>(e);
      return;
    }
    if (s == challenger_) {
      if (!is_pass) {
        best_bid_ = static_cast<uint8_t>(ArgOf(a));
        to_act_ = static_cast<uint8_t>(senior_);
        return;
      }
      passed_mask_ |= 1 << s;
    } else {  // the senior answers a raise
      if (!is_pass) {
        to_act_ = static_cast<uint8_t>(challenger_);
        return;
      }
      passed_mask_ |= 1 << s;
      senior_ = challenger_;
    }
    const int e = next_entrant();
    if (e < 0) {
      FinishBidding();
      return;
    }
    spoken_mask_ |= 1 << e;
    challenger_ = static_cast<int8_t>(e);
    to_act_ = static_cast<uint8_t>(e);
    return;
  }
  if (is_pass) {
    passed_mask_ |= 1 << s;
  } else {
    best_bid_ = static_cast<uint8_t>(ArgOf(a));
    best_bidder_ = static_cast<int8_t>(s);
  }
  const int passed = std::popcount(passed_mask_);
  if (best_bid_ != kNoContract && passed == r.num_active - 1) {
    FinishBidding();
    return;
  }
  int next = NextActive(s);
  while (passed_mask_ & (1 << next)) next = NextActive(next);
  to_act_ = static_cast<uint8_t>(next);
}

void SlovenianState::FinishBidding() {
  if (rules().bidding == BiddingStyle::kSeniority) {
    // 000: the winner may play the bid contract or convert to a higher one.
    declarer_ = senior_;
    to_act_ = static_cast<uint8_t>(declarer_);
    phase_ = Phase::kDeclare;
    return;
  }
  contract_ = best_bid_;
  declarer_ = best_bid_ == kKlop ? -1 : best_bidder_;
  StartAfterBidding();
}

void SlovenianState::StartAfterBidding() {
  if (contract_ == kKlop) {
    declarer_ = -1;
    StartPlay();
    return;
  }
  to_act_ = static_cast<uint8_t>(declarer_);
  if (rules().king_call && contract_ >= kThree && contract_ <= kOne) {
    phase_ = Phase::kKingCall;
  } else if (TalonCardsOf(contract_) > 0) {
    phase_ = Phase::kTalon;
  } else {
    StartAnnouncements();
  }
}

void SlovenianState::StartAnnouncements() {
  const bool any = BonusesAllowed() || rules().kontra;
  if (!any) {
    StartPlay();
    return;
  }
  phase_ = Phase::kAnnounce;
  // 003 §4.5 "Angefangen beim Geber"; in 5p the sitting-out dealer's role falls
  // to the last playing seat, as for his other roles. Option
  // announce_first=declarer (and 000 for tapp): the declarer.
  to_act_ = static_cast<uint8_t>(rules().announce_dealer_first ? DealerRole() : declarer_);
  partner_kontra_flip_ = rules().kontra_game_by_seat && partner_ >= 0;
  consecutive_passes_ = 0;
  upgrade_possible_ = rules().colour_valat_upgrade && contract_ >= kSoloThree && contract_ <= kSoloOne;
  // Which bonuses each side may announce (index 1: the declarer side). King
  // Ultimo only for the declarer side, and only when a king was called.
  kontra_open_ = rules().kontra ? 1 : 0;  // the game; bonuses once announced
  kontra_owner_ = 1;                       // the game belongs to the declarer side
  kontra_even_ = 0x3F;                     // every target at level 0
  announceable_ = {0, 0};
  if (BonusesAllowed()) {
    const uint8_t all = (1 << kTrula) | (1 << kKings) | (1 << kPagatUltimo) | (1 << kValatBonus);
    announceable_ = {all, all};
    if (rules().king_ultimo && called_suit_ >= 0) announceable_[1] |= 1 << kKingUltimo;
  }
}

void SlovenianState::ApplyAnnouncement(Action a) {
  const int s = to_act_;
  // The colour valat raise is open until the declarer's first action, even
  // when others (the dealer opening, 003 §4.5) spoke before him.
  if (s == declarer_) upgrade_possible_ = false;
  switch (VerbOf(a)) {
    case Verb::kPass:
      if (++consecutive_passes_ == rules().num_active) {
        StartPlay();
        return;
      }
      break;
    case Verb::kBid:  // 003 §5.2.3: the solo declarer raises to colour valat
      contract_ = kColourValat;
      // §5: no bonuses from Beggar up, so bonuses announced before the raise
      // (by seats that spoke before the declarer, §4.5) are void, and so are
      // their Kontra chains. A Kontra on the game stays (a choice: §4.5.2 and
      // §5.2.3 are silent) unless raise_kontra=void.
      announceable_ = {0, 0};
      kontra_open_ &= 1;
      if (!rules().raise_keeps_kontra) {
        kontra_[kKontraGame] = 0;
        kontra_even_ |= 1;
        if (rules().kontra) kontra_open_ |= 1;
      }
      consecutive_passes_ = 0;
      break;
    case Verb::kAnnounce:
      announced_mask_ |= 1 << ArgOf(a);
      announcer_[ArgOf(a)] = static_cast<int8_t>(s);
      if (rules().kontra) kontra_open_ |= 2u << ArgOf(a);
      if (OnDeclarerSide(s)) kontra_owner_ |= 2u << ArgOf(a);
      consecutive_passes_ = 0;
      break;
    case Verb::kKontra:
      if (++kontra_[ArgOf(a)] == 4) kontra_open_ &= ~(1u << ArgOf(a));  // mordkontra ends it
      kontra_even_ ^= 1u << ArgOf(a);
      consecutive_passes_ = 0;
      break;
    default:
      break;
  }
  to_act_ = static_cast<uint8_t>(NextActive(s));
}

void SlovenianState::StartPlay() {
  const Rules& r = rules();
  phase_ = Phase::kPlay;
  negative_ = ComputeNegative();
  trumps_ = contract_ != kColourValat;
  imperator_ = r.imperator;
  num_active_ = static_cast<uint8_t>(r.num_active);
  if (negative_) {
    pagat_guard_ = (1 << kMaxSeats) - 1;
  } else if (r.pagat_kept_when_announced && (announced_mask_ & (1 << kPagatUltimo))) {
    pagat_guard_ = static_cast<uint8_t>(1 << announcer_[kPagatUltimo]);  // fixed once play starts
  } else {
    pagat_guard_ = 0;
  }
  // 003 §4.6.2 / 000: leaving an exposed Mond to the defenders costs as much
  // as losing it, in the contract that is played (a raised Colour Valat is
  // not charged, §4.6.2 "bis und mit Solo Einer").
  if (talon_group_ >= 0 && talon_set_.Contains(kMond) && !talon_taken_.Contains(kMond) &&
      MondPenaltyApplies()) {
    mond_penalty_[declarer_] -= r.mond_rule == MondRule::kMondfang ? 20 : 21;
  }
  beaters_ = game_->beaters_[trumps_].data();
  trick_.Start(Leader());
  to_act_ = trick_.leader;
}

inline void SlovenianState::ApplyPlay(Card c) {
  const int s = to_act_;
  hands_[s] -= CardSet::Of(c);
  trick_.Add(s, c, beaters_);
  if (trick_.len == num_active_) {
    FinishTrick();
  } else {
    to_act_ = static_cast<uint8_t>(NextActive(s));
  }
}

void SlovenianState::FinishTrick() {
  // 003 §4.6.1, 000: the Pagat takes the trick with the Mond and the Skis;
  // in Colour Valat, where tarocks are no trumps, only a tarock trick.
  const int wi = trick_.WinnerIndex(imperator_, trumps_);
  const int winner = trick_.seats[wi];
  won_[winner] |= trick_.set;
  ++tricks_won_[winner];
  if (trick_.set.Contains(kMond) && MondPenaltyApplies()) {
    const int mond_seat = trick_.seats[trick_.IndexOf(kMond)];
    const bool skis = trick_.set.Contains(kSkis);
    if (rules().mond_rule == MondRule::kMondfang) {
      if (skis) mond_penalty_[mond_seat] -= 20;
    } else if (OnDeclarerSide(mond_seat) != OnDeclarerSide(winner)) {
      mond_penalty_[mond_seat] -= 21;
    }
  }
  if (contract_ == kKlop && klop_gifts_ < 6) {  // 003 §5.2.1: one talon card per trick
    won_[winner].Add(talon_[klop_gifts_]);
    ++klop_gifts_;
  }
  ++tricks_played_;
  if (tricks_played_ == total_tricks_) {
    if (const int pi = trick_.IndexOf(kPagat); pi >= 0) {
      pagat_last_seat_ = static_cast<int8_t>(trick_.seats[pi]);
      pagat_last_won_ = pi == wi;
    }
    if (called_suit_ >= 0 && trick_.IndexOf(King(static_cast<Suit>(called_suit_))) >= 0)
      king_last_winner_ = static_cast<int8_t>(winner);
  }
  trick_.Start(winner);
  to_act_ = static_cast<uint8_t>(winner);
  const bool beggar = contract_ == kBeggar || contract_ == kOpenBeggar;
  const bool valat = contract_ == kValat || contract_ == kColourValat;
  if (tricks_played_ == total_tricks_) {
    phase_ = Phase::kDone;
  } else if ((beggar && winner == declarer_) || (valat && winner != declarer_)) {
    ended_early_ = true;  // the outcome is settled; the rest is not played out
    phase_ = Phase::kDone;
  }
}

// ---------------------------------------------------------------------------
// Scoring.

int SlovenianState::SideThirds(bool declarer_side) const {
  const int d = SetThirds(trick::SidePile(won_, declarer_, partner_));
  return declarer_side ? d : kTotalThirds - d;
}

bool SlovenianState::SideTookAll(bool declarer_side) const {
  if (tricks_played_ != total_tricks_) return false;
  const int decl = trick::SideTricks(tricks_won_, declarer_, partner_);
  return declarer_side ? decl == total_tricks_ : decl == 0;
}

void SlovenianState::ScoreBonuses(HandResult* r, int* team) const {
  auto side_name = [](bool decl) { return decl ? "declarer" : "defenders"; };
  // Valat first: achieving it replaces every other score (003 §3.1).
  const bool valat_announced = announced_mask_ & (1 << kValatBonus);
  for (bool decl_side : {true, false}) {
    if (!SideTookAll(decl_side)) continue;
    const bool own = valat_announced && OnDeclarerSide(announcer_[kValatBonus]) == decl_side;
    int v = own ? kAnnouncedValue[kValatBonus] << kontra_[1 + kValatBonus] : kSilentValue[kValatBonus];
    if (!decl_side) v = -v;
    // The other side announced valat and failed. As for every announced
    // bonus, the announcement decides and the opposing silent success of the
    // same bonus is not counted (003 §3.1, §5 are silent on this corner);
    // option failed_valat_charge=both charges both.
    const bool failed_announcement = valat_announced && !own;
    *team = 0;
    if (!failed_announcement || rules().failed_valat_both) {
      r->bonuses.push_back({"valat", side_name(decl_side), own ? announcer_[kValatBonus] : -1, true,
                            own ? kontra_[1 + kValatBonus] : 0, v});
      *team = v;
    }
    if (failed_announcement) {
      const bool announcer_side = !decl_side;
      int lost = kAnnouncedValue[kValatBonus] << kontra_[1 + kValatBonus];
      if (announcer_side) lost = -lost;  // a loss of the declarer side
      r->bonuses.push_back({"valat", side_name(announcer_side), announcer_[kValatBonus], false,
                            kontra_[1 + kValatBonus], lost});
      *team += lost;
    }
    return;
  }
  const CardSet decl_pile = trick::SidePile(won_, declarer_, partner_);
  const CardSet def_pile = kAllCards - decl_pile;
  for (int b = 0; b < kNumBonuses; ++b) {
    if (b == kKingUltimo && called_suit_ < 0) continue;
    // Which side achieved the bonus, and which side failed an attempt at it.
    int achieved = -1, failed = -1;  // 1 declarer side, 0 defenders
    switch (b) {
      case kTrula:
      case kKings: {
        const CardSet need = b == kTrula ? kTrulaSet : kKingSet;
        if (decl_pile.ContainsAll(need)) achieved = 1;
        if (def_pile.ContainsAll(need)) achieved = 0;
        break;
      }
      case kKingUltimo:
        if (king_last_winner_ >= 0) {
          if (OnDeclarerSide(king_last_winner_)) achieved = 1; else failed = 1;
        }
        break;
      case kPagatUltimo:
        if (pagat_last_seat_ >= 0) {
          const int side = OnDeclarerSide(pagat_last_seat_) ? 1 : 0;
          if (pagat_last_won_) achieved = side; else failed = side;
        }
        break;
      case kValatBonus:
        break;
    }
    const bool announced = announced_mask_ & (1 << b);
    BonusResult br;
    br.name = kBonusNames[b];
    int sign_side;
    if (announced) {
      const int side = OnDeclarerSide(announcer_[b]) ? 1 : 0;
      br.announcer = announcer_[b];
      br.kontra_level = kontra_[1 + b];
      br.won = achieved == side;
      sign_side = side;
      const int v = kAnnouncedValue[b] << kontra_[1 + b];
      br.value = (br.won ? v : -v) * (side ? 1 : -1);
    } else if (achieved >= 0) {
      br.won = true;
      sign_side = achieved;
      br.value = kSilentValue[b] * (achieved ? 1 : -1);
    } else if (failed >= 0) {
      br.won = false;
      sign_side = failed;
      br.value = -kSilentValue[b] * (failed ? 1 : -1);
    } else {
      continue;
    }
    br.side = side_name(sign_side == 1);
    *team += br.value;
    r->bonuses.push_back(br);
  }
}

HandResult SlovenianState::Result() const {
  const Rules& rl = rules();
  HandResult r;
  r.scores.assign(num_seats_, 0);
  r.radli.assign(num_seats_, 0);
  for (int s = 0; s < num_seats_; ++s) r.radli[s] = radli_[s];
  if (redeal_) {
    r.redeal = true;
    r.next_forced_klop = true;
    return r;
  }
  for (int s = 0; s < num_seats_; ++s) r.tricks.push_back(tricks_won_[s]);
  r.contract = contract_ < kNumContracts ? kContractNames[contract_] : "";
  r.declarer = declarer_;
  r.game_kontra_level = kontra_[kKontraGame];
  const bool gives_radl =
      rl.radli && (contract_ == kKlop || contract_ > kBeggar || (rl.radl_for_beggar && contract_ == kBeggar));

  if (contract_ == kKlop) {
    bool decided = false;
    for (int s = 0; s < num_seats_; ++s) {
      const int t = IsActive(s) ? SetThirds(won_[s]) : 0;
      r.card_thirds.push_back(t);
      if (!IsActive(s)) continue;
      if (t >= rl.klop_lose_thirds) { r.scores[s] = -70; decided = true; }
      else if (tricks_won_[s] == 0) { r.scores[s] = 70; decided = true; }
    }
    if (!decided) {
      for (int s = 0; s < num_seats_; ++s)
        if (IsActive(s)) r.scores[s] = -RoundThirds(r.card_thirds[s]);
    }
    for (int s = 0; s < num_seats_; ++s) {
      if (!IsActive(s) || r.radli[s] == 0) continue;
      r.scores[s] *= 2;  // 003 §5.1
      if (r.scores[s] > 0) --r.radli[s];
    }
  } else {
    r.partner = partner_;
    const int d = SideThirds(true);
    r.card_thirds = {d, kTotalThirds - d};
    bool won;
    if (contract_ == kBeggar || contract_ == kOpenBeggar) {
      won = tricks_won_[declarer_] == 0;
    } else if (contract_ == kValat || contract_ == kColourValat) {
      won = SideTookAll(true);
    } else {
      won = d >= 107;  // 35 2/3 or more: more than half of the 70
    }
    r.declarer_won = won;
    int base = rl.value[contract_];
    if (HasDifference(contract_)) {
      int diff = std::abs(RoundThirds(d) - 35);
      const int q = rl.difference_rounding;
      if (q > 1) diff = (diff + q / 2) / q * q;
      base += diff;
    }
    int team = (won ? base : -base) << kontra_[kKontraGame];
    if (BonusesAllowed()) ScoreBonuses(&r, &team);
    // 003 §5.1: a player's radl doubles "seine erreichte Punktzahl (und die
    // seines ev. Partners)", so the declarer's or the partner's radl doubles
    // the side's one score (option radl=declarer-only: the declarer's alone).
    // Both holding one: doubled once (§5.1 speaks of one doubling of the score;
    // both score the same amount, §5). Positive: each holder strikes one radl;
    // negative: each radl stays beside its holder's name, the partner's too.
    const bool decl_radl = radli_[declarer_] > 0;
    const bool part_radl = rl.partner_radl && partner_ >= 0 && radli_[partner_] > 0;
    if (decl_radl || part_radl) {
      team *= 2;
      if (team > 0) {
        if (decl_radl) --r.radli[declarer_];
        if (part_radl) --r.radli[partner_];
      }
    }
    r.scores[declarer_] = team;
    if (partner_ >= 0) r.scores[partner_] = team;
  }
  for (int s = 0; s < num_seats_; ++s) {
    if (mond_penalty_[s] != 0) {
      r.scores[s] += mond_penalty_[s];
      r.penalties.push_back({s, mond_penalty_[s],
                             rl.mond_rule == MondRule::kMondfang ? "mondfang" : "lost-21"});
    }
  }
  if (gives_radl)
    for (int s = 0; s < num_seats_; ++s)
      if (IsActive(s)) ++r.radli[s];
  return r;
}

// ---------------------------------------------------------------------------
// Observation and introspection.

std::string SlovenianState::PhaseName() const {
  switch (phase_) {
    case Phase::kBidding: return "bidding";
    case Phase::kDeclare: return "declare";
    case Phase::kKingCall: return "king-call";
    case Phase::kTalon: return "talon";
    case Phase::kDiscard: return "discard";
    case Phase::kAnnounce: return "announce";
    case Phase::kPlay: return "play";
    case Phase::kDone: return "done";
  }
  return "?";
}

std::vector<Action> SlovenianState::History() const {
  std::vector<Action> out(history_len_);
  for (int i = 0; i < history_len_; ++i) out[i] = HistoryAt(i);
  return out;
}

Deal SlovenianState::GetDeal() const {
  Deal d;
  d.hands.assign(dealt_.begin(), dealt_.begin() + num_seats_);
  d.talon.assign(talon_.begin(), talon_.end());
  return d;
}

HandSetup SlovenianState::Setup() const {
  HandSetup s;
  s.dealer = dealer_;
  s.forced_klop = forced_klop_;
  bool any = false;
  for (int i = 0; i < num_seats_; ++i) any |= radli_[i] != 0;
  if (any) s.radli.assign(radli_.begin(), radli_.begin() + num_seats_);
  return s;
}

Observation SlovenianState::Observe(int seat) const {
  Observation o;
  ObserveInto(seat, /*compact=*/false, &o);
  return o;
}

bool SlovenianState::ObserveCompact(int seat, Observation* out) const {
  ObserveInto(seat, /*compact=*/true, out);
  return true;
}

void SlovenianState::ObserveInto(int seat, bool compact, Observation* out) const {
  const ActionCodec& codec = game_->codec();
  ClearObservation(out);
  Observation& o = *out;
  o.variant = game_->info().name;
  o.seat = seat;
  o.num_seats = num_seats_;
  o.dealer = dealer_;
  o.phase = PhaseName();
  o.to_act = CurrentSeat();
  o.hand = hands_[seat];
  for (int i = 0; i < history_len_; ++i) {
    const Action a = HistoryAt(i);
    const int who = history_seat_[i];
    // 003 §4.4: only tarocks laid away are shown.
    const bool hidden =
        VerbOf(a) == Verb::kDiscard && who != seat && !IsTarock(static_cast<Card>(ArgOf(a)));
    if (compact) {
      o.history_actions.emplace_back(who, hidden ? kUnseenDiscard : a);
    } else {
      o.history.emplace_back(who, hidden ? std::string("discard ?") : codec.ToString(a));
    }
  }
  // The talon is shown to all once a contract exposes it (003 §4.4, 000), and in
  // Klop card by card where the variant turns the cards up (003 §5.2.1).
  const bool exposed = talon_group_ >= 0 || phase_ == Phase::kTalon;
  for (int i = 0; i < 6; ++i) {
    const bool shown = exposed || (contract_ == kKlop && rules().klop_talon_shown && i < klop_gifts_);
    o.talon.push_back(shown ? CardName(talon_[i]) : "?");
  }
  o.shown.assign(num_seats_, CardSet());
  if (contract_ == kOpenBeggar && phase_ == Phase::kPlay) o.shown[declarer_] = hands_[declarer_];
  o.declarer = declarer_;
  if (contract_ < kNumContracts) o.contract = kContractNames[contract_];
  if (called_suit_ >= 0) {
    const Card king = King(static_cast<Suit>(called_suit_));
    o.called_king = CardName(king);
    // The partner knows himself; everyone knows once the king has been played.
    bool king_played = false;
    for (int i = 0; i < history_len_; ++i)
      king_played |= HistoryAt(i) == MakeAction(Verb::kPlay, king);
    if (partner_ >= 0 && (seat == partner_ || king_played)) o.partner = partner_;
  }
  o.trick_leader = phase_ == Phase::kPlay ? trick_.leader : -1;
  for (int i = 0; i < trick_.len; ++i) o.trick.push_back(trick_.cards[i]);
  for (int s = 0; s < num_seats_; ++s) {
    o.tricks_won.push_back(tricks_won_[s]);
    o.radli.push_back(radli_[s]);
  }
  if (o.to_act == seat && !compact) {
    ActionList legal;
    LegalActions(&legal);
    for (Action a : legal) o.legal.push_back(codec.ToString(a));
  }
}

// ---------------------------------------------------------------------------
// Game.

SlovenianGame::SlovenianGame(Rules rules, VariantInfo info, Options options)
    : rules_(std::move(rules)),
      info_(std::move(info)),
      options_(std::move(options)),
      ranks_(RankTable::Make(rules_.red_pips_numeric)) {
  for (const char* n : kContractNames) codec_.contracts.push_back(n);
  for (const char* n : kBonusNames) codec_.bonuses.push_back(n);
  codec_.kontra_targets.push_back("game");
  for (const char* n : kBonusNames) codec_.kontra_targets.push_back(n);
  for (int from = 0; from <= kNumContracts; ++from) {
    BidRow& row = bids_from_[from];
    for (int c = from; c < kNumContracts; ++c)
      if (rules_.offered[c]) row.bids[row.size++] = MakeAction(Verb::kBid, c);
  }
  for (int dealer = 0; dealer < rules_.num_seats; ++dealer) {
    Seating& seating = seating_[dealer];
    const int n = rules_.num_seats;
    for (int s = 0; s < n; ++s)
      if (rules_.num_active == n || s != dealer) seating.active_mask |= 1 << s;
    for (int s = 0; s < n; ++s) {
      int next = s;
      do {
        next = (next + 1) % n;
      } while (!((seating.active_mask >> next) & 1));
      seating.next_active[s] = static_cast<uint8_t>(next);
    }
  }
  beaters_[0] = trick::MakeBeaters(ranks_.strength, /*trumps=*/false);
  beaters_[1] = trick::MakeBeaters(ranks_.strength, /*trumps=*/true);
}

Deal SlovenianGame::DealCards(uint64_t seed, int dealer) const {
  Deal d;
  DealInto(seed, dealer, &d);
  return d;
}

void SlovenianGame::DealInto(uint64_t seed, int dealer, Deal* d) const {
  Card deck[kNumCards];
  for (int i = 0; i < kNumCards; ++i) deck[i] = static_cast<Card>(i);
  Rng rng(seed);
  rng.Shuffle(deck, kNumCards);
  d->talon.assign(deck, deck + 6);  // 003 §4.1: the first six cards form the talon
  // The hands are gathered in registers and stored once.
  std::array<CardSet, SlovenianState::kMaxSeats> hands{};
  int next = 6;
  const int n = rules_.num_seats;
  const int packet = rules_.deal_packet;
  const bool dealer_sits_out = rules_.num_active < n;
  for (int round = 0; round < rules_.hand_size / packet; ++round) {
    int seat = dealer % n;  // stepped to (dealer + k) % n without a division per packet
    for (int k = 1; k <= n; ++k) {
      seat = seat + 1 == n ? 0 : seat + 1;
      if (dealer_sits_out && seat == dealer) continue;
      CardSet cards;
      for (int i = 0; i < packet; ++i) cards.Add(deck[next + i]);
      next += packet;
      hands[seat] |= cards;
    }
  }
  d->hands.assign(hands.begin(), hands.begin() + n);
}

absl::Status SlovenianGame::ValidateDeal(const Deal& deal, const HandSetup& setup) const {
  const int n = rules_.num_seats;
  if (setup.dealer < 0 || setup.dealer >= n)
    return absl::InvalidArgumentError(absl::StrCat("dealer ", setup.dealer, " is not a seat of ", n));
  if (static_cast<int>(deal.hands.size()) != n)
    return absl::InvalidArgumentError(absl::StrCat("the deal has ", deal.hands.size(), " hands, ",
                                                   info_.name, " needs ", n));
  if (deal.talon.size() != 6)
    return absl::InvalidArgumentError(absl::StrCat("the talon has ", deal.talon.size(), " cards, needs 6"));
  if (!setup.radli.empty()) {
    if (static_cast<int>(setup.radli.size()) != n)
      return absl::InvalidArgumentError(absl::StrCat("radli has ", setup.radli.size(), " entries, needs ", n));
    for (int v : setup.radli)
      if (v < 0 || v > 1000000) return absl::InvalidArgumentError(absl::StrCat("radli value ", v, " out of range"));
  }
  CardSet seen;
  auto add = [&](Card c) -> absl::Status {
    if (c >= kNumCards) return absl::InvalidArgumentError("card index out of range");
    if (seen.Contains(c)) return absl::InvalidArgumentError(absl::StrCat("card ", CardName(c), " is dealt twice"));
    seen.Add(c);
    return absl::OkStatus();
  };
  for (int s = 0; s < n; ++s) {
    const bool sits_out = rules_.num_active < n && s == setup.dealer;
    const int want = sits_out ? 0 : rules_.hand_size;
    if (deal.hands[s].size() != want)
      return absl::InvalidArgumentError(absl::StrCat("seat ", s, " has ", deal.hands[s].size(),
                                                     " cards, needs ", want));
    for (Card c : deal.hands[s]) {
      absl::Status st = add(c);
      if (!st.ok()) return st;
    }
  }
  for (Card c : deal.talon) {
    absl::Status st = add(c);
    if (!st.ok()) return st;
  }
  if (seen != kAllCards) {
    for (Card c : kAllCards - seen)
      return absl::InvalidArgumentError(absl::StrCat("card ", CardName(c), " is missing from the deal"));
  }
  return absl::OkStatus();
}

absl::StatusOr<SlovenianState> SlovenianGame::NewSlovenianHand(const Deal& deal,
                                                               const HandSetup& setup) const {
  absl::Status st = ValidateDeal(deal, setup);
  if (!st.ok()) return st;
  return SlovenianState(this, deal, setup);
}

absl::StatusOr<std::unique_ptr<State>> SlovenianGame::NewHand(const Deal& deal,
                                                              const HandSetup& setup) const {
  absl::Status st = ValidateDeal(deal, setup);
  if (!st.ok()) return st;
  return std::unique_ptr<State>(std::make_unique<SlovenianState>(this, deal, setup));
}

// ---------------------------------------------------------------------------
// Variant descriptions and options.

namespace {

std::vector<OptionSpec> CommonOptions(const char* pips_default, const char* rounding_default) {
  return {
      {"red_pip_order", pips_default, {"numeric", "traditional"},
       "numeric: red pips rank 4 > 3 > 2 > 1 as 003 §2 lists them; traditional: 1 > 2 > 3 > 4 as in "
       "real play (and 000's 10 > 9 > 8 > 7)"},
      {"difference_rounding", rounding_default, {"5", "1"},
       "round the card-point difference to the nearest 5 (common in Slovenian play) or not at all"},
      {"imperator", "on", {"on", "off"}, "Skis, Mond and Pagat in one trick: the Pagat wins it"},
  };
}

std::vector<std::string> Names(const std::array<bool, kNumContracts>& offered) {
  std::vector<std::string> out;
  for (int c = 0; c < kNumContracts; ++c)
    if (offered[c]) out.push_back(kContractNames[c]);
  return out;
}

Rules Base003() {
  Rules r;
  r.offered.fill(true);
  r.value = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 125, 500};
  return r;
}

}  // namespace

Rules MakeRules(const std::string& variant, const Options& options) {
  Rules r = Base003();
  r.name = variant;
  if (variant == "slovenian-3p") {
    r.num_seats = r.num_active = 3;
    r.hand_size = 16;
    r.deal_packet = 8;  // 003 §7.1: in packets of eight
    r.king_call = false;
    r.king_ultimo = false;
    r.offered[kSoloThree] = r.offered[kSoloTwo] = r.offered[kSoloOne] = false;
    r.colour_valat_upgrade = false;
  } else if (variant == "slovenian-5p") {
    r.num_seats = 5;
    r.num_active = 4;
  } else if (variant == "slovenian-tapp") {
    r.num_seats = r.num_active = 3;
    r.hand_size = 16;
    r.deal_packet = 8;
    r.king_call = false;
    r.bidding = BiddingStyle::kSeniority;
    r.mond_rule = MondRule::kLost21;
    r.offered.fill(false);
    for (int c : {kKlop, kThree, kTwo, kOne, kBeggar, kSoloWithout}) r.offered[c] = true;
    r.kontra = false;
    r.radli = false;
    r.king_ultimo = false;
    r.bonuses_in_solo = false;
    r.colour_valat_upgrade = false;
    r.klop_talon_shown = false;
    r.tapp_talon_groups = true;
    r.dealer_leads_positive = true;
    r.pagat_kept_when_announced = true;
    r.klop_lose_thirds = 108;  // "more than 35 2/3"
  }
  auto opt = [&](const char* key, const char* fallback) {
    auto it = options.find(key);
    return it == options.end() ? std::string(fallback) : it->second;
  };
  // 003 §2 lists the red pips "4, 3, 2, 1" (numeric); 000's 10 > 9 > 8 > 7
  // are our 1 > 2 > 3 > 4 (traditional).
  const bool doc003 = variant != "slovenian-tapp";
  r.red_pips_numeric = opt("red_pip_order", doc003 ? "numeric" : "traditional") == "numeric";
  if (doc003) {
    r.announce_dealer_first = opt("announce_first", "dealer") == "dealer";
    r.mondfang_in_klop = opt("mondfang_in_klop", "yes") == "yes";
    r.failed_valat_both = opt("failed_valat_charge", "announcement") == "both";
  }
  if (r.colour_valat_upgrade) r.raise_keeps_kontra = opt("raise_kontra", "keep") == "keep";
  if (r.king_call) {  // a partner exists only where a king is called (4p, 5p)
    r.partner_radl = opt("radl", "declarer-and-partner") == "declarer-and-partner";
    r.kontra_game_by_seat = opt("game_kontra", "any-but-declarer") == "any-but-declarer";
  }
  r.difference_rounding = opt("difference_rounding", variant == "slovenian-tapp" ? "1" : "5") == "5" ? 5 : 1;
  r.imperator = opt("imperator", "on") == "on";
  if (r.radli) r.radl_for_beggar = opt("radl_for_beggar", "no") == "yes";
  return r;
}

namespace {

VariantInfo MakeInfo(const std::string& name, std::string title, std::string source,
                     std::string page) {
  Rules r = MakeRules(name, {});
  VariantInfo info;
  info.name = name;
  info.title = std::move(title);
  info.rules_source = std::move(source);
  info.rules_page = std::move(page);
  info.num_seats = r.num_seats;
  info.hand_size = r.hand_size;
  info.talon_size = 6;
  if (r.radli) {
    info.radl_penalty = 100;             // 003 §5.1
    info.zero_total_forces_klop = true;  // 003 §4.2.1
  }
  const bool doc003 = name != "slovenian-tapp";
  info.options = CommonOptions(doc003 ? "numeric" : "traditional", doc003 ? "5" : "1");
  if (r.radli)
    info.options.push_back({"radl_for_beggar", "no", {"no", "yes"},
                            "also give radli for a Beggar (003 §5.1 gives them for Klop and bids above Beggar)"});
  if (doc003) {
    // Issue 11: 003's clear text is the default; the earlier readings are options.
    info.options.push_back({"announce_first", "dealer", {"dealer", "declarer"},
                            "who opens the announcements: the dealer (003 §4.5; in 5p the last playing "
                            "seat) or the declarer (real play)"});
    info.options.push_back({"mondfang_in_klop", "yes", {"yes", "no"},
                            "Mondfang also in Klop (003 §4.6.2 \"bis und mit Solo Einer\") or only in "
                            "Three..Solo One (real play)"});
  }
  if (r.king_call) {
    info.options.push_back({"radl", "declarer-and-partner", {"declarer-and-partner", "declarer-only"},
                            "whose radl doubles the side's score: the declarer's or the partner's (003 "
                            "§5.1), or the declarer's only (real play)"});
    info.options.push_back({"game_kontra", "any-but-declarer", {"any-but-declarer", "side-against-side"},
                            "Kontra/Subkontra on the game by any player but the declarer, partner included, "
                            "Rekontra/Mordkontra by the declarer (003 §4.5.2), or side against side (real play)"});
  }
  if (doc003) {
    if (r.colour_valat_upgrade)
      info.options.push_back({"raise_kontra", "keep", {"keep", "void"},
                              "a Kontra on the game said before a Solo is raised to Colour Valat doubles "
                              "the Colour Valat (keep), or the raise voids it (003 §4.5.2, §5.2.3 are silent)"});
    info.options.push_back({"failed_valat_charge", "announcement", {"announcement", "both"},
                            "one side takes every trick after the other announced valat: only the failed "
                            "announcement counts, or also the silent valat (the engine before issue 11)"});
    // The house rules of clubs that play the pre-issue-11 "real play" readings.
    OptionSet real{"real-play", "the common house rules: every reading where real play departs from 003's text", {}};
    real.values["announce_first"] = "declarer";
    real.values["mondfang_in_klop"] = "no";
    real.values["red_pip_order"] = "traditional";
    if (r.king_call) {
      real.values["radl"] = "declarer-only";
      real.values["game_kontra"] = "side-against-side";
    }
    OptionSet legacy{"legacy", "every reading of the engine before issue 11 (real-play and failed_valat_charge=both)",
                     real.values};
    legacy.values["failed_valat_charge"] = "both";
    info.option_sets = {std::move(real), std::move(legacy)};
  }
  info.contracts = Names(r.offered);
  info.bonuses = {"trula", "kings"};
  if (r.king_ultimo) info.bonuses.push_back("king-ultimo");
  info.bonuses.push_back("pagat-ultimo");
  info.bonuses.push_back("valat");
  return info;
}

GameFactory Factory(const std::string& name, VariantInfo (*info)()) {
  return [name, info](const Options& options) -> std::unique_ptr<Game> {
    return std::make_unique<SlovenianGame>(MakeRules(name, options), info(), options);
  };
}

}  // namespace

VariantInfo Info4p() {
  return MakeInfo("slovenian-4p", "Slovenian Tarok for four (king calling)", "003 §1-5",
                  "referee/variants/slovenian/rules-slovenian-4p.md");
}
VariantInfo Info3p() {
  return MakeInfo("slovenian-3p", "Slovenian Tarok for three", "003 §7",
                  "referee/variants/slovenian/rules-slovenian-3p.md");
}
VariantInfo Info5p() {
  return MakeInfo("slovenian-5p", "Slovenian Tarok for five (the dealer sits out)", "003 §6",
                  "referee/variants/slovenian/rules-slovenian-5p.md");
}
VariantInfo InfoTapp() {
  return MakeInfo("slovenian-tapp", "Slovenian Tapp Tarock for three", "000",
                  "referee/variants/slovenian/rules-slovenian-tapp.md");
}

TAROCK_REGISTER_VARIANT(slovenian_4p, Info4p(), Factory("slovenian-4p", &Info4p));
TAROCK_REGISTER_VARIANT(slovenian_3p, Info3p(), Factory("slovenian-3p", &Info3p));
TAROCK_REGISTER_VARIANT(slovenian_5p, Info5p(), Factory("slovenian-5p", &Info5p));
TAROCK_REGISTER_VARIANT(slovenian_tapp, InfoTapp(), Factory("slovenian-tapp", &InfoTapp));

}  // namespace tarock::slovenian
