#include "arena/rating/margin_rating.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tarock::arena {
namespace {

// A rotated set of `bots.size()` tables (table t seat s: bot (s + t) mod n)
// over `deals` deals: seat s's score on deal d is board[d][s] + skill of the
// holder + noise.
DuplicateSet RotatedSet(const std::vector<int64_t>& bots, const std::map<int64_t, double>& skill,
                        int deals, double board_sd, double noise_sd, std::mt19937_64& rng) {
  const size_t n = bots.size();
  std::normal_distribution<double> board(0, board_sd), noise(0, noise_sd);
  std::vector<std::vector<double>> cards(deals, std::vector<double>(n));
  for (auto& row : cards)
    for (double& x : row) x = board(rng);
  DuplicateSet set;
  for (size_t t = 0; t < n; ++t) {
    DuplicateTable table;
    for (size_t s = 0; s < n; ++s) table.bots.push_back(bots[(s + t) % n]);
    for (int d = 0; d < deals; ++d) {
      std::vector<std::optional<double>> row;
      for (size_t s = 0; s < n; ++s)
        row.push_back(std::round(cards[d][s] + skill.at(table.bots[s]) + noise(rng)));
      table.scores.push_back(row);
    }
    set.tables.push_back(table);
  }
  return set;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(MarginRating, RecoversKnownMarginsWithHonestIntervals) {
  // Skills relative to the field mean (0): the model's mu should find them.
  const std::map<int64_t, double> skill = {{1, 6}, {2, 2}, {3, 0}, {4, -8}};
  const std::vector<int64_t> bots = {1, 2, 3, 4};
  MarginRatingOptions options;
  options.clip = INFINITY;  // the plain Gaussian model: mu is the mean margin
  MarginRatingModel model(options);
  std::mt19937_64 rng(7);
  std::map<int64_t, MarginRating> ratings;
  MarginNoise noise;
  for (int i = 0; i < 150; ++i) {
    absl::StatusOr<MarginSetUpdate> u =
        model.Update(RotatedSet(bots, skill, 8, 40, 15, rng), ratings, noise);
    ASSERT_TRUE(u.ok()) << u.status();
    ratings = u->ratings;
    noise = u->noise;
  }
  // The noise estimate finds the true sd of a board residual: per-seat noise
  // 15, against the mean of 3 rivals: 15 * sqrt(1 + 1/3) = 17.3.
  EXPECT_NEAR(model.NoiseSd(noise), 17.3, 1.0);
  for (const auto& [bot, s] : skill) {
    const MarginRating& r = ratings.at(bot);
    EXPECT_LE(model.Low(r), s) << bot;
    EXPECT_GE(model.High(r), s) << bot;
    EXPECT_LT(r.sigma, 1.0) << bot;
    EXPECT_EQ(r.deals, 150 * 8) << bot;
  }
  EXPECT_GT(ratings[1].mu, ratings[2].mu);
  EXPECT_GT(ratings[2].mu, ratings[3].mu);
  EXPECT_GT(ratings[3].mu, ratings[4].mu);
  // 1 vs 2 (4 points apart) and 3 vs 4 (8 apart) are separated by now.
  EXPECT_TRUE(model.Separated(ratings[1], ratings[2]));
  EXPECT_TRUE(model.Separated(ratings[3], ratings[4]));
}

TEST(MarginRating, ChipsAreRatedInChips) {
  // A variant scored in chips: noise 2, skills 1 apart. The pooled noise
  // estimate adapts, so the intervals are in chips and still cover.
  const std::map<int64_t, double> skill = {{1, 1}, {2, 0}, {3, -1}};
  MarginRatingModel model;
  std::mt19937_64 rng(3);
  std::map<int64_t, MarginRating> ratings;
  MarginNoise noise;
  for (int i = 0; i < 100; ++i) {
    DuplicateSet set = RotatedSet({1, 2, 3}, skill, 6, 5, 2, rng);
    for (DuplicateTable& t : set.tables)  // unrounded: chips are small
      for (auto& row : t.scores)
        for (auto& y : row) y = *y;
    absl::StatusOr<MarginSetUpdate> u = model.Update(set, ratings, noise);
    ASSERT_TRUE(u.ok());
    ratings = u->ratings;
    noise = u->noise;
  }
  EXPECT_LT(model.NoiseSd(noise), 3);
  for (const auto& [bot, s] : skill) {
    EXPECT_LE(model.Low(ratings[bot]), s + 0.1) << bot;
    EXPECT_GE(model.High(ratings[bot]), s - 0.1) << bot;
  }
  EXPECT_GT(ratings[1].mu, ratings[2].mu);
  EXPECT_GT(ratings[2].mu, ratings[3].mu);
}

TEST(MarginRating, TheOrderOfTablesDoesNotMatterBitForBit) {
  const std::map<int64_t, double> skill = {{10, 3}, {20, 0}, {30, -3}, {40, 1}};
  std::mt19937_64 rng(11);
  DuplicateSet set = RotatedSet({10, 20, 30, 40}, skill, 8, 40, 15, rng);
  DuplicateSet reversed = set;
  std::reverse(reversed.tables.begin(), reversed.tables.end());
  std::map<int64_t, MarginRating> current = {{10, {1.5, 3, 40}}, {30, {-2, 4, 8}}};
  MarginRatingModel model;
  absl::StatusOr<MarginSetUpdate> a = model.Update(set, current, {1000, 20});
  absl::StatusOr<MarginSetUpdate> b = model.Update(reversed, current, {1000, 20});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->ratings.size(), 4u);
  for (const auto& [bot, r] : a->ratings) {
    EXPECT_TRUE(SameBits(r.mu, b->ratings[bot].mu)) << bot;
    EXPECT_TRUE(SameBits(r.sigma, b->ratings[bot].sigma)) << bot;
    EXPECT_EQ(r.deals, b->ratings[bot].deals);
  }
  EXPECT_TRUE(SameBits(a->noise.sum_sq, b->noise.sum_sq));
  EXPECT_TRUE(SameBits(a->noise.residuals, b->noise.residuals));
}

TEST(MarginRating, ReplayingTheSetsRebuildsBitForBit) {
  const std::map<int64_t, double> skill = {{1, 4}, {2, 1}, {3, -1}, {4, -4}, {5, 0}};
  std::mt19937_64 rng(5);
  std::vector<DuplicateSet> sets;
  for (int i = 0; i < 40; ++i) {
    // Four of the five bots per set, a different one sitting out.
    std::vector<int64_t> bots;
    for (int64_t b = 1; b <= 5; ++b)
      if (b != 1 + i % 5) bots.push_back(b);
    sets.push_back(RotatedSet(bots, skill, 8, 40, 15, rng));
  }
  MarginRatingModel model;
  auto run = [&] {
    std::map<int64_t, MarginRating> ratings;
    MarginNoise noise;
    for (const DuplicateSet& s : sets) {
      absl::StatusOr<MarginSetUpdate> u = model.Update(s, ratings, noise);
      EXPECT_TRUE(u.ok());
      for (const auto& [bot, r] : u->ratings) ratings[bot] = r;
      noise = u->noise;
    }
    return std::make_pair(ratings, noise);
  };
  auto [first, n1] = run();
  auto [second, n2] = run();
  for (const auto& [bot, r] : first) {
    EXPECT_TRUE(SameBits(r.mu, second[bot].mu));
    EXPECT_TRUE(SameBits(r.sigma, second[bot].sigma));
  }
  EXPECT_TRUE(SameBits(n1.sum_sq, n2.sum_sq));
}

TEST(MarginRating, EqualScoresMoveNoMeanAndShrinkSigma) {
  DuplicateSet set;
  for (int t = 0; t < 2; ++t) {
    DuplicateTable table;
    table.bots = t == 0 ? std::vector<int64_t>{1, 2, 3} : std::vector<int64_t>{2, 3, 1};
    table.scores = {{10.0, -5.0, 0.0}, {0.0, 0.0, 30.0}};
    set.tables.push_back(table);
  }
  MarginRatingModel model;
  absl::StatusOr<MarginSetUpdate> u = model.Update(set, {}, {});
  ASSERT_TRUE(u.ok());
  for (const auto& [bot, r] : u->ratings) {
    EXPECT_EQ(r.mu, 0) << bot;
    EXPECT_LT(r.sigma, model.options().sigma) << bot;
    EXPECT_GT(r.sigma, 0) << bot;
    EXPECT_EQ(r.deals, 2) << bot;
  }
}

TEST(MarginRating, ABetterScoreRaisesTheBotAndLowersTheOther) {
  // Two tables, one deal, bots 1 and 2 swap seats: 1 scores 20 more on each.
  DuplicateSet set;
  set.tables.push_back({{1, 2}, {{30.0, -30.0}}});
  set.tables.push_back({{2, 1}, {{10.0, -10.0}}});
  MarginRatingModel model;
  absl::StatusOr<MarginSetUpdate> u = model.Update(set, {}, {});
  ASSERT_TRUE(u.ok());
  EXPECT_GT(u->ratings[1].mu, 0);
  EXPECT_EQ(u->ratings[2].mu, -u->ratings[1].mu);  // equal sigmas: symmetric
  EXPECT_EQ(u->set_margin[1], 20);
  EXPECT_EQ(u->set_boards[1], 2);
}

TEST(MarginRating, ARivalsDisasterDoesNotEraseTheDifferenceBetweenTheOthers) {
  // Three bots rotated over one deal: bot 1 scores 10 more than bot 2 on
  // every seat; bot 3 loses 1000 on seat 0 and 0 elsewhere. Clipped pair
  // residuals keep 1 ahead of 2 by the same amount as without bot 3's swing.
  DuplicateSet set;
  const std::vector<std::vector<int64_t>> seatings = {{1, 2, 3}, {2, 3, 1}, {3, 1, 2}};
  for (const auto& bots : seatings) {
    DuplicateTable t;
    t.bots = bots;
    std::vector<std::optional<double>> row;
    for (int s = 0; s < 3; ++s) {
      const int64_t b = bots[s];
      row.push_back(b == 1 ? 10.0 : b == 2 ? 0.0 : (s == 0 ? -1000.0 : 0.0));
    }
    t.scores.push_back(row);
    set.tables.push_back(t);
  }
  MarginRatingModel model;  // clip 30
  absl::StatusOr<MarginSetUpdate> u = model.Update(set, {}, {});
  ASSERT_TRUE(u.ok());
  EXPECT_GT(u->ratings[1].mu, u->ratings[2].mu);
  EXPECT_LT(u->ratings[3].mu, u->ratings[2].mu);
  // The shown margin is the plain one: bot 3 lost 1000 / 3 a board on average.
  EXPECT_NEAR(u->set_margin[3], (-1000.0 - 5 - 5 - 5) / 3, 1e-9);
  // Unclipped, the swing swells the noise estimate and the 10 points between
  // bots 1 and 2 all but vanish.
  MarginRatingOptions plain;
  plain.clip = INFINITY;
  absl::StatusOr<MarginSetUpdate> unclipped = MarginRatingModel(plain).Update(set, {}, {});
  ASSERT_TRUE(unclipped.ok());
  const double gap = u->ratings[1].mu - u->ratings[2].mu;
  const double plain_gap = unclipped->ratings[1].mu - unclipped->ratings[2].mu;
  EXPECT_GT(gap, 2 * plain_gap) << gap << " " << plain_gap;
}

TEST(MarginRating, SetsWithoutComparisonsChangeNothing) {
  MarginRatingModel model;
  const std::map<int64_t, MarginRating> current = {{1, {3, 2, 10}}};
  // One table: no board is held twice.
  DuplicateSet one;
  one.tables.push_back({{1, 2, 3}, {{10.0, 0.0, -10.0}}});
  absl::StatusOr<MarginSetUpdate> u = model.Update(one, current, {});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->ratings[1].mu, 3);
  EXPECT_EQ(u->ratings[1].sigma, 2);
  EXPECT_EQ(u->ratings[1].deals, 10);
  EXPECT_EQ(u->ratings[2].sigma, model.options().sigma);
  EXPECT_EQ(u->noise.residuals, 0);
  // The same bot everywhere, or every score missing: nothing to compare.
  DuplicateSet self;
  self.tables.push_back({{1, 1}, {{5.0, 0.0}}});
  self.tables.push_back({{1, 1}, {{0.0, 5.0}}});
  self.tables.push_back({{1, 1}, {{std::nullopt, std::nullopt}}});
  u = model.Update(self, current, {});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->ratings[1].mu, 3);
  EXPECT_EQ(u->ratings.size(), 1u);
}

