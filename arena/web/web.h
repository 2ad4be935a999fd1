// The arena's web pages on its HTTP listener (beside the JSON API):
//   /                         home (the app shell; app.js renders every page)
//   /leaderboard[/VARIANT]    leaderboard per variant
//   /bots[/NAME]              bots, a bot's page (404 when there is no such bot)
//   /matches[/ID]             match list with filters; the match viewer
//                             (?hand=K&action=N opens it there; 404 when missing)
//   /tournaments[/ID]         tournaments, one tournament's standings
//   /static/PATH              the files of arena/web/static/, built into the binary
// Every other path is a 404 page. Pages read the JSON API (arena/server/http_api.h)
// and build their DOM from text only, so nothing from the store runs as HTML.
//
// Thread-safety: handlers are thread-safe (the scheduler is).

#ifndef TAROCK_ARENA_WEB_WEB_H_
#define TAROCK_ARENA_WEB_WEB_H_

#include "arena/scheduler/scheduler.h"
#include "referee/metrics/http_server.h"

namespace tarock::arena {

void RegisterWebPages(Scheduler* scheduler, metrics::HttpServer* server);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_WEB_WEB_H_
