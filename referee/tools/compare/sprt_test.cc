// The sequential test on simulated data with known means: thousands of runs
// from fixed seeds. When the true difference is h0, H1 must be accepted at a
// rate within the binomial confidence band of alpha; when it is h1, H0 at a rate
// within the band of beta. Also the formula and bounds by hand, the edge cases
// (zero variance, min_deals, max_deals) and the parameter checks.

#include "referee/tools/compare/sprt.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

#include "gtest/gtest.h"

namespace tarock {
namespace {

// Standard normal from the standard-defined mt19937_64 (Box-Muller of our own,
// so the draws are the same with every standard library).
class Normal {
 public:
  explicit Normal(uint64_t seed) : rng_(seed) {}
  double Next() {
    const double u1 = (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double Uniform() { return (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53; }

 private:
  std::mt19937_64 rng_;
};

struct Rates {
  int runs = 0;
  int h1 = 0, h0 = 0, inconclusive = 0;
  double mean_deals = 0;
};

// Runs the test `runs` times on draws from `draw(Normal&)`.
template <typename Draw>
Rates Simulate(const SprtParams& p, int runs, uint64_t seed, Draw draw) {
  Rates r;
  r.runs = runs;
  int64_t deals = 0;
  for (int i = 0; i < runs; ++i) {
    Normal rng(seed * 1000003 + i);
    Sprt sprt(p);
    SprtDecision d = SprtDecision::kContinue;
    while (d == SprtDecision::kContinue) d = sprt.Add(draw(rng));
    deals += sprt.deals();
    if (d == SprtDecision::kAcceptH1) ++r.h1;
    else if (d == SprtDecision::kAcceptH0) ++r.h0;
    else ++r.inconclusive;
  }
  r.mean_deals = static_cast<double>(deals) / runs;
  return r;
}

// The two-sided 99.9% binomial band around `p` for `n` runs (normal
// approximation, z = 3.29): a correct test lands outside it once in a thousand
// seeds; these seeds are fixed, so the test is deterministic.
void ExpectWithinBand(int hits, int n, double p, const char* what, bool one_sided = false) {
  const double rate = static_cast<double>(hits) / n;
  const double half = 3.29 * std::sqrt(p * (1 - p) / n);
  std::printf("%s: %d of %d = %.4f (nominal %.3f, band [%.4f, %.4f])\n", what, hits, n, rate, p,
              p - half, p + half);
  if (!one_sided) EXPECT_GE(rate, p - half) << what;
  EXPECT_LE(rate, p + half) << what;
}

TEST(SprtTest, LlrAndBoundsByHand) {
  SprtParams p;
  p.h0 = 0;
  p.h1 = 5;
  p.alpha = 0.05;
  p.beta = 0.1;
  p.min_deals = 2;
  Sprt s(p);
  EXPECT_NEAR(s.lower_bound(), std::log(0.1 / 0.95), 1e-12);
  EXPECT_NEAR(s.upper_bound(), std::log(0.9 / 0.05), 1e-12);
  s.Add(10);
  EXPECT_EQ(s.llr(), 0.0);  // no variance from one deal
  s.Add(-2);
  s.Add(6);
  // n 3, mean 14/3, ML variance ((10-m)^2 + (-2-m)^2 + (6-m)^2) / 3
  const double m = 14.0 / 3;
  const double v = ((10 - m) * (10 - m) + (-2 - m) * (-2 - m) + (6 - m) * (6 - m)) / 3;
  EXPECT_NEAR(s.mean(), m, 1e-12);
  EXPECT_NEAR(s.variance(), v, 1e-9);
  EXPECT_NEAR(s.llr(), 1.5 * std::log((v + m * m) / (v + (m - 5) * (m - 5))), 1e-9);
  EXPECT_EQ(s.decision(), SprtDecision::kContinue);
  p.form = LlrForm::kFishtest;
  Sprt f(p);
  for (double x : {10.0, -2.0, 6.0}) f.Add(x);
  EXPECT_NEAR(f.llr(), 3 * 5 * (2 * m - 5) / (2 * v), 1e-9);
  const double sample_sd = std::sqrt(v * 3 / 2);
  EXPECT_NEAR(s.HalfWidth95(), 1.96 * sample_sd / std::sqrt(3.0), 1e-9);
}

TEST(SprtTest, EqualDifferencesDecideAtMinDeals) {
  SprtParams p;  // h0 0, h1 5, min_deals 20
  Sprt same(p);
  for (int i = 0; i < 19; ++i) EXPECT_EQ(same.Add(0), SprtDecision::kContinue);
  EXPECT_EQ(same.Add(0), SprtDecision::kAcceptH0);
  EXPECT_EQ(same.deals(), 20);
  EXPECT_EQ(same.Add(100), SprtDecision::kAcceptH0);  // decided: ignored
  EXPECT_EQ(same.deals(), 20);
  Sprt better(p);
  for (int i = 0; i < 19; ++i) better.Add(7);
  EXPECT_EQ(better.Add(7), SprtDecision::kAcceptH1);
  Sprt middle(p);  // exactly (h0 + h1) / 2 every time: no evidence either way
  for (int i = 0; i < 50; ++i) EXPECT_EQ(middle.Add(2.5), SprtDecision::kContinue);
}

TEST(SprtTest, MaxDealsIsInconclusive) {
  SprtParams p;
  p.max_deals = 30;
  Sprt s(p);
  SprtDecision d = SprtDecision::kContinue;
  for (int i = 0; i < 30; ++i) d = s.Add(i % 2 == 0 ? 2.5 + 40 : 2.5 - 40);
  EXPECT_EQ(d, SprtDecision::kInconclusive);
  EXPECT_EQ(s.deals(), 30);
}

TEST(SprtTest, ValidatesParams) {
  SprtParams p;
  EXPECT_TRUE(ValidateSprtParams(p).ok());
  p.h1 = p.h0;
  EXPECT_FALSE(ValidateSprtParams(p).ok());
  p = SprtParams();
  p.alpha = 0;
  EXPECT_FALSE(ValidateSprtParams(p).ok());
  p = SprtParams();
  p.beta = 1;
  EXPECT_FALSE(ValidateSprtParams(p).ok());
  p = SprtParams();
  p.max_deals = -1;
  EXPECT_FALSE(ValidateSprtParams(p).ok());
}

// Normal differences with the spread of real slovenian-4p deals (search
// against heuristic: standard deviation about 12.6 points per deal).
TEST(SprtTest, ErrorRatesOnNormalData) {
  SprtParams p;
  p.h0 = 0;
  p.h1 = 3;
  const int runs = 4000;
  const double sd = 12.6;
  Rates at_h0 = Simulate(p, runs, 1, [&](Normal& r) { return p.h0 + sd * r.Next(); });
  Rates at_h1 = Simulate(p, runs, 2, [&](Normal& r) { return p.h1 + sd * r.Next(); });
  std::printf("true mean h0: mean deals %.1f; true mean h1: mean deals %.1f\n", at_h0.mean_deals,
              at_h1.mean_deals);
  ExpectWithinBand(at_h0.h1, runs, p.alpha, "normal, mu = h0, H1 accepted");
  ExpectWithinBand(at_h1.h0, runs, p.beta, "normal, mu = h1, H0 accepted");
  EXPECT_EQ(at_h0.inconclusive + at_h1.inconclusive, 0);
}

// fishtest's first-order form, with a floor of 50 deals before deciding (with
// 20 it errs about 5.8% of the time at alpha = beta = 0.05: outside the band).
TEST(SprtTest, ErrorRatesFishtestForm) {
  SprtParams p;
  p.h0 = 0;
  p.h1 = 3;
  p.min_deals = 50;
  p.form = LlrForm::kFishtest;
  const int runs = 4000;
  const double sd = 12.6;
  Rates at_h0 = Simulate(p, runs, 11, [&](Normal& r) { return p.h0 + sd * r.Next(); });
  Rates at_h1 = Simulate(p, runs, 12, [&](Normal& r) { return p.h1 + sd * r.Next(); });
  ExpectWithinBand(at_h0.h1, runs, p.alpha, "fishtest form, mu = h0, H1 accepted");
  ExpectWithinBand(at_h1.h0, runs, p.beta, "fishtest form, mu = h1, H0 accepted");
}

// Other error rates: alpha 0.1, beta 0.02, another scale.
TEST(SprtTest, ErrorRatesAsymmetric) {
  SprtParams p;
  p.h0 = -1;
  p.h1 = 4;
  p.alpha = 0.1;
  p.beta = 0.02;
  const int runs = 4000;
  const double sd = 30;
  Rates at_h0 = Simulate(p, runs, 3, [&](Normal& r) { return p.h0 + sd * r.Next(); });
  Rates at_h1 = Simulate(p, runs, 4, [&](Normal& r) { return p.h1 + sd * r.Next(); });
  ExpectWithinBand(at_h0.h1, runs, p.alpha, "asymmetric, mu = h0, H1 accepted");
  ExpectWithinBand(at_h1.h0, runs, p.beta, "asymmetric, mu = h1, H0 accepted");
}

// Card-game-like differences: most deals differ little, a few by a whole
// contract (a skewed, heavy-tailed mixture), shifted to the mean wanted. The
// normal model is conservative here (H1 wrongly accepted 3.6% of the time for
// alpha 5%, below the band): the rates must not exceed the band's top.
TEST(SprtTest, ErrorRatesOnHeavyTailedData) {
  SprtParams p;
  p.h0 = 0;
  p.h1 = 3;
  const int runs = 4000;
  auto draw = [](Normal& r, double mu) {
    // 85%: N(0, 4^2); 15%: +-N(30, 10^2) with a slight positive skew; then
    // centred exactly (the mixture's own mean is 0.15 * 30 * (0.55 - 0.45)).
    double x;
    if (r.Uniform() < 0.85) x = 4 * r.Next();
    else x = (r.Uniform() < 0.55 ? 1 : -1) * (30 + 10 * r.Next());
    return mu + x - 0.15 * 30 * 0.1;
  };
  Rates at_h0 = Simulate(p, runs, 5, [&](Normal& r) { return draw(r, p.h0); });
  Rates at_h1 = Simulate(p, runs, 6, [&](Normal& r) { return draw(r, p.h1); });
  std::printf("heavy tails: mean deals %.1f at h0, %.1f at h1\n", at_h0.mean_deals,
              at_h1.mean_deals);
  ExpectWithinBand(at_h0.h1, runs, p.alpha, "heavy tails, mu = h0, H1 accepted", true);
  ExpectWithinBand(at_h1.h0, runs, p.beta, "heavy tails, mu = h1, H0 accepted", true);
}

// A clearly better candidate (mu = 2 h1) is accepted nearly always, and a
// clearly worse one (mu = -h1) is rejected nearly always, in fewer deals.
TEST(SprtTest, PowerFarFromTheHypotheses) {
  SprtParams p;
  p.h0 = 0;
  p.h1 = 3;
  const int runs = 1000;
  Rates good = Simulate(p, runs, 7, [&](Normal& r) { return 6 + 12.6 * r.Next(); });
  Rates bad = Simulate(p, runs, 8, [&](Normal& r) { return -3 + 12.6 * r.Next(); });
  EXPECT_GE(good.h1, runs * 995 / 1000);
  EXPECT_GE(bad.h0, runs * 995 / 1000);
  std::printf("mu = 2 h1: mean deals %.1f; mu = -h1: %.1f\n", good.mean_deals, bad.mean_deals);
}

}  // namespace
}  // namespace tarock
