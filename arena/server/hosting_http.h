// The JSON HTTP API of hosted bots (docs/hosting.md), beside http_api.h:
//   POST /api/bots/{name}/versions[?filename=F&kind=K&entry=E&reset_rating=1]
//        Authorization: Bearer BOT_TOKEN; the body is the file or the .zip as
//        it is (no form encoding). The same checks and limits as the gRPC
//        upload (HostedBots::Upload): 201 with the version; 400 one line for a
//        bad package (nothing stored), 401 no token, 403 a wrong token, 404 no
//        such bot, 409 not a hosted bot, 429 too many uploads (or requests).
//        Bodies over the HTTP server's --max_request_bytes get 413 before this.
//   GET  /api/bots/{name}/versions    the versions, newest first; with the
//        bot's token (Authorization: Bearer) each carries its build log and
//        "owner": true. Never the content.
//   GET  /api/bots/{name}/faults      the bot's latest faults (up to 20, from its
//        last 200 finished matches), newest first, each with its cause:
//        {"faults": [{match_id, finished_at, version_id, hand_index,
//        action_index, kind, cause, detail}]}; cause is one of "out of memory",
//        "too many processes", "killed by the filter", "output limit",
//        "crashed", "timed out", "gone" (the program ended or never started),
//        "illegal", "malformed", "disconnect" (FaultCause). Public: match
//        records of finished matches are public already.
//   GET  /api/matches/{id}/stderr?bot=NAME   Authorization: Bearer BOT_TOKEN:
//        the bot's standard error in that match (a hosted seat's, kept by the
//        arena when the seat ended, at most 64 KiB: its end), as text/plain;
//        only for the bot's token, and only once the match's deal is public
//        (409 before: the log holds the bot's own cards); 403 wrong token,
//        404 none kept.
// Bodies: a version is an object with the fields of tarock.v1.VersionInfo
// (hosting.proto: id, bot, kind, entry, interpreter, sha256, size,
// uploaded_at, status, ready_at, build_log); the list is {"versions": [...],
// "owner": bool}.
//
// Thread-safety: handlers are thread-safe (HostedBots and Admission are).

#ifndef TAROCK_ARENA_SERVER_HOSTING_HTTP_H_
#define TAROCK_ARENA_SERVER_HOSTING_HTTP_H_

#include "arena/hosting/hosted_bots.h"
#include "arena/scheduler/scheduler.h"
#include "arena/server/admission.h"
#include "arena/store/store.h"
#include "referee/metrics/http_server.h"

namespace tarock::arena {

// The cause of a fault for its bot's author, from the referee's kind
// ("timeout", "illegal", "malformed", "disconnect") and its detail (a hosted
// seat's detail names how its process ended: "was stopped: out of memory ...").
std::string FaultCause(const std::string& kind, const std::string& detail);

// `hosted`, `store` and `admission` (may be null: no per-token limits) must
// outlive `server`'s handlers.
void RegisterHostingHttpApi(HostedBots* hosted, Store* store, Scheduler* scheduler,
                            Admission* admission, metrics::HttpServer* server);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_HOSTING_HTTP_H_
