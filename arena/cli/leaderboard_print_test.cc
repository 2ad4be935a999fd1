#include "arena/cli/leaderboard_print.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tarock::arena {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A margin board as the arena sends it: bots with mu and sigma, vs_next and
// the unseparated marks as Scheduler::MarginLeaderboard sets them.
v1::LeaderboardResponse Board(const std::vector<std::pair<std::string, std::pair<double, double>>>& rows) {
  v1::LeaderboardResponse board;
  board.set_variant("slovenian-4p");
  board.set_rating_model("margin");
  board.set_unit("points a deal");
  for (size_t i = 0; i < rows.size(); ++i) {
    v1::LeaderboardEntry* e = board.add_entries();
    e->set_rank(static_cast<int>(i) + 1);
    e->set_bot(rows[i].first);
    e->set_owner("tarock-arena");
    const auto [mu, sigma] = rows[i].second;
    e->mutable_margin()->set_mu(mu);
    e->mutable_margin()->set_sigma(sigma);
    e->mutable_margin()->set_low(mu - 1.96 * sigma);
    e->mutable_margin()->set_high(mu + 1.96 * sigma);
    e->mutable_margin()->set_deals(800);
    e->mutable_margin()->set_sets(100);
    if (i + 1 < rows.size()) {
      const auto [mu2, sigma2] = rows[i + 1].second;
      const double d = mu - mu2, s = std::sqrt(sigma * sigma + sigma2 * sigma2);
      e->mutable_vs_next()->set_diff(d);
      e->mutable_vs_next()->set_sigma(s);
      e->mutable_vs_next()->set_low(d - 1.96 * s);
      e->mutable_vs_next()->set_high(d + 1.96 * s);
    }
  }
  return board;
}

TEST(LeaderboardPrint, AMarginBoardShowsEachBotsDistanceToTheNext) {
  const v1::LeaderboardResponse board =
      Board({{"search", {0.9, 0.3}}, {"search-b", {0.5, 0.3}}, {"heuristic", {-0.7, 0.3}}});
  const std::string text = FormatLeaderboard(board);
  EXPECT_THAT(text, HasSubstr("vs next"));
  // search - search-b: +0.40 +- 1.96 * 0.424 = [-0.43, +1.23].
  EXPECT_THAT(text, HasSubstr("+0.40 [ -0.43,  +1.23]"));
  // search-b - heuristic: +1.20, [+0.37, +2.03].
  EXPECT_THAT(text, HasSubstr("+1.20 [ +0.37,  +2.03]"));
}

TEST(LeaderboardPrint, TheLineSaysHowFarApartTwoGroupsAreHeadToHead) {
  const v1::LeaderboardResponse board =
      Board({{"search-b", {1.0, 0.2}}, {"search", {0.6, 0.2}}, {"heuristic", {-0.4, 0.2}},
             {"heuristic-c", {-0.8, 0.2}}, {"searchlight", {-5, 0.2}}});
  absl::StatusOr<std::string> line = HeadToHeadLine(board, "search", "heuristic");
  ASSERT_TRUE(line.ok()) << line.status();
  // (1.0 + 0.6) / 2 - (-0.4 - 0.8) / 2 = 1.4; sd sqrt(4 * 0.04 / 4) = 0.2.
  EXPECT_EQ(*line,
            "search (2 bots) is 1.40 points a deal above heuristic (2 bots) head to head, 95% "
            "interval of the difference [+1.01, +1.79] (each deal's difference counted at most "
            "+-30)");
  // The other way round, and not separated.
  line = HeadToHeadLine(Board({{"heuristic", {0.1, 0.5}}, {"search", {-0.1, 0.5}}}), "search",
                        "heuristic");
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_THAT(*line, HasSubstr("search is 0.20 points a deal below heuristic head to head"));
  EXPECT_THAT(*line, HasSubstr("[-1.59, +1.19], not separated yet"));
  // Nothing to say yet: no such bot, or place ratings.
  EXPECT_FALSE(HeadToHeadLine(board, "search", "random").ok());
  v1::LeaderboardResponse place = board;
  place.set_rating_model("place");
  EXPECT_FALSE(HeadToHeadLine(place, "search", "heuristic").ok());
}

TEST(LeaderboardPrint, GroupsAreNamesAndTheirDashedCopies) {
  EXPECT_TRUE(InGroup("search", "search"));
  EXPECT_TRUE(InGroup("search-b", "search"));
  EXPECT_FALSE(InGroup("searchlight", "search"));
  EXPECT_FALSE(InGroup("my-search", "search"));
  EXPECT_FALSE(InGroup("search", ""));
  // A bot in both groups counts for the longer name.
  absl::StatusOr<std::string> line = HeadToHeadLine(
      Board({{"search-fast", {2, 0.2}}, {"search", {0, 0.2}}}), "search-fast", "search");
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_THAT(*line, HasSubstr("search-fast is 2.00 points a deal above search head"));
  EXPECT_THAT(*line, Not(HasSubstr("bots")));
}

}  // namespace
}  // namespace tarock::arena
