// The margin rating model: see margin_rating.h for the model, the update and
// the determinism guarantee.
//
// Update() walks the boards in (deal, seat) order; a board's holders live in a
// std::map keyed by bot id, and a bot that holds a board at several tables is
// averaged over its scores sorted by value, so every sum runs in an order
// fixed by the set's content, not by the order of its tables.
//
// Thread-safety: see margin_rating.h.

#include "arena/rating/margin_rating.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tarock::arena {
namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

bool IsFinite(double x) { return std::isfinite(x); }

constexpr double kMaxScore = 1e9;

// One bot's sums over its boards in a set.
struct Acc {
  double residual = 0;   // sum of the board residuals rho
  double margin = 0;     // sum of margins
  int boards = 0;
  std::map<int64_t, double> weight;  // w_ij * n_i: sum of 1 / (k - 1) over shared boards
  std::set<int> deals;
};

}  // namespace

absl::StatusOr<RatingModelKind> ParseRatingModel(const std::string& name) {
  if (name == "place") return RatingModelKind::kPlace;
  if (name == "margin") return RatingModelKind::kMargin;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown rating model '", name, "' (valid: place, margin)"));
}

std::string RatingModelName(RatingModelKind kind) {
  return kind == RatingModelKind::kMargin ? "margin" : "place";
}

MarginRatingModel::MarginRatingModel(MarginRatingOptions options) : options_(options) {
  Require(IsFinite(options_.mu));
  Require(IsFinite(options_.sigma) && options_.sigma > 0);
  Require(IsFinite(options_.tau) && options_.tau >= 0);
  Require(IsFinite(options_.noise_prior) && options_.noise_prior > 0);
  Require(IsFinite(options_.noise_prior_df) && options_.noise_prior_df > 0);
  Require(IsFinite(options_.z) && options_.z > 0);
  Require(!std::isnan(options_.clip) && options_.clip > 0);  // +infinity: no clipping
}

MarginRating MarginRatingModel::Initial() const {
  return MarginRating{options_.mu, options_.sigma, 0};
}

double MarginRatingModel::NoiseSd(const MarginNoise& noise) const {
  const double prior = options_.noise_prior_df * options_.noise_prior * options_.noise_prior;
  return std::sqrt((prior + noise.sum_sq) / (options_.noise_prior_df + noise.residuals));
}

double MarginRatingModel::Low(const MarginRating& r) const { return r.mu - options_.z * r.sigma; }
double MarginRatingModel::High(const MarginRating& r) const { return r.mu + options_.z * r.sigma; }

absl::StatusOr<MarginDifference> MarginRatingModel::HeadToHead(
    const std::vector<MarginRating>& a, const std::vector<MarginRating>& b) const {
  if (a.empty() || b.empty())
    return absl::InvalidArgumentError("a head-to-head comparison needs a bot on each side");
  double mean_a = 0, mean_b = 0, var = 0;
  for (const auto* group : {&a, &b}) {
    const double n = static_cast<double>(group->size());
    double mean = 0;
    for (const MarginRating& r : *group) {
      if (!std::isfinite(r.mu) || !std::isfinite(r.sigma) || r.sigma < 0)
        return absl::InvalidArgumentError("a rating that is not finite");
      mean += r.mu / n;
      var += r.sigma * r.sigma / (n * n);
    }
    (group == &a ? mean_a : mean_b) = mean;
  }
  MarginDifference out;
  out.diff = mean_a - mean_b;
  out.sigma = std::sqrt(var);
  out.low = out.diff - options_.z * out.sigma;
  out.high = out.diff + options_.z * out.sigma;
  return out;
}

bool MarginRatingModel::Separated(const MarginRating& a, const MarginRating& b) const {
  return Low(a) > High(b) || Low(b) > High(a);
}

std::vector<bool> MarginRatingModel::UnseparatedNeighbours(
    const std::vector<MarginRating>& rows) const {
  std::vector<bool> out;
  for (size_t i = 0; i + 1 < rows.size(); ++i) out.push_back(!Separated(rows[i], rows[i + 1]));
  return out;
}

