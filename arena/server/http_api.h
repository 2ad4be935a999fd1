// The arena's JSON HTTP API (read by the web pages, arena/web) and /metrics:
//   GET /api/leaderboard?variant=V     the ratings of a variant, best first, with trends
//   GET /api/matches[?variant=V&bot=B&kind=K&ladder=ID&tournament=ID&status=S
//                    &limit=N&offset=N]  newest first, with the total that pass the filters
//   GET /api/matches/{id}              one match, with its record as JSON
//   GET /api/matches/{id}/hands/{k}/replay   hand k replayed step by step (hand_replay.h)
//   GET /api/bots, /api/bots/{name}    bots (with ratings and history)
//   GET /api/bots/{name}/stats         per variant, declarer/defender, decisions, faults
//   GET /api/tournaments[?limit=N], /api/tournaments/{id}   list; standings
//   GET /api/ladders                   every ladder
//   GET /api/status                    queue, referees, counts, matches per minute, variants
//   GET /api/live                     server-sent events: "running" (the matches being
//                                      played), then "started" and "finished" (live_hub.h)
//   GET /api/live/matches/{id}         server-sent events of a running match's public
//                                      view: "match", "hand", "action", "hand_end", "end"
//   GET /metrics                       Prometheus text format: `registry` and process_*
//   (hosted bots' versions, faults and standard error: hosting_http.h)
// Bodies are protobuf's JSON mapping of the arena.proto messages (field names
// as in the proto). Errors: {"error": "..."} with the status of http_json.h.
//
// Thread-safety: handlers are thread-safe (the scheduler is).

#ifndef TAROCK_ARENA_SERVER_HTTP_API_H_
#define TAROCK_ARENA_SERVER_HTTP_API_H_

#include "arena/scheduler/scheduler.h"
#include "referee/metrics/http_server.h"

namespace tarock::arena {

void RegisterHttpApi(Scheduler* scheduler, const prometheus::Registry* registry,
                     metrics::HttpServer* server);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_HTTP_API_H_
