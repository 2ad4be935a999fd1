// Unit tests of the shared trick-play core (trick_core.h): the rules each
// family relies on, checked on hand-made tricks rather than through a game.

#include "referee/variants/common/trick_core.h"

#include <gtest/gtest.h>

namespace tarock::trick {
namespace {

constexpr Card kH1 = SuitCard(kHearts, 3);  // red pips: rank 3 is the 1, the highest pip
constexpr Card kHK = King(kHearts);
constexpr Card kHQ = SuitCard(kHearts, kQueenRank);
constexpr Card kCK = King(kClubs);
constexpr Card kC7 = SuitCard(kClubs, 0);

CardTable Beaters(bool trumps = true) {
  return MakeBeaters(RankTable::Make(/*red_pips_numeric=*/false).strength, trumps);
}

CardSet Set(std::initializer_list<Card> cards) {
  CardSet s;
  for (Card c : cards) s.Add(c);
  return s;
}

TEST(TrickCoreTest, FollowSuitElseTrumpElseAny) {
  const CardSet hand = Set({kHK, kCK, Tarock(5)});
  // The leader may play anything.
  EXPECT_EQ(CardSet(FollowOrTrump(hand.bits(), kBeforeLead)), hand);
  // Hearts led: the heart.
  EXPECT_EQ(CardSet(FollowOrTrump(hand.bits(), kHQ)), Set({kHK}));
  // Spades led, no spade: the tarock.
  EXPECT_EQ(CardSet(FollowOrTrump(hand.bits(), King(kSpades))), Set({Tarock(5)}));
  // Spades led, no spade and no tarock: any card.
  const CardSet colours = Set({kHK, kCK});
  EXPECT_EQ(CardSet(FollowOrTrump(colours.bits(), King(kSpades))), colours);
}

TEST(TrickCoreTest, BeatersAndTrickWinner) {
  const CardTable with = Beaters(true);
  EXPECT_EQ(with[kBeforeLead], kAllCards);
  EXPECT_TRUE(with[kHQ].Contains(kHK));
  EXPECT_FALSE(with[kHK].Contains(kHQ));
  EXPECT_TRUE(with[kHK].Contains(kPagat));       // a tarock trumps a colour card
  EXPECT_FALSE(with[kHK].Contains(kCK));         // another suit never beats
  EXPECT_FALSE(with[Tarock(2)].Contains(kHK));
  const CardTable without = Beaters(false);
  EXPECT_FALSE(without[kHK].Contains(kPagat));   // no trumps: only the suit

  Trick<4> t;
  t.Start(2);
  EXPECT_EQ(t.led(), kBeforeLead);
  t.Add(2, kHQ, with.data());
  t.Add(3, kHK, with.data());
  t.Add(0, kC7, with.data());
  EXPECT_EQ(t.WinnerIndex(), 1);
  EXPECT_EQ(t.best_card(), kHK);
  t.Add(1, Tarock(2), with.data());
  EXPECT_EQ(t.WinnerIndex(), 3);
  EXPECT_EQ(t.seats[t.WinnerIndex()], 1);
  EXPECT_EQ(t.led(), kHQ);
  EXPECT_EQ(t.set, Set({kHQ, kHK, kC7, Tarock(2)}));
  EXPECT_EQ(t.IndexOf(kC7), 2);
  EXPECT_EQ(t.IndexOf(kPagat), -1);
  t.Start(1);
  EXPECT_EQ(t.len, 0);
  EXPECT_EQ(t.leader, 1);
  EXPECT_TRUE(t.set.empty());
}

TEST(TrickCoreTest, PagatTakesTheMondAndTheSkis) {
  const CardTable with = Beaters(true);
  Trick<3> t;
  t.Start(0);
  t.Add(0, kSkis, with.data());
  t.Add(1, kMond, with.data());
  t.Add(2, kPagat, with.data());
  EXPECT_EQ(t.WinnerIndex(/*imperator=*/false), 0);  // the Skis, by rank
  EXPECT_EQ(t.WinnerIndex(/*imperator=*/true), 2);   // the Pagat
  // Without trumps (Colour Valat) only in a tarock trick.
  Trick<4> c;
  const CardTable without = Beaters(false);
  c.Start(0);
  c.Add(0, kHK, without.data());
  c.Add(1, kSkis, without.data());
  c.Add(2, kMond, without.data());
  c.Add(3, kPagat, without.data());
  EXPECT_EQ(c.WinnerIndex(true, /*trumps=*/false), 0);
}

TEST(TrickCoreTest, MustBeatInNegativeContracts) {
  const CardTable with = Beaters(true);
  const CardSet cand = Set({kHQ, kHK, kH1});
  // The best card is the queen: only the king beats it.
  EXPECT_EQ(CardSet(MustBeat(cand.bits(), with[kHQ], Set({kHQ}), true)), Set({kHK}));
  // Nothing beats the king: any candidate.
  EXPECT_EQ(CardSet(MustBeat(Set({kHQ, kH1}).bits(), with[kHK], Set({kHK}), true)), Set({kHQ, kH1}));
  // The Mond and the Skis are down: the Pagat is the card that takes it.
  const CardSet tarocks = Set({kPagat, Tarock(5)});
  EXPECT_EQ(CardSet(MustBeat(tarocks.bits(), with[kSkis], Set({kSkis, kMond}), true)), Set({kPagat}));
  EXPECT_EQ(CardSet(MustBeat(tarocks.bits(), with[kSkis], Set({kSkis, kMond}), false)), tarocks);
  // All three are down: nothing beats.
  EXPECT_EQ(CardSet(MustBeat(Set({Tarock(5), Tarock(6)}).bits(), with[kSkis],
                             Set({kSkis, kMond, kPagat}), true)),
            Set({Tarock(5), Tarock(6)}));
}

TEST(TrickCoreTest, PagatKeptBackUnlessForced) {
  const CardSet two = Set({kPagat, Tarock(5)});
  EXPECT_EQ(CardSet(KeepPagatBack(two.bits(), 1)), Set({Tarock(5)}));
  EXPECT_EQ(CardSet(KeepPagatBack(two.bits(), 0)), two);
  EXPECT_EQ(CardSet(KeepPagatBack(Set({kPagat}).bits(), 1)), Set({kPagat}));
  EXPECT_EQ(CardSet(KeepPagatBack(two.bits(), 2)), two);  // only the lowest bit counts
}

TEST(TrickCoreTest, WritePlaysListsEveryCardInOrder) {
  for (const CardSet s : {CardSet(), Set({kPagat}), Set({kPagat, kHK, kCK, kC7, kSkis}), kAllCards}) {
    ActionList out;
    WritePlays(s.bits(), &out);
    ASSERT_EQ(out.size, s.size());
    int i = 0;
    for (Card c : s) EXPECT_EQ(out.items[i++], MakeAction(Verb::kPlay, c));
  }
}

TEST(TrickCoreTest, TalonPilesAndThirds) {
  const std::array<Card, 6> talon = {kHK, kHQ, kPagat, kCK, kC7, kSkis};
  EXPECT_EQ(CardsAt(talon, 0b000111), Set({kHK, kHQ, kPagat}));
  EXPECT_EQ(CardsAt(talon, 0b001001), Set({kHK, kCK}));
  EXPECT_TRUE(CardsAt(talon, 0).empty());

  const std::array<CardSet, 4> won = {Set({kHK}), Set({kCK}), Set({kPagat}), CardSet()};
  EXPECT_EQ(SidePile(won, 0, -1), Set({kHK}));
  EXPECT_EQ(SidePile(won, 0, 2), Set({kHK, kPagat}));
  const std::array<uint8_t, 4> tricks = {3, 1, 2, 0};
  EXPECT_EQ(SideTricks(tricks, 0, -1), 3);
  EXPECT_EQ(SideTricks(tricks, 0, 2), 5);

  const ThirdsTable traditional = ThirdsTable::Traditional();
  EXPECT_EQ(traditional.total(), 210);  // 70 points
  EXPECT_EQ(traditional.Of(kHK), 13);   // 3 * 5 - 2
  EXPECT_EQ(traditional.Of(kC7), 1);
  EXPECT_EQ(traditional.Of(Set({kHK, kC7, kHQ})), SetThirds(Set({kHK, kC7, kHQ})));
  std::array<int, kNumCards> values{};
  values[kHK] = 5;
  const ThirdsTable plain = ThirdsTable::Plain(values);
  EXPECT_EQ(plain.total(), 15);
  EXPECT_EQ(plain.Of(Set({kHK, kC7})), 15);
}

}  // namespace
}  // namespace tarock::trick
