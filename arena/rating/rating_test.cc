// Tests of the arena's rating model (arena/rating/rating.h): the direction of
// every update, ties, symmetry, reference values derived by hand from the
// Weng-Lin formulas (and agreeing with OpenSkill's PlackettLuce), convergence
// on simulated matches, determinism, the sigma floor, match quality and
// RanksFromTotals.

#include "arena/rating/rating.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace tarock::arena {
namespace {

constexpr double kTol = 1e-12;

// Bit-for-bit equality of two doubles.
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

void ExpectSameBits(const std::vector<Rating>& a, const std::vector<Rating>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(SameBits(a[i].mu, b[i].mu)) << i << ": " << a[i].mu << " vs " << b[i].mu;
    EXPECT_TRUE(SameBits(a[i].sigma, b[i].sigma))
        << i << ": " << a[i].sigma << " vs " << b[i].sigma;
  }
}

std::vector<int> StrictOrder(int n) {
  std::vector<int> ranks(n);
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

TEST(RatingTest, InitialAndDisplay) {
  RatingModel model;
  const Rating r = model.Initial();
  EXPECT_EQ(r.mu, 25.0);
  EXPECT_EQ(r.sigma, 25.0 / 3);
  EXPECT_NEAR(model.Display(r), 0.0, kTol);
  EXPECT_DOUBLE_EQ(model.Display({30, 2}), 24.0);

  RatingModel custom({.mu = 1500, .sigma = 500, .beta = 250, .display_k = 2});
  EXPECT_EQ(custom.Initial().mu, 1500);
  EXPECT_EQ(custom.Initial().sigma, 500);
  EXPECT_DOUBLE_EQ(custom.Display({1500, 500}), 500);
}

TEST(RatingTest, WinnersGainLosersLoseSigmaShrinks) {
  RatingModel model;
  for (int n = 2; n <= 5; ++n) {
    SCOPED_TRACE(n);
    const std::vector<Rating> before(n, model.Initial());
    const std::vector<Rating> after = model.Update(before, StrictOrder(n));
    EXPECT_GT(after.front().mu, 25);
    EXPECT_LT(after.back().mu, 25);
    for (int i = 0; i + 1 < n; ++i) EXPECT_GT(after[i].mu, after[i + 1].mu);
    double total = 0;
    for (const Rating& r : after) {
      EXPECT_LT(r.sigma, model.Initial().sigma);
      total += r.mu;
    }
    // Equal sigmas: mu moves from losers to winners, none is created.
    EXPECT_NEAR(total, 25.0 * n, 1e-9);
  }
}

TEST(RatingTest, WinnerGainsLoserLosesWhateverTheirRatings) {
  RatingModel model;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mu(-20, 70);
  std::uniform_real_distribution<double> sigma(0.05, 12);
  const double tau2 = model.options().tau * model.options().tau;
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = 3 + trial % 3;
    std::vector<Rating> before(n);
    for (Rating& r : before) r = {mu(rng), sigma(rng)};
    const std::vector<Rating> after = model.Update(before, StrictOrder(n));
    EXPECT_GT(after.front().mu, before.front().mu);
    EXPECT_LT(after.back().mu, before.back().mu);
    for (int i = 0; i < n; ++i) {
      // Never more than the prior plus the dynamics.
      EXPECT_LE(after[i].sigma, std::sqrt(before[i].sigma * before[i].sigma + tau2));
      EXPECT_GT(after[i].sigma, 0);
    }
  }
}

TEST(RatingTest, UpsetMovesMoreThanExpectedResult) {
  RatingModel model;
  const Rating strong{35, 3};
  const Rating weak{15, 3};
  const auto expected = model.Update({strong, weak}, {0, 1});
  const auto upset = model.Update({strong, weak}, {1, 0});
  EXPECT_GT(expected[0].mu, strong.mu);
  EXPECT_LT(upset[0].mu, strong.mu);
  EXPECT_GT(strong.mu - upset[0].mu, expected[0].mu - strong.mu);
  EXPECT_GT(upset[1].mu - weak.mu, weak.mu - expected[1].mu);
}