TEST(MarginRating, MissingScoresAreLeftOut) {
  // The 5-player dealer sits out: nullopt. Bot 3's board has one holder.
  DuplicateSet set;
  set.tables.push_back({{1, 2, 3}, {{10.0, 0.0, std::nullopt}}});
  set.tables.push_back({{2, 1, 4}, {{0.0, 10.0, 7.0}}});
  MarginRatingModel model;
  absl::StatusOr<MarginSetUpdate> u = model.Update(set, {}, {});
  ASSERT_TRUE(u.ok());
  EXPECT_GT(u->ratings[1].mu, 0);
  EXPECT_LT(u->ratings[2].mu, 0);
  EXPECT_EQ(u->ratings[3].deals, 0);
  EXPECT_EQ(u->ratings[4].deals, 0);
  EXPECT_EQ(u->set_boards.count(3), 0u);
}

TEST(MarginRating, MalformedSetsAreRefused) {
  MarginRatingModel model;
  EXPECT_FALSE(model.Update({}, {}, {}).ok());
  DuplicateSet empty_bots;
  empty_bots.tables.push_back({{}, {}});
  EXPECT_FALSE(model.Update(empty_bots, {}, {}).ok());
  DuplicateSet widths;
  widths.tables.push_back({{1, 2}, {{1.0, 2.0}}});
  widths.tables.push_back({{1, 2, 3}, {{1.0, 2.0, 3.0}}});
  EXPECT_FALSE(model.Update(widths, {}, {}).ok());
  DuplicateSet deals;
  deals.tables.push_back({{1, 2}, {{1.0, 2.0}}});
  deals.tables.push_back({{2, 1}, {{1.0, 2.0}, {0.0, 0.0}}});
  EXPECT_FALSE(model.Update(deals, {}, {}).ok());
  DuplicateSet row;
  row.tables.push_back({{1, 2}, {{1.0}}});
  EXPECT_FALSE(model.Update(row, {}, {}).ok());
  for (double bad : {double{NAN}, double{INFINITY}, 1e10}) {
    DuplicateSet s;
    s.tables.push_back({{1, 2}, {{bad, 0.0}}});
    s.tables.push_back({{2, 1}, {{0.0, 0.0}}});
    EXPECT_FALSE(model.Update(s, {}, {}).ok()) << bad;
  }
  DuplicateSet ok;
  ok.tables.push_back({{1, 2}, {{1.0, 0.0}}});
  ok.tables.push_back({{2, 1}, {{0.0, 1.0}}});
  EXPECT_FALSE(model.Update(ok, {{1, {NAN, 1, 0}}}, {}).ok());
  EXPECT_FALSE(model.Update(ok, {{1, {0, -1, 0}}}, {}).ok());
  EXPECT_FALSE(model.Update(ok, {}, {-1, 0}).ok());
  EXPECT_TRUE(model.Update(ok, {}, {}).ok());
}

