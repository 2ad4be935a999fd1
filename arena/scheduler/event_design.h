// The final of an event (events.cc): which bots sit together at each table.
// A full round robin of 30 bots in a 4-seat game is 27,405 groups, each
// played in every seating; a final picks far fewer groups, so that every bot
// plays about equally often and every pair of bots meets about equally often
// (a balanced incomplete design, built greedily), with at most one bot of
// each entrant at a table (two entries of one person at a Tarock table could
// play as a team).
//
// Thread-safety: pure functions.

#ifndef TAROCK_ARENA_SCHEDULER_EVENT_DESIGN_H_
#define TAROCK_ARENA_SCHEDULER_EVENT_DESIGN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace tarock::arena {

struct FinalDesignOptions {
  int seats = 4;                 // bots a table
  int appearances_per_bot = 8;   // groups each bot sits in, at least
  int max_groups = 500;          // budget: appearances are cut to fit it
  uint64_t seed = 0;             // breaks ties (the design is public; any bits do)
};

struct FinalDesign {
  std::vector<std::vector<int>> groups;  // indices into the field, `seats` each
  int appearances_per_bot = 0;           // what the budget allowed (<= asked)
};

// A design for a field whose bot i belongs to entrant entrant_of[i] (0: a
// house bot, which is its own entrant). Every bot sits in
// appearances_per_bot groups or one more; at most one bot per entrant in a
// group; the pairs' meetings differ as little as the greedy choice achieves
// (FinalDesignTest measures it). INVALID_ARGUMENT when fewer distinct entrants
// than seats play, or the budget cannot give every bot one group.
absl::StatusOr<FinalDesign> MakeFinalDesign(const std::vector<int64_t>& entrant_of,
                                            const FinalDesignOptions& options);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_EVENT_DESIGN_H_