TEST(RatingTest, TiesBetweenEqualsKeepMu) {
  for (const Rating& start : {Rating{25, 25.0 / 3}, Rating{31.7, 2.3}, Rating{-4.1, 0.01}}) {
    RatingModel model;
    for (int n = 2; n <= 5; ++n) {
      SCOPED_TRACE(n);
      const std::vector<Rating> after =
          model.Update(std::vector<Rating>(n, start), std::vector<int>(n, 0));
      for (const Rating& r : after) {
        EXPECT_EQ(r.mu, start.mu);  // exactly
        EXPECT_TRUE(SameBits(r.sigma, after[0].sigma));
      }
      if (start.sigma > 1) {
        EXPECT_LT(after[0].sigma, start.sigma);
      }
    }
  }
}

TEST(RatingTest, TieMovesUnequalPlayersTogether) {
  RatingModel model;
  const auto after = model.Update({{30, 4}, {20, 4}, {25, 4}}, {0, 0, 0});
  EXPECT_LT(after[0].mu, 30);
  EXPECT_GT(after[1].mu, 20);
}

TEST(RatingTest, SharedPlaceBetweenOthers) {
  // Two equal players tie for second between a winner and a loser: they get
  // the same rating, between the winner's and the loser's.
  RatingModel model;
  const Rating r = model.Initial();
  const auto after = model.Update({r, r, r, r}, {0, 1, 1, 3});
  ExpectSameBits({after[1]}, {after[2]});
  EXPECT_GT(after[0].mu, after[1].mu);
  EXPECT_GT(after[1].mu, after[3].mu);
  // Only the order of the rank values matters.
  ExpectSameBits(after, model.Update({r, r, r, r}, {0, 5, 5, 9}));
}

TEST(RatingTest, SymmetricCasesGiveSymmetricResults) {
  RatingModel model;
  const Rating r = model.Initial();
  // Two equal players, one wins: mirror images.
  const auto two = model.Update({r, r}, {0, 1});
  EXPECT_EQ(two[0].mu - 25, 25 - two[1].mu);
  EXPECT_EQ(two[0].sigma, two[1].sigma);
  // Swapping who wins swaps the results.
  const auto swapped = model.Update({r, r}, {1, 0});
  ExpectSameBits({two[0], two[1]}, {swapped[1], swapped[0]});

  // Any permutation of the seats permutes the results, bit for bit.
  const std::vector<Rating> players = {{30, 6}, {25, 25.0 / 3}, {20, 4}, {27, 2}, {18, 7}};
  const std::vector<int> ranks = {3, 0, 1, 1, 4};
  const auto reference = model.Update(players, ranks);
  std::vector<int> perm = {0, 1, 2, 3, 4};
  int checked = 0;
  do {
    std::vector<Rating> p(5);
    std::vector<int> k(5);
    for (int i = 0; i < 5; ++i) {
      p[i] = players[perm[i]];
      k[i] = ranks[perm[i]];
    }
    const auto after = model.Update(p, k);
    for (int i = 0; i < 5; ++i) ExpectSameBits({after[i]}, {reference[perm[i]]});
    ++checked;
  } while (std::next_permutation(perm.begin(), perm.end()));
  EXPECT_EQ(checked, 120);
}

// Reference values: the closed forms below follow from the formulas in
// rating.h by hand for equal starting ratings (every exp(mu / c) equal, so
// every p is 1 / |C_q|); the literals are OpenSkill's PlackettLuce (openskill.js
// 5.0.1, default options) on the same input, to 17 significant digits.
struct HandFormulas {
  double s2 = 625.0 / 9 + (25.0 / 300) * (25.0 / 300);  // sigma^2 + tau^2
  double beta2 = 625.0 / 36;
  double c(int k) const { return std::sqrt(k * (s2 + beta2)); }
  // mu and sigma after a match from the gradient sum w and the delta sum v.
  double Mu(int k, double w) const { return 25 + s2 / c(k) * w; }
  double Sigma(int k, double v) const {
    const double s = std::sqrt(s2);
    return s * std::sqrt(1 - v * s2 / (c(k) * c(k)) * (s / c(k)));
  }
};

