// Playing bots against each other in one process, without gRPC: the same
// messages a referee would send (MatchStart, HandStart, DecisionRequest,
// HandResult, MatchResult) go straight to each seat's BotSession. For bot
// authors' own tests and for fast strength measurements; the real referee
// (referee/core) adds time control and fault handling on top of the same flow.
//
// Thread-safety: not thread-safe; one LocalMatch per thread.

#ifndef TAROCK_SDK_LOCAL_PLAY_H_
#define TAROCK_SDK_LOCAL_PLAY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/engine/game.h"
#include "referee/engine/record.h"
#include "tarock/sdk/bot.h"

namespace tarock::sdk {

struct LocalMatchResult {
  std::vector<int64_t> totals;                 // per seat
  std::vector<std::vector<int>> hand_scores;   // per hand of the match (thrown-in deals included, deals dealt again not), per seat
  std::vector<HandRecord> records;             // per hand, void deals included
  int64_t decisions = 0;
};

// Plays a match of `num_hands` hands from `seed` with one bot per seat (seat
// order). An action that is not legal fails the match with an error that names
// the seat, the action and the state (the point is to find bot bugs early).
absl::StatusOr<LocalMatchResult> PlayLocalMatch(const std::string& variant,
                                                const Options& options,
                                                std::vector<std::unique_ptr<Bot>> bots,
                                                int num_hands, uint64_t seed,
                                                int first_dealer = 0);

}  // namespace tarock::sdk

#endif  // TAROCK_SDK_LOCAL_PLAY_H_
