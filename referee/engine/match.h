// The bookkeeping of a match between hands: who deals, which seed deals each
// hand, radli carried from hand to hand, void deals, the running totals, and
// the match-level rules of the variant (VariantInfo::radl_penalty,
// zero_total_forces_klop).
//
// Void deals come in two kinds (HandResult::counts_as_hand):
//  - thrown in by the players' bids (tapp-tarock-classic, all pass): one of the
//    match's hands, every seat scores 0, the deal passes on, and the next hand
//    uses the next deal. Deal i of a match is then the same cards at every
//    table of a duplicate set, whatever the bots at another table chose.
//  - voided by chance (a Slovenian hand without tarocks), or thrown in under
//    the option thrown_in=redeal: dealt again by the same dealer under the
//    same hand index. After MatchOptions::max_redeals such deals in a row the
//    match ends early, normally, with the totals so far (ended_early()).
//
// Seeds: attempt k of hand i (k void deals before it) is dealt from
// DealSeed(seed, salt, i, k) (deal_seed.h: a keyed PRF of the match's secret,
// so one hand's seed or cards say nothing of another's). The dealer of hand i
// is (first_dealer + i) mod the number of seats.
//
// Thread-safety: a plain value; not thread-safe.

#ifndef TAROCK_REFEREE_ENGINE_MATCH_H_
#define TAROCK_REFEREE_ENGINE_MATCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "referee/engine/game.h"

namespace tarock {

struct MatchOptions {
  int num_hands = 0;       // must be a positive multiple of the number of seats
  uint64_t seed = 0;
  // With `seed`, the key of the deals (deal_seed.h); the arena's is 128
  // random bits in 32 hex digits, local tools leave it empty.
  std::string salt = {};
  int first_dealer = 0;
  // Void deals dealt again in a row after which the match ends early (with the
  // totals so far). By chance alone (no tarocks) this never happens; with bots
  // that pass every deal under thrown_in=redeal it bounds the match.
  int max_redeals = 100;
};

class MatchProgress {
 public:
  // Fails on a number of hands that is not a positive multiple of the seats.
  static absl::StatusOr<MatchProgress> Start(const Game& game, const MatchOptions& options);

  // True when every hand is played or the match ended early.
  bool Finished() const { return hand_index_ == options_.num_hands || !ended_early_.empty(); }
  // Empty, or why the match ended before its last hand ("100 void deals in a row").
  const std::string& ended_early() const { return ended_early_; }
  int hand_index() const { return hand_index_; }  // the hand to play next

  struct NextHand {
    int hand_index = 0;
    uint64_t seed = 0;
    Deal deal;
    HandSetup setup;
  };
  // The next hand to play. Precondition: !Finished().
  NextHand Next() const;

  // Books the result of the hand from Next(). A void deal (result.redeal) that
  // does not count as a hand keeps the hand index and the dealer and deals
  // again (with a forced Klop when the result says so); the max_redeals-th in a
  // row ends the match early. Fails only on a malformed result or after the end.
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
  std::string ended_early_;
  bool forced_klop_next_ = false;
  std::vector<int> radli_;
  std::vector<int64_t> sums_;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_MATCH_H_