TEST(RatingTest, ReferenceTwoPlayers) {
  RatingModel model;
  HandFormulas f;
  const Rating r = model.Initial();
  const auto after = model.Update({r, r}, {0, 1});
  // Winner: w = 1 - 1/2, v = 1/4. Loser: w = 1 - 1/2 - 1, v = 1/4 + 0.
  EXPECT_NEAR(after[0].mu, f.Mu(2, 0.5), kTol);
  EXPECT_NEAR(after[1].mu, f.Mu(2, -0.5), kTol);
  EXPECT_NEAR(after[0].sigma, f.Sigma(2, 0.25), kTol);
  EXPECT_NEAR(after[1].sigma, f.Sigma(2, 0.25), kTol);
  EXPECT_NEAR(after[0].mu, 27.635389493140497, kTol);
  EXPECT_NEAR(after[1].mu, 22.364610506859503, kTol);
  EXPECT_NEAR(after[0].sigma, 8.0659014135436795, kTol);
  EXPECT_NEAR(after[1].sigma, 8.0659014135436795, kTol);
}

TEST(RatingTest, ReferenceThreePlayers) {
  RatingModel model;
  HandFormulas f;
  const Rating r = model.Initial();
  // Strict order. p = 1/3 against C_1, 1/2 against C_2, 1 against C_3.
  //   first:  w = 1 - 1/3 = 2/3,              v = 2/9
  //   second: w = 1 - 1/3 - 1/2 = 1/6,        v = 2/9 + 1/4 = 17/36
  //   third:  w = 1 - 1/3 - 1/2 - 1 = -5/6,   v = 17/36 + 0
  const auto strict = model.Update({r, r, r}, {0, 1, 2});
  EXPECT_NEAR(strict[0].mu, f.Mu(3, 2.0 / 3), kTol);
  EXPECT_NEAR(strict[1].mu, f.Mu(3, 1.0 / 6), kTol);
  EXPECT_NEAR(strict[2].mu, f.Mu(3, -5.0 / 6), kTol);
  EXPECT_NEAR(strict[0].sigma, f.Sigma(3, 2.0 / 9), kTol);
  EXPECT_NEAR(strict[1].sigma, f.Sigma(3, 17.0 / 36), kTol);
  EXPECT_NEAR(strict[2].sigma, f.Sigma(3, 17.0 / 36), kTol);
  EXPECT_NEAR(strict[0].mu, 27.869048680749426, kTol);
  EXPECT_NEAR(strict[1].mu, 25.717262170187357, kTol);
  EXPECT_NEAR(strict[2].mu, 21.413689149063217, kTol);
  EXPECT_NEAR(strict[0].sigma, 8.2052433773979931, kTol);
  EXPECT_NEAR(strict[1].sigma, 8.0582242228023784, kTol);
  EXPECT_NEAR(strict[2].sigma, 8.0582242228023784, kTol);

  // Two tie for first (A = 2): p = 1/3 against C = everyone, then 1.
  //   tied:  w = 1/2 - 1/3 = 1/6,          v = 2/9
  //   third: w = 1 - 1/3 - 1 = -1/3,       v = 2/9 + 0
  const auto tie = model.Update({r, r, r}, {0, 0, 1});
  EXPECT_NEAR(tie[0].mu, f.Mu(3, 1.0 / 6), kTol);
  EXPECT_NEAR(tie[1].mu, f.Mu(3, 1.0 / 6), kTol);
  EXPECT_NEAR(tie[2].mu, f.Mu(3, -1.0 / 3), kTol);
  for (const Rating& x : tie) EXPECT_NEAR(x.sigma, f.Sigma(3, 2.0 / 9), kTol);
  EXPECT_NEAR(tie[0].mu, 25.717262170187357, kTol);
  EXPECT_NEAR(tie[2].mu, 23.565475659625285, kTol);
  EXPECT_NEAR(tie[2].sigma, 8.2052433773979931, kTol);
}

