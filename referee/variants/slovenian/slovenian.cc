#include "referee/variants/slovenian/slovenian.h"

#include <algorithm>
#include <cstdlib>

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

// Cards of the same suit that beat `c` (for tarocks: higher tarocks).
CardSet HigherInSuit(const RankTable& ranks, Card c) {
  CardSet out;
  for (Card o : SuitSet(SuitOf(c)))
    if (ranks.strength[o] > ranks.strength[c]) out.Add(o);
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// State: construction and small helpers.

SlovenianState::SlovenianState(const SlovenianGame* game, const Deal& deal,
                               const HandSetup& setup)
    : game_(game) {
  const Rules& r = game->rules();
  num_seats_ = static_cast<uint8_t>(r.num_seats);
  dealer_ = static_cast<uint8_t>(setup.dealer);
  for (int s = 0; s < num_seats_; ++s) {
    if (r.num_active == r.num_seats || s != dealer_) active_mask_ |= 1 << s;
    hands_[s] = dealt_[s] = deal.hands[s];
    radli_[s] = setup.radli.empty() ? 0 : static_cast<uint8_t>(setup.radli[s]);
  }
  for (int s = 0; s < num_seats_; ++s) {
    int next = s;
    do {
      next = (next + 1) % num_seats_;
    } while (!IsActive(next));
    next_active_[s] = static_cast<uint8_t>(next);
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
  CardSet out;
  if (rules().tapp_talon_groups && k == 2) {  // 000: two cards in a column of the 2x3 layout
    out.Add(talon_[g]);
    out.Add(talon_[g + 3]);
    return out;
  }
  for (int i = 0; i < k; ++i) out.Add(talon_[g * k + i]);
  return out;
}

bool SlovenianState::ComputeNegative() const {
  return contract_ == kKlop || contract_ == kBeggar || contract_ == kOpenBeggar;
}

bool SlovenianState::BonusesAllowed() const {
  if (contract_ >= kThree && contract_ <= kOne) return true;
  return rules().bonuses_in_solo && contract_ >= kSoloThree && contract_ <= kSoloOne;
}

bool SlovenianState::MondPenaltyApplies() const {
  if (contract_ == kKlop) return false;
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
    history_[history_len_] = a;
    history_seat_[history_len_] = to_act_;
    ++history_len_;
  }
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
  if (best_bid_ == kNoContract && passed == r.num_active - 1) {
    // 003 §3, §4.2: all others passed; the dealer takes Klop, Three or any higher bid.
    out->push(MakeAction(Verb::kBid, kKlop));
    if (!forced_klop_) out->push(MakeAction(Verb::kBid, kThree));
    for (int c = lowest; c < kNumContracts; ++c)
      if (r.offered[c]) out->push(MakeAction(Verb::kBid, c));
    return;
  }
  out->push(kPassAction);
  const int from = best_bid_ == kNoContract ? lowest : std::max<int>(lowest, best_bid_ + 1);
  for (int c = from; c < kNumContracts; ++c)
    if (r.offered[c]) out->push(MakeAction(Verb::kBid, c));
}

void SlovenianState::LegalAnnouncements(ActionList* out) const {
  const int s = to_act_;
  Action* items = out->items;
  int n = 0;
  items[n++] = kPassAction;
  if (upgrade_possible_ && s == declarer_) items[n++] = MakeAction(Verb::kBid, kColourValat);
  const int side = OnDeclarerSide(s) ? 1 : 0;
  unsigned bonuses = announceable_[side] & ~announced_mask_;
  if (!hands_[s].Contains(kPagat)) bonuses &= ~(1u << kPagatUltimo);  // only its holder
  for (; bonuses != 0; bonuses &= bonuses - 1)
    items[n++] = MakeAction(Verb::kAnnounce, std::countr_zero(bonuses));
  // Kontra: odd levels (kontra, subkontra) belong to the side against the
  // target, even levels (rekontra, mordkontra) to the side that owns it. Per
  // target t (bit t; 0 the game, 1 + b bonus b): even level <=> bit in
  // kontra_even_, owned by the declarer side <=> bit in kontra_owner_.
  const unsigned mine = side ? ~unsigned{kontra_owner_} : unsigned{kontra_owner_};
  unsigned targets = ~(kontra_even_ ^ mine) & kontra_open_;
  for (; targets != 0; targets &= targets - 1)
    items[n++] = MakeAction(Verb::kKontra, std::countr_zero(targets));
  out->size = n;
}

inline CardSet SlovenianState::PlayableCards() const {
  const int s = to_act_;
  const CardSet hand = hands_[s];
  CardSet cand = hand;
  if (trick_len_ > 0) {
    const Suit led = SuitOf(trick_[0]);
    cand = hand & SuitSet(led);
    if (cand.empty()) cand = hand & kTarockSet;  // must trump (also in colour valat)
    if (cand.empty()) cand = hand;
    if (IsNegative()) {
      // 003 §4.6.3 / 000: beat the highest card on the table if possible.
      const Card w = trick_[trick_best_];
      CardSet winners = cand & game_->higher_[w];
      if (!IsTarock(w)) winners |= cand & kTarockSet;
      if (trick_trula_ == 6 && cand.Contains(kPagat) && rules().imperator) winners.Add(kPagat);
      if (trick_trula_ == 7 && rules().imperator) winners = CardSet();  // the Pagat holds it (trumps here)
      if (!winners.empty()) cand = winners;
    }
  }
  const bool several = (cand.bits() & (cand.bits() - 1)) != 0;
  if (several && cand.Contains(kPagat)) {
    // The Pagat only when forced: in negative contracts (003 §4.6.3), and for
    // an announced Pagat Ultimo where the variant says so (000).
    if (IsNegative() ||
        (rules().pagat_kept_when_announced && (announced_mask_ & (1 << kPagatUltimo)) &&
         announcer_[kPagatUltimo] == s)) {
      cand.Remove(kPagat);
    }
  }
  return cand;
}

inline void SlovenianState::LegalPlays(ActionList* out) const {
  // Two cards per round: the array has room to spare, so the second write may
  // land past the end; `size` says what counts.
  uint64_t bits = PlayableCards().bits();
  out->size = std::popcount(bits);
  Action* p = out->items;
  while (bits != 0) {
    p[0] = MakeAction(Verb::kPlay, std::countr_zero(bits));
    bits &= bits - 1;
    p[1] = MakeAction(Verb::kPlay, std::countr_zero(bits | (uint64_t{1} << 63)));
    bits &= bits - 1;
    p += 2;
  }
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
      if (talon_set_.Contains(kMond) && !talon_taken_.Contains(kMond) && MondPenaltyApplies()) {
        // 003 §4.6.2 / 000: leaving an exposed Mond to the defenders costs as much as losing it.
        mond_penalty_[declarer_] -= rules().mond_rule == MondRule::kMondfang ? 20 : 21;
      }
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
  to_act_ = static_cast<uint8_t>(declarer_);
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
  upgrade_possible_ = false;
  switch (VerbOf(a)) {
    case Verb::kPass:
      if (++consecutive_passes_ == rules().num_active) {
        StartPlay();
        return;
      }
      break;
    case Verb::kBid:  // 003 §5.2.3: the solo declarer raises to colour valat
      contract_ = kColourValat;
      announceable_ = {0, 0};
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
  phase_ = Phase::kPlay;
  negative_ = ComputeNegative();
  trumps_ = contract_ != kColourValat;
  trick_len_ = 0;
  trick_leader_ = static_cast<uint8_t>(Leader());
  to_act_ = trick_leader_;
}

bool SlovenianState::Beats(Card c, Card w) const {
  // higher_[w]: the cards of w's suit (tarocks included) that beat w.
  return game_->higher_[w].Contains(c) || (trumps_ && IsTarock(c) && !IsTarock(w));
}

int SlovenianState::TrickWinner() const {
  // 003 §4.6.1, 000: the Pagat takes it; in Colour Valat, where tarocks are
  // no trumps, only in a tarock trick.
  if (trick_trula_ == 7 && rules().imperator && (trumps_ || IsTarock(trick_[0]))) {
    for (int i = 0; i < trick_len_; ++i)
      if (trick_[i] == kPagat) return i;
  }
  return trick_best_;
}

inline void SlovenianState::ApplyPlay(Card c) {
  const int s = to_act_;
  hands_[s].Remove(c);
  if (trick_len_ == 0) {
    trick_best_ = 0;
    trick_trula_ = 0;
    trick_cards_ = CardSet();
  } else if (Beats(c, trick_[trick_best_])) {
    trick_best_ = trick_len_;
  }
  trick_cards_.Add(c);
  if (c == kPagat) trick_trula_ |= 1;
  if (c == kMond) trick_trula_ |= 2;
  if (c == kSkis) trick_trula_ |= 4;
  trick_[trick_len_] = c;
  trick_seat_[trick_len_] = static_cast<uint8_t>(s);
  ++trick_len_;
  if (trick_len_ == rules().num_active) {
    FinishTrick();
  } else {
    to_act_ = static_cast<uint8_t>(NextActive(s));
  }
}

void SlovenianState::FinishTrick() {
  const int wi = TrickWinner();
  const int winner = trick_seat_[wi];
  won_[winner] |= trick_cards_;
  ++tricks_won_[winner];
  if ((trick_trula_ & 2) && MondPenaltyApplies()) {
    int mond_seat = 0;
    for (int i = 0; i < trick_len_; ++i)
      if (trick_[i] == kMond) mond_seat = trick_seat_[i];
    const bool skis = trick_trula_ & 4;
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
    for (int i = 0; i < trick_len_; ++i) {
      if (trick_[i] == kPagat) {
        pagat_last_seat_ = static_cast<int8_t>(trick_seat_[i]);
        pagat_last_won_ = i == wi;
      }
      if (called_suit_ >= 0 && trick_[i] == King(static_cast<Suit>(called_suit_)))
        king_last_winner_ = static_cast<int8_t>(winner);
    }
  }
  trick_len_ = 0;
  trick_leader_ = static_cast<uint8_t>(winner);
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
  CardSet side = won_[declarer_];
  if (partner_ >= 0) side |= won_[partner_];
  const int d = SetThirds(side);
  return declarer_side ? d : kTotalThirds - d;
}

bool SlovenianState::SideTookAll(bool declarer_side) const {
  if (tricks_played_ != total_tricks_) return false;
  int decl = tricks_won_[declarer_] + (partner_ >= 0 ? tricks_won_[partner_] : 0);
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
    r->bonuses.push_back({"valat", side_name(decl_side), own ? announcer_[kValatBonus] : -1, true,
                          own ? kontra_[1 + kValatBonus] : 0, v});
    *team = v;
    if (valat_announced && !own) {  // the other side announced it and failed
      const bool announcer_side = !decl_side;
      int lost = kAnnouncedValue[kValatBonus] << kontra_[1 + kValatBonus];
      if (announcer_side) lost = -lost;  // a loss of the declarer side
      r->bonuses.push_back({"valat", side_name(announcer_side), announcer_[kValatBonus], false,
                            kontra_[1 + kValatBonus], lost});
      *team += lost;
    }
    return;
  }
  CardSet decl_pile = won_[declarer_];
  if (partner_ >= 0) decl_pile |= won_[partner_];
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
    if (radli_[declarer_] > 0) {
      team *= 2;  // 003 §5.1: the declarer's radl doubles the side's score
      if (team > 0) --r.radli[declarer_];
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
  return std::vector<Action>(history_.begin(), history_.begin() + history_len_);
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
  const ActionCodec& codec = game_->codec();
  Observation o;
  o.variant = game_->info().name;
  o.seat = seat;
  o.num_seats = num_seats_;
  o.dealer = dealer_;
  o.phase = PhaseName();
  o.to_act = CurrentSeat();
  o.hand = hands_[seat];
  for (int i = 0; i < history_len_; ++i) {
    const Action a = history_[i];
    const int who = history_seat_[i];
    std::string text;
    if (VerbOf(a) == Verb::kDiscard && who != seat && !IsTarock(static_cast<Card>(ArgOf(a)))) {
      text = "discard ?";  // 003 §4.4: only tarocks laid away are shown
    } else {
      text = codec.ToString(a);
    }
    o.history.emplace_back(who, std::move(text));
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
      king_played |= history_[i] == MakeAction(Verb::kPlay, king);
    if (partner_ >= 0 && (seat == partner_ || king_played)) o.partner = partner_;
  }
  o.trick_leader = phase_ == Phase::kPlay ? trick_leader_ : -1;
  for (int i = 0; i < trick_len_; ++i) o.trick.push_back(trick_[i]);
  for (int s = 0; s < num_seats_; ++s) {
    o.tricks_won.push_back(tricks_won_[s]);
    o.radli.push_back(radli_[s]);
  }
  if (o.to_act == seat) {
    ActionList legal;
    LegalActions(&legal);
    for (Action a : legal) o.legal.push_back(codec.ToString(a));
  }
  return o;
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
  for (int c = 0; c < kNumCards; ++c) higher_[c] = HigherInSuit(ranks_, static_cast<Card>(c));
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
  d->hands.assign(rules_.num_seats, CardSet());
  d->talon.assign(deck, deck + 6);  // 003 §4.1: the first six cards form the talon
  int next = 6;
  const int n = rules_.num_seats;
  for (int round = 0; round < rules_.hand_size / rules_.deal_packet; ++round) {
    for (int k = 1; k <= n; ++k) {
      const int seat = (dealer + k) % n;
      if (rules_.num_active < n && seat == dealer) continue;
      for (int i = 0; i < rules_.deal_packet; ++i) d->hands[seat].Add(deck[next++]);
    }
  }
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

std::vector<OptionSpec> CommonOptions(const char* rounding_default) {
  return {
      {"red_pip_order", "traditional", {"traditional", "numeric"},
       "traditional: red pips rank 1 > 2 > 3 > 4 as in real play; numeric: 4 > 3 > 2 > 1 as 003 §2 lists them"},
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
  r.red_pips_numeric = opt("red_pip_order", "traditional") == "numeric";
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
  info.options = CommonOptions(name == "slovenian-tapp" ? "1" : "5");
  if (r.radli)
    info.options.push_back({"radl_for_beggar", "no", {"no", "yes"},
                            "also give radli for a Beggar (003 §5.1 gives them for Klop and bids above Beggar)"});
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
