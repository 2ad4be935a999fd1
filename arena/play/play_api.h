// "Play against bots": a person takes one seat of a real match on a referee,
// from the browser. The arena's Bot service (bot_relay_service.h) is the seat's
// endpoint in the MatchSpec; the SeatRelay hands the referee's stream to the
// PlaySession of that seat; the browser reads the session and answers through
// this HTTP API:
//
//   POST /api/play {variant, opponents: [bot, ...], seat: N | -1 (random),
//                   hands: N (default: one per seat)}
//        -> {id, match_id, seat, url}        id: the session's secret token
//   GET  /api/play/variants                  {variants: [{name, title, num_seats}]}
//   GET  /api/play/ID                        what the seat may see (PlaySession::View,
//                                            docs/play.md), polled by the page
//   POST /api/play/ID/action {request_id, action}
//   GET  /play, /play/ID                     the page (arena/web/static/play.html)
//
// The match is an unrated one-off (Scheduler::StartPlayMatch, kind "play")
// under a generous per-decision limit and the usual fault policy: a closed
// page lets its decisions time out, the referee plays the fallback for them
// and forfeits the seat after max_faults.
//
// Thread-safety: thread-safe.

#ifndef TAROCK_ARENA_PLAY_PLAY_API_H_
#define TAROCK_ARENA_PLAY_PLAY_API_H_

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/play/play_session.h"
#include "arena/play/seat_relay.h"
#include "arena/scheduler/scheduler.h"
#include "nlohmann/json.hpp"
#include "referee/metrics/http_server.h"

namespace tarock::arena::play {

struct PlayOptions {
  std::string relay_endpoint;       // HOST:PORT where referees reach the arena's Bot service
  int64_t per_decision_ms = 120000;  // every seat's limit per decision in play matches
  int max_faults = 3;               // the seat is forfeited after this many (0: never)
  absl::Duration keep_ended = absl::Hours(6);  // an ended session stays readable this long
  // Play sessions running at once from one client network (/24 IPv4, /64
  // IPv6; net::PrefixKey) before more are refused (0: no cap).
  int max_per_client = 4;
  // How long one person's seat takes answers; then the referee plays it to
  // the end (PlaySession::SetHoldUntil). Zero: no limit.
  absl::Duration max_hold = absl::Minutes(30);
};

class PlayService {
 public:
  PlayService(Scheduler* scheduler, SeatRelay* relay, PlayOptions options)
      : scheduler_(scheduler), relay_(relay), options_(std::move(options)) {}

  // POST /api/play from the client at `client` (its address, "" unknown).
  // Errors: INVALID_ARGUMENT, RESOURCE_EXHAUSTED (the arena's or this
  // client network's cap), UNAVAILABLE.
  absl::StatusOr<nlohmann::json> Create(const nlohmann::json& body, const std::string& client = "");
  // The session, or null.
  std::shared_ptr<PlaySession> Find(const std::string& id);
  // The session's view, with the stored match's failure when it failed.
  absl::StatusOr<nlohmann::json> View(const std::string& id);

 private:
  // Drops sessions ended longer than keep_ended ago.
  void Collect();

  Scheduler* scheduler_;
  SeatRelay* relay_;
  const PlayOptions options_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<PlaySession>> sessions_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> client_of_ ABSL_GUARDED_BY(mu_);  // session id -> network
};

void RegisterPlayApi(PlayService* service, metrics::HttpServer* server);

}  // namespace tarock::arena::play

#endif  // TAROCK_ARENA_PLAY_PLAY_API_H_