TEST(RatingTest, ReferenceUnequalFourAndFivePlayers) {
  RatingModel model;
  const auto four = model.Update({{30, 6}, {25, 25.0 / 3}, {20, 4}, {27, 2}}, {2, 0, 2, 1});
  const Rating want4[] = {{27.571929710677097, 5.8341913388880871},
                          {28.813288023605867, 8.1736175527386088},
                          {19.765816539478134, 3.9760947840532688},
                          {27.108819188353042, 2.0004819344159093}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(four[i].mu, want4[i].mu, kTol) << i;
    EXPECT_NEAR(four[i].sigma, want4[i].sigma, kTol) << i;
  }
  const auto five =
      model.Update({{30, 6}, {25, 25.0 / 3}, {20, 4}, {27, 2}, {18, 7}}, {3, 0, 1, 1, 4});
  const Rating want5[] = {{29.313092272694121, 5.9003189244482890},
                          {28.415542323798963, 8.2401408761228314},
                          {20.158617618974763, 3.9923252598783079},
                          {26.994052448429947, 2.0010035926893361},
                          {16.111919709745539, 6.8646667208146104}};
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(five[i].mu, want5[i].mu, kTol) << i;
    EXPECT_NEAR(five[i].sigma, want5[i].sigma, kTol) << i;
  }
}

// Five players of fixed hidden strengths play tables of 3, 4 and 5; each
// seat's total is its strength plus noise, rounded (so ties happen).
struct Simulation {
  std::vector<double> strength = {17, 21, 25, 29, 33};
  std::vector<Rating> ratings;
  std::vector<std::vector<int>> tables;  // the seats of each match, in order
  std::vector<std::vector<int>> results;  // the ranks of each match

  void Run(const RatingModel& model, int matches, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 25.0 / 6);
    ratings.assign(strength.size(), model.Initial());
    for (int m = 0; m < matches; ++m) {
      const int size = 3 + m % 3;
      std::vector<int> seats = {0, 1, 2, 3, 4};
      for (int i = 4; i > 0; --i) std::swap(seats[i], seats[rng() % (i + 1)]);
      seats.resize(size);
      std::vector<int64_t> totals;
      std::vector<Rating> table;
      for (int s : seats) {
        totals.push_back(std::llround(strength[s] + noise(rng)));
        table.push_back(ratings[s]);
      }
      const std::vector<int> ranks = RanksFromTotals(totals, std::vector<bool>(size, false));
      const std::vector<Rating> after = model.Update(table, ranks);
      for (int i = 0; i < size; ++i) ratings[seats[i]] = after[i];
      tables.push_back(seats);
      results.push_back(ranks);
    }
  }
};

TEST(RatingTest, ConvergesToTheHiddenOrder) {
  RatingModel model;
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE(seed);
    Simulation sim;
    sim.Run(model, 3000, seed);
    for (int i = 0; i + 1 < 5; ++i) {
      EXPECT_LT(sim.ratings[i].mu, sim.ratings[i + 1].mu) << i;
      EXPECT_LT(model.Display(sim.ratings[i]), model.Display(sim.ratings[i + 1])) << i;
    }
    for (const Rating& r : sim.ratings) {
      // Settled (near 1.8-2.0 here) where tau's drift balances what a
      // match teaches.
      EXPECT_LT(r.sigma, 3.0);
      EXPECT_GT(r.sigma, 1.0);
    }
    // The strongest clearly ahead of the weakest (a gap of many sigmas).
    EXPECT_GT(sim.ratings[4].mu - sim.ratings[0].mu, 10);
  }
}

