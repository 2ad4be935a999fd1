#include "referee/engine/card.h"

#include <gtest/gtest.h>

#include "referee/engine/random.h"

namespace tarock {
namespace {

TEST(CardTest, NamesRoundTripForAll54Cards) {
  CardSet seen;
  for (int i = 0; i < kNumCards; ++i) {
    const Card c = static_cast<Card>(i);
    absl::StatusOr<Card> back = ParseCard(CardName(c));
    ASSERT_TRUE(back.ok()) << CardName(c);
    EXPECT_EQ(*back, c);
    seen.Add(c);
  }
  EXPECT_EQ(seen, kAllCards);
}

TEST(CardTest, FixedNotation) {
  EXPECT_EQ(CardName(kPagat), "T1");
  EXPECT_EQ(CardName(kMond), "T21");
  EXPECT_EQ(CardName(kSkis), "T22");
  EXPECT_EQ(CardName(King(kSpades)), "SK");
  EXPECT_EQ(CardName(SuitCard(kClubs, 3)), "C10");
  EXPECT_EQ(CardName(SuitCard(kHearts, 3)), "H1");
  EXPECT_EQ(CardName(SuitCard(kDiamonds, 0)), "D4");
  EXPECT_EQ(CardName(SuitCard(kDiamonds, kKnightRank)), "DN");
}

TEST(CardTest, RejectsUnknownCards) {
  for (const char* bad : {"", "T", "T0", "T23", "T01", "H7", "C1", "S4", "X1", "HK ", "hk", "C100"}) {
    absl::StatusOr<Card> c = ParseCard(bad);
    EXPECT_FALSE(c.ok()) << bad;
  }
  EXPECT_EQ(ParseCard("C11").status().message(), "unknown card 'C11'");
}

TEST(CardTest, PointsInThirdsMakeSeventy) {
  EXPECT_EQ(SetThirds(kAllCards), 210);
  EXPECT_EQ(CardThirds(King(kHearts)), 13);   // 4 2/3
  EXPECT_EQ(CardThirds(kSkis), 13);
  EXPECT_EQ(CardThirds(SuitCard(kClubs, kQueenRank)), 10);
  EXPECT_EQ(CardThirds(SuitCard(kClubs, kKnightRank)), 7);
  EXPECT_EQ(CardThirds(SuitCard(kClubs, kJackRank)), 4);
  EXPECT_EQ(CardThirds(Tarock(5)), 1);
  // Traditional counting: 1/3 rounds down, 2/3 rounds up.
  EXPECT_EQ(RoundThirds(106), 35);
  EXPECT_EQ(RoundThirds(107), 36);
  EXPECT_EQ(RoundThirds(105), 35);
  EXPECT_EQ(RoundThirds(0), 0);
  // Three cards K, Q, pip: 5 + 4 + 1 - 2 = 8 points.
  CardSet three = CardSet::Of(King(kHearts)) | CardSet::Of(SuitCard(kHearts, kQueenRank)) |
                  CardSet::Of(SuitCard(kHearts, 0));
  EXPECT_EQ(SetThirds(three), 24);
}

TEST(CardTest, RedPipOrder) {
  const RankTable trad = RankTable::Make(false);
  const RankTable numeric = RankTable::Make(true);
  const Card h1 = *ParseCard("H1"), h4 = *ParseCard("H4"), hj = *ParseCard("HJ");
  const Card c10 = *ParseCard("C10"), c7 = *ParseCard("C7");
  EXPECT_GT(trad.strength[h1], trad.strength[h4]);
  EXPECT_LT(numeric.strength[h1], numeric.strength[h4]);
  EXPECT_GT(numeric.strength[hj], numeric.strength[h4]);
  EXPECT_GT(trad.strength[c10], trad.strength[c7]);
  EXPECT_GT(numeric.strength[c10], numeric.strength[c7]);
}

TEST(CardTest, SetOperations) {
  CardSet s = kKingSet | kTrulaSet;
  EXPECT_EQ(s.size(), 7);
  EXPECT_TRUE(s.Contains(kSkis));
  s.Remove(kSkis);
  EXPECT_FALSE(s.Contains(kSkis));
  EXPECT_EQ(s.First(), kPagat);
  EXPECT_EQ(s.Last(), King(kSpades));
  int n = 0;
  for (Card c : s) n += c >= 0;
  EXPECT_EQ(n, 6);
  EXPECT_EQ((SuitSet(kHearts) & SuitSet(kSpades)).size(), 0);
  EXPECT_EQ(SuitSet(kTarocks).size(), 22);
}

// The generator and shuffle are part of the record format: these values must
// never change, on any machine or compiler.
TEST(RandomTest, GoldenValues) {
  Rng rng(42);
  EXPECT_EQ(rng.Next(), 0x15780b2e0c2ec716ULL);
  uint64_t sm = 0;
  EXPECT_EQ(SplitMix64(sm), 0xE220A8397B1DCDAFULL);
  Rng r2(7);
  int deck[10];
  for (int i = 0; i < 10; ++i) deck[i] = i;
  r2.Shuffle(deck, 10);
  std::string order;
  for (int v : deck) order += std::to_string(v);
  EXPECT_EQ(order, "4103659827");
}

TEST(RandomTest, BelowIsInRangeAndCoversIt) {
  Rng rng(1);
  int counts[7] = {};
  for (int i = 0; i < 70000; ++i) {
    uint32_t v = rng.Below(7);
    ASSERT_LT(v, 7u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
}

}  // namespace
}  // namespace tarock
