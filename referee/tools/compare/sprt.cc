#include "referee/tools/compare/sprt.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace tarock {

absl::Status ValidateSprtParams(const SprtParams& p) {
  if (!std::isfinite(p.h0) || !std::isfinite(p.h1) || !(p.h1 > p.h0))
    return absl::InvalidArgumentError(
        absl::StrCat("--h1 must be greater than --h0 (got h0 ", p.h0, ", h1 ", p.h1, ")"));
  if (!(p.alpha > 0 && p.alpha < 1))
    return absl::InvalidArgumentError(absl::StrCat("--alpha must be in (0, 1), got ", p.alpha));
  if (!(p.beta > 0 && p.beta < 1))
    return absl::InvalidArgumentError(absl::StrCat("--beta must be in (0, 1), got ", p.beta));
  if (p.min_deals < 2)
    return absl::InvalidArgumentError(absl::StrCat("min_deals must be at least 2, got ", p.min_deals));
  if (p.max_deals < 0)
    return absl::InvalidArgumentError(absl::StrCat("--max_deals must be >= 0, got ", p.max_deals));
  return absl::OkStatus();
}

std::string SprtDecisionName(SprtDecision d) {
  switch (d) {
    case SprtDecision::kContinue: return "continue";
    case SprtDecision::kAcceptH1: return "H1";
    case SprtDecision::kAcceptH0: return "H0";
    case SprtDecision::kInconclusive: return "inconclusive";
  }
  return "?";
}

Sprt::Sprt(const SprtParams& params)
    : params_(params),
      lower_(std::log(params.beta / (1 - params.alpha))),
      upper_(std::log((1 - params.beta) / params.alpha)) {}

double Sprt::HalfWidth95() const {
  if (n_ < 2) return std::numeric_limits<double>::infinity();
  const double sample_var = m2_ / static_cast<double>(n_ - 1);
  return 1.96 * std::sqrt(sample_var / static_cast<double>(n_));
}

double Sprt::ComputeLlr() const {
  if (n_ < 2) return 0.0;
  const double h0 = params_.h0, h1 = params_.h1;
  const double n = static_cast<double>(n_);
  // A zero variance (all differences equal) gets a floor far below any real
  // score variance, relative to the scale of the hypotheses (points or chips).
  const double var = std::max(variance(), 1e-9 * (h1 - h0) * (h1 - h0));
  if (params_.form == LlrForm::kFishtest)
    return n * (h1 - h0) * (2 * mean_ - h0 - h1) / (2 * var);
  const double d0 = mean_ - h0, d1 = mean_ - h1;
  return 0.5 * n * std::log((var + d0 * d0) / (var + d1 * d1));
}

SprtDecision Sprt::Add(double difference) {
  if (decision_ != SprtDecision::kContinue) return decision_;
  ++n_;
  const double delta = difference - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (difference - mean_);
  llr_ = ComputeLlr();
  if (n_ >= params_.min_deals) {
    if (llr_ >= upper_) decision_ = SprtDecision::kAcceptH1;
    else if (llr_ <= lower_) decision_ = SprtDecision::kAcceptH0;
  }
  if (decision_ == SprtDecision::kContinue && params_.max_deals > 0 && n_ >= params_.max_deals)
    decision_ = SprtDecision::kInconclusive;
  return decision_;
}

}  // namespace tarock
