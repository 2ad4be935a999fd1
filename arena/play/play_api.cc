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

}  // namespace

absl::StatusOr<json> PlayService::Create(const json& body, const std::string& client) {
  if (!body.is_object()) return absl::InvalidArgumentError("send a JSON object");
  // One network's sessions at once (issue 29): strangers cannot take every
  // play slot from one place.
  std::string network = net::PrefixKey(client);
  if (network.empty()) network = client;
  if (options_.max_per_client > 0) {
    Collect();
    int mine = 0;
    absl::MutexLock lock(&mu_);
    for (const auto& [id, key] : client_of_) {
      auto s = sessions_.find(id);
      if (key == network && s != sessions_.end() && !s->second->Ended()) ++mine;
    }
    if (mine >= options_.max_per_client)
      return absl::ResourceExhaustedError(absl::StrCat(
          mine, " play matches from your network are running (the limit); finish one first"));
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
    return match.status();
  }
  if (options_.max_hold > absl::ZeroDuration()) session->SetHoldUntil(absl::Now() + options_.max_hold);
  {
    absl::MutexLock lock(&mu_);
    sessions_[token] = session;
    client_of_[token] = network;
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
    absl::StatusOr<json> created = service->Create(body, req.remote_addr);
    if (!created.ok()) return JsonFromStatus(created.status());
    return Json(*created);
  });
  // The variants with their seats, for the page's form (before /api/play/ID).
  server->Get("/api/play/variants", [](const HttpRequest&) {
    json out = json::array();
    for (const VariantInfo& v : Registry::Global().List())
      out.push_back({{"name", v.name}, {"title", v.title}, {"num_seats", v.num_seats}});
    return Json(json{{"variants", out}});
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
    return r;
  };
  server->Get("/play", page);
  server->Get("/play/", page);
  server->Get("/play/([^/]+)", page);
}

}  // namespace tarock::arena::play
