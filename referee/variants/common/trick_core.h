// The trick-play core shared by the built-in variant families (Slovenian,
// Austrian, Czech): following suit and trumping, beating in negative
// contracts, the Pagat rules, the trick and its winner, the talon cards at a
// set of deal positions, the pile of a side, and card points in thirds.
//
// Each variant's State composes these pieces; the rules that differ (who
// leads, when a hand ends, what a trick is worth) stay in the variant. Card
// sets are 64-bit masks and the play path is branch-free: random play makes
// nearly every test here a coin toss for the branch predictor, so choices are
// selects on masks and tables (see Select). Everything called per card is
// inline, so the core costs nothing over writing it in each variant.
//
// Thread-safety: only constants, pure functions and plain values (Trick,
// ThirdsTable); a value is not thread-safe, the constants and functions are.

#ifndef TAROCK_REFEREE_VARIANTS_COMMON_TRICK_CORE_H_
#define TAROCK_REFEREE_VARIANTS_COMMON_TRICK_CORE_H_

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "referee/engine/card.h"
#include "referee/engine/game.h"

namespace tarock::trick {

// Stands for the card in Trick::cards[0] and for the best card before a trick
// is led. Its entries in the tables below hold every card, so that the leader
// needs no case of its own: any card follows suit and takes the trick.
inline constexpr Card kBeforeLead = kNumCards;

// Per card (and kBeforeLead): a set of cards. Beaters tables are of this type.
using CardTable = std::array<CardSet, kNumCards + 1>;

// The cards of each card's suit; every card for kBeforeLead.
inline constexpr CardTable kSuitOfCard = [] {
  CardTable t{};
  for (int c = 0; c < kNumCards; ++c) t[c] = SuitSet(SuitOf(static_cast<Card>(c)));
  t[kBeforeLead] = kAllCards;
  return t;
}();

// Returns c ? a : b, preferably as a conditional move: told that c is
// unpredictable, GCC emits cmov, which on random play costs less than the
// mispredicted branch.
[[gnu::always_inline]] inline uint64_t Select(bool c, uint64_t a, uint64_t b) {
  return __builtin_expect_with_probability(c, true, 0.5) ? a : b;
}

// The cards of `hand` that may be played to a trick led with `led`
// (kBeforeLead: the hand leads): the cards of the led suit; if none, the
// tarocks; if none, any card. Every family's rule (003 §4.6, 000, 001 Following
// Suit, 002 Game Play, 004 Following Suit); the tarocks are to be played even
// where they are no trumps (Slovenian Colour Valat).
[[gnu::always_inline]] inline uint64_t FollowOrTrump(uint64_t hand, Card led) {
  const uint64_t follow = hand & kSuitOfCard[led].bits();
  const uint64_t trumps = hand & kTarockSet.bits();
  return Select(follow != 0, follow, Select(trumps != 0, trumps, hand));
}

// Negative contracts (003 §4.6.3, 000): of the candidates `cand` (from
// FollowOrTrump), those that beat the best card so far, if any; else `cand`.
// `beaters_of_best` is the beaters table's entry of that card. With
// `imperator`, the Pagat takes a trick holding the Mond and the Skis (see
// Trick::WinnerIndex): once both are down it is the only card that beats, and
// once it is down too nothing beats.
[[gnu::always_inline]] inline uint64_t MustBeat(uint64_t cand, CardSet beaters_of_best,
                                                CardSet trick_set, bool imperator) {
  uint64_t winners = cand & beaters_of_best.bits();
  constexpr uint64_t kMondSkis = CardSet::Of(kMond).bits() | CardSet::Of(kSkis).bits();
  if ((trick_set.bits() & kMondSkis) == kMondSkis && imperator) {  // rare: a branch is fine
    if (trick_set.Contains(kPagat)) {
      winners = 0;  // the Pagat holds it
    } else {
      winners |= cand & CardSet::Of(kPagat).bits();  // the Pagat would take it
    }
  }
  return Select(winners != 0, winners, cand);
}

// The Pagat kept back unless it is forced (003 §4.6.3 in negative contracts;
// 000 for an announced Pagat Ultimo): `cand` without the Pagat when `guarded`
// (its lowest bit is read) and `cand` holds another card; else `cand`.
[[gnu::always_inline]] inline uint64_t KeepPagatBack(uint64_t cand, uint64_t guarded) {
  static_assert(kPagat == 0);  // the Pagat is bit 0, so a mask of one bit removes it
  const uint64_t several = (cand & (cand - 1)) != 0;
  return cand & ~(several & guarded);
}

// Writes "play c" for each card of `bits`, lowest first, into `out` (which it
// overwrites; out->size is the number of cards). Four actions a store, so that
// most lists take one or two rounds and the loop's exit is predictable; the
// array has room to spare, so up to three writes land past `size` and do not
// count. No allocation.
[[gnu::always_inline]] inline void WritePlays(uint64_t bits, ActionList* out) {
  static_assert((kNumCards + 3) / 4 * 4 <= ActionList::kCapacity);
  out->size = std::popcount(bits);
  Action* p = out->items;
  constexpr uint64_t kStop = uint64_t{1} << 63;  // keeps countr_zero defined once bits is 0
  auto next = [&bits](uint64_t stop) -> uint64_t {  // the next card, or 63 when none is left
    const unsigned c = static_cast<unsigned>(std::countr_zero(bits | stop));
    bits &= bits - 1;
    return c;
  };
  while (bits != 0) {
    if constexpr (std::endian::native == std::endian::little) {
      // The four actions packed into one store by hand: GCC would vectorise
      // four separate stores, at a higher cost.
      constexpr uint64_t kPlays = uint64_t{MakeAction(Verb::kPlay, 0)} * 0x0001000100010001;
      uint64_t four = next(0);  // bits != 0 here
      four |= next(kStop) << 16;
      four |= next(kStop) << 32;
      four |= next(kStop) << 48;
      four |= kPlays;
      std::memcpy(p, &four, sizeof four);
    } else {
      for (int i = 0; i < 4; ++i) p[i] = MakeAction(Verb::kPlay, static_cast<int>(next(kStop)));
    }
    p += 4;
  }
}

// The trick on the table, for up to kMaxSeats players. A plain value.
template <int kMaxSeats>
struct Trick {
  std::array<Card, kMaxSeats> cards{};      // in playing order; [0] kBeforeLead before the lead
  std::array<uint8_t, kMaxSeats> seats{};   // the seat that played each card
  CardSet set;                              // the cards of the trick
  // The card winning so far under the beaters table (the Pagat rule aside)
  // and its index in `cards`: (index << 8) | card, so that one select updates
  // both. kBeforeLead before the lead.
  uint16_t best = kBeforeLead;
  uint8_t len = 0;      // cards played to the trick
  uint8_t leader = 0;   // the seat that leads it

