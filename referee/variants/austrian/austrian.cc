#include "referee/variants/austrian/austrian.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"

namespace tarock::austrian {
namespace {

// The two packs of the tapp (001 Setup: "two packs of three"): deal positions 0-2 and 3-5.
constexpr uint8_t kPack0 = 0b000111;
constexpr uint8_t kPack1 = 0b111000;
constexpr uint8_t kWholeTapp = 0b111111;

// Card values for the simplified count (001 Trick Points table): the five-pointers
// 5, queens 4, knights 3, jacks 2, every other card 0.
int SimplifiedValue(Card c) {
  if (c == kPagat || c == kMond || c == kSkis) return 5;
  if (IsTarock(c)) return 0;
  switch (RankOf(c)) {
    case kKingRank: return 5;
    case kQueenRank: return 4;
    case kKnightRank: return 3;
    case kJackRank: return 2;
    default: return 0;
  }
}

constexpr int kWinThirds = 3 * 36;  // 001, 002: "you need 36 points"

}  // namespace

// ---------------------------------------------------------------------------
// State: construction and small helpers.

AustrianState::AustrianState(const AustrianGame* game, const Deal& deal, const HandSetup& setup)
    : game_(game) {
  dealer_ = static_cast<uint8_t>(setup.dealer);
  for (int s = 0; s < kSeats; ++s) hands_[s] = dealt_[s] = deal.hands[s];
  for (int i = 0; i < kTalonSize; ++i) talon_[i] = deal.talon[i];
  announcer_.fill(-1);
  // 001 Bidding Process / 002 Bidding: the player after the dealer opens.
  to_act_ = static_cast<uint8_t>(Next(dealer_));
}

const Game& AustrianState::game() const { return *game_; }
const Rules& AustrianState::rules() const { return game_->rules(); }

void AustrianState::Push(Action a) {
  if (history_len_ < kMaxHistory) {
    std::memcpy(&history_[sizeof(Action) * history_len_], &a, sizeof(Action));
    history_seat_[history_len_] = to_act_;
    ++history_len_;
  }
}

Action AustrianState::HistoryAt(int i) const {
  Action a;
  std::memcpy(&a, &history_[sizeof(Action) * i], sizeof(Action));
  return a;
}

int AustrianState::Thirds(CardSet s) const { return game_->thirds_.Of(s); }

CardSet AustrianState::DeclarerPile() const {
  if (declarer_ < 0) return CardSet();
  return won_[declarer_] | discards_ | declarer_tapp_;
}

bool AustrianState::TalonExposed() const {
  return contract_ < kMaxContracts && rules().contracts[contract_].exposed;
}

// ---------------------------------------------------------------------------
// Legal actions.

void AustrianState::LegalActions(ActionList* out) const {
  if (phase_ == Phase::kPlay) {  // the hot path first
    LegalPlays(out);
    return;
  }
  out->clear();
  switch (phase_) {
    case Phase::kBidding:
      LegalBids(out);
      return;
    case Phase::kTalon: {
      const int groups = static_cast<int>(rules().contracts[contract_].groups.size());
      for (int g = 0; g < groups; ++g) out->push(MakeAction(Verb::kTalon, g));
      return;
    }
    case Phase::kDiscard:
      LegalDiscards(out);
      return;
    case Phase::kAnnounce:
      LegalAnnouncements(out);
      return;
    case Phase::kPlay:
    case Phase::kDone:
      return;
  }
}

void AustrianState::LegalBids(ActionList* out) const {
  // 001 Bidding Process, 002 Bidding: pass, or a bid higher than the last; a
  // pass is final. 001: the first bid is always Three.
  out->push(kPassAction);
  const int n = static_cast<int>(rules().contracts.size());
  int from = best_bid_ == kNoContract ? 0 : best_bid_ + 1;
  int to = best_bid_ == kNoContract && rules().first_bid_lowest ? 1 : n;
  for (int c = from; c < to; ++c) out->push(MakeAction(Verb::kBid, c));
}

void AustrianState::LegalDiscards(ActionList* out) const {
  // 001 Exchanging Cards, 002 Three cards: never a king nor a trull card; a
  // tarock only when no other suit card is left to lay away.
  const CardSet hand = hands_[declarer_];
  CardSet allowed = hand - kTarockSet - kKingSet;
  if (allowed.empty()) allowed = (hand & kTarockSet) - kTrulaSet;
  for (Card c : allowed) out->push(MakeAction(Verb::kDiscard, c));
}

void AustrianState::LegalAnnouncements(ActionList* out) const {
  const int s = to_act_;
  out->push(kPassAction);
  const int n = static_cast<int>(rules().bonuses.size());
  for (int b = 0; b < n; ++b) {
    if (announced_mask_ & (1 << b)) continue;  // each bonus is announced once
    // Pagat Ultimo only by the holder of the Pagat.
    if (b == kPagatUltimo && !hands_[s].Contains(kPagat)) continue;
    out->push(MakeAction(Verb::kAnnounce, b));
  }
}

inline void AustrianState::LegalPlays(ActionList* out) const {
  // 001 Following Suit, 002 Game Play: follow suit; if void, play a tarock; if
  // void of tarocks too, any card (branch-free, see trick_core.h).
  trick::WritePlays(trick::FollowOrTrump(hands_[to_act_].bits(), trick_.led()), out);
}

// ---------------------------------------------------------------------------
// Applying actions.

void AustrianState::Apply(Action a) {
  Push(a);
  if (phase_ == Phase::kPlay) {  // the hot path first
    ApplyPlay(static_cast<Card>(ArgOf(a)));
    return;
  }
  switch (phase_) {
    case Phase::kBidding:
      ApplyBid(a);
      return;
    case Phase::kTalon:
      TakeGroup(rules().contracts[contract_].groups[ArgOf(a)]);
      return;
    case Phase::kDiscard: {
      const Card c = static_cast<Card>(ArgOf(a));
      hands_[declarer_].Remove(c);
      discards_.Add(c);
      if (--discards_left_ == 0) StartAnnouncements();
      return;
    }
    case Phase::kAnnounce:
      ApplyAnnouncement(a);
      return;
    case Phase::kPlay:
    case Phase::kDone:
      return;
  }
}

void AustrianState::ApplyBid(Action a) {
  const int s = to_act_;
  const int num_contracts = static_cast<int>(rules().contracts.size());
  if (VerbOf(a) == Verb::kPass) {
    passed_mask_ |= 1 << s;
  } else {
    best_bid_ = static_cast<uint8_t>(ArgOf(a));
    best_bidder_ = static_cast<int8_t>(s);
  }
  const int passed = std::popcount(passed_mask_);
  if (passed == kSeats) {  // nobody bid
    if (rules().all_pass == AllPass::kBridscher) {
      // 001 Bidding Process: "If all players pass, a bridscher is played".
      contract_ = kBridscher;
      StartPlay(Next(dealer_));  // no bid winner: forehand leads
    } else {
      thrown_in_ = true;  // 002 is silent: the deal is void
      phase_ = Phase::kDone;
    }
    return;
  }
  // The auction ends when the others have passed, or at the highest bid (002:
  // "The player that bids solo ends the auction"; nobody could bid over it).
  if (best_bid_ != kNoContract && (passed == kSeats - 1 || best_bid_ == num_contracts - 1)) {
    declarer_ = best_bidder_;
    contract_ = best_bid_;
    StartExchange();
    return;
  }
  int next = Next(s);
  while (passed_mask_ & (1 << next)) next = Next(next);
  to_act_ = static_cast<uint8_t>(next);
}

void AustrianState::StartExchange() {
  const ContractRule& c = rules().contracts[contract_];
  to_act_ = static_cast<uint8_t>(declarer_);
  if (c.take == 0) {
    // 001 Exchanging Cards, 002 Solo: the defenders get the whole tapp, unseen.
    defence_tapp_ = trick::CardsAt(talon_, kWholeTapp);
    StartAnnouncements();
    return;
  }
  if (c.groups.size() == 1 && !c.exposed) {
    TakeGroup(c.groups[0]);  // 002 Bottom 3 / Top 3: no choice, nothing exposed
    return;
  }
  phase_ = Phase::kTalon;  // the tapp is turned up; the declarer chooses
}

void AustrianState::TakeGroup(uint8_t positions) {
  taken_mask_ = positions;
  uint8_t to_declarer = 0;  // positions not taken that count for the declarer
  if (rules().talon_rest == TalonRest::kTouchedPacksToDeclarer) {
    // 001 Exchanging Cards: "the exchanged cards/the rest of that card pack
    // counts towards his trick points, while the untouched tapp packs belong
    // to the opponents' tricks".
    for (uint8_t pack : {kPack0, kPack1})
      if (positions & pack) to_declarer |= pack;
    to_declarer &= ~positions;
  }
  const uint8_t to_defenders = kWholeTapp & ~positions & ~to_declarer;
  taken_ |= trick::CardsAt(talon_, positions);
  declarer_tapp_ |= trick::CardsAt(talon_, to_declarer);
  defence_tapp_ |= trick::CardsAt(talon_, to_defenders);
  hands_[declarer_] |= taken_;
  discards_left_ = static_cast<uint8_t>(taken_.size());
  phase_ = Phase::kDiscard;
}

void AustrianState::StartAnnouncements() {
  phase_ = Phase::kAnnounce;
  to_act_ = static_cast<uint8_t>(declarer_);  // the declarer speaks first
  consecutive_passes_ = 0;
}

void AustrianState::ApplyAnnouncement(Action a) {
  const int s = to_act_;
  if (VerbOf(a) == Verb::kAnnounce) {
    announced_mask_ |= 1 << ArgOf(a);
    announcer_[ArgOf(a)] = static_cast<int8_t>(s);
    consecutive_passes_ = 0;
  } else {
    ++consecutive_passes_;
  }
  if (rules().bonus_model == BonusModel::kDeclarer) {
    // 002 Contracts: only the declarer announces; her pass ends it.
    if (consecutive_passes_ > 0) StartPlay(declarer_);
    return;
  }
  // 001 Bonus: every player may announce, in turn from the declarer, until all
  // three pass in a row.
  if (consecutive_passes_ == kSeats) {
    StartPlay(declarer_);
    return;
  }
  to_act_ = static_cast<uint8_t>(Next(s));
}

void AustrianState::StartPlay(int leader) {
  // 001 Trick Taking: "The player who won the bid plays the first card";
  // 002 Game Play: "starting with the declarer".
  phase_ = Phase::kPlay;
  trick_.Start(leader);
  to_act_ = trick_.leader;
}

inline void AustrianState::ApplyPlay(Card c) {
  const int s = to_act_;
  hands_[s] -= CardSet::Of(c);
  // The highest tarock, else the highest card of the led suit, takes the trick.
  trick_.Add(s, c, game_->beaters_.data());
  if (trick_.len == kSeats) {
    FinishTrick();
  } else {
    to_act_ = static_cast<uint8_t>(Next(s));
  }
}

void AustrianState::FinishTrick() {
  const int wi = trick_.WinnerIndex();  // no Pagat rule in 001 and 002
  const int winner = trick_.seats[wi];
  won_[winner] |= trick_.set;
  ++tricks_won_[winner];
  ++tricks_played_;
  if (tricks_played_ == kTricks) {
    if (const int pi = trick_.IndexOf(kPagat); pi >= 0) {
      pagat_last_seat_ = static_cast<int8_t>(trick_.seats[pi]);
      pagat_last_won_ = pi == wi;
      pagat_last_taker_ = static_cast<int8_t>(winner);
    }
    phase_ = Phase::kDone;
  }
  trick_.Start(winner);
  to_act_ = static_cast<uint8_t>(winner);
}

// ---------------------------------------------------------------------------
// Scoring. Every payment is from one player to another, so every hand's scores
// sum to zero (001 Pay Outs: "Every row of your scoring table should sum up to 0").

namespace {

// Adds a payment of `amount` from each other player to `seat` (negative: `seat`
// pays each other player).
void PayFromEachOther(std::vector<int>* scores, int seat, int amount) {
  for (int s = 0; s < kSeats; ++s) (*scores)[s] += s == seat ? 2 * amount : -amount;
}

}  // namespace

void AustrianState::ScorePlayerBonuses(HandResult* r, const std::array<int, kSeats>& thirds) const {
  // 001 Bonus / Pay Outs: a bonus is won by one player (her own tricks; the
  // declarer's pile also holds her discards and the tapp cards that count for
  // her); the other two pay her. An announced bonus that its announcer does
  // not win costs her the announced value to each other player.
  const Rules& rl = rules();
  std::array<int, kSeats> points{};
  for (int s = 0; s < kSeats; ++s) points[s] = RoundThirds(thirds[s]);
  const CardSet decl_pile = DeclarerPile();
  auto pile = [&](int s) { return s == declarer_ ? decl_pile : won_[s]; };
  for (int b = 0; b < static_cast<int>(rl.bonuses.size()); ++b) {
    const int announcer = announcer_[b];
    int winner = -1;
    for (int s = 0; s < kSeats; ++s) {
      bool achieved = false;
      switch (b) {
        case kPagatUltimo:
          // 001 Bonus Values: "Win the Pagat (1) in the last trick": the player
          // who takes the last trick with the Pagat in it (her own Pagat or
          // another's). Option pagat_ultimo=pagat-wins: her Pagat must itself
          // win the last trick. For the Pagat's holder the two agree.
          achieved = rl.pagat_ultimo_pagat_wins ? pagat_last_won_ && pagat_last_seat_ == s
                                                : pagat_last_taker_ == s;
          break;
        case kTrull:
          achieved = pile(s).ContainsAll(kTrulaSet);
          break;
        case kFourKings:
          achieved = pile(s).ContainsAll(kKingSet);
          break;
        case kAbsolut:
          // 001 Bonus Values: "Win with 40-49 points", silent and announced
          // alike: an announced Absolut is missed with 50 or more (the player
          // then wins the silent Grandpointe). Option absolut=at-least-40: an
          // announced Absolut is also made with 50 or more.
          achieved = points[s] >= 40 &&
                     (points[s] < 50 || (announcer == s && rl.announced_absolut_open_ended));
          break;
        case kGrandpointe:
          achieved = points[s] >= 50;
          break;
      }
      if (achieved) winner = s;
    }
    const BonusRule& br = rl.bonuses[b];
    auto side = [&](int s) { return s == declarer_ ? "declarer" : "defenders"; };
    if (winner >= 0) {
      BonusResult res;
      res.name = br.name;
      res.seat = winner;
      res.side = side(winner);
      res.announcer = announcer == winner ? winner : -1;
      res.won = true;
      res.value = announcer == winner ? br.announced : br.silent;
      PayFromEachOther(&r->scores, winner, res.value);
      r->bonuses.push_back(res);
    }
    if (announcer >= 0 && announcer != winner) {
      BonusResult res;
      res.name = br.name;
      res.seat = announcer;
      res.side = side(announcer);
      res.announcer = announcer;
      res.won = false;
      res.value = -br.announced;
      PayFromEachOther(&r->scores, announcer, res.value);
      r->bonuses.push_back(res);
    }
  }
}

void AustrianState::ScoreDeclarerContracts(HandResult* r, int* per_defender) const {
  // 002 Contracts: Pagat Ultimo and Valat, the declarer's; each defender pays.
  const Rules& rl = rules();
  const int bid = rl.contracts[contract_].value;
  const int d = declarer_;
  // Valat (002 Contracts): the declarer takes every trick. Announced, it turns
  // the game into bid x 8, won or paid; unannounced and made, bid x 4.
  const BonusRule& valat = rl.bonuses[kValat];
  const bool all_tricks = tricks_won_[d] == kTricks;
  const bool valat_announced = announced_mask_ & (1 << kValat);
  if (valat_announced || all_tricks) {
    BonusResult res;
    res.name = valat.name;
    res.seat = d;
    res.side = "declarer";
    res.announcer = valat_announced ? d : -1;
    res.won = all_tricks;
    const int v = bid * (valat_announced ? valat.announced : valat.silent);
    res.value = all_tricks ? v : -v;
    *per_defender = res.value;  // replaces the game's payment
    r->declarer_won = all_tricks;
    r->bonuses.push_back(res);
  }
  // Pagat Ultimo (002 Contracts): the declarer's Pagat wins the last trick.
  // Announced: 8 from each defender, or 8 to each on failure; unannounced: 4.
  const BonusRule& pagat = rl.bonuses[kPagatUltimo];
  const bool pagat_won = pagat_last_won_ && pagat_last_seat_ == d;
  const bool pagat_announced = announced_mask_ & (1 << kPagatUltimo);
  if (pagat_announced || pagat_won) {
    BonusResult res;
    res.name = pagat.name;
    res.seat = d;
    res.side = "declarer";
    res.announcer = pagat_announced ? d : -1;
    res.won = pagat_won;
    const int v = pagat_announced ? pagat.announced : pagat.silent;
    res.value = pagat_won ? v : -v;
    *per_defender += res.value;
    r->bonuses.push_back(res);
  }
}

HandResult AustrianState::Result() const {
  const Rules& rl = rules();
  HandResult r;
  r.scores.assign(kSeats, 0);
  r.radli.assign(kSeats, 0);
  if (thrown_in_) {
    // 002 is silent on an all-pass: the deal is thrown in, every seat scores 0.
    // By default (thrown_in=hand) it counts as one of the match's hands: the
    // deal passes on and the next hand gets the next deal of the match, so the
    // bots' bids can neither stall a match nor shift a duplicate set's deals.
    // thrown_in=redeal: the same hand is dealt again (MatchProgress bounds it).
    r.redeal = true;
    r.counts_as_hand = rl.thrown_in_counts_as_hand;
    return r;
  }
  for (int s = 0; s < kSeats; ++s) r.tricks.push_back(tricks_won_[s]);
  r.declarer = declarer_;
  if (contract_ == kBridscher) {
    // 001 Bid Levels: "Player with most points loses" (10). Each seat counts its
    // own tricks; the tapp stays aside. Every player with the most points pays
    // 10 to each player with fewer; if all three are level nobody pays.
    r.contract = "bridscher";
    std::array<int, kSeats> t{};
    int most = 0;
    for (int s = 0; s < kSeats; ++s) {
      t[s] = Thirds(won_[s]);
      r.card_thirds.push_back(t[s]);
      most = std::max(most, RoundThirds(t[s]));
    }
    for (int loser = 0; loser < kSeats; ++loser) {
      if (RoundThirds(t[loser]) != most) continue;
      for (int other = 0; other < kSeats; ++other) {
        if (RoundThirds(t[other]) == most) continue;
        r.scores[loser] -= rl.bridscher_value;
        r.scores[other] += rl.bridscher_value;
      }
    }
    return r;
  }
  r.contract = rl.contracts[contract_].name;
  const int decl_thirds = Thirds(DeclarerPile());
  r.card_thirds = {decl_thirds, game_->thirds_.total() - decl_thirds};
  // 001 Object of the Game / 002 Cards: the declarer needs 36 points.
  r.declarer_won = decl_thirds >= kWinThirds;
  const int bid = rl.contracts[contract_].value;
  int per_defender = r.declarer_won ? bid : -bid;  // paid by each defender to the declarer
  if (rl.bonus_model == BonusModel::kDeclarer) {
    ScoreDeclarerContracts(&r, &per_defender);
    PayFromEachOther(&r.scores, declarer_, per_defender);
  } else {
    PayFromEachOther(&r.scores, declarer_, per_defender);
    std::array<int, kSeats> thirds{};
    for (int s = 0; s < kSeats; ++s) thirds[s] = s == declarer_ ? decl_thirds : Thirds(won_[s]);
    ScorePlayerBonuses(&r, thirds);
  }
  return r;
}

// ---------------------------------------------------------------------------
// Observation and introspection.

std::string AustrianState::PhaseName() const {
  switch (phase_) {
    case Phase::kBidding: return "bidding";
    case Phase::kTalon: return "talon";
    case Phase::kDiscard: return "discard";
    case Phase::kAnnounce: return "announce";
    case Phase::kPlay: return "play";
    case Phase::kDone: return "done";
  }
  return "?";
}

std::vector<Action> AustrianState::History() const {
  std::vector<Action> out(history_len_);
  for (int i = 0; i < history_len_; ++i) out[i] = HistoryAt(i);
  return out;
}

Deal AustrianState::GetDeal() const {
  Deal d;
  d.hands.assign(dealt_.begin(), dealt_.end());
  d.talon.assign(talon_.begin(), talon_.end());
  return d;
}

HandSetup AustrianState::Setup() const {
  HandSetup s;
  s.dealer = dealer_;
  return s;
}

Observation AustrianState::Observe(int seat) const {
  Observation o;
  ObserveInto(seat, /*compact=*/false, &o);
  return o;
}

bool AustrianState::ObserveCompact(int seat, Observation* out) const {
  ObserveInto(seat, /*compact=*/true, out);
  return true;
}

void AustrianState::ObserveInto(int seat, bool compact, Observation* out) const {
  const ActionCodec& codec = game_->codec();
  const Rules& rl = rules();
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
    const Action a = HistoryAt(i);
    const int who = history_seat_[i];
    const bool hidden = VerbOf(a) == Verb::kDiscard && who != seat && !rl.all_discards_shown &&
                        !IsTarock(static_cast<Card>(ArgOf(a)));
    // 001: a suit card laid away is face down ("discard ?"); tarocks are shown.
    // 002: "All discarded cards must be shown to the defenders".
    if (compact) {
      o.history_actions.emplace_back(who, hidden ? kUnseenDiscard : a);
    } else {
      o.history.emplace_back(who, hidden ? std::string("discard ?") : codec.ToString(a));
    }
  }
  // The tapp: shown to all once a contract turns it up (001 Three/Two/One, 002
  // Three cards); the cards taken unexposed (002 Bottom 3 / Top 3) only to the
  // declarer. In Solo and Bridscher it stays face down.
  const bool exposed = TalonExposed();
  for (int i = 0; i < kTalonSize; ++i) {
    const bool shown = exposed || (seat == declarer_ && (taken_mask_ & (1 << i)));
    o.talon.push_back(shown ? CardName(talon_[i]) : "?");
  }
  o.shown.assign(kSeats, CardSet());
  o.declarer = declarer_;
  if (contract_ == kBridscher) o.contract = "bridscher";
  else if (contract_ < kMaxContracts) o.contract = rl.contracts[contract_].name;
  o.trick_leader = phase_ == Phase::kPlay ? trick_.leader : -1;
  for (int i = 0; i < trick_.len; ++i) o.trick.push_back(trick_.cards[i]);
  for (int s = 0; s < kSeats; ++s) o.tricks_won.push_back(tricks_won_[s]);
  if (o.to_act == seat && !compact) {
    ActionList legal;
    LegalActions(&legal);
    for (Action a : legal) o.legal.push_back(codec.ToString(a));
  }
}

