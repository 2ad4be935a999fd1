// Cards of the 54-card Tarock pack, card sets as 64-bit masks, and the fixed
// text notation that every tool of the project shares.
//
// Notation (fixed; records, bots and tools depend on it):
//   tarocks  T1..T22   (T1 the Pagat, T21 the Mond, T22 the Skis)
//   suits    H hearts, D diamonds (red); C clubs, S spades (black)
//   ranks    K Q N J, red pips 1 2 3 4, black pips 7 8 9 10; suit first: HK, C10.
//
// Card indices: T1..T22 are 0..21; suit s (H=0, D=1, C=2, S=3) holds indices
// 22 + 8*s + r, with r ascending in *traditional* strength within the suit:
// red 4,3,2,1,J,N,Q,K and black 7,8,9,10,J,N,Q,K. A variant that ranks red pips
// differently supplies its own strength table (see RankTable).
//
// Thread-safety: everything here is immutable data and pure functions.

#ifndef TAROCK_REFEREE_ENGINE_CARD_H_
#define TAROCK_REFEREE_ENGINE_CARD_H_

#include <bit>
#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace tarock {

using Card = uint8_t;
inline constexpr int kNumCards = 54;
inline constexpr Card kNoCard = 0xFF;

enum Suit : uint8_t { kHearts = 0, kDiamonds = 1, kClubs = 2, kSpades = 3, kTarocks = 4 };
inline constexpr int kNumSuits = 5;  // four colour suits plus the tarocks

inline constexpr Card Tarock(int n) { return static_cast<Card>(n - 1); }  // n in 1..22
inline constexpr Card SuitCard(Suit s, int r) { return static_cast<Card>(22 + 8 * s + r); }
inline constexpr Card kPagat = Tarock(1);
inline constexpr Card kMond = Tarock(21);
inline constexpr Card kSkis = Tarock(22);
inline constexpr int kKingRank = 7;
inline constexpr int kQueenRank = 6;
inline constexpr int kKnightRank = 5;
inline constexpr int kJackRank = 4;
inline constexpr Card King(Suit s) { return SuitCard(s, kKingRank); }

inline constexpr bool IsTarock(Card c) { return c < 22; }
inline constexpr Suit SuitOf(Card c) {
  return c < 22 ? kTarocks : static_cast<Suit>((c - 22) >> 3);
}
// Rank within the suit, 0..7 (colour suits) or 0..21 (tarocks).
inline constexpr int RankOf(Card c) { return c < 22 ? c : (c - 22) & 7; }

// A set of cards as a 64-bit mask; bit i is card i. Cheap to copy.
class CardSet {
 public:
  constexpr CardSet() = default;
  constexpr explicit CardSet(uint64_t bits) : bits_(bits) {}
  static constexpr CardSet Of(Card c) { return CardSet(uint64_t{1} << c); }

  constexpr uint64_t bits() const { return bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr int size() const { return std::popcount(bits_); }
  constexpr bool Contains(Card c) const { return (bits_ >> c) & 1; }
  constexpr void Add(Card c) { bits_ |= uint64_t{1} << c; }
  constexpr void Remove(Card c) { bits_ &= ~(uint64_t{1} << c); }
  // Lowest-index card; the set must not be empty.
  constexpr Card First() const { return static_cast<Card>(std::countr_zero(bits_)); }
  // Highest-index card; the set must not be empty.
  constexpr Card Last() const { return static_cast<Card>(63 - std::countl_zero(bits_)); }

  constexpr CardSet operator|(CardSet o) const { return CardSet(bits_ | o.bits_); }
  constexpr CardSet operator&(CardSet o) const { return CardSet(bits_ & o.bits_); }
  constexpr CardSet operator-(CardSet o) const { return CardSet(bits_ & ~o.bits_); }
  constexpr CardSet& operator|=(CardSet o) { bits_ |= o.bits_; return *this; }
  constexpr CardSet& operator&=(CardSet o) { bits_ &= o.bits_; return *this; }
  constexpr CardSet& operator-=(CardSet o) { bits_ &= ~o.bits_; return *this; }
  constexpr bool operator==(const CardSet&) const = default;
  constexpr bool ContainsAll(CardSet o) const { return (bits_ & o.bits_) == o.bits_; }

  // Iterates the cards in index order: for (Card c : set) ...
  class Iterator {
   public:
    constexpr explicit Iterator(uint64_t b) : b_(b) {}
    constexpr Card operator*() const { return static_cast<Card>(std::countr_zero(b_)); }
    constexpr Iterator& operator++() { b_ &= b_ - 1; return *this; }
    constexpr bool operator!=(const Iterator& o) const { return b_ != o.b_; }
   private:
    uint64_t b_;
  };
  constexpr Iterator begin() const { return Iterator(bits_); }
  constexpr Iterator end() const { return Iterator(0); }

 private:
  uint64_t bits_ = 0;
};

inline constexpr CardSet kAllCards{(uint64_t{1} << kNumCards) - 1};
inline constexpr CardSet kTarockSet{(uint64_t{1} << 22) - 1};
inline constexpr CardSet SuitSet(Suit s) {
  return s == kTarocks ? kTarockSet : CardSet(uint64_t{0xFF} << (22 + 8 * s));
}
inline constexpr CardSet kKingSet = CardSet::Of(King(kHearts)) | CardSet::Of(King(kDiamonds)) |
                                    CardSet::Of(King(kClubs)) | CardSet::Of(King(kSpades));
inline constexpr CardSet kTrulaSet =
    CardSet::Of(kPagat) | CardSet::Of(kMond) | CardSet::Of(kSkis);

// Card points in thirds: a card of traditional value v counts 3v - 2 thirds, so
// the 54 cards make 210 thirds = 70 points and no rounding happens until the end.
// Values: king 5, Skis/Mond/Pagat 5, queen 4, knight 3, jack 2, any other 1.
int CardValue(Card c);  // the traditional value v
inline int CardThirds(Card c) { return 3 * CardValue(c) - 2; }
int SetThirds(CardSet s);
// Rounds thirds to whole points the traditional way: 1/3 down, 2/3 up.
inline constexpr int RoundThirds(int thirds) {
  return thirds >= 0 ? (thirds + 1) / 3 : -((-thirds + 1) / 3);
}

// "T22", "HK", "C10", ...
std::string CardName(Card c);
// Parses the notation above; errors name the offending text.
absl::StatusOr<Card> ParseCard(absl::string_view text);
// Every card named anywhere in a text (e.g. an observation's JSON): each maximal
// run of letters and digits that parses as a card. Tests use it to check that an
// observation names no hidden card.
CardSet CardsNamedIn(absl::string_view text);
// "H" / "D" / "C" / "S"; ParseSuit accepts exactly those.
std::string SuitName(Suit s);
absl::StatusOr<Suit> ParseSuit(absl::string_view text);

// Strength of each card for trick taking, higher wins (only compared within
// a suit, or tarock against anything when tarocks are trumps).
struct RankTable {
  uint8_t strength[kNumCards];
  // Traditional: red pips 1 highest (1 > 2 > 3 > 4); numeric: 4 > 3 > 2 > 1.
  static RankTable Make(bool red_pips_numeric);
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_CARD_H_
