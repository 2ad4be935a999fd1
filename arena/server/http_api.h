// The arena's JSON HTTP API (for the web page that comes later) and /metrics:
//   GET /api/leaderboard?variant=V     the ratings of a variant, best first
//   GET /api/matches[?variant=V&bot=B&limit=N]   newest first
//   GET /api/matches/{id}              one match, with its record as JSON
//   GET /api/bots, /api/bots/{name}    bots (with ratings and history)
//   GET /api/status                    queue, referees, counts
//   GET /metrics                       Prometheus text format
// Bodies are protobuf's JSON mapping of the arena.proto messages (field names
// as in the proto). Errors: {"error": "..."} with 400, 403, 404 or 500.
//
// Thread-safety: handlers are thread-safe (the scheduler is).

#ifndef TAROCK_ARENA_SERVER_HTTP_API_H_
#define TAROCK_ARENA_SERVER_HTTP_API_H_

#include "arena/scheduler/scheduler.h"
#include "referee/metrics/http_server.h"

namespace tarock::arena {

void RegisterHttpApi(Scheduler* scheduler, const metrics::Registry* registry,
                     metrics::HttpServer* server);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_HTTP_API_H_