// ---------------------------------------------------------------------------
// Game.

AustrianGame::AustrianGame(Rules rules, VariantInfo info, Options options)
    : rules_(std::move(rules)), info_(std::move(info)), options_(std::move(options)) {
  for (const ContractRule& c : rules_.contracts) codec_.contracts.push_back(c.name);
  if (rules_.all_pass == AllPass::kBridscher) codec_.contracts.push_back("bridscher");  // never bid
  for (const BonusRule& b : rules_.bonuses) codec_.bonuses.push_back(b.name);
  if (rules_.simplified_counting) {
    std::array<int, kNumCards> values{};
    for (int c = 0; c < kNumCards; ++c) values[c] = SimplifiedValue(static_cast<Card>(c));
    thirds_ = trick::ThirdsTable::Plain(values);
  } else {
    thirds_ = trick::ThirdsTable::Traditional();
  }
  // Trick ranks (001 The Cards, 002 infobox): tarocks T22 > T21 > ... > T1 above
  // every suit card; in a suit K Q N J, then red 1 2 3 4 or black 10 9 8 7.
  const RankTable ranks = RankTable::Make(/*red_pips_numeric=*/false);
  beaters_ = trick::MakeBeaters(ranks.strength, /*trumps=*/true);
}

Deal AustrianGame::DealCards(uint64_t seed, int dealer) const {
  Deal d;
  DealInto(seed, dealer, &d);
  return d;
}

