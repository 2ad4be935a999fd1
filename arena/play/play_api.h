// "Play against bots": a person takes one seat of a real match on a referee,
// from the browser. The arena's Bot service (bot_relay_service.h) is the seat's
// endpoint in the MatchSpec; the SeatRelay hands the referee's stream to the
// PlaySession of that seat; the browser reads the session and answers through
// this HTTP API:
//
//   POST /api/play {variant, opponents: [bot, ...], seat: N | -1 (random),
//                   hands: N (default: one per seat)}
//        -> {id, match_id, seat, url}        id: the session's secret token
//        needs the play cookie (visitor_cookie.h), which the page and
//        /api/play/variants hand out
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
#include "arena/play/visitor_cookie.h"
#include "arena/scheduler/scheduler.h"
#include "nlohmann/json.hpp"
#include "referee/metrics/http_server.h"
#include "referee/net/rate_limiter.h"

namespace tarock::arena::play {

struct PlayOptions {
  std::string relay_endpoint;       // HOST:PORT where referees reach the arena's Bot service
  int64_t per_decision_ms = 120000;  // every seat's limit per decision in play matches
  int max_faults = 3;               // the seat is forfeited after this many (0: never)
  absl::Duration keep_ended = absl::Hours(6);  // an ended session stays readable this long
  // Play sessions running at once from one client network (/24 IPv4, /64
  // IPv6; net::PrefixKey) before more are refused (0: no cap).
  int max_per_client = 4;
  // Play sessions running at once for one visitor (one play cookie) before
  // more are refused (0: no cap).
  int max_per_visitor = 2;
  // Play matches one visitor may start per hour (a token bucket holding a
  // sixth of it, at least 3, at once); a client network may start four
  // times as many. 0: no limit.
  double starts_per_hour = 30;
  // How long one person's seat takes answers; then the referee plays it to
  // the end (PlaySession::SetHoldUntil). Zero: no limit.
  absl::Duration max_hold = absl::Minutes(30);
  // The play cookie's lifetime, and whether it is marked Secure (set for
  // HTTPS listeners and listeners behind a TLS proxy).
  absl::Duration cookie_max_age = absl::Hours(24 * 7);
  bool secure_cookie = false;
};

class PlayService {
 public:
  // Draws the play cookies' key; without a random source no cookie is
  // issued and Create fails closed (UNAVAILABLE).
  PlayService(Scheduler* scheduler, SeatRelay* relay, PlayOptions options);

  // POST /api/play from the client at `client` (its address, "" unknown) for
  // the visitor `visitor` (VisitorCookies' id; "" when the request had no
  // valid play cookie). Errors: PERMISSION_DENIED (no cookie),
  // INVALID_ARGUMENT, RESOURCE_EXHAUSTED (the arena's, this client network's
  // or this visitor's cap or start rate), UNAVAILABLE.
  absl::StatusOr<nlohmann::json> Create(const nlohmann::json& body, const std::string& client,
                                        const std::string& visitor);
  // The visitor id of the request's play cookie, or "".
  std::string VisitorOf(const metrics::HttpRequest& request) const;
  // A Set-Cookie value with a new play cookie for a request without a valid
  // one; "" when it has one (or none can be drawn).
  std::string NewCookieFor(const metrics::HttpRequest& request) const;
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
  std::unique_ptr<VisitorCookies> cookies_;  // null: no random source at start
  net::RateLimiter visitor_starts_;
  net::RateLimiter network_starts_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<PlaySession>> sessions_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> client_of_ ABSL_GUARDED_BY(mu_);  // session id -> network
  std::map<std::string, std::string> visitor_of_ ABSL_GUARDED_BY(mu_);  // session id -> visitor
};

void RegisterPlayApi(PlayService* service, metrics::HttpServer* server);

}  // namespace tarock::arena::play

#endif  // TAROCK_ARENA_PLAY_PLAY_API_H_
