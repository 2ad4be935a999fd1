// The margin rating model: rates each bot on its duplicate-adjusted score,
// in points a deal, from duplicate sets (the same deals played at several
// tables; arena/scheduler/duplicate_design.h makes them). Beside it,
// rating.h's place-based Weng-Lin / Plackett-Luce model stays an option.
//
// Why this model. Tarock is scored in points, and the luck of the cards is
// most of a hand's score. A duplicate set deals the same cards at several
// tables, so the score of the cards (the "board") cancels when a bot's score
// is compared with the scores of the other bots who held the same cards in
// the same seat. What is left is small and nearly Gaussian per deal, and its
// mean is exactly what a bot author asks ("how many points a deal is my bot
// worth against the field?"), so the rating is kept in those units: a mean
// and a 95% interval in points (chips for tapp-tarock and westfest) a deal,
// relative to the field. A place in a match of a few hands, which the
// place-based model rates, throws most of that information away.
//
// The model. Bot i has a skill theta_i (points a deal above the field); its
// belief is Gaussian N(mu_i, sigma_i^2). A board b = (deal d, seat s) of a set
// is held by the bots at seat s of every table that played deal d; a holder
// scores y = board_b + theta_i + noise. The board's score is unknown, so only
// differences between holders inform. A bot's margin on a board with k >= 2
// distinct holding bots (a bot holding a board at several tables: its mean y)
// is its mean difference to its rivals on the board,
//
//   m_{i,b} = mean_{j in b, j != i} (y_i - y_j) = y_i - mean_{j != i} y_j,
//
// and its residual there is the same mean over clipped pair residuals:
//
//   rho_{i,b} = mean_{j != i} clip((y_i - y_j) - (mu_i - mu_j), -T, T)
//
// T (options.clip, 30 points) caps what one head-to-head comparison on one
// board can say, as bridge's IMP scale compresses big swings. Why: Tarock's
// per-deal differences are heavy-tailed. Beside a random bot, one board in a
// few carries a swing of hundreds of points (a failed Valat, a Kontra chain,
// a partner's disaster) that says nothing about the two bots compared, and an
// unclipped mean drowns the few points a deal that separate two good bots
// (measured with arena/bench/ladder_bench: in slovenian-3p, search against
// heuristic per board has t = 1.4 unclipped and 6.1 winsorized at 20, over
// the same 1,800 boards; docs/ratings.md). Clipping each pair rather than
// each bot's margin keeps a rival's disaster (which moves everybody's margin
// on the board alike) from erasing the difference between the others. The
// price: mu estimates the mean of clipped differences, which equals the mean
// margin for bots whose head-to-head differences stay within +-T and is
// smaller in size for a bot that loses (or wins) by more than T a deal.
//
// One Update() books one whole set, for every bot of the set at once (a
// Jacobi step: every bot's update uses the ratings from before the set, so
// the result does not depend on the order of the bots). For bot i with
// boards B_i (n_i = |B_i| >= 1), k_b holders on board b:
//
//   s_i^2 = sigma_i^2 + tau^2                            (drift: skills change)
//   R_i   = mean_{b in B_i} rho_{i,b}
//   w_ij  = (1 / n_i) * sum_{b in B_i, j in b} 1 / (k_b - 1)
//   V_i   = v / n_i + sum_{j != i} w_ij^2 * sigma_j^2    (noise + the others' uncertainty)
//   K_i   = s_i^2 / (s_i^2 + V_i)
//   mu_i' = mu_i + K_i * R_i
//   sigma_i' = sqrt(s_i^2 * V_i / (s_i^2 + V_i))         (= s_i^2 (1 - K_i))
//
// This is the Kalman (exact Bayesian, for Gaussian residuals) update of
// theta_i from the mean residual of its set, with the other bots' skills
// integrated out at their current beliefs and the beliefs kept independent
// per bot (the "diagonal" approximation of Glicko, TrueSkill and Weng-Lin,
// so a rating stays two numbers per bot). The boards of one bot in a set are
// treated as independent given the skills (different deals, or different
// seats of a deal). A bot with no comparable board in the set (one table, or
// every holder the same bot) keeps its rating unchanged and gets no drift.
//
// The noise v, the variance of one board residual rho, is not a constant to
// guess per variant: its units differ between points and chips, and a wrong
// v makes every interval wrong. It is estimated from the residuals, pooled
// over every set the ladder has booked (MarginNoise, two numbers kept beside
// the ratings), with a weak prior:
//
//   v = (noise_prior_df * noise_prior^2 + sum rho^2) / (noise_prior_df + count)
//
// A set's own residuals are added before the set is rated, so a first set in
// a variant of another scale is not rated with the prior's.

// Reading the numbers. Interval(r) = mu +- z * sigma (z = 1.96: 95%). mu is
// relative to the bots the ladder has compared (margins sum to about 0 over
// a board), so a field's mean is near 0. Two neighbours on the leaderboard
// whose intervals overlap are not separated yet (Separated()); this is more
// cautious than a test of their difference (two equal sigmas just touching
// are separated at about 99.4%, not 95%), and it is what a reader sees.
// deals counts the deals a rating rests on: the deals of the sets in which
// the bot had at least one comparable board.
//
// Determinism (as rating.h): Update() is a pure function, no threads, no
// unordered containers, no randomness. It sorts the boards and the holders
// canonically (deal, seat, bot id) and sums in that order, so the result
// depends on the set and not on the order of its tables, bit for bit. The
// arithmetic is IEEE-754 double with sqrt() only (correctly rounded
// everywhere), built without -ffast-math and without FMA contraction:
// replaying the stored sets in the order they were booked, with the same
// options, reproduces the stored ratings and noise bit for bit.
//
// Thread-safety: MarginRatingModel is immutable after construction; every
// method is const and thread-safe. The structs are plain values.