TEST(RatingTest, DeterministicAndReplayable) {
  RatingModel model;
  Simulation a;
  Simulation b;
  a.Run(model, 1000, 42);
  b.Run(model, 1000, 42);
  ExpectSameBits(a.ratings, b.ratings);

  // Rebuild the ratings from the stored results alone, in the same order.
  std::vector<Rating> replayed(5, model.Initial());
  for (size_t m = 0; m < a.tables.size(); ++m) {
    std::vector<Rating> table;
    for (int s : a.tables[m]) table.push_back(replayed[s]);
    const auto after = model.Update(table, a.results[m]);
    for (size_t i = 0; i < a.tables[m].size(); ++i) replayed[a.tables[m][i]] = after[i];
  }
  ExpectSameBits(a.ratings, replayed);

  // A fixed checksum of this run would pin the platform's libm; instead the
  // same call made many times gives the same bits.
  const std::vector<Rating> players = {{30, 6}, {25, 25.0 / 3}, {20, 4}, {27, 2}};
  const auto first = model.Update(players, {2, 0, 2, 1});
  for (int i = 0; i < 100; ++i) ExpectSameBits(first, model.Update(players, {2, 0, 2, 1}));
}

TEST(RatingTest, SigmaFloor) {
  // The kappa clamp: with kappa = 0.99 every shrink factor is clamped at
  // sqrt(0.99), since every Delta here is above 0.01.
  RatingModel clamped({.kappa = 0.99});
  const double s = std::sqrt(625.0 / 9 + (25.0 / 300) * (25.0 / 300));
  const Rating r = clamped.Initial();
  for (const Rating& x : clamped.Update({r, r, r, r}, {0, 1, 2, 3})) {
    EXPECT_NEAR(x.sigma, s * std::sqrt(0.99), kTol);
  }

  // Without dynamics sigma keeps shrinking, but stays positive and finite.
  RatingModel no_tau({.tau = 0});
  std::vector<Rating> ratings(4, no_tau.Initial());
  for (int m = 0; m < 20000; ++m) {
    std::vector<int> ranks = {m % 4, (m + 1) % 4, (m + 2) % 4, (m + 3) % 4};
    ratings = no_tau.Update(ratings, ranks);
  }
  for (const Rating& x : ratings) {
    EXPECT_GT(x.sigma, 0);
    EXPECT_LT(x.sigma, 1);
    EXPECT_TRUE(std::isfinite(x.mu));
  }

  // With the default tau it never falls below sqrt(kappa) * tau, whatever the
  // input: extreme mus, sigmas from 0 up, tables of 2 to 8.
  RatingModel model;
  const double floor = std::sqrt(model.options().kappa) * model.options().tau;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mu(-1000, 1000);
  std::uniform_real_distribution<double> log_sigma(-10, 8);
  for (int trial = 0; trial < 5000; ++trial) {
    const int n = 2 + trial % 7;
    std::vector<Rating> players(n);
    std::vector<int> ranks(n);
    for (int i = 0; i < n; ++i) {
      players[i] = {mu(rng), trial % 5 == 0 ? 0.0 : std::exp(log_sigma(rng))};
      ranks[i] = static_cast<int>(rng() % n);
    }
    for (const Rating& x : model.Update(players, ranks)) {
      EXPECT_GE(x.sigma, floor);
      EXPECT_TRUE(std::isfinite(x.mu));
      EXPECT_TRUE(std::isfinite(x.sigma));
    }
  }
}

// TrueSkill's quality from its definition: sqrt(det(beta^2 A^T A) /
// det(beta^2 A^T A + A^T S A)) * exp(-1/2 m^T A (beta^2 A^T A + A^T S A)^-1 A^T m)
// with A the 3x2 matrix of adjacent differences, for three players.
double QualityByDefinition(const std::vector<Rating>& p, double beta) {
  const double b2 = beta * beta;
  const double v0 = p[0].sigma * p[0].sigma, v1 = p[1].sigma * p[1].sigma,
               v2 = p[2].sigma * p[2].sigma;
  // A^T (b2 I + S) A for A = [[1, 0], [-1, 1], [0, -1]].
  const double m00 = 2 * b2 + v0 + v1, m01 = -(b2 + v1), m11 = 2 * b2 + v1 + v2;
  const double det_m = m00 * m11 - m01 * m01;
  const double det_b = b2 * b2 * 3;  // det(b2 * [[2, -1], [-1, 2]])
  const double x0 = p[0].mu - p[1].mu, x1 = p[1].mu - p[2].mu;  // A^T m
  const double quad = (m11 * x0 * x0 - 2 * m01 * x0 * x1 + m00 * x1 * x1) / det_m;
  return std::sqrt(det_b / det_m) * std::exp(-0.5 * quad);
}

