#include "arena/scheduler/event_design.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace tarock::arena {
namespace {

struct Spread {
  int min_count = 1 << 30, max_count = 0, min_met = 1 << 30, max_met = 0;
};

Spread Measure(const FinalDesign& d, int bots) {
  std::vector<int> count(bots, 0);
  std::map<std::pair<int, int>, int> met;
  for (const auto& g : d.groups)
    for (size_t x = 0; x < g.size(); ++x) {
      ++count[g[x]];
      for (size_t y = x + 1; y < g.size(); ++y) ++met[{g[x], g[y]}];
    }
  Spread s;
  for (int c : count) s.min_count = std::min(s.min_count, c), s.max_count = std::max(s.max_count, c);
  for (int i = 0; i < bots; ++i)
    for (int j = i + 1; j < bots; ++j) {
      const int m = met.count({i, j}) ? met[{i, j}] : 0;
      s.min_met = std::min(s.min_met, m);
      s.max_met = std::max(s.max_met, m);
    }
  return s;
}

// The example: 30 bots in slovenian-4p, a full round robin would be
// 27,405 groups; 8 appearances each are 60 tables.
TEST(FinalDesignTest, ThirtyBotsEveryBotEquallyOftenPairsBalanced) {
  std::vector<int64_t> entrants;
  for (int i = 1; i <= 30; ++i) entrants.push_back(i);
  FinalDesignOptions o;
  o.seats = 4;
  o.appearances_per_bot = 8;
  o.seed = 42;
  absl::StatusOr<FinalDesign> d = MakeFinalDesign(entrants, o);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->groups.size(), 60u);
  Spread s = Measure(*d, 30);
  EXPECT_EQ(s.min_count, 8);
  EXPECT_EQ(s.max_count, 8);
  // 60 tables x 6 pairs = 360 meetings over 435 pairs: 0 or 1 (or 2) each.
  EXPECT_LE(s.max_met, 2);
  for (const auto& g : d->groups) {
    EXPECT_EQ(g.size(), 4u);
    EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));
    EXPECT_EQ(std::adjacent_find(g.begin(), g.end()), g.end());
  }
}

TEST(FinalDesignTest, SmallFieldsMeetEveryPairAlmostEquallyOften) {
  std::vector<int64_t> entrants = {1, 2, 3, 4, 5, 6};
  FinalDesignOptions o;
  o.seats = 3;
  o.appearances_per_bot = 10;
  absl::StatusOr<FinalDesign> d = MakeFinalDesign(entrants, o);
  ASSERT_TRUE(d.ok());
  Spread s = Measure(*d, 6);
  EXPECT_EQ(s.min_count, 10);
  EXPECT_EQ(s.max_count, 10);
  // 20 tables x 3 pairs = 60 meetings over 15 pairs: 4 each in a perfect design.
  EXPECT_GE(s.min_met, 3);
  EXPECT_LE(s.max_met, 5);
}

TEST(FinalDesignTest, OneEntrantPerTableAndHouseBotsAreTheirOwn) {
  // Entrant 7 has two bots, entrant 8 two; house bots 0 may sit together.
  std::vector<int64_t> entrants = {7, 7, 8, 8, 0, 0};
  FinalDesignOptions o;
  o.seats = 4;
  o.appearances_per_bot = 6;
  absl::StatusOr<FinalDesign> d = MakeFinalDesign(entrants, o);
  ASSERT_TRUE(d.ok()) << d.status();
  for (const auto& g : d->groups) {
    int sevens = 0, eights = 0;
    for (int i : g) sevens += entrants[i] == 7, eights += entrants[i] == 8;
    EXPECT_LE(sevens, 1);
    EXPECT_LE(eights, 1);
  }
}

TEST(FinalDesignTest, TheBudgetCutsAppearancesAndTooFewEntrantsAreRefused) {
  std::vector<int64_t> entrants;
  for (int i = 1; i <= 30; ++i) entrants.push_back(i);
  FinalDesignOptions o;
  o.seats = 4;
  o.appearances_per_bot = 8;
  o.max_groups = 25;
  absl::StatusOr<FinalDesign> d = MakeFinalDesign(entrants, o);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->appearances_per_bot, 3);  // ceil(30*3/4) = 23 <= 25 < ceil(30*4/4)
  EXPECT_LE(d->groups.size(), 25u);
  o.max_groups = 5;
  EXPECT_EQ(MakeFinalDesign(entrants, o).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeFinalDesign({1, 1, 1, 2}, {4, 2, 10, 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FinalDesignTest, TheSameSeedGivesTheSameDesign) {
  std::vector<int64_t> entrants = {1, 2, 3, 4, 5, 6, 7};
  FinalDesignOptions o;
  o.seats = 4;
  o.seed = 9;
  EXPECT_EQ(MakeFinalDesign(entrants, o)->groups, MakeFinalDesign(entrants, o)->groups);
}

}  // namespace
}  // namespace tarock::arena
