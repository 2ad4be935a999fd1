#include "referee/variants/czech/westfest.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"

namespace tarock::czech {
namespace {

constexpr const char* kContractNames[kNumContracts] = {"povinnost", "prever"};
constexpr const char* kBonusNames[kNumBonuses] = {
    "tarocky", "taroky", "trul", "honery", "kralovske-honery", "kralovske-honery-plus",
    "trul-honery", "uni", "bida", "pagat", "valat"};
// Chips per paying player (004 "Bonus Points", "Pagat", "Valat").
constexpr int kBonusChips[kNumBonuses] = {2, 4, 2, 2, 4, 6, 4, 4, 2, 4, 40};
constexpr int kSilentPagatChips = 2;
constexpr int kSilentValatChips = 20;
constexpr int kThrowInChips = 2;
constexpr int kTieChips = 2;
constexpr const char* kCustomNames[kNumCustom] = {
    "cut", "tap 1", "tap 2", "tap 3", "tap 4", "tap 12", "tap stacks",
    "stack 0", "stack 1", "stack 2", "stack 3", "throw-in"};
constexpr int kPacketOf[kTapStacks] = {6, 1, 2, 3, 4, 12};

// A seat may announce one bonus of each group: the tarock count and the honours.
constexpr unsigned kCountGroup = (1u << kTarocky) | (1u << kTaroky) | (1u << kBida);
constexpr unsigned kHonoursGroup = (1u << kTrul) | (1u << kHonery) | (1u << kKralovskeHonery) |
                                   (1u << kKralovskeHoneryPlus) | (1u << kTrulHonery);

constexpr CardSet RankAcrossSuits(int rank) {
  CardSet s;
  for (int suit = 0; suit < 4; ++suit) s.Add(SuitCard(static_cast<Suit>(suit), rank));
  return s;
}
constexpr CardSet kFivePoint = kKingSet | kTrulaSet;
constexpr CardSet kQueens = RankAcrossSuits(kQueenRank);
constexpr CardSet kKnights = RankAcrossSuits(kKnightRank);
constexpr CardSet kJacks = RankAcrossSuits(kJackRank);

constexpr Action CustomAction(int c) { return MakeAction(Verb::kCustom, c); }

}  // namespace

int WestfestState::Points(CardSet s) {
  // Each card counts 1, plus 4 more for a five-point card, 3 for a queen, 2 for a
  // knight (rider), 1 for a jack (walker): 106 for the whole pack.
  return s.size() + 4 * (s & kFivePoint).size() + 3 * (s & kQueens).size() +
         2 * (s & kKnights).size() + (s & kJacks).size();
}

int WestfestGame::GameChips(int points) {
  const int v = (std::abs(points - 53) + 10) * 2;
  return (v + 5) / 10;
}

int WestfestGame::PreverChips(int points) {
  const int v = (std::abs(points - 53) + 10) * 3;
  return (v + 5) / 10;
}

// ---------------------------------------------------------------------------
// State: construction and helpers.

WestfestState::WestfestState(const WestfestGame* game, const Deal& deal, const HandSetup& setup)
    : game_(game) {
  dealer_ = static_cast<uint8_t>(setup.dealer);
  povinnost_ = static_cast<uint8_t>((setup.dealer + 1) & 3);
  for (int i = 0; i < kNumCards; ++i) deck_[i] = deal.deck[i];
  for (int i = 0; i < kTalonSize; ++i) talon_[i] = deck_[i];
  phase_ = Phase::kCut;
  to_act_ = static_cast<uint8_t>((setup.dealer + 3) & 3);  // the dealer's left-hand neighbour
}

const Game& WestfestState::game() const { return *game_; }

void WestfestState::Push(Action a) {
  if (history_len_ < kMaxHistory) {
    history_[history_len_] = a;
    history_seat_[history_len_] = to_act_;
    ++history_len_;
  }
}

Action WestfestState::HistoryAt(int i) const { return history_[i]; }

// ---------------------------------------------------------------------------
// Legal actions.

CardSet WestfestState::LegalDiscards(int seat) const {
  // 004: no five-point card; a tarock only from a hand of tarocks and kings.
  const CardSet h = hands_[seat];
  const CardSet suit_cards = h - kTarockSet - kKingSet;
  if (!suit_cards.empty()) return suit_cards;
  return (h & kTarockSet) - kTrulaSet;
}

unsigned WestfestState::AnnounceableBonuses(int seat) const {
  const CardSet h = hands_[seat];
  const int tarocks = (h & kTarockSet).size();
  const bool trul = h.ContainsAll(kTrulaSet);
  const bool kings = h.ContainsAll(kKingSet);
  unsigned b = 0;
  if (tarocks >= 8) b |= 1u << kTarocky;
  if (tarocks >= 10) b |= 1u << kTaroky;
  if (tarocks >= 1 && tarocks <= 2) b |= 1u << kBida;
  if (trul) b |= 1u << kTrul;
  if ((h & kFivePoint).size() >= 4) b |= 1u << kHonery;
  if (kings) b |= 1u << kKralovskeHonery;
  if (kings && !(h & kTrulaSet).empty()) b |= 1u << kKralovskeHoneryPlus;
  if (trul && !(h & kKingSet).empty()) b |= 1u << kTrulHonery;
  const unsigned mine = announced_[seat];
  if (mine & kCountGroup) b &= ~kCountGroup;
  if (mine & kHonoursGroup) b &= ~kHonoursGroup;
  // The called Pagat (its holder) and the called valat (the declarer side) exclude
  // each other: "Pagat is not playable on a called valat hand".
  if (pagat_announcer_ < 0 && valat_announcer_ < 0) {
    if (h.Contains(tarock::kPagat)) b |= 1u << kPagatBonus;
    if (OnDeclarerSide(seat)) b |= 1u << kValatBonus;
  }
  return b;
}

void WestfestState::LegalAnnouncements(ActionList* out) const {
  const int s = to_act_;
  out->push(kPassAction);
  const unsigned b = AnnounceableBonuses(s);
  for (int i = 0; i < kNumBonuses; ++i)
    if ((b >> i) & 1) out->push(MakeAction(Verb::kAnnounce, i));
  // Contra chain: odd levels by the side against the target's owner, even levels
  // by the owner (the game belongs to the declarer side, the Pagat to its caller's).
  const bool decl = OnDeclarerSide(s);
  if (kontra_[kKontraGame] < kMaxKontra) {
    const bool owner_turn = (kontra_[kKontraGame] & 1) != 0;
    if (decl == owner_turn) out->push(MakeAction(Verb::kKontra, kKontraGame));
  }
  if (pagat_announcer_ >= 0 && kontra_[kKontraPagat] < kMaxKontra) {
    const bool owner = OnDeclarerSide(pagat_announcer_) == decl;
    const bool owner_turn = (kontra_[kKontraPagat] & 1) != 0;
    if (owner == owner_turn) out->push(MakeAction(Verb::kKontra, kKontraPagat));
  }
}

CardSet WestfestState::PlayableCards() const {
  // 004 "Following Suit": follow suit, else a tarock, else anything.
  return CardSet(trick::FollowOrTrump(hands_[to_act_].bits(), trick_.led()));
}

void WestfestState::LegalActions(ActionList* out) const {
  out->clear();
  switch (phase_) {
    case Phase::kPlay:
      trick::WritePlays(PlayableCards().bits(), out);
      return;
    case Phase::kCut:
      for (int c = kCut; c <= kTapStacks; ++c) out->push(CustomAction(c));
      return;
    case Phase::kStacks:
      for (int k = 0; k < 4; ++k)
        if (!((stacks_taken_ >> k) & 1)) out->push(CustomAction(kStack0 + k));
      return;
    case Phase::kPrever:
      out->push(kPassAction);
      out->push(MakeAction(Verb::kBid, kPrever));
      return;
    case Phase::kPreverTalon:
      out->push(kPassAction);
      out->push(MakeAction(Verb::kTalon, prever_stage_ == 0 ? 1 : 0));
      return;
    case Phase::kThrowIn:
      out->push(kPassAction);
      out->push(CustomAction(kThrowIn));
      return;
    case Phase::kDiscard:
      for (Card c : LegalDiscards(to_act_)) out->push(MakeAction(Verb::kDiscard, c));
      return;
    case Phase::kDraw:
      out->push(MakeAction(Verb::kTalon, draw_step_));
      // 004 "Uni / Bida": the draw card may be passed to keep uni or bida.
      if ((hands_[to_act_] & kTarockSet).size() <= 2) out->push(kPassAction);
      return;
    case Phase::kAnnounce:
      LegalAnnouncements(out);
      return;
    case Phase::kDone:
      return;
  }
}

// ---------------------------------------------------------------------------
// Applying actions.

void WestfestState::DealOut() {
  // The talon is the first six cards (004: "the top card will still be on top").
  if (dealing_ == kTapStacks) {
    for (int s = 0; s < kSeats; ++s) {
      const int k = stack_of_[s];
      for (int i = 0; i < kHandSize; ++i) hands_[s].Add(deck_[kTalonSize + kHandSize * k + i]);
    }
  } else {
    const int packet = kPacketOf[dealing_];
    int next = kTalonSize;
    for (int round = 0; round < kHandSize / packet; ++round) {
      for (int i = 0; i < kSeats; ++i) {
        const int seat = (povinnost_ + i) & 3;  // from the dealer's right, counter-clockwise
        for (int j = 0; j < packet; ++j) hands_[seat].Add(deck_[next++]);
      }
    }
  }
  phase_ = Phase::kPrever;
  to_act_ = povinnost_;
}

void WestfestState::Apply(Action a) {
  Push(a);
  const Verb v = VerbOf(a);
  const int arg = ArgOf(a);
  const int s = to_act_;
  switch (phase_) {
    case Phase::kPlay: {
      const Card c = static_cast<Card>(arg);
      hands_[s].Remove(c);
      trick_.Add(s, c, game_->beaters().data());
      if (c == called_) called_shown_ = true;
      if (trick_.len == kSeats) {
        FinishTrick();
      } else {
        to_act_ = static_cast<uint8_t>(Next(s));
      }
      return;
    }
    case Phase::kCut:
      dealing_ = static_cast<uint8_t>(arg);
      if (arg == kTapStacks) {
        phase_ = Phase::kStacks;
        to_act_ = povinnost_;
      } else {
        DealOut();
      }
      return;
    case Phase::kStacks: {
      const int k = arg - kStack0;
      stack_of_[s] = static_cast<int8_t>(k);
      stacks_taken_ |= 1 << k;
      if (std::popcount(stacks_taken_) == 3) {  // the dealer receives the remaining stack
        stack_of_[dealer_] = static_cast<int8_t>(std::countr_zero(static_cast<unsigned>(~stacks_taken_ & 0xF)));
        DealOut();
      } else {
        to_act_ = static_cast<uint8_t>(Next(s));
      }
      return;
    }
    case Phase::kPrever:
      if (v == Verb::kBid) {
        declarer_ = static_cast<int8_t>(s);
        contract_ = kPrever;
        // 004: three cards are drawn from the talon (the first set).
        for (int i = 0; i < 3; ++i) hands_[s].Add(talon_[i]);
        talon_seen_[s] |= 0x07;
        phase_ = Phase::kPreverTalon;
        return;
      }
      if (++prever_passes_ == kSeats) {
        StartPovinnostDraw();
      } else {
        to_act_ = static_cast<uint8_t>(Next(s));
      }
      return;
    case Phase::kPreverTalon: {
      if (v == Verb::kPass) {
        prever_stage_ = 2;
      } else {
        // Exchange the set held for the other one: x2 for the second set, x4 for
        // going back to the first (004 "Prever").
        const int from = arg == 1 ? 0 : 3, to = arg == 1 ? 3 : 0;
        for (int i = 0; i < 3; ++i) {
          hands_[s].Remove(talon_[from + i]);
          hands_[s].Add(talon_[to + i]);
        }
        talon_seen_[s] |= 0x3F;
        draw_mult_ = arg == 1 ? 2 : 4;
        prever_stage_ = arg == 1 ? 1 : 2;
      }
      if (prever_stage_ == 2) {
        talon_taken_ = draw_mult_ == 2 ? 0x38 : 0x07;
        phase_ = Phase::kDiscard;
        discards_left_ = 3;
        draw_step_ = 0;
      }
      return;
    }
    case Phase::kThrowIn:
      if (v == Verb::kCustom) {
        thrown_in_ = true;
        phase_ = Phase::kDone;
      } else {
        phase_ = Phase::kDiscard;
        discards_left_ = 4;
      }
      return;
    case Phase::kDiscard: {
      const Card c = static_cast<Card>(arg);
      hands_[s].Remove(c);
      won_[s].Add(c);  // a seat's discards count for its own side
      if (c == called_) called_shown_ = true;  // a tarock discard is shown face up
      if (--discards_left_ == 0) AfterDiscards();
      return;
    }
    case Phase::kDraw:
      if (v == Verb::kTalon) {
        const int i = 3 + draw_step_;  // step 1: talon card 4, step 2: card 5 (0-based)
        hands_[s].Add(talon_[i]);
        talon_seen_[s] |= 1 << i;
        talon_taken_ |= 1 << i;
        phase_ = Phase::kDiscard;
        discards_left_ = 1;
      } else {
        AfterDiscards();  // the card stays in the talon
      }
      return;
    case Phase::kAnnounce:
      switch (v) {
        case Verb::kPass:
          if (++consecutive_passes_ == kSeats) {
            StartPlay();
            return;
          }
          break;
        case Verb::kAnnounce:
          announced_[s] |= static_cast<uint16_t>(1u << arg);
          if (arg == kPagatBonus) pagat_announcer_ = static_cast<int8_t>(s);
          if (arg == kValatBonus) valat_announcer_ = static_cast<int8_t>(s);
          consecutive_passes_ = 0;
          break;
        case Verb::kKontra:
          ++kontra_[arg];
          consecutive_passes_ = 0;
          break;
        default:
          break;
      }
      to_act_ = static_cast<uint8_t>(Next(s));
      return;
    case Phase::kDone:
      return;
  }
}

void WestfestState::StartPovinnostDraw() {
  // Everyone passed: the povinnost plays. Its partner is the holder of the XIX,
  // or, when the povinnost holds it, of the highest of XVIII..XV it lacks (004).
  declarer_ = static_cast<int8_t>(povinnost_);
  contract_ = kPovinnost;
  to_act_ = povinnost_;
  const CardSet before = hands_[povinnost_];
  called_ = kNoCard;
  for (int n = 19; n >= 15; --n) {
    if (!before.Contains(Tarock(n))) {
      called_ = Tarock(n);
      break;
    }
  }
  // The povinnost draws the top four talon cards (it may not refuse them).
  CardSet drawn;
  for (int i = 0; i < 4; ++i) drawn.Add(talon_[i]);
  hands_[povinnost_] |= drawn;
  talon_seen_[povinnost_] |= 0x0F;
  talon_taken_ |= 0x0F;
  draw_step_ = 0;
  // 004 ¶7: it "can decline to play the hand if he draws the XIX or any
  // descending card, no lower than XV": the card it called (the XIX, or the
  // descending card called in its place). Option throw_in=xix-to-xv: any of
  // the XIX..XV drawn.
  bool may_throw_in = called_ != kNoCard && drawn.Contains(called_);
  if (game_->throw_in_any_xix_to_xv())
    for (int n = 19; n >= 15; --n) may_throw_in |= drawn.Contains(Tarock(n));
  if (may_throw_in) {
    phase_ = Phase::kThrowIn;  // it drew its own partner card: it may throw the hand in
  } else {
    phase_ = Phase::kDiscard;
    discards_left_ = 4;
  }
}

void WestfestState::StartDraw(int step) {
  draw_step_ = static_cast<uint8_t>(step);
  phase_ = Phase::kDraw;
  to_act_ = static_cast<uint8_t>((povinnost_ + step) & 3);
}

void WestfestState::AfterDiscards() {
  // The povinnost's discards are followed by the two draws of one card each.
  if (contract_ == kPovinnost && draw_step_ < 2) {
    StartDraw(draw_step_ + 1);
    return;
  }
  StartAnnouncements();
}

void WestfestState::StartAnnouncements() {
  if (contract_ == kPovinnost && called_ != kNoCard) {
    // The partner is the seat that ended the exchange with the called tarock (in
    // hand, or laid away face up); none when the povinnost has it or it stayed in
    // the talon: the povinnost then plays alone against three.
    for (int s = 0; s < kSeats; ++s) {
      if (s != povinnost_ && (hands_[s] | won_[s]).Contains(called_)) partner_ = static_cast<int8_t>(s);
    }
  }
  final_hand_ = hands_;
  phase_ = Phase::kAnnounce;
  to_act_ = static_cast<uint8_t>(declarer_);  // 004: the bidder first, then the others
  consecutive_passes_ = 0;
}

void WestfestState::StartPlay() {
  phase_ = Phase::kPlay;
  trick_.Start(povinnost_);  // the povinnost (forehand) leads the first trick
  to_act_ = povinnost_;
}

void WestfestState::FinishTrick() {
  const int wi = trick_.WinnerIndex();  // no Pagat rule in 004
  const int winner = trick_.seats[wi];
  won_[winner] |= trick_.set;
  ++tricks_won_[winner];
  ++tricks_played_;
  if (tricks_played_ == kHandSize) {
    if (const int pi = trick_.IndexOf(tarock::kPagat); pi >= 0) {
      pagat_last_seat_ = static_cast<int8_t>(trick_.seats[pi]);
      pagat_last_won_ = pi == wi;
    }
    phase_ = Phase::kDone;
  }
  trick_.Start(winner);
  to_act_ = static_cast<uint8_t>(winner);
}

// ---------------------------------------------------------------------------
// Scoring (chips, zero-sum).

void WestfestState::SettleSides(int x, std::vector<int>* scores) const {
  // x: the stake, signed for the declarer side. Two against two: each player of
  // one side pays one of the other. One against three: the lone player settles
  // with each of the three.
  if (partner_ >= 0) {
    for (int s = 0; s < kSeats; ++s) (*scores)[s] += OnDeclarerSide(s) ? x : -x;
  } else {
    for (int s = 0; s < kSeats; ++s) (*scores)[s] += s == declarer_ ? 3 * x : -x;
  }
}

void WestfestState::SettlePersonal(int seat, int x, std::vector<int>* scores) {
  for (int s = 0; s < kSeats; ++s) (*scores)[s] += s == seat ? 3 * x : -x;
}

HandResult WestfestState::Result() const {
  HandResult r;
  r.scores.assign(kSeats, 0);
  r.radli.assign(kSeats, 0);
  for (int s = 0; s < kSeats; ++s) r.tricks.push_back(tricks_won_[s]);
  if (contract_ == kNoContract) return r;  // not finished (the precondition is IsTerminal)
  r.contract = kContractNames[contract_];
  r.declarer = declarer_;
  r.partner = partner_;
  r.game_kontra_level = kontra_[kKontraGame];
  auto side_name = [&](int seat) { return OnDeclarerSide(seat) ? "declarer" : "defenders"; };
  if (thrown_in_) {
    // 004: the povinnost pays two chips to each of the other three.
    for (int s = 0; s < kSeats; ++s) {
      const int v = s == declarer_ ? -3 * kThrowInChips : kThrowInChips;
      r.scores[s] = v;
      r.penalties.push_back({s, v, "throw-in"});
    }
    return r;
  }
  const int points = Points(trick::SidePile(won_, declarer_, partner_));
  r.card_thirds = {3 * points, 3 * (kTotalPoints - points)};  // raw points, written as thirds
  const int decl_tricks = trick::SideTricks(tricks_won_, declarer_, partner_);
  const bool prever = contract_ == kPrever;

  // The game: the card count, or a valat in its place.
  bool won;
  int x;
  if (valat_announcer_ >= 0) {
    won = decl_tricks == kHandSize;
    x = kBonusChips[kValatBonus];
    r.bonuses.push_back({"valat", "declarer", valat_announcer_, won, kontra_[kKontraGame], 0});
  } else if (decl_tricks == kHandSize || decl_tricks == 0) {
    won = decl_tricks == kHandSize;
    x = kSilentValatChips;
    r.bonuses.push_back({"valat", won ? "declarer" : "defenders", -1, true, kontra_[kKontraGame], 0});
  } else if (points != 53) {
    won = points > 53;
    x = prever ? WestfestGame::PreverChips(points) : WestfestGame::GameChips(points);
  } else {
    // 004 "Ties": the bidder loses 2 chips; after a challenge the last challenger
    // loses (Contra and Suprhea: the defenders; Rhea Contra: the bidder's side).
    won = (kontra_[kKontraGame] & 1) != 0;
    x = kTieChips;
  }
  x <<= kontra_[kKontraGame];
  if (!won && prever) x *= draw_mult_;  // second set x2, back to the first x4 (losses only)
  r.declarer_won = won;
  const int game = won ? x : -x;
  if (!r.bonuses.empty()) r.bonuses.back().value = game;
  SettleSides(game, &r.scores);

  // The Pagat on the last trick (not in a hand with a called valat).
  if (valat_announcer_ < 0) {
    int pagat_side_seat = -1, stake = 0, level = 0;
    bool pagat_won = false;
    if (pagat_announcer_ >= 0) {
      pagat_side_seat = pagat_announcer_;
      pagat_won = pagat_last_seat_ == pagat_announcer_ && pagat_last_won_;
      level = kontra_[kKontraPagat];
      stake = kBonusChips[kPagatBonus] << level;
    } else if (pagat_last_seat_ >= 0) {
      pagat_side_seat = pagat_last_seat_;
      pagat_won = pagat_last_won_;
      stake = kSilentPagatChips;
    }
    if (pagat_side_seat >= 0) {
      const int v = pagat_won ? stake : -stake;
      const int for_declarer = OnDeclarerSide(pagat_side_seat) ? v : -v;
      SettleSides(for_declarer, &r.scores);
      r.bonuses.push_back({"pagat", side_name(pagat_side_seat), pagat_announcer_, pagat_won, level, for_declarer});
    }
  }

  // Hand bonuses: each other player pays the holder (uni without announcing).
  for (int s = 0; s < kSeats; ++s) {
    for (int b = 0; b < kNumBonuses; ++b) {
      if (b == kPagatBonus || b == kValatBonus) continue;
      const bool paid = b == kUni ? (final_hand_[s] & kTarockSet).empty() : ((announced_[s] >> b) & 1) != 0;
      if (!paid) continue;
      SettlePersonal(s, kBonusChips[b], &r.scores);
      r.bonuses.push_back({kBonusNames[b], side_name(s), s, true, 0, kBonusChips[b]});
    }
  }
  return r;
}

// ---------------------------------------------------------------------------
// Observation and introspection.

std::string WestfestState::PhaseName() const {
  switch (phase_) {
    case Phase::kCut: return "cut";
    case Phase::kStacks: return "stacks";
    case Phase::kPrever: return "prever";
    case Phase::kPreverTalon: return "prever-talon";
    case Phase::kThrowIn: return "throw-in";
    case Phase::kDiscard: return "discard";
    case Phase::kDraw: return "draw";
    case Phase::kAnnounce: return "announce";
    case Phase::kPlay: return "play";
    case Phase::kDone: return "done";
  }
  return "?";
}

std::vector<Action> WestfestState::History() const {
  return std::vector<Action>(history_.begin(), history_.begin() + history_len_);
}

Deal WestfestState::GetDeal() const {
  Deal d;
  d.hands.assign(kSeats, CardSet());
  d.talon.assign(talon_.begin(), talon_.end());
  d.deck.assign(deck_.begin(), deck_.end());
  return d;
}

HandSetup WestfestState::Setup() const {
  HandSetup s;
  s.dealer = dealer_;
  return s;
}

Observation WestfestState::Observe(int seat) const {
  Observation o;
  ObserveInto(seat, /*compact=*/false, &o);
  return o;
}

bool WestfestState::ObserveCompact(int seat, Observation* out) const {
  ObserveInto(seat, /*compact=*/true, out);
  return true;
}

void WestfestState::ObserveInto(int seat, bool compact, Observation* out) const {
  const ActionCodec& codec = game_->codec();
  ClearObservation(out);
  Observation& o = *out;
  o.variant = game_->info().name;
  o.seat = seat;
  o.num_seats = kSeats;
  o.dealer = dealer_;
  o.phase = PhaseName();
  o.to_act = CurrentSeat();
  o.hand = hands_[seat];
  for (int i = 0; i < history_len_; ++i) {
    const Action a = history_[i];
    const int who = history_seat_[i];
    // 004: a tarock discard is shown face up; the other discards are face down.
    const bool hidden =
        VerbOf(a) == Verb::kDiscard && who != seat && !IsTarock(static_cast<Card>(ArgOf(a)));
    if (compact) {
      o.history_actions.emplace_back(who, hidden ? kUnseenDiscard : a);
    } else {
      o.history.emplace_back(who, hidden ? std::string("discard ?") : codec.ToString(a));
    }
  }
  // The talon is face down: a seat sees only the cards it drew or looked at.
  for (int i = 0; i < kTalonSize; ++i)
    o.talon.push_back(((talon_seen_[seat] >> i) & 1) ? CardName(talon_[i]) : "?");
  o.shown.assign(kSeats, CardSet());
  o.declarer = declarer_;
  if (contract_ < kNumContracts) o.contract = kContractNames[contract_];
  if (contract_ == kPovinnost && called_ != kNoCard) {
    o.called_king = CardName(called_);  // the called tarock, e.g. "T19"
    // The partner knows himself; everyone knows once the called tarock is seen.
    if (partner_ >= 0 && (seat == partner_ || called_shown_)) o.partner = partner_;
  }
  o.trick_leader = phase_ == Phase::kPlay ? trick_.leader : -1;
  for (int i = 0; i < trick_.len; ++i) o.trick.push_back(trick_.cards[i]);
  for (int s = 0; s < kSeats; ++s) {
    o.tricks_won.push_back(tricks_won_[s]);
    o.radli.push_back(0);
  }
  if (o.to_act == seat && !compact) {
    ActionList legal;
    LegalActions(&legal);
    for (Action a : legal) o.legal.push_back(codec.ToString(a));
  }
}

// ---------------------------------------------------------------------------
// Game.

WestfestGame::WestfestGame(VariantInfo info, Options options)
    : info_(std::move(info)), options_(std::move(options)) {
  for (const char* n : kContractNames) codec_.contracts.push_back(n);
  for (const char* n : kBonusNames) codec_.bonuses.push_back(n);
  codec_.kontra_targets = {"game", "pagat"};
  for (const char* n : kCustomNames) codec_.custom.push_back(n);
  // Trick strength: tarocks by number; black suits K Q N J 10 9 8 7; red suits
  // K Q N J then, as 004 writes, 1 (ace) 4 3 2, or 1 2 3 4 with
  // red_pip_order=traditional. Card rank indices are 4,3,2,1,J,N,Q,K in red.
  auto it = options_.find("red_pip_order");
  const bool traditional = it != options_.end() && it->second == "traditional";
  it = options_.find("throw_in");
  throw_in_any_xix_to_xv_ = it != options_.end() && it->second == "xix-to-xv";
  for (int c = 0; c < kNumCards; ++c) {
    const Card card = static_cast<Card>(c);
    int st = RankOf(card);
    const Suit suit = SuitOf(card);
    if (!traditional && (suit == kHearts || suit == kDiamonds) && st < 4) {
      constexpr int kDocumentRed[4] = {2, 1, 0, 3};  // 4, 3, 2, 1 -> 1 > 4 > 3 > 2
      st = kDocumentRed[st];
    }
    strength_[c] = static_cast<uint8_t>(st);
  }
  beaters_ = trick::MakeBeaters(strength_, /*trumps=*/true);
}

Deal WestfestGame::DealCards(uint64_t seed, int dealer) const {
  Deal d;
  DealInto(seed, dealer, &d);
  return d;
}

void WestfestGame::DealInto(uint64_t seed, int dealer, Deal* d) const {
  Card deck[kNumCards];
  for (int i = 0; i < kNumCards; ++i) deck[i] = static_cast<Card>(i);
  Rng rng(seed);
  rng.Shuffle(deck, kNumCards);
  d->deck.assign(deck, deck + kNumCards);
  d->talon.assign(deck, deck + kTalonSize);
  d->hands.assign(kSeats, CardSet());
}

absl::Status WestfestGame::ValidateDeal(const Deal& deal, const HandSetup& setup) const {
  if (setup.dealer < 0 || setup.dealer >= kSeats)
    return absl::InvalidArgumentError(absl::StrCat("dealer ", setup.dealer, " is not a seat of 4"));
  for (int v : setup.radli)
    if (v != 0) return absl::InvalidArgumentError("westfest has no radli");
  if (setup.forced_klop) return absl::InvalidArgumentError("westfest has no forced Klop");
  if (deal.deck.size() != kNumCards)
    return absl::InvalidArgumentError(absl::StrCat(
        "westfest deals from the whole pack: the deal needs a \"deck\" of 54 cards, not ", deal.deck.size()));
  if (deal.hands.size() != kSeats)
    return absl::InvalidArgumentError(absl::StrCat("the deal has ", deal.hands.size(), " hands, westfest needs 4"));
  for (int s = 0; s < kSeats; ++s)
    if (!deal.hands[s].empty())
      return absl::InvalidArgumentError(absl::StrCat(
          "seat ", s, " has cards before the deal: westfest hands are dealt from the deck by the cut or tap"));
  CardSet seen;
  for (Card c : deal.deck) {
    if (c >= kNumCards) return absl::InvalidArgumentError("card index out of range");
    if (seen.Contains(c)) return absl::InvalidArgumentError(absl::StrCat("card ", CardName(c), " is dealt twice"));
    seen.Add(c);
  }
  if (deal.talon.size() != kTalonSize)
    return absl::InvalidArgumentError(absl::StrCat("the talon has ", deal.talon.size(), " cards, needs 6"));
  for (int i = 0; i < kTalonSize; ++i)
    if (deal.talon[i] != deal.deck[i])
      return absl::InvalidArgumentError("the talon must be the first six cards of the deck");
  return absl::OkStatus();
}

absl::StatusOr<WestfestState> WestfestGame::NewWestfestHand(const Deal& deal, const HandSetup& setup) const {
  absl::Status st = ValidateDeal(deal, setup);
  if (!st.ok()) return st;
  return WestfestState(this, deal, setup);
}

absl::StatusOr<std::unique_ptr<State>> WestfestGame::NewHand(const Deal& deal,
                                                             const HandSetup& setup) const {
  absl::Status st = ValidateDeal(deal, setup);
  if (!st.ok()) return st;
  return std::unique_ptr<State>(std::make_unique<WestfestState>(this, deal, setup));
}

VariantInfo WestfestInfo() {
  VariantInfo info;
  info.name = "westfest";
  info.title = "Westfest Tarock (Czech-Texan, four players, chips)";
  info.rules_source = "004";
  info.rules_page = "referee/variants/czech/rules-westfest.md";
  info.num_seats = kSeats;
  info.hand_size = kHandSize;
  info.talon_size = kTalonSize;
  info.starting_account = 100;  // 004: each player is given 100 chips; may borrow from the bank
  info.options = {
      {"red_pip_order", "document", {"document", "traditional"},
       "document: red suits rank 1 (ace) > 4 > 3 > 2 as 004 writes; traditional: 1 > 2 > 3 > 4"},
      {"throw_in", "called-tarock", {"called-tarock", "xix-to-xv"},
       "called-tarock: the povinnost may throw the hand in only after drawing the tarock it called "
       "(its partner card); xix-to-xv: after drawing any of the XIX..XV, the other reading of 004's "
       "\"the XIX or any descending card, no lower than XV\""},
  };
  info.contracts = {kContractNames[0], kContractNames[1]};
  for (const char* n : kBonusNames) info.bonuses.push_back(n);
  return info;
}

TAROCK_REGISTER_VARIANT(westfest, WestfestInfo(), [](const Options& options) -> std::unique_ptr<Game> {
  return std::make_unique<WestfestGame>(WestfestInfo(), options);
});

}  // namespace tarock::czech