void AustrianGame::DealInto(uint64_t seed, int dealer, Deal* d) const {
  // 001 Setup / 002 Dealing: first the six tapp cards (two packs of three), then
  // sixteen cards to each player in four packets of four, forehand first.
  Card deck[kNumCards];
  for (int i = 0; i < kNumCards; ++i) deck[i] = static_cast<Card>(i);
  Rng rng(seed);
  rng.Shuffle(deck, kNumCards);
  d->talon.assign(deck, deck + kTalonSize);
  std::array<CardSet, kSeats> hands{};
  int next = kTalonSize;
  for (int round = 0; round < kHandSize / 4; ++round) {
    int seat = dealer;
    for (int k = 0; k < kSeats; ++k) {
      seat = seat + 1 == kSeats ? 0 : seat + 1;
      for (int i = 0; i < 4; ++i) hands[seat].Add(deck[next + i]);
      next += 4;
    }
  }
  d->hands.assign(hands.begin(), hands.end());
}

absl::Status AustrianGame::ValidateDeal(const Deal& deal, const HandSetup& setup) const {
  if (setup.dealer < 0 || setup.dealer >= kSeats)
    return absl::InvalidArgumentError(absl::StrCat("dealer ", setup.dealer, " is not a seat of ", kSeats));
  if (deal.hands.size() != kSeats)
    return absl::InvalidArgumentError(
        absl::StrCat("the deal has ", deal.hands.size(), " hands, ", info_.name, " needs ", kSeats));
  if (deal.talon.size() != kTalonSize)
    return absl::InvalidArgumentError(absl::StrCat("the talon has ", deal.talon.size(), " cards, needs 6"));
  for (int v : setup.radli)
    if (v != 0) return absl::InvalidArgumentError(absl::StrCat(info_.name, " has no radli"));
  if (setup.forced_klop)
    return absl::InvalidArgumentError(absl::StrCat(info_.name, " has no forced Klop"));
  CardSet seen;
  auto add = [&](Card c) -> absl::Status {
    if (c >= kNumCards) return absl::InvalidArgumentError("card index out of range");
    if (seen.Contains(c)) return absl::InvalidArgumentError(absl::StrCat("card ", CardName(c), " is dealt twice"));
    seen.Add(c);
    return absl::OkStatus();
  };
  for (int s = 0; s < kSeats; ++s) {
    if (deal.hands[s].size() != kHandSize)
      return absl::InvalidArgumentError(
          absl::StrCat("seat ", s, " has ", deal.hands[s].size(), " cards, needs ", kHandSize));
    for (Card c : deal.hands[s])
      if (absl::Status st = add(c); !st.ok()) return st;
  }
  for (Card c : deal.talon)
    if (absl::Status st = add(c); !st.ok()) return st;
  for (Card c : kAllCards - seen)
    return absl::InvalidArgumentError(absl::StrCat("card ", CardName(c), " is missing from the deal"));
  return absl::OkStatus();
}