#ifndef TAROCK_ARENA_RATING_MARGIN_RATING_H_
#define TAROCK_ARENA_RATING_MARGIN_RATING_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tarock::arena {

// One bot's margin rating: points a deal relative to the field.
struct MarginRating {
  double mu = 0;
  double sigma = 0;
  int64_t deals = 0;  // deals this rating rests on
};

// The pooled residual noise of a ladder (see the header comment); starts at
// {0, 0}. Kept (stored) beside the ladder's ratings.
struct MarginNoise {
  double sum_sq = 0;     // sum of rho^2 over every (bot, board) booked
  double residuals = 0;  // how many
};

// How far apart two bots (or two groups of bots) are head to head, in points
// a deal: HeadToHead().
struct MarginDifference {
  double diff = 0;   // mean mu of the first group minus mean mu of the second
  double sigma = 0;  // its sd
  double low = 0;    // diff - z sigma
  double high = 0;   // diff + z sigma
};

struct MarginRatingOptions {
  double mu = 0;                 // a new bot's mean: the field's
  double sigma = 10;             // a new bot's sd, points a deal (wide)
  double tau = 0.05;             // skill drift per set, added to sigma^2 first
  double clip = 30;              // T: a pair residual counts at most +-clip points (> 0; may be +inf)
  double noise_prior = 20;       // prior guess of the sd of a board residual rho, points
  double noise_prior_df = 10;    // its weight, in residuals
  double z = 1.96;               // Interval() = mu +- z * sigma (95%)
};

// One table of a duplicate set: a match of the set's deals with one bot per
// seat. scores[d][s] is seat s's hand score on the set's deal d, as the hand
// scored it (radli doubling included), or nullopt where the seat has none
// (sat the deal out, the deal was not played there). The match-end radl
// settlement is not a hand score and stays out (docs/ratings.md).
struct DuplicateTable {
  std::vector<int64_t> bots;  // per seat
  std::vector<std::vector<std::optional<double>>> scores;  // per deal, per seat
};

// One duplicate set: every table played the same deals (deal d at one table
// is deal d at every other) with the same number of seats.
struct DuplicateSet {
  std::vector<DuplicateTable> tables;
};

// What Update() returns.
struct MarginSetUpdate {
  // The ratings after the set of every bot seated in it (bots without a
  // comparable board keep their rating).
  std::map<int64_t, MarginRating> ratings;
  MarginNoise noise;  // the ladder's noise after the set
  // Per rated bot: its mean margin in this set (points a deal) and its number
  // of boards; for a set's own result row.
  std::map<int64_t, double> set_margin;
  std::map<int64_t, int> set_boards;
};

// A ladder's rating model: "place" (rating.h, today's) or "margin" (this
// file). A ladder switched from one to the other keeps both histories; the
// ratings of one are never recomputed under the other.
enum class RatingModelKind { kPlace, kMargin };

// "place" or "margin", or InvalidArgument naming the valid ones in one line.
absl::StatusOr<RatingModelKind> ParseRatingModel(const std::string& name);
std::string RatingModelName(RatingModelKind kind);

class MarginRatingModel {
 public:
  // Precondition: sigma > 0, tau >= 0, noise_prior > 0, noise_prior_df > 0,
  // z > 0, all finite; clip > 0 (finite or +infinity); aborts otherwise.
  explicit MarginRatingModel(MarginRatingOptions options = {});

  const MarginRatingOptions& options() const { return options_; }

  // A new bot's rating: {options.mu, options.sigma, 0}.
  MarginRating Initial() const;

  // sqrt(v): the sd of one board residual that the pooled estimate gives.
  double NoiseSd(const MarginNoise& noise) const;

  // Books one set. `current` holds the ratings before the set of (at least)
  // the set's bots; a bot missing from it starts at Initial(). InvalidArgument
  // (and nothing booked) when the set is malformed: no tables, a table without
  // bots, tables of different seat counts or deal counts, a deal row of the
  // wrong width, a score that is not finite or beyond +-1e9, a current rating
  // that is not finite or has sigma < 0, or noise that is negative or not
  // finite.
  absl::StatusOr<MarginSetUpdate> Update(const DuplicateSet& set,
                                         const std::map<int64_t, MarginRating>& current,
                                         const MarginNoise& noise) const;

  // [mu - z sigma, mu + z sigma].
  double Low(const MarginRating& r) const;
  double High(const MarginRating& r) const;

  // Whether two ratings' intervals do not overlap.
  bool Separated(const MarginRating& a, const MarginRating& b) const;

  // For a leaderboard in order (best first): out[i] is true when rows i and
  // i + 1 are not separated; out.size() == max(rows.size(), 1) - 1.
  std::vector<bool> UnseparatedNeighbours(const std::vector<MarginRating>& rows) const;

  // How far the bots of `a` are above those of `b` head to head: the mean of
  // a's mu minus the mean of b's, with its 95% interval (diff +- z sigma,
  // sigma^2 = sum_a sigma^2 / |a|^2 + sum_b sigma^2 / |b|^2, the beliefs
  // independent as the model keeps them). A bot's mu is its mean capped
  // difference to the bots that held the same cards, so for two bots the
  // difference of their mus is their mean (capped) head-to-head difference a
  // deal; a group (several processes of one program) averages its bots.
  // InvalidArgument when a group is empty or a rating is not finite.
  absl::StatusOr<MarginDifference> HeadToHead(const std::vector<MarginRating>& a,
                                              const std::vector<MarginRating>& b) const;

 private:
  MarginRatingOptions options_;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_RATING_MARGIN_RATING_H_
