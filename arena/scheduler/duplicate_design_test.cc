#include "arena/scheduler/duplicate_design.h"
#include "arena/scheduler/dial_in.h"

#include <algorithm>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace tarock::arena {
namespace {

TEST(DuplicateDesign, RotatedEveryBotHoldsEveryHandAndMeetsTheSameField) {
  for (int n = 2; n <= 5; ++n) {
    absl::StatusOr<DuplicateDesign> d = RotatedDesign(n, n);
    ASSERT_TRUE(d.ok()) << n;
    ASSERT_EQ(static_cast<int>(d->tables.size()), n);
    for (const std::vector<int>& table : d->tables) {
      // Each table seats every bot once.
      std::set<int> bots(table.begin(), table.end());
      EXPECT_EQ(static_cast<int>(bots.size()), n);
      EXPECT_EQ(*bots.begin(), 0);
      EXPECT_EQ(*bots.rbegin(), n - 1);
    }
    // Every seat's cards are held by every bot once over the tables.
    for (int s = 0; s < n; ++s) {
      std::set<int> holders;
      for (const std::vector<int>& table : d->tables) holders.insert(table[s]);
      EXPECT_EQ(static_cast<int>(holders.size()), n) << "n " << n << " seat " << s;
    }
  }
}

TEST(DuplicateDesign, BridgeNoBotPlaysADealTwiceAndEverySeatIsCompared) {
  for (int n = 2; n <= 5; ++n) {
    for (int k = 2; k <= 4; ++k) {
      for (uint64_t shuffle : {uint64_t{0}, uint64_t{12345}}) {
        absl::StatusOr<DuplicateDesign> d = BridgeDesign(k * n, n, shuffle);
        ASSERT_TRUE(d.ok()) << n << " " << k;
        ASSERT_EQ(static_cast<int>(d->tables.size()), k);
        // Each bot sits exactly once in the whole set: it sees each deal once.
        std::vector<int> seen(k * n, 0);
        for (const std::vector<int>& table : d->tables) {
          ASSERT_EQ(static_cast<int>(table.size()), n);
          for (int b : table) {
            ASSERT_GE(b, 0);
            ASSERT_LT(b, k * n);
            ++seen[b];
          }
        }
        for (int b = 0; b < k * n; ++b) EXPECT_EQ(seen[b], 1) << "bot " << b;
        // Every seat's cards are held by k different bots: a comparison group
        // of bots neighbouring in strength (indices g*k .. g*k+k-1).
        for (int s = 0; s < n; ++s) {
          std::vector<int> holders;
          for (const std::vector<int>& table : d->tables) holders.push_back(table[s]);
          std::sort(holders.begin(), holders.end());
          EXPECT_EQ(holders.back() - holders.front(), k - 1) << n << " " << k << " seat " << s;
          EXPECT_EQ(holders.front() % k, 0);
        }
        // Snake order: the tables' strengths (sums of indices) balance.
        std::vector<int> sums;
        for (const std::vector<int>& table : d->tables) {
          int sum = 0;
          for (int b : table) sum += b;
          sums.push_back(sum);
        }
        EXPECT_LE(*std::max_element(sums.begin(), sums.end()) -
                      *std::min_element(sums.begin(), sums.end()),
                  k - 1)
            << n << " " << k;
      }
    }
  }
}

TEST(DuplicateDesign, BridgeSeatShuffleIsTheSameAtEveryTable) {
  absl::StatusOr<DuplicateDesign> plain = BridgeDesign(8, 4, 0);
  absl::StatusOr<DuplicateDesign> shuffled = BridgeDesign(8, 4, 99);
  absl::StatusOr<DuplicateDesign> again = BridgeDesign(8, 4, 99);
  ASSERT_TRUE(plain.ok() && shuffled.ok() && again.ok());
  EXPECT_EQ(shuffled->tables, again->tables);  // a pure function of its seed
  // The same groups share a seat, wherever the shuffle put it.
  for (int s = 0; s < 4; ++s) {
    const int group = shuffled->tables[0][s] / 2;
    EXPECT_EQ(shuffled->tables[1][s] / 2, group);
  }
}

TEST(DuplicateDesign, WrongSizesAreRefusedWithWhatTheyNeed) {
  EXPECT_FALSE(RotatedDesign(3, 4).ok());
  EXPECT_FALSE(RotatedDesign(1, 1).ok());
  absl::StatusOr<DuplicateDesign> d = BridgeDesign(4, 4);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(),
            "a bridge set of 4 seats needs a multiple of 4 bots, at least 8, got 4");
  EXPECT_FALSE(BridgeDesign(9, 4).ok());
  EXPECT_FALSE(BridgeDesign(2, 1).ok());
  EXPECT_EQ(BotsPerSet(SetDesign::kBridge, 3), 6);
  EXPECT_EQ(BotsPerSet(SetDesign::kRotated, 3), 3);
}

TEST(DuplicateDesign, LadderFormatNames) {
  for (LadderFormat f : {LadderFormat::kMatch, LadderFormat::kDuplicate}) {
    absl::StatusOr<LadderFormat> back = ParseLadderFormat(LadderFormatName(f));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, f);
  }
  absl::StatusOr<LadderFormat> bad = ParseLadderFormat("swiss");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "unknown ladder format 'swiss' (valid: match, duplicate)");
  EXPECT_EQ(SetDesignName(SetDesign::kRotated), "rotated");
  EXPECT_EQ(SetDesignName(SetDesign::kBridge), "bridge");
}

