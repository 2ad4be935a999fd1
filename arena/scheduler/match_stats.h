// What the web pages show per bot and is cheapest to know when a match is
// committed: each seat's hands on the declarer's side and as defender (with
// wins and summed scores), its decisions and their summed time, and its faults
// by kind. The declarer of each hand comes from replaying the hand record with
// the engine (the record has the deal and the actions; the result says who
// declared and who partnered). Klop, void deals and hands without a declarer
// count as neither.
//
// Thread-safety: a free function on values; thread-safe.

#ifndef TAROCK_ARENA_SCHEDULER_MATCH_STATS_H_
#define TAROCK_ARENA_SCHEDULER_MATCH_STATS_H_

#include "arena/store/store.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock::arena {

// Fills the declarer, defender, decision and fault fields of result->seats
// from the finished match (its record and seat summaries). A hand that does not
// replay is left out.
void AddSeatStats(const v1::MatchFinished& finished, MatchResultRow* result);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_MATCH_STATS_H_
