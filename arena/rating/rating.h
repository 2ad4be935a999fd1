// The arena's rating model: a Bayesian multiplayer skill rating, the
// Weng-Lin Bayesian approximation with the Plackett-Luce ranking model
// (R. C. Weng and C.-J. Lin, "A Bayesian Approximation Method for Online
// Ranking", JMLR 12 (2011) 267-300, Algorithm 4), with the defaults, the
// dynamics (tau) and the default gamma of OpenSkill's PlackettLuce model
// (openskill.py >= 5, openskill.js 5). Every seat is its own team: a Tarock
// match is scored per seat, and partnerships change from hand to hand.
//
// A player's skill is a Gaussian N(mu, sigma^2); it performs at
// N(skill, beta^2). One Update() books one whole match. For players
// i = 1..k with ranks r(i) (smaller is better), in the order of Update():
//
//   s_i^2   = sigma_i^2 + tau^2                      (dynamics: skills drift)
//   c       = sqrt(sum_i (s_i^2 + beta^2))
//   C_q     = {i : r(i) >= r(q)}                     (q and everyone below q)
//   A_q     = |{i : r(i) == r(q)}|                   (the size of q's tie)
//   p_{i,q} = exp(mu_i / c) / sum_{j in C_q} exp(mu_j / c)
//   Omega_i = s_i^2 / c   * sum_{q : r(q) <= r(i)} ([i == q] - p_{i,q}) / A_q
//   Delta_i = gamma_i * s_i^2 / c^2 * sum_{q : r(q) <= r(i)} p_{i,q} (1 - p_{i,q}) / A_q
//   gamma_i = s_i / c                                (OpenSkill's default gamma)
//   mu_i'   = mu_i + Omega_i
//   sigma_i'= s_i * sqrt(max(1 - Delta_i, kappa))
//
// "[i == q]" is 1 for q = i and 0 otherwise. The sums (the gradient of the
// Plackett-Luce log-likelihood) add up to 0 over the players, so among
// players of equal sigma a match moves mu from losers to winners and creates
// none; a less certain player moves further. Players who tie split the
// Plackett-Luce term of their tie evenly (the 1/A_q), so equal players who all
// tie keep their mu exactly.
//
// Defaults (RatingOptions), OpenSkill's: mu = 25, sigma = 25/3, beta = 25/6
// (half the initial sigma), kappa = 1e-4, tau = 25/300 (openskill >= 5 applies
// it on every rate() call; limit_sigma off). tau keeps sigma from collapsing
// over a long ladder, so ratings still follow a bot that improves (or a new
// build behind the same name); without it sigma, and with it every later
// rating change, would shrink towards 0 match after match. With the defaults,
// sigma settles where the tau^2 a match adds equals what the match removes.
//
// The sigma floor: kappa bounds the shrink factor of one match, so
// sigma' >= sqrt(kappa) * sqrt(sigma^2 + tau^2) >= sqrt(kappa) * tau > 0;
// sigma never reaches 0, never goes negative and never becomes NaN. (For up
// to 5 single-player teams Delta_i < 1 always, so the clamp only bites with
// more players or a kappa raised well above the default.)
//
// Display(r) = mu - display_k * sigma (OpenSkill's "ordinal", z = 3): a
// conservative rating, the skill the player exceeds with ~99.9% confidence.
// It starts at 0 with the defaults and rises as sigma shrinks.
//
// Quality(players) is TrueSkill's match quality (R. Herbrich, T. Minka and
// T. Graepel, "TrueSkill(TM): A Bayesian Skill Rating System", NIPS 2006):
// the probability density that every performance is equal (a k-way draw),
// relative to that density for a field of equal, exactly known skills. In
// closed form for one-player teams, with d_i = beta^2 + sigma_i^2 and
// w_i = 1 / d_i:
//
//   Quality = sqrt(k * beta^(2(k-1)) / (prod_i d_i * sum_i w_i))
//             * exp(-1/2 * sum_i w_i (mu_i - mu_w)^2),  mu_w = sum_i w_i mu_i / sum_i w_i
//
// (for k = 2 it is TrueSkill's sqrt(2 beta^2 / (2 beta^2 + sigma_1^2 +
// sigma_2^2)) exp(-(mu_1 - mu_2)^2 / (2 (2 beta^2 + sigma_1^2 + sigma_2^2)))).
// It lies in (0, 1]; 1 only for equal mu and sigma = 0. Higher is a closer,
// better-known match: a matchmaker compares candidate tables of the same size
// by it (its scale shrinks with k, so compare like with like). It falls both
// with the spread of mu and with sigma; a matchmaker that wants to place new
// players quickly can weigh sigma separately.
//
// Determinism: Update(), Quality() and RanksFromTotals() are pure functions,
// no threads, no unordered containers, no randomness. Update() first sorts the
// players by (rank, mu, sigma) and sums in that order, so its result for each
// player depends on the multiset of (rating, rank) pairs and not on the order
// they come in, bit for bit; Quality() likewise. The arithmetic is IEEE-754
// double with exp() and sqrt() from the C library, built without -ffast-math
// and in ISO mode (no FMA contraction): rebuilding the ratings by replaying
// the stored match results in the same order, with the same options, reproduces
// the stored ratings bit for bit on the same platform and C library (exp() is
// not correctly rounded everywhere, so another libm may differ in the last
// bits).
//
// Thread-safety: RatingModel is immutable after construction; every method is
// const and thread-safe. Rating and RatingOptions are plain values.