TEST(DuplicateDesign, SetFromStoredTables) {
  // Two tables of 3 seats, 3 hands; table 1 stopped after 2 hands; seat 0
  // sits hand 1 out.
  const std::vector<std::vector<int64_t>> bots = {{7, 8, 9}, {8, 9, 7}};
  const std::vector<std::vector<std::vector<int>>> scores = {
      {{10, 0, 5}, {-10, 3, 0}, {0, -3, -5}}, {{1, 2}, {3, 4}, {5, 6}}};
  absl::StatusOr<DuplicateSet> set =
      SetFromTables(bots, scores, 3, [](int hand, int seat) { return hand == 1 && seat == 0; });
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->tables.size(), 2u);
  EXPECT_EQ(set->tables[1].bots, bots[1]);
  ASSERT_EQ(set->tables[0].scores.size(), 3u);
  EXPECT_EQ(set->tables[0].scores[0][0], 10.0);
  EXPECT_EQ(set->tables[0].scores[0][1], -10.0);
  EXPECT_FALSE(set->tables[0].scores[1][0].has_value());  // sat out
  EXPECT_EQ(set->tables[0].scores[1][1], 3.0);
  EXPECT_FALSE(set->tables[1].scores[2][1].has_value());  // not reached
  EXPECT_EQ(set->tables[1].scores[1][2], 6.0);
  EXPECT_FALSE(SetFromTables({{1, 2}}, {{{1}}}, 1, [](int, int) { return false; }).ok());
  EXPECT_FALSE(SetFromTables({}, {}, 1, [](int, int) { return false; }).ok());
}

// Issue 44: a rotated set seats a bot at every table, so its tables must run
// on machines of their own: with one host a bot (today's hosting) or a bot
// not hosted, bridge; with as many hosts as tables and every bot hosted,
// rotated.
TEST(DuplicateDesign, RotatedOnlyWhenEveryBotsTablesRunOnMachinesOfTheirOwn) {
  EXPECT_EQ(ChooseSetDesign(true, 1, 3), SetDesign::kBridge);
  EXPECT_EQ(ChooseSetDesign(true, 2, 3), SetDesign::kBridge);
  EXPECT_EQ(ChooseSetDesign(false, 4, 3), SetDesign::kBridge);
  EXPECT_EQ(ChooseSetDesign(true, 3, 3), SetDesign::kRotated);
  EXPECT_EQ(ChooseSetDesign(true, kHostsPerHostedBot, 4), SetDesign::kBridge);
}

// Issue 44 (review of 2026-11-29): a tournament's group with a hosted bot
// never plays one deal in every seating; it is bridged with a group that
// shares no bot, else dealt fresh; groups of bots that are not hosted rotate.
TEST(DuplicateDesign, TournamentGroupsWithAHostedBotNeverRotateOnOneHost) {
  // Bots 0 and 1 hosted, 2..5 not: every 3-group of six, in order.
  const std::vector<bool> hosted = {true, true, false, false, false, false};
  std::vector<std::vector<int>> groups;
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b)
      for (int c = b + 1; c < 6; ++c) groups.push_back({a, b, c});
  const TournamentDealPlan plan = PlanTournamentDeals(groups, hosted, 3, kHostsPerHostedBot);
  ASSERT_EQ(plan.deals.size(), groups.size());
  int rotated = 0, bridged = 0, fresh = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const bool with_hosted = groups[g][0] <= 1;  // sorted: bot 0 or 1 comes first
    switch (plan.deals[g]) {
      case GroupDeals::kRotated:
        ++rotated;
        EXPECT_FALSE(with_hosted) << g;
        EXPECT_EQ(plan.partner[g], -1);
        break;
      case GroupDeals::kBridged: {
        ++bridged;
        ASSERT_GE(plan.partner[g], 0);
        const std::vector<int>& other = groups[plan.partner[g]];
        EXPECT_EQ(plan.partner[plan.partner[g]], static_cast<int>(g));
        for (int x : groups[g]) EXPECT_EQ(std::count(other.begin(), other.end(), x), 0) << g;
        break;
      }
      case GroupDeals::kFresh:
        ++fresh;
        EXPECT_TRUE(with_hosted) << g;
        break;
    }
  }
  EXPECT_EQ(rotated, 4);   // the groups of 2..5
  EXPECT_EQ(bridged, 12);  // one hosted bot each: {0,x,y} with {1,z,w}
  EXPECT_EQ(fresh, 4);     // {0,1,x}: every partner would share 0, 1 or x
  // A gauntlet whose challenger is hosted: every group holds it, none pairs.
  const TournamentDealPlan gauntlet =
      PlanTournamentDeals({{0, 2, 3}, {0, 2, 4}, {0, 4, 5}}, hosted, 3, kHostsPerHostedBot);
  for (GroupDeals d : gauntlet.deals) EXPECT_EQ(d, GroupDeals::kFresh);
  // Hosted bots whose tables could run on a machine each would rotate.
  for (GroupDeals d : PlanTournamentDeals(groups, hosted, 3, 3).deals) EXPECT_EQ(d, GroupDeals::kRotated);
}

}  // namespace
}  // namespace tarock::arena