absl::StatusOr<AustrianState> AustrianGame::NewAustrianHand(const Deal& deal, const HandSetup& setup) const {
  if (absl::Status st = ValidateDeal(deal, setup); !st.ok()) return st;
  return absl::StatusOr<AustrianState>(absl::in_place, this, deal, setup);
}

absl::StatusOr<std::unique_ptr<State>> AustrianGame::NewHand(const Deal& deal, const HandSetup& setup) const {
  if (absl::Status st = ValidateDeal(deal, setup); !st.ok()) return st;
  return std::unique_ptr<State>(std::make_unique<AustrianState>(this, deal, setup));
}

// ---------------------------------------------------------------------------
// The two variants' rules.

Rules MakeRules(const std::string& variant, const Options& options) {
  Rules r;
  r.name = variant;
  if (variant == "tapp-tarock") {
    // 001 Bid Levels: Three takes either pack of three, Two one of the three
    // adjacent pairs, One one card; the whole tapp is turned up first.
    r.contracts = {
        {"three", 10, 3, true, {kPack0, kPack1}},
        {"two", 20, 2, true, {0b000011, 0b001100, 0b110000}},
        {"one", 30, 1, true, {1, 2, 4, 8, 16, 32}},
        {"solo", 50, 0, false, {}},
    };
    // 001 Bonus Values: silent / announced.
    r.bonuses = {
        {"pagat-ultimo", 10, 20, false},
        {"trull", 10, 20, false},
        {"four-kings", 10, 20, false},
        {"absolut", 10, 20, false},
        {"grandpointe", 20, 40, false},
    };
    r.first_bid_lowest = true;
    r.all_pass = AllPass::kBridscher;
    r.bridscher_value = 10;
    r.talon_rest = TalonRest::kTouchedPacksToDeclarer;
    r.all_discards_shown = false;
    r.bonus_model = BonusModel::kPlayers;
    auto it = options.find("counting");
    r.simplified_counting = it != options.end() && it->second == "simplified";
    it = options.find("absolut");
    r.announced_absolut_open_ended = it != options.end() && it->second == "at-least-40";
    it = options.find("pagat_ultimo");
    r.pagat_ultimo_pagat_wins = it != options.end() && it->second == "pagat-wins";
  } else if (variant == "tapp-tarock-classic") {
    // 002 Bidding: Three cards (talon exposed, first or last three), Bottom 3
    // and Top 3 (unexposed), Solo; bonus 3, 4, 5, 8 from each defender.
    r.contracts = {
        {"three", 3, 3, true, {kPack0, kPack1}},
        {"bottom-three", 4, 3, false, {kPack0}},
        {"top-three", 5, 3, false, {kPack1}},
        {"solo", 8, 0, false, {}},
    };
    // 002 Contracts: Pagat Ultimo 4 unannounced / 8 announced; Valat the bid x 4 / x 8.
    r.bonuses = {
        {"pagat-ultimo", 4, 8, false},
        {"valat", 4, 8, true},
    };
    r.first_bid_lowest = false;
    r.all_pass = AllPass::kThrowIn;
    auto it = options.find("thrown_in");
    r.thrown_in_counts_as_hand = it == options.end() || it->second != "redeal";
    r.talon_rest = TalonRest::kToDefenders;
    r.all_discards_shown = true;
    r.bonus_model = BonusModel::kDeclarer;
  }
  return r;
}

