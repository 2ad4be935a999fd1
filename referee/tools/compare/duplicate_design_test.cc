// The duplicate design of `tarock compare`: the seatings, and match records
// turned into per-deal differences (sitting out, deals dealt again, missing
// hands).

#include "referee/tools/compare/duplicate_design.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tarock {
namespace {

std::vector<std::string> Names(const std::vector<Seating>& seatings) {
  std::vector<std::string> out;
  for (const Seating& s : seatings) out.push_back(SeatingName(s));
  return out;
}

TEST(DuplicateDesignTest, HeadToHeadSeatings) {
  EXPECT_EQ(Names(HeadToHeadSeatings(4)), (std::vector<std::string>{"CBCB", "BCBC"}));
  EXPECT_EQ(Names(HeadToHeadSeatings(3)),
            (std::vector<std::string>{"CBC", "BCC", "CCB", "BCB", "CBB", "BBC"}));
  EXPECT_EQ(HeadToHeadSeatings(5).size(), 10u);
  // Every seat is held by the candidate and by the baseline equally often.
  for (int n : {3, 4, 5}) {
    std::vector<Seating> s = HeadToHeadSeatings(n);
    for (int seat = 0; seat < n; ++seat) {
      int c = 0;
      for (const Seating& x : s) c += x[seat] == kCandidate;
      EXPECT_EQ(2 * c, static_cast<int>(s.size())) << n << " seats, seat " << seat;
    }
  }
}

TEST(DuplicateDesignTest, OpponentSeatings) {
  EXPECT_EQ(Names(OpponentSeatings(4, 3)),
            (std::vector<std::string>{"C012", "B012", "2C01", "2B01", "12C0", "12B0", "012C",
                                      "012B"}));
  EXPECT_EQ(Names(OpponentSeatings(3, 1)),
            (std::vector<std::string>{"C00", "B00", "0C0", "0B0", "00C", "00B"}));
}

TEST(DuplicateDesignTest, HandsOfRecordSkipsDealsDealtAgainAndSeesWhoSitsOut) {
  const std::string record = R"({"deals": [
    {"hand_index": 0, "dealer": 0, "hands": [[], ["T1"], ["T2"], ["T3"], ["T4"]], "scores": [0, 10, -10, 0, 0]},
    {"hand_index": 1, "dealer": 1, "redeal": true, "hands": [["T1"], [], ["T2"], ["T3"], ["T4"]], "scores": [0, 0, 0, 0, 0]},
    {"hand_index": 1, "dealer": 1, "hands": [["T1"], [], ["T2"], ["T3"], ["T4"]], "scores": [5, 0, 5, -5, -5]},
    {"hand_index": 2, "dealer": 2, "redeal": true, "counts_as_hand": true, "hands": [["T1"], ["T5"], [], ["T3"], ["T4"]], "scores": [0, 0, 0, 0, 0]}
  ]})";
  absl::StatusOr<std::vector<PlayedHand>> hands = HandsOfRecord(record);
  ASSERT_TRUE(hands.ok()) << hands.status();
  ASSERT_EQ(hands->size(), 3u);
  EXPECT_EQ((*hands)[0].sits_out, (std::vector<bool>{true, false, false, false, false}));
  EXPECT_EQ((*hands)[1].hand_index, 1);
  EXPECT_EQ((*hands)[1].scores[0], 5);
  EXPECT_EQ((*hands)[2].hand_index, 2);  // thrown in: one of the match's hands
  EXPECT_FALSE(HandsOfRecord("{}").ok());
}

TEST(DuplicateDesignTest, BlockDifferences) {
  // Two seatings of 4 seats (CBCB, BCBC), two hands each.
  std::vector<Seating> seatings = HeadToHeadSeatings(4);
  auto hand = [](int index, std::vector<int64_t> scores) {
    return PlayedHand{index, scores, std::vector<bool>(scores.size(), false)};
  };
  std::vector<std::vector<PlayedHand>> played = {
      {hand(0, {10, 0, 10, 0}), hand(1, {0, 0, 0, -20})},
      {hand(0, {0, 10, 0, 10}), hand(1, {-20, 0, 0, 0})}};
  // Hand 0: C seats score 10 everywhere, B 0: +10. Hand 1: C mean (0+0+0+0)/4,
  // B mean (0 - 20 - 20 + 0)/4 = -10: +10.
  EXPECT_EQ(BlockDifferences(seatings, played, 2), (std::vector<double>{10, 10}));
  // A hand missing from one seating is left out.
  played[1].pop_back();
  EXPECT_EQ(BlockDifferences(seatings, played, 2), (std::vector<double>{10}));
  // A seat that sits out is not counted.
  std::vector<std::vector<PlayedHand>> five = {{hand(0, {0, 0, 0, 0, 0})}};
  five[0][0].scores = {100, 3, 1, 3, 1};
  five[0][0].sits_out[0] = true;
  std::vector<Seating> one = {{kCandidate, kCandidate, kBaseline, kCandidate, kBaseline}};
  EXPECT_EQ(BlockDifferences(one, five, 1), (std::vector<double>{2}));
}

}  // namespace
}  // namespace tarock
