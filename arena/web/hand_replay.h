// The match viewer's data for one hand: the engine replays the hand record
// action by action and reports, after each action, what a spectator sees once
// the game is over (every hand face up), so the page never reimplements rules.
//
// JSON: {"report": ReplayReportJson of the end (scores, contract, card points,
// bonuses, penalties...), "num_seats", "dealer", "initial": STEP, "steps": [STEP
// per action]} with STEP = {"seat" (who acted, -1 initially), "action",
// "hidden" (a discard the other seats did not see), "phase", "to_act",
// "hands" (cards per seat), "talon", "trick" (the current trick in play order),
// "trick_leader", "tricks_won", "declarer", "contract", "called_king",
// "trick_done" {"cards", "leader", "winner"} when this action ended a trick}.
//
// Thread-safety: a free function on values; thread-safe.

#ifndef TAROCK_ARENA_WEB_HAND_REPLAY_H_
#define TAROCK_ARENA_WEB_HAND_REPLAY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tarock::arena {

// `hand_record_json`: one hand record (a deal of a match record; extra fields
// are ignored). Errors: INVALID_ARGUMENT when it does not parse or replay.
absl::StatusOr<std::string> HandReplayJson(absl::string_view hand_record_json);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_WEB_HAND_REPLAY_H_
