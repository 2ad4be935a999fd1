// The sequential test behind `tarock compare`: a generalized sequential
// probability ratio test (GSPRT) on a stream of per-deal score differences,
// candidate minus baseline. No I/O, no threads; the command feeds it.
//
// Hypotheses, for the true mean difference per deal mu:
//   H0: mu = h0  ("better by at most h0 points per deal")
//   H1: mu = h1  ("better by at least h1"), h1 > h0.
// Model: the differences are approximately normal with an unknown variance,
// estimated from the data, as fishtest does for its pentanomial model. After n
// deals with mean m and maximum-likelihood variance v = sum (x - m)^2 / n, the
// generalized log-likelihood ratio (each hypothesis with the variance that fits
// it best, s_k^2 = v + (m - h_k)^2) is
//   LLR = (n / 2) * ln((v + (m - h0)^2) / (v + (m - h1)^2))      (kGeneralized)
// and its first-order expansion for (h1 - h0) small against the spread, the
// form fishtest uses,
//   LLR = n * (h1 - h0) * (2 m - h0 - h1) / (2 v)                  (kFishtest).
// The default is the first: on simulated normal data the second, whose plug-in
// variance is too small early on, overshoots (with h0 0, h1 3, standard
// deviation 12.6 and alpha = beta = 0.05 it errs 19% of the time without the
// min_deals floor and 5.8% with 20; the first 5.5% and 4.8%).
// Wald's bounds, for error rates alpha (accepting H1 when H0 holds) and beta
// (accepting H0 when H1 holds):
//   lower = ln(beta / (1 - alpha)),  upper = ln((1 - beta) / alpha).
// After every deal: LLR >= upper accepts H1, LLR <= lower accepts H0; the first
// crossing decides and later deals change nothing. Before `min_deals` deals no
// decision is taken (the variance estimate of a handful of deals is too rough);
// at `max_deals` without a crossing the test is inconclusive.
//
// A zero variance (every difference equal, e.g. a bot against itself with
// deterministic play) is replaced by a tiny one: the LLR then has the sign of
// 2 m - h0 - h1 and a huge size, so equal bots accept H0 at once.
//
// Thread-safety: a value type; not synchronized.

#ifndef TAROCK_REFEREE_TOOLS_COMPARE_SPRT_H_
#define TAROCK_REFEREE_TOOLS_COMPARE_SPRT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace tarock {

enum class LlrForm { kGeneralized, kFishtest };

struct SprtParams {
  double h0 = 0;       // points per deal
  double h1 = 5;       // points per deal, > h0
  double alpha = 0.05;  // in (0, 1)
  double beta = 0.05;   // in (0, 1)
  int64_t min_deals = 20;  // no decision before this many deals
  int64_t max_deals = 0;   // 0: no limit; else inconclusive at this many deals
  LlrForm form = LlrForm::kGeneralized;
};

// INVALID_ARGUMENT naming the offending field, or OK.
absl::Status ValidateSprtParams(const SprtParams& p);

enum class SprtDecision {
  kContinue,      // no bound crossed yet, more deals wanted
  kAcceptH1,      // the candidate is better by at least h1
  kAcceptH0,      // the candidate is better by at most h0
  kInconclusive,  // max_deals reached without a crossing
};

// "continue", "H1", "H0", "inconclusive".
std::string SprtDecisionName(SprtDecision d);

class Sprt {
 public:
  explicit Sprt(const SprtParams& params);  // params must be valid

  // Adds one deal's difference (candidate minus baseline) and returns the
  // decision after it. Once decided, further Adds are ignored and return the
  // same decision.
  SprtDecision Add(double difference);

  SprtDecision decision() const { return decision_; }
  int64_t deals() const { return n_; }   // deals counted (up to the decision)
  double mean() const { return n_ > 0 ? mean_ : 0.0; }
  // Maximum-likelihood variance (divided by n); 0 before two deals.
  double variance() const { return n_ > 1 ? m2_ / static_cast<double>(n_) : 0.0; }
  // Half width of the 95% interval of the mean (1.96 standard errors, with the
  // n - 1 sample variance); infinite before two deals.
  double HalfWidth95() const;
  // The LLR after the deals counted (0 before two deals).
  double llr() const { return llr_; }
  double lower_bound() const { return lower_; }
  double upper_bound() const { return upper_; }
  const SprtParams& params() const { return params_; }

 private:
  double ComputeLlr() const;

  SprtParams params_;
  double lower_, upper_;
  int64_t n_ = 0;
  double mean_ = 0, m2_ = 0;  // Welford
  double llr_ = 0;
  SprtDecision decision_ = SprtDecision::kContinue;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_COMPARE_SPRT_H_
