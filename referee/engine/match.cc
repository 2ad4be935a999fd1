#include "referee/engine/match.h"

#include "absl/strings/str_cat.h"
#include "referee/engine/deal_seed.h"
#include "referee/engine/random.h"

namespace tarock {

MatchProgress::MatchProgress(const Game& game, const MatchOptions& options)
    : game_(&game),
      options_(options),
      num_seats_(game.num_seats()),
      radli_(game.num_seats(), 0),
      sums_(game.num_seats(), 0) {}

absl::StatusOr<MatchProgress> MatchProgress::Start(const Game& game, const MatchOptions& options) {
  const int n = game.num_seats();
  if (options.num_hands <= 0 || options.num_hands % n != 0)
    return absl::InvalidArgumentError(absl::StrCat("a match of ", game.info().name, " needs a positive multiple of ",
                                                   n, " hands (every seat deals equally), not ",
                                                   options.num_hands));
  if (options.max_redeals <= 0)
    return absl::InvalidArgumentError("max_redeals must be positive");
  if (options.first_dealer < 0 || options.first_dealer >= n)
    return absl::InvalidArgumentError(absl::StrCat("first dealer ", options.first_dealer, " is not a seat"));
  return MatchProgress(game, options);
}

MatchProgress::NextHand MatchProgress::Next() const {
  NextHand h;
  h.hand_index = hand_index_;
  h.seed = DealSeed(options_.seed, options_.salt, hand_index_, attempt_);
  h.setup.dealer = (options_.first_dealer + hand_index_) % num_seats_;
  h.setup.forced_klop = forced_klop_next_;
  bool any = false;
  for (int r : radli_) any |= r != 0;
  if (any) h.setup.radli = radli_;
  h.deal = game_->DealCards(h.seed, h.setup.dealer);
  return h;
}

absl::Status MatchProgress::Record(const HandResult& result) {
  if (Finished()) return absl::FailedPreconditionError("the match is over");
  if (static_cast<int>(result.scores.size()) != num_seats_ ||
      static_cast<int>(result.radli.size()) != num_seats_)
    return absl::InvalidArgumentError("a hand result must have a score and radli for every seat");
  if (result.redeal) ++redeals_total_;
  if (result.redeal && !result.counts_as_hand) {
    forced_klop_next_ = result.next_forced_klop;
    if (++attempt_ >= options_.max_redeals)
      ended_early_ = absl::StrCat(attempt_, " void deals in a row (the limit is ",
                                  options_.max_redeals, ")");
    return absl::OkStatus();
  }
  bool zero = false;
  for (int s = 0; s < num_seats_; ++s) {
    sums_[s] += result.scores[s];
    radli_[s] = result.radli[s];
    // 003 §4.2.1: a player whose total comes to exactly 0 forces a Klop.
    zero |= result.scores[s] != 0 && sums_[s] == 0;
  }
  forced_klop_next_ = result.next_forced_klop || (game_->info().zero_total_forces_klop && zero);
  attempt_ = 0;
  ++hand_index_;
  return absl::OkStatus();
}

std::vector<int64_t> MatchProgress::Totals() const {
  std::vector<int64_t> t = sums_;
  if (Finished())
    for (int s = 0; s < num_seats_; ++s) t[s] -= int64_t{game_->info().radl_penalty} * radli_[s];
  return t;
}

std::vector<int64_t> MatchProgress::Accounts() const {
  std::vector<int64_t> a = Totals();
  for (int64_t& v : a) v += game_->info().starting_account;
  return a;
}

std::vector<int64_t> MatchProgress::Borrowed() const {
  std::vector<int64_t> b = Accounts();
  for (int64_t& v : b) v = v < 0 ? -v : 0;
  return b;
}

}  // namespace tarock
