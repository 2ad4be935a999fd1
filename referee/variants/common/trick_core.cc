#include "referee/variants/common/trick_core.h"

namespace tarock::trick {
namespace {

CardTable BeatersFrom(const uint8_t* strength, bool trumps) {
  CardTable t{};
  for (int c = 0; c < kNumCards; ++c) {
    const Card card = static_cast<Card>(c);
    CardSet higher;
    for (Card o : SuitSet(SuitOf(card)))
      if (strength[o] > strength[c]) higher.Add(o);
    t[c] = trumps && !IsTarock(card) ? higher | kTarockSet : higher;
  }
  t[kBeforeLead] = kAllCards;
  return t;
}

}  // namespace

CardTable MakeBeaters(const uint8_t (&strength)[kNumCards], bool trumps) {
  return BeatersFrom(strength, trumps);
}

CardTable MakeBeaters(const std::array<uint8_t, kNumCards>& strength, bool trumps) {
  return BeatersFrom(strength.data(), trumps);
}

ThirdsTable ThirdsTable::Traditional() {
  ThirdsTable t;
  for (int c = 0; c < kNumCards; ++c) {
    t.thirds_[c] = CardThirds(static_cast<Card>(c));
    t.total_ += t.thirds_[c];
  }
  return t;
}

ThirdsTable ThirdsTable::Plain(const std::array<int, kNumCards>& value) {
  ThirdsTable t;
  for (int c = 0; c < kNumCards; ++c) {
    t.thirds_[c] = 3 * value[c];
    t.total_ += t.thirds_[c];
  }
  return t;
}

}  // namespace tarock::trick
