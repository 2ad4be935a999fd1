// How `tarock-arena-cli leaderboard` prints a leaderboard: the table, and
// (margin ladders) how far apart the bots are head to head: each entry's
// difference to the next with its 95% interval (LeaderboardEntry.vs_next),
// and with --compare A,B one line for two groups of bots ("search is +1.38
// points a deal above heuristic head to head (95% interval [...])"; issue 47).
//
// Thread-safety: pure functions of their arguments; thread-safe.
#ifndef TAROCK_ARENA_CLI_LEADERBOARD_PRINT_H_
#define TAROCK_ARENA_CLI_LEADERBOARD_PRINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "tarock/v1/arena.pb.h"

namespace tarock::arena {

// The leaderboard as the CLI prints it (one line a row, a header first).
std::string FormatLeaderboard(const v1::LeaderboardResponse& board);

// Whether `bot` belongs to the group named `group`: its name is the group's,
// or starts with it and a '-' (search, search-b, search-c are "search").
bool InGroup(const std::string& bot, const std::string& group);

// One line saying how far the bots of group `a` are above those of group `b`
// head to head under the margin model (MarginRatingModel::HeadToHead on the
// entries' mu and sigma), in the board's unit, with the 95% interval and
// whether that separates them. A bot in both groups counts for the one with
// the longer name. FailedPrecondition when the board is not a margin board or
// a group has no rated bot on it (the line cannot be said yet).
absl::StatusOr<std::string> HeadToHeadLine(const v1::LeaderboardResponse& board,
                                           const std::string& a, const std::string& b);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_CLI_LEADERBOARD_PRINT_H_