TEST(MarginRating, ExtremeScoresStayFinite) {
  MarginRatingModel model;
  std::map<int64_t, MarginRating> ratings;
  MarginNoise noise;
  for (int i = 0; i < 200; ++i) {
    DuplicateSet s;
    const double big = (i % 2 ? 1e9 : -1e9);
    s.tables.push_back({{1, 2}, {{big, -big}, {0.0, 0.0}}});
    s.tables.push_back({{2, 1}, {{-big, big}, {0.0, 0.0}}});
    absl::StatusOr<MarginSetUpdate> u = model.Update(s, ratings, noise);
    ASSERT_TRUE(u.ok());
    ratings = u->ratings;
    noise = u->noise;
    for (const auto& [bot, r] : ratings) {
      ASSERT_TRUE(std::isfinite(r.mu) && std::isfinite(r.sigma) && r.sigma > 0) << i;
    }
  }
  // Identical scores for ever: sigma shrinks towards its drift floor, never 0.
  for (int i = 0; i < 5000; ++i) {
    DuplicateSet s;
    s.tables.push_back({{1, 2}, {{0.0, 0.0}}});
    s.tables.push_back({{2, 1}, {{0.0, 0.0}}});
    absl::StatusOr<MarginSetUpdate> u = model.Update(s, ratings, noise);
    ratings = u->ratings;
    noise = u->noise;
  }
  EXPECT_GT(ratings[1].sigma, 0);
  EXPECT_TRUE(std::isfinite(ratings[1].mu));
}