TEST(RatingTest, Quality) {
  RatingModel model;
  const double beta = model.options().beta;
  // Two players: TrueSkill's 1-vs-1 formula.
  const Rating a{28, 3}, b{22, 5};
  const double den = 2 * beta * beta + 9 + 25;
  EXPECT_NEAR(model.Quality({a, b}),
              std::sqrt(2 * beta * beta / den) * std::exp(-36 / (2 * den)), kTol);
  // Three players: the closed form agrees with the matrix definition.
  const std::vector<Rating> three = {{31, 2}, {24, 6}, {26.5, 0.5}};
  EXPECT_NEAR(model.Quality(three), QualityByDefinition(three, beta), kTol);
  // Perfectly known, equal players: quality 1.
  EXPECT_NEAR(model.Quality({{25, 0}, {25, 0}, {25, 0}, {25, 0}}), 1.0, kTol);
  // A closer or better-known table is better.
  const Rating r = model.Initial();
  EXPECT_GT(model.Quality({r, r, r, r}), model.Quality({r, r, r, {35, r.sigma}}));
  EXPECT_GT(model.Quality({{25, 1}, {25, 1}, {25, 1}}), model.Quality({r, r, r}));
  // In (0, 1] and independent of the seat order, bit for bit.
  const std::vector<Rating> five = {{30, 6}, {25, 25.0 / 3}, {20, 4}, {27, 2}, {18, 7}};
  const double q = model.Quality(five);
  EXPECT_GT(q, 0);
  EXPECT_LE(q, 1);
  std::vector<Rating> reversed(five.rbegin(), five.rend());
  EXPECT_TRUE(SameBits(q, model.Quality(reversed)));
}

TEST(RanksFromTotalsTest, EdgeCases) {
  EXPECT_EQ(RanksFromTotals({}, {}), std::vector<int>{});
  EXPECT_EQ(RanksFromTotals({7}, {false}), std::vector<int>{0});
  EXPECT_EQ(RanksFromTotals({30, 10, 30, -5}, {false, false, false, false}),
            (std::vector<int>{0, 2, 0, 3}));
  EXPECT_EQ(RanksFromTotals({0, 0, 0}, {false, false, false}), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(RanksFromTotals({-10, -20, -30}, {false, false, false}),
            (std::vector<int>{0, 1, 2}));
  // A forfeit ranks below everyone else, whatever the totals.
  EXPECT_EQ(RanksFromTotals({500, -100, 20}, {true, false, false}), (std::vector<int>{2, 1, 0}));
  // Forfeited players rank among themselves by total, and may tie.
  EXPECT_EQ(RanksFromTotals({50, 10, 40, 50, 10}, {true, false, true, true, false}),
            (std::vector<int>{2, 0, 4, 2, 0}));
  EXPECT_EQ(RanksFromTotals({3, 1, 2}, {true, true, true}), (std::vector<int>{0, 2, 1}));
  // Extremes of int64_t.
  const int64_t lo = std::numeric_limits<int64_t>::min();
  const int64_t hi = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(RanksFromTotals({lo, hi, 0, hi}, {false, false, false, false}),
            (std::vector<int>{3, 0, 2, 0}));
}

TEST(RatingDeathTest, BrokenPreconditionsAbort) {
  RatingModel model;
  const Rating r = model.Initial();
  EXPECT_DEATH(model.Update({r, r}, {0}), "");
  EXPECT_DEATH(model.Update({r}, {0}), "");
  EXPECT_DEATH(model.Update({r, {25, -1}}, {0, 1}), "");
  EXPECT_DEATH(model.Update({r, {std::nan(""), 1}}, {0, 1}), "");
  EXPECT_DEATH(model.Quality({r}), "");
  EXPECT_DEATH(RanksFromTotals({1, 2}, {false}), "");
  EXPECT_DEATH(RatingModel({.beta = 0}), "");
}

}  // namespace
}  // namespace tarock::arena
