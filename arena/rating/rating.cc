// The Weng-Lin / Plackett-Luce rating model: see rating.h for the formulas,
// the defaults and the determinism guarantee.
//
// Update() works on the players sorted by (rank, mu, sigma), one tie group
// (players of equal rank) at a time. Within a group g every q shares C_q and
// A_q = |g|, so the per-q sums of rating.h collapse per group: with
// p_{i,g} = exp(mu_i / c) / S_g and S_g = sum_{j in C_g} exp(mu_j / c),
//
//   sum_{q : r(q) <= r(i)} ([i == q] - p_{i,q}) / A_q
//       = 1 / |g(i)| - sum_{g : r(g) <= r(i)} p_{i,g}
//   sum_{q : r(q) <= r(i)} p_{i,q} (1 - p_{i,q}) / A_q
//       = sum_{g : r(g) <= r(i)} p_{i,g} (1 - p_{i,g})
//
// which is the same value, fewer roundings, and exact cancellation when equal
// players all tie (p = 1/|g| exactly, see below). exp() takes
// (mu_i - max_j mu_j) / c: the quotients p are unchanged (a common factor),
// every exponent is <= 0, and equal mus give exp(0) = 1 exactly.
//
// Thread-safety: see rating.h.

#include "arena/rating/rating.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace tarock::arena {
namespace {

// A broken precondition is a programming error in the caller.
void Require(bool condition) {
  if (!condition) std::abort();
}

bool IsFinite(double x) { return std::isfinite(x); }

void RequireRating(const Rating& r) {
  Require(IsFinite(r.mu) && IsFinite(r.sigma) && r.sigma >= 0);
}

}  // namespace

RatingModel::RatingModel(RatingOptions options) : options_(options) {
  Require(IsFinite(options_.mu));
  Require(IsFinite(options_.sigma) && options_.sigma > 0);
  Require(IsFinite(options_.beta) && options_.beta > 0);
  Require(IsFinite(options_.kappa) && options_.kappa > 0 && options_.kappa <= 1);
  Require(IsFinite(options_.tau) && options_.tau >= 0);
  Require(IsFinite(options_.display_k));
}

Rating RatingModel::Initial() const { return Rating{options_.mu, options_.sigma}; }

double RatingModel::Display(const Rating& r) const {
  return r.mu - options_.display_k * r.sigma;
}

std::vector<Rating> RatingModel::Update(const std::vector<Rating>& players,
                                        const std::vector<int>& ranks) const {
  const size_t n = players.size();
  Require(n >= 2 && ranks.size() == n);
  for (const Rating& r : players) RequireRating(r);

  // A canonical order: the result does not depend on the input order. Players
  // equal in (rank, mu, sigma) are interchangeable, so std::sort's order
  // among them does not matter either.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (ranks[a] != ranks[b]) return ranks[a] < ranks[b];
    if (players[a].mu != players[b].mu) return players[a].mu < players[b].mu;
    return players[a].sigma < players[b].sigma;
  });

  const double beta2 = options_.beta * options_.beta;
  const double tau2 = options_.tau * options_.tau;

  // Per sorted position: the variance after the dynamics, and c.
  std::vector<double> s2(n);
  double c2 = 0;
  double max_mu = players[order[0]].mu;
  for (size_t k = 0; k < n; ++k) {
    const Rating& r = players[order[k]];
    s2[k] = r.sigma * r.sigma + tau2;
    c2 += s2[k] + beta2;
    max_mu = std::max(max_mu, r.mu);
  }
  const double c = std::sqrt(c2);

  std::vector<double> e(n);
  for (size_t k = 0; k < n; ++k) e[k] = std::exp((players[order[k]].mu - max_mu) / c);

  // Tie groups in sorted order: group g covers positions [start[g], start[g + 1]).
  // S[g] sums e over every position from start[g] on (C_g), back to front.
  std::vector<size_t> start;
  std::vector<size_t> group_of(n);
  for (size_t k = 0; k < n; ++k) {
    if (k == 0 || ranks[order[k]] != ranks[order[k - 1]]) start.push_back(k);
    group_of[k] = start.size() - 1;
  }
  start.push_back(n);
  std::vector<double> suffix(n + 1, 0.0);
  for (size_t k = n; k-- > 0;) suffix[k] = suffix[k + 1] + e[k];

  std::vector<Rating> result(n);
  for (size_t k = 0; k < n; ++k) {
    const size_t gi = group_of[k];
    double omega = 1.0 / static_cast<double>(start[gi + 1] - start[gi]);
    double delta = 0;
    for (size_t g = 0; g <= gi; ++g) {
      const double p = e[k] / suffix[start[g]];
      omega -= p;
      delta += p * (1 - p);
    }
    const double s = std::sqrt(s2[k]);
    omega *= s2[k] / c;
    delta *= (s2[k] / c2) * (s / c);  // gamma_i = s_i / c
    const Rating& before = players[order[k]];
    result[order[k]] = Rating{before.mu + omega,
                              s * std::sqrt(std::max(1 - delta, options_.kappa))};
  }
  return result;
}

double RatingModel::Quality(const std::vector<Rating>& players) const {
  const size_t n = players.size();
  Require(n >= 2);
  for (const Rating& r : players) RequireRating(r);
  std::vector<Rating> sorted = players;
  std::sort(sorted.begin(), sorted.end(), [](const Rating& a, const Rating& b) {
    if (a.mu != b.mu) return a.mu < b.mu;
    return a.sigma < b.sigma;
  });

  const double beta2 = options_.beta * options_.beta;
  double sum_w = 0;
  double sum_wmu = 0;
  double sum_log_d = 0;
  for (const Rating& r : sorted) {
    const double d = beta2 + r.sigma * r.sigma;
    sum_w += 1 / d;
    sum_wmu += r.mu / d;
    sum_log_d += std::log(d);
  }
  const double mean = sum_wmu / sum_w;
  double spread = 0;  // sum_i w_i (mu_i - mean)^2
  for (const Rating& r : sorted) {
    const double dev = r.mu - mean;
    spread += dev * dev / (beta2 + r.sigma * r.sigma);
  }
  const double k = static_cast<double>(n);
  const double log_det_ratio =
      std::log(k) + (k - 1) * std::log(beta2) - sum_log_d - std::log(sum_w);
  return std::min(1.0, std::exp(0.5 * log_det_ratio - 0.5 * spread));
}

std::vector<int> RanksFromTotals(const std::vector<int64_t>& totals,
                                 const std::vector<bool>& forfeited) {
  const size_t n = totals.size();
  Require(forfeited.size() == n);
  // a is strictly ahead of b.
  auto ahead = [&](size_t a, size_t b) {
    if (forfeited[a] != forfeited[b]) return !forfeited[a];
    return totals[a] > totals[b];
  };
  std::vector<int> ranks(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (ahead(j, i)) ++ranks[i];
    }
  }
  return ranks;
}

}  // namespace tarock::arena