TEST(MarginRating, UnseparatedNeighbours) {
  MarginRatingModel model;  // z = 1.96
  std::vector<MarginRating> rows = {{10, 1, 0}, {5, 1, 0}, {3, 1, 0}, {-9, 2, 0}};
  // 10 +- 1.96 vs 5 +- 1.96: apart; 5 vs 3: overlap; 3 vs -9 +- 3.92: apart.
  EXPECT_EQ(model.UnseparatedNeighbours(rows), (std::vector<bool>{false, true, false}));
  EXPECT_TRUE(model.UnseparatedNeighbours({}).empty());
  EXPECT_TRUE(model.UnseparatedNeighbours({rows[0]}).empty());
}

TEST(MarginRating, HeadToHeadOfTwoBotsAndOfTwoGroups) {
  MarginRatingModel model;  // z = 1.96
  absl::StatusOr<MarginDifference> one = model.HeadToHead({{3, 0.3, 0}}, {{-1, 0.4, 0}});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_DOUBLE_EQ(one->diff, 4);
  EXPECT_DOUBLE_EQ(one->sigma, 0.5);
  EXPECT_DOUBLE_EQ(one->low, 4 - 1.96 * 0.5);
  EXPECT_DOUBLE_EQ(one->high, 4 + 1.96 * 0.5);
  // Groups: their means, each bot's variance weighted by 1 / size^2.
  absl::StatusOr<MarginDifference> two =
      model.HeadToHead({{2, 0.3, 0}, {1, 0.4, 0}}, {{-1, 0.5, 0}});
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_DOUBLE_EQ(two->diff, 2.5);
  EXPECT_DOUBLE_EQ(two->sigma, std::sqrt((0.09 + 0.16) / 4 + 0.25));
  EXPECT_FALSE(model.HeadToHead({}, {{0, 1, 0}}).ok());
  EXPECT_FALSE(model.HeadToHead({{0, 1, 0}}, {}).ok());
  EXPECT_FALSE(model.HeadToHead({{NAN, 1, 0}}, {{0, 1, 0}}).ok());
  EXPECT_FALSE(model.HeadToHead({{0, -1, 0}}, {{0, 1, 0}}).ok());
}