#ifndef TAROCK_ARENA_RATING_RATING_H_
#define TAROCK_ARENA_RATING_RATING_H_

#include <cstdint>
#include <vector>

namespace tarock::arena {

struct Rating {
  double mu = 0;
  double sigma = 0;
};

struct RatingOptions {
  double mu = 25;              // the initial mean
  double sigma = 25.0 / 3;     // the initial standard deviation
  double beta = 25.0 / 6;      // performance noise around skill, per match
  double kappa = 1e-4;         // floor of the per-match variance shrink factor
  double tau = 25.0 / 300;     // skill drift per match, added to sigma^2 first
  double display_k = 3;        // Display() = mu - display_k * sigma
};

class RatingModel {
 public:
  // Precondition: sigma > 0, beta > 0, 0 < kappa <= 1, tau >= 0, all finite;
  // aborts otherwise.
  explicit RatingModel(RatingOptions options = {});

  const RatingOptions& options() const { return options_; }

  // A new player's rating: {options.mu, options.sigma}.
  Rating Initial() const;

  // Books one match. players[i] is a seat's rating before the match and
  // ranks[i] its place (0 = best; equal ranks tie; only the order of the
  // values matters, so {0, 0, 2} and {0, 0, 1} are the same result). Returns
  // the ratings after the match, in the same order.
  // Precondition: players.size() == ranks.size() >= 2, every mu finite and
  // every sigma finite and >= 0; aborts otherwise.
  std::vector<Rating> Update(const std::vector<Rating>& players,
                             const std::vector<int>& ranks) const;

  // The conservative display rating: mu - display_k * sigma.
  double Display(const Rating& r) const;

  // TrueSkill's match quality of a table of these players (see above), in
  // (0, 1]; higher is a closer match. Does not apply tau.
  // Precondition: players.size() >= 2, finite mu and sigma >= 0; aborts
  // otherwise.
  double Quality(const std::vector<Rating>& players) const;

 private:
  RatingOptions options_;
};

// Ranks from match totals: a higher total ranks better, equal totals tie, and
// a forfeited player ranks below every player who did not forfeit (forfeited
// players rank among themselves by total). A rank is the number of players
// strictly ahead ("1224" competition ranking from 0): totals {30, 10, 30, -5}
// give {0, 2, 0, 3}.
// Precondition: totals.size() == forfeited.size(); aborts otherwise.
std::vector<int> RanksFromTotals(const std::vector<int64_t>& totals,
                                 const std::vector<bool>& forfeited);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_RATING_RATING_H_