namespace {

VariantInfo MakeInfo(const std::string& name, std::string title, std::string source, std::string page) {
  const Rules r = MakeRules(name, {});
  VariantInfo info;
  info.name = name;
  info.title = std::move(title);
  info.rules_source = std::move(source);
  info.rules_page = std::move(page);
  info.num_seats = kSeats;
  info.hand_size = kHandSize;
  info.talon_size = kTalonSize;
  for (const ContractRule& c : r.contracts) info.contracts.push_back(c.name);
  if (r.all_pass == AllPass::kBridscher) info.contracts.push_back("bridscher");
  for (const BonusRule& b : r.bonuses) info.bonuses.push_back(b.name);
  return info;
}

GameFactory Factory(const std::string& name, VariantInfo (*info)()) {
  return [name, info](const Options& options) -> std::unique_ptr<Game> {
    return std::make_unique<AustrianGame>(MakeRules(name, options), info(), options);
  };
}

}  // namespace

VariantInfo InfoTapp() {
  VariantInfo info = MakeInfo("tapp-tarock", "Tapp Tarock for three (Austrian, blog rules)", "001",
                              "referee/variants/austrian/rules-tapp-tarock.md");
  info.options.push_back({"counting", "traditional", {"traditional", "simplified"},
                          "traditional: count in packs of three, minus 2 per pack (70 in all); "
                          "simplified: add the card values, one-pointers count 0 (71 in all); "
                          "36 wins either way (001 Trick Points)"});
  info.options.push_back({"absolut", "40-49", {"40-49", "at-least-40"},
                          "40-49: an Absolut is won with 40-49 points, silent or announced; an "
                          "announced Absolut is missed with 50 or more (001 Bonus Values: \"Win with "
                          "40-49 points\"); at-least-40: an announced Absolut is also made with 50 or "
                          "more (the rules page's former reading)"});
  info.options.push_back({"pagat_ultimo", "takes-pagat", {"takes-pagat", "pagat-wins"},
                          "takes-pagat: Pagat Ultimo is won by the player who takes the last trick "
                          "with the Pagat in it, also another player's Pagat (001 Bonus Values: \"Win "
                          "the Pagat (1) in the last trick\"); pagat-wins: the Pagat itself must win "
                          "the last trick (002, 000, 003; the former reading)"});
  // The engine's former readings of 001, both the traditional Austrian ones.
  info.option_sets.push_back({"traditional",
                              "the Pagat must itself win the last trick and an announced Absolut is "
                              "made with 40 or more, as at traditional Austrian tables",
                              {{"absolut", "at-least-40"}, {"pagat_ultimo", "pagat-wins"}}});
  return info;
}

VariantInfo InfoClassic() {
  VariantInfo info = MakeInfo("tapp-tarock-classic", "Tapp-Tarock for three (Austrian, encyclopedia rules)",
                              "002", "referee/variants/austrian/rules-tapp-tarock-classic.md");
  info.options.push_back({"thrown_in", "hand", {"hand", "redeal"},
                          "all three pass (002 is silent): hand: the deal is thrown in and counts as "
                          "one of the match's hands, every seat scores 0, the next hand gets the next "
                          "deal; redeal: the same hand is dealt again with a new seed"});
  return info;
}

TAROCK_REGISTER_VARIANT(tapp_tarock, InfoTapp(), Factory("tapp-tarock", &InfoTapp));
TAROCK_REGISTER_VARIANT(tapp_tarock_classic, InfoClassic(), Factory("tapp-tarock-classic", &InfoClassic));

}  // namespace tarock::austrian