// The head-to-head interval is honest: in a bridge ladder of four bots of a
// kind that is 2 points a deal better than the other four (the main job's
// field, scripts/run.sh), 200 ladder histories of 25 sets each; the 95%
// interval of the kinds' difference holds the truth in about 95% of them
// and excludes 0 in most.
TEST(MarginRating, HeadToHeadIntervalsHoldTheTruth) {
  MarginRatingModel model;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> board(0, 40), noise(0, 12);
  int holds = 0, separated = 0;
  const int histories = 200;
  for (int h = 0; h < histories; ++h) {
    std::map<int64_t, MarginRating> ratings;
    MarginNoise pooled;
    for (int set = 0; set < 25; ++set) {
      std::vector<int64_t> order = {1, 2, 3, 4, 5, 6, 7, 8};
      std::shuffle(order.begin(), order.end(), rng);
      DuplicateSet dup;
      std::vector<std::vector<double>> cards(8, std::vector<double>(4));
      for (auto& row : cards)
        for (double& x : row) x = board(rng);
      for (int t = 0; t < 2; ++t) {
        DuplicateTable table;
        for (int s = 0; s < 4; ++s) table.bots.push_back(order[t * 4 + s]);
        for (int d = 0; d < 8; ++d) {
          std::vector<std::optional<double>> row;
          for (int s = 0; s < 4; ++s)
            row.push_back(std::round(cards[d][s] + (table.bots[s] <= 4 ? 1 : -1) + noise(rng)));
          table.scores.push_back(row);
        }
        dup.tables.push_back(table);
      }
      absl::StatusOr<MarginSetUpdate> u = model.Update(dup, ratings, pooled);
      ASSERT_TRUE(u.ok()) << u.status();
      for (const auto& [bot, r] : u->ratings) ratings[bot] = r;
      pooled = u->noise;
    }
    std::vector<MarginRating> better, worse;
    for (const auto& [bot, r] : ratings) (bot <= 4 ? better : worse).push_back(r);
    absl::StatusOr<MarginDifference> d = model.HeadToHead(better, worse);
    ASSERT_TRUE(d.ok()) << d.status();
    holds += d->low <= 2 && 2 <= d->high;
    separated += d->low > 0;
  }
  EXPECT_GE(holds, 0.90 * histories);
  EXPECT_LE(holds, 0.99 * histories);
  EXPECT_GE(separated, 0.5 * histories);
}

TEST(MarginRating, ModelNames) {
  EXPECT_EQ(*ParseRatingModel("place"), RatingModelKind::kPlace);
  EXPECT_EQ(*ParseRatingModel("margin"), RatingModelKind::kMargin);
  EXPECT_EQ(RatingModelName(RatingModelKind::kMargin), "margin");
  absl::StatusOr<RatingModelKind> bad = ParseRatingModel("elo");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unknown rating model 'elo' (valid: place, margin)");
}

}  // namespace
}  // namespace tarock::arena