  // Clears the table for a trick that `lead_seat` leads.
  void Start(int lead_seat) {
    len = 0;
    set = CardSet();
    cards[0] = kBeforeLead;
    best = kBeforeLead;
    leader = static_cast<uint8_t>(lead_seat);
  }

  // The card led, or kBeforeLead before the lead.
  Card led() const { return cards[0]; }
  // The card winning so far (the Pagat rule aside), or kBeforeLead.
  Card best_card() const { return static_cast<Card>(best & 0xFF); }

  // Adds card `c` of `seat`. `beaters` is the game's table: the cards that take
  // the trick from each card (entry kBeforeLead holds every card, so the lead
  // always takes). Precondition: len < kMaxSeats.
  [[gnu::always_inline]] void Add(int seat, Card c, const CardSet* beaters) {
    // A select spelled out as a mask: GCC branches here even when told the
    // test is unpredictable.
    const uint32_t takes = 0u - static_cast<uint32_t>((beaters[best & 0xFF].bits() >> c) & 1);
    best = static_cast<uint16_t>((((len << 8) | c) & takes) | (best & ~takes));
    set |= CardSet::Of(c);
    cards[len] = c;
    seats[len] = static_cast<uint8_t>(seat);
    ++len;
  }

  // The index in `cards` of card `c`, or -1 when it is not in the trick.
  int IndexOf(Card c) const {
    for (int i = 0; i < len; ++i)
      if (cards[i] == c) return i;
    return -1;
  }

  // The index of the card that takes the trick: the best card under the
  // beaters table, unless the Pagat rule applies (003 §4.6.1, 000: with
  // `imperator`, the Pagat takes a trick holding the Mond and the Skis; where
  // tarocks are no trumps (`trumps` false) only a tarock trick). Precondition:
  // len > 0.
  int WinnerIndex(bool imperator = false, bool trumps = true) const {
    if (set.ContainsAll(kTrulaSet) && imperator && (trumps || IsTarock(cards[0]))) return IndexOf(kPagat);
    return best >> 8;
  }
};

// The beaters table of a game: for each card, the higher cards of its suit by
// `strength` (higher wins) and, when `trumps`, for a colour card also every
// tarock; every card for kBeforeLead.
CardTable MakeBeaters(const uint8_t (&strength)[kNumCards], bool trumps);
CardTable MakeBeaters(const std::array<uint8_t, kNumCards>& strength, bool trumps);

// The cards at the deal positions of `positions` (bit i: talon[i]).
template <size_t N>
CardSet CardsAt(const std::array<Card, N>& talon, unsigned positions) {
  CardSet out;
  for (size_t i = 0; i < N; ++i)
    if ((positions >> i) & 1) out.Add(talon[i]);
  return out;
}

// The pile of the declarer's side: the declarer's cards and, when there is a
// partner (partner >= 0), the partner's. Precondition: declarer >= 0.
template <size_t N>
CardSet SidePile(const std::array<CardSet, N>& won, int declarer, int partner) {
  CardSet pile = won[declarer];
  if (partner >= 0) pile |= won[partner];
  return pile;
}

// The tricks of the declarer's side, as SidePile.
template <size_t N>
int SideTricks(const std::array<uint8_t, N>& tricks_won, int declarer, int partner) {
  return tricks_won[declarer] + (partner >= 0 ? tricks_won[partner] : 0);
}

// Card points in thirds under one way of counting, per card: counting in
// thirds keeps a pile's count exact until the end (see RoundThirds).
class ThirdsTable {
 public:
  // The traditional count: 3v - 2 thirds for a card of value v (CardThirds), so
  // that a pile of 3k cards makes its traditional count in packs of three
  // exactly; 210 thirds in all.
  static ThirdsTable Traditional();
  // Adding the card values `value[c]` with no packs: 3 * value thirds a card.
  static ThirdsTable Plain(const std::array<int, kNumCards>& value);

  // Thirds of one card, and of a set of cards.
  int Of(Card c) const { return thirds_[c]; }
  int Of(CardSet s) const {
    int t = 0;
    for (Card c : s) t += thirds_[c];
    return t;
  }
  // Thirds of the whole pack.
  int total() const { return total_; }

 private:
  std::array<int, kNumCards> thirds_{};
  int total_ = 0;
};

}  // namespace tarock::trick

#endif  // TAROCK_REFEREE_VARIANTS_COMMON_TRICK_CORE_H_
