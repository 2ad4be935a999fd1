// The bookkeeping of a match between hands: who deals, which seed deals each
// hand, radli carried from hand to hand, void deals dealt again by the same
// dealer with a forced Klop next, the running totals, and the match-level rules
// of the variant (VariantInfo::radl_penalty, zero_total_forces_klop).
//
// Seeds: attempt k of hand i is dealt from HandSeed(seed, i) when k = 0, and
// from HandSeed(HandSeed(seed, i), k) after k void deals. The dealer of hand i
// is (first_dealer + i) mod the number of seats.
//
// Thread-safety: a plain value; not thread-safe.

#ifndef TAROCK_REFEREE_ENGINE_MATCH_H_
#define TAROCK_REFEREE_ENGINE_MATCH_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "referee/engine/game.h"

namespace tarock {

struct MatchOptions {
  int num_hands = 0;       // must be a positive multiple of the number of seats
  uint64_t seed = 0;
  int first_dealer = 0;
  int max_redeals = 1000;  // void deals in a row before the match gives up
};

class MatchProgress {
 public:
  // Fails on a number of hands that is not a positive multiple of the seats.
  static absl::StatusOr<MatchProgress> Start(const Game& game, const MatchOptions& options);

  bool Finished() const { return hand_index_ == options_.num_hands; }
  int hand_index() const { return hand_index_; }  // the hand to play next

  struct NextHand {
    int hand_index = 0;
    uint64_t seed = 0;
    Deal deal;
    HandSetup setup;
  };
  // The next hand to play. Precondition: !Finished().
  NextHand Next() const;

  // Books the result of the hand from Next(). A void deal (result.redeal) keeps
  // the hand index and the dealer and deals again with a forced Klop.
  absl::Status Record(const HandResult& result);

  // Per seat: the sum of the hand scores, and at the end of the match the radl
  // penalty for every radl left.
  std::vector<int64_t> Totals() const;
  // Per seat: VariantInfo::starting_account plus Totals() (004: chip accounts
  // start at 100). A negative account is what the seat has borrowed from the bank
  // and must pay back.
  std::vector<int64_t> Accounts() const;
  // Per seat: the chips borrowed from the bank now, max(0, -account).
  std::vector<int64_t> Borrowed() const;
  const std::vector<int>& radli() const { return radli_; }
  int redeals() const { return redeals_total_; }

 private:
  MatchProgress(const Game& game, const MatchOptions& options);

  const Game* game_;
  MatchOptions options_;
  int num_seats_;
  int hand_index_ = 0;
  int attempt_ = 0;  // void deals so far in this hand
  int redeals_total_ = 0;
  bool forced_klop_next_ = false;
  std::vector<int> radli_;
  std::vector<int64_t> sums_;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_MATCH_H_
