#include "arena/play/play_api.h"

#include <algorithm>
#include <vector>

#include "absl/strings/numbers.h"
#include "arena/server/http_json.h"
#include "absl/strings/str_cat.h"
#include "arena/store/store.h"
#include "arena/web/assets.h"
#include "referee/net/rate_limiter.h"
#include "referee/engine/registry.h"

namespace tarock::arena::play {
namespace {

using json = nlohmann::json;
using metrics::HttpRequest;
using metrics::HttpResponse;


HttpResponse Json(const json& body) {
  HttpResponse r;
  r.body = body.dump();
  // The URL holds the session's secret: never cached, never sent on.
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  return r;
}

// Session ids are NewToken()s: 32 lowercase hex characters.
bool ValidSessionId(const std::string& id) {
  return id.size() == 32 &&
         std::all_of(id.begin(), id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

net::RateLimit StartLimit(double per_hour, double scale) {
  net::RateLimit limit;
  if (per_hour <= 0) return limit;  // no limit
  limit.per_second = scale * per_hour / 3600.0;
  limit.burst = std::max(3.0, scale * per_hour / 6.0);
  return limit;
}

std::string RetryText(absl::Duration wait) {
  return absl::StrCat("try again in ", std::max<int64_t>(1, absl::ToInt64Seconds(wait) + 1), " s");
}

}  // namespace

PlayService::PlayService(Scheduler* scheduler, SeatRelay* relay, PlayOptions options)
    : scheduler_(scheduler),
      relay_(relay),
      options_(std::move(options)),
      visitor_starts_(StartLimit(options_.starts_per_hour, 1)),
      network_starts_(StartLimit(options_.starts_per_hour, 4)) {
  absl::StatusOr<std::unique_ptr<VisitorCookies>> cookies = VisitorCookies::Create();
  if (cookies.ok()) cookies_ = std::move(*cookies);
}

std::string PlayService::VisitorOf(const HttpRequest& request) const {
  if (!cookies_) return "";
  return cookies_->VisitorOf(request.headers).value_or("");
}

std::string PlayService::NewCookieFor(const HttpRequest& request) const {
  if (!cookies_ || !VisitorOf(request).empty()) return "";
  absl::StatusOr<std::string> value = cookies_->Issue();
  if (!value.ok()) return "";
  // Behind a trusted proxy that terminates TLS the browser sees HTTPS.
  auto proto = request.headers.find("x-forwarded-proto");
  const bool https_proxy =
      request.via_proxy && proto != request.headers.end() && proto->second == "https";
  return VisitorCookies::SetCookie(*value, options_.cookie_max_age,
                                   options_.secure_cookie || https_proxy);
}

absl::StatusOr<json> PlayService::Create(const json& body, const std::string& client,
                                         const std::string& visitor) {
  if (!cookies_) return absl::UnavailableError("the arena has no random source for play cookies");
  if (visitor.empty())
    return absl::PermissionDeniedError(
        "starting a play match needs the arena's play cookie: open /play in a browser (API "
        "clients: GET /api/play/variants first and send its cookie back)");
  if (!body.is_object()) return absl::InvalidArgumentError("send a JSON object");
  // One network's and one visitor's sessions at once (issue 29): strangers
  // cannot take every play slot from one place.
  std::string network = net::PrefixKey(client);
  if (network.empty()) network = client;
  if (options_.max_per_client > 0 || options_.max_per_visitor > 0) {
    Collect();
    int from_network = 0, from_visitor = 0;
    absl::MutexLock lock(&mu_);
    for (const auto& [id, session] : sessions_) {
      if (session->Ended()) continue;
      if (client_of_[id] == network) ++from_network;
      if (visitor_of_[id] == visitor) ++from_visitor;
    }
    if (options_.max_per_visitor > 0 && from_visitor >= options_.max_per_visitor)
      return absl::ResourceExhaustedError(absl::StrCat(
          "you have ", from_visitor, " play matches running (the limit); finish one first"));
    if (options_.max_per_client > 0 && from_network >= options_.max_per_client)
      return absl::ResourceExhaustedError(absl::StrCat(
          from_network, " play matches from your network are running (the limit); finish one first"));
  }
  const std::string variant = body.value("variant", std::string());
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(variant);
  if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat("unknown variant '", variant, "'"));
  const int n = info->num_seats;
  std::vector<std::string> opponents;
  if (body.contains("opponents") && body["opponents"].is_array())
    for (const json& o : body["opponents"])
      if (o.is_string()) opponents.push_back(o.get<std::string>());
  if (static_cast<int>(opponents.size()) != n - 1)
    return absl::InvalidArgumentError(
        absl::StrCat(variant, " has ", n, " seats: choose ", n - 1, " opponents"));
  int seat = -1;
  if (body.contains("seat") && body["seat"].is_number_integer()) seat = body["seat"].get<int>();
  // Starts per hour, per visitor and per network (refused requests take
  // nothing): ending matches at once does not free a slot for a flood either.
  if (absl::Duration wait = visitor_starts_.Take(visitor); wait > absl::ZeroDuration())
    return absl::ResourceExhaustedError(
        absl::StrCat("you started play matches too quickly; ", RetryText(wait)));
  if (absl::Duration wait = network_starts_.Take(network); wait > absl::ZeroDuration()) {
    visitor_starts_.Give(visitor);
    return absl::ResourceExhaustedError(
        absl::StrCat("your network started play matches too quickly; ", RetryText(wait)));
  }
  // Two random values; without either no session (never zeros).
  absl::StatusOr<std::string> session_id = NewToken();
  if (!session_id.ok()) return session_id.status();
  absl::StatusOr<std::string> match_part = NewToken();
  if (!match_part.ok()) return match_part.status();
  const std::string& token = *session_id;
  if (seat < 0) {
    uint64_t r = 0;
    (void)absl::SimpleHexAtoi(token.substr(16, 8), &r);
    seat = static_cast<int>(r % n);
  }
  if (seat >= n) return absl::InvalidArgumentError(absl::StrCat("the seat must be 0..", n - 1));
  int hands = n;
  if (body.contains("hands") && body["hands"].is_number_integer()) hands = body["hands"].get<int>();

  PlayMatchRequest request;
  request.match_id = absl::StrCat("P-", match_part->substr(0, 12));
  request.variant = variant;
  if (body.contains("options") && body["options"].is_object())
    for (const auto& [k, v] : body["options"].items())
      if (v.is_string()) request.options[k] = v.get<std::string>();
  for (int s = 0, o = 0; s < n; ++s) request.seats.push_back(s == seat ? "" : opponents[o++]);
  request.relay_endpoint = options_.relay_endpoint;
  request.num_hands = hands;
  request.seed = 0;  // the scheduler draws a secret, sealed seed (deal_seal.h)
  request.client = client;
  request.time_control.set_per_decision_ms(options_.per_decision_ms);
  request.fault_policy.set_max_faults(options_.max_faults);

  Collect();
  auto session = std::make_shared<PlaySession>(token, request.match_id, seat);
  // Registered before the match exists, so the referee never dials in vain.
  if (absl::Status s = relay_->Register(request.match_id, seat, session); !s.ok()) return s;
  absl::StatusOr<v1::ArenaMatch> match = scheduler_->StartPlayMatch(request);
  if (!match.ok()) {
    relay_->Unregister(request.match_id, seat);
    visitor_starts_.Give(visitor);
    network_starts_.Give(network);
    return match.status();
  }
  if (options_.max_hold > absl::ZeroDuration()) session->SetHoldUntil(absl::Now() + options_.max_hold);
  {
    absl::MutexLock lock(&mu_);
    sessions_[token] = session;
    client_of_[token] = network;
    visitor_of_[token] = visitor;
  }
  return json{{"id", token},
              {"match_id", request.match_id},
              {"seat", seat},
              {"url", absl::StrCat("/play/", token)}};
}

std::shared_ptr<PlaySession> PlayService::Find(const std::string& id) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

absl::StatusOr<json> PlayService::View(const std::string& id) {
  std::shared_ptr<PlaySession> session = Find(id);
  if (!session) return absl::NotFoundError("no such play session (it ended long ago, or the arena restarted)");
  if (!session->Ended()) {
    // A match that could not run (an opponent unreachable, no referee) ends
    // in the store only.
    absl::StatusOr<v1::ArenaMatch> m = scheduler_->GetMatch(session->match_id(), false);
    if (m.ok() && m->status() == "failed") session->Fail(m->error());
    if (m.ok() && m->status() == "done") {
      // Done in the store, yet no MatchResult came (the referee sends a
      // forfeited seat nothing more): the stored result, now that it is over.
      v1::MatchResult result;
      for (const v1::ArenaSeat& s : m->seats()) {
        result.add_totals(s.total());
        result.add_faults(s.faults());
        if (s.seat() == session->seat()) result.set_forfeited(s.forfeited());
      }
      session->Finish(result);
    }
  }
  return session->View();
}

void PlayService::Collect() {
  const absl::Time now = absl::Now();
  std::vector<std::shared_ptr<PlaySession>> gone;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      absl::Time since;
      if (it->second->Ended(&since) && now - since > options_.keep_ended) {
        gone.push_back(it->second);
        client_of_.erase(it->first);
        visitor_of_.erase(it->first);
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& s : gone) relay_->Unregister(s->match_id(), s->seat());
}

void RegisterPlayApi(PlayService* service, metrics::HttpServer* server) {
  server->Post("/api/play", [service](const HttpRequest& req) {
    json body = json::parse(req.body, nullptr, false);
    if (body.is_discarded()) return JsonError(400, "the body must be JSON");
    absl::StatusOr<json> created = service->Create(body, req.remote_addr, service->VisitorOf(req));
    // A start over a limit (the visitor's, the network's, the arena's): 429,
    // as docs/security.md says; the arena stopping stays 503.
    if (absl::IsResourceExhausted(created.status()))
      return JsonError(429, created.status().message());
    if (!created.ok()) return JsonFromStatus(created.status());
    return Json(*created);
  });
  // The variants with their seats, for the page's form (before /api/play/ID);
  // it hands out the play cookie to API clients too.
  server->Get("/api/play/variants", [service](const HttpRequest& req) {
    json out = json::array();
    for (const VariantInfo& v : Registry::Global().List())
      out.push_back({{"name", v.name}, {"title", v.title}, {"num_seats", v.num_seats}});
    HttpResponse r = Json(json{{"variants", out}});
    if (std::string cookie = service->NewCookieFor(req); !cookie.empty())
      r.headers.emplace_back("Set-Cookie", cookie);
    return r;
  });
  server->Get("/api/play/([^/]+)", [service](const HttpRequest& req) {
    if (!ValidSessionId(req.matches[1])) return JsonError(404, "no such play session");
    absl::StatusOr<json> view = service->View(req.matches[1]);
    if (!view.ok()) return JsonFromStatus(view.status());
    return Json(*view);
  });
  server->Post("/api/play/([^/]+)/action", [service](const HttpRequest& req) {
    std::shared_ptr<PlaySession> session =
        ValidSessionId(req.matches[1]) ? service->Find(req.matches[1]) : nullptr;
    if (!session) return JsonError(404, "no such play session");
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("action") || !body["action"].is_string() ||
        !body.contains("request_id") || !body["request_id"].is_number_integer())
      return JsonError(400, "send {\"request_id\": N, \"action\": \"...\"}");
    absl::Status s = session->Act(body["request_id"].get<int64_t>(), body["action"].get<std::string>());
    if (!s.ok()) return JsonFromStatus(s);
    return Json(session->View());
  });
  // The page; the session id in the path is read by play.js.
  auto page = [service](const HttpRequest& req) {
    HttpResponse r;
    r.content_type = "text/html; charset=utf-8";
    if (const web::Asset* a = web::FindAsset("/static/play.html")) r.body.assign(a->data, a->size);
    if (req.matches.size() > 1 && !(ValidSessionId(req.matches[1]) && service->Find(req.matches[1])))
      r.status = 404;  // the page says so
    r.headers.emplace_back("Cache-Control", "no-cache");
    r.headers.emplace_back("Referrer-Policy", "no-referrer");
    if (std::string cookie = service->NewCookieFor(req); !cookie.empty())
      r.headers.emplace_back("Set-Cookie", cookie);
    return r;
  };
  server->Get("/play", page);
  server->Get("/play/", page);
  server->Get("/play/([^/]+)", page);
}

}  // namespace tarock::arena::play