absl::StatusOr<MarginSetUpdate> MarginRatingModel::Update(
    const DuplicateSet& set, const std::map<int64_t, MarginRating>& current,
    const MarginNoise& noise) const {
  // Validation: nothing is booked from a malformed set.
  if (set.tables.empty()) return absl::InvalidArgumentError("a duplicate set needs tables");
  const size_t seats = set.tables[0].bots.size();
  const size_t deals = set.tables[0].scores.size();
  if (seats == 0) return absl::InvalidArgumentError("a duplicate table needs bots");
  for (size_t t = 0; t < set.tables.size(); ++t) {
    const DuplicateTable& table = set.tables[t];
    if (table.bots.size() != seats)
      return absl::InvalidArgumentError(absl::StrCat("table ", t, " has ", table.bots.size(),
                                                     " seats, table 0 has ", seats));
    if (table.scores.size() != deals)
      return absl::InvalidArgumentError(absl::StrCat("table ", t, " has ", table.scores.size(),
                                                     " deals, table 0 has ", deals));
    for (size_t d = 0; d < deals; ++d) {
      if (table.scores[d].size() != seats)
        return absl::InvalidArgumentError(
            absl::StrCat("table ", t, " deal ", d, " has ", table.scores[d].size(), " scores"));
      for (const std::optional<double>& y : table.scores[d])
        if (y && !(IsFinite(*y) && std::fabs(*y) <= kMaxScore))
          return absl::InvalidArgumentError(
              absl::StrCat("table ", t, " deal ", d, ": a score is not finite or beyond 1e9"));
    }
  }
  for (const auto& [bot, r] : current)
    if (!IsFinite(r.mu) || !IsFinite(r.sigma) || r.sigma < 0 || r.deals < 0)
      return absl::InvalidArgumentError(absl::StrCat("bot ", bot, " has a broken rating"));
  if (!IsFinite(noise.sum_sq) || !IsFinite(noise.residuals) || noise.sum_sq < 0 ||
      noise.residuals < 0)
    return absl::InvalidArgumentError("the ladder's noise estimate is broken");

  // Every bot of the set, with its rating before the set.
  std::map<int64_t, MarginRating> before;
  for (const DuplicateTable& table : set.tables)
    for (int64_t bot : table.bots) {
      auto it = current.find(bot);
      before[bot] = it == current.end() ? Initial() : it->second;
    }

  // The boards: per (deal, seat), each distinct holder's mean score.
  struct Board {
    int deal;
    std::map<int64_t, double> y;  // bot -> mean score on this board
  };
  std::vector<Board> boards;
  for (size_t d = 0; d < deals; ++d) {
    for (size_t s = 0; s < seats; ++s) {
      std::map<int64_t, std::vector<double>> held;
      for (const DuplicateTable& table : set.tables)
        if (table.scores[d][s]) held[table.bots[s]].push_back(*table.scores[d][s]);
      if (held.size() < 2) continue;  // nobody to compare with
      Board b;
      b.deal = static_cast<int>(d);
      for (auto& [bot, ys] : held) {
        std::sort(ys.begin(), ys.end());
        double sum = 0;
        for (double y : ys) sum += y;
        b.y[bot] = sum / static_cast<double>(ys.size());
      }
      boards.push_back(std::move(b));
    }
  }

  // Per bot: its residual on each board (the mean over its rivals on the
  // board of the clipped pair residuals), margins, and the weights of the
  // others' skills.
  const double clip = options_.clip;
  std::map<int64_t, Acc> acc;
  MarginNoise after_noise = noise;
  for (const Board& b : boards) {
    const double k = static_cast<double>(b.y.size());
    for (const auto& [bot, y] : b.y) {
      const double mu = before[bot].mu;
      double rho = 0, margin = 0;
      for (const auto& [other, yo] : b.y) {
        if (other == bot) continue;
        const double r = (y - yo) - (mu - before[other].mu);
        rho += std::clamp(r, -clip, clip);
        margin += y - yo;
      }
      rho /= (k - 1);
      margin /= (k - 1);
      Acc& a = acc[bot];
      a.residual += rho;
      a.margin += margin;
      ++a.boards;
      a.deals.insert(b.deal);
      for (const auto& [other, unused] : b.y)
        if (other != bot) a.weight[other] += 1 / (k - 1);
      after_noise.sum_sq += rho * rho;
      after_noise.residuals += 1;
    }
  }
  // The pooled residual variance, this set's residuals included.
  const double noise_sd = NoiseSd(after_noise);
  const double noise_var = noise_sd * noise_sd;

  MarginSetUpdate out;
  out.noise = after_noise;
  out.ratings = before;
  const double tau2 = options_.tau * options_.tau;
  for (const auto& [bot, a] : acc) {
    const MarginRating& r = before[bot];
    const double n = static_cast<double>(a.boards);
    const double s2 = r.sigma * r.sigma + tau2;
    double v = noise_var / n;
    for (const auto& [other, w] : a.weight) {
      const double wn = w / n;
      const double so = before[other].sigma;
      v += wn * wn * so * so;
    }
    const double gain = s2 / (s2 + v);
    MarginRating& next = out.ratings[bot];
    next.mu = r.mu + gain * (a.residual / n);
    next.sigma = std::sqrt(s2 * v / (s2 + v));  // s2 (1 - gain), without the cancellation
    next.deals = r.deals + static_cast<int64_t>(a.deals.size());
    out.set_margin[bot] = a.margin / n;
    out.set_boards[bot] = a.boards;
  }
  return out;
}

}  // namespace tarock::arena
