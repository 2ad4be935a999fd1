#include "arena/server/http_api.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "arena/server/http_json.h"
#include "arena/web/hand_replay.h"
#include "arena/web/web.h"
#include "nlohmann/json.hpp"

namespace tarock::arena {
namespace {

using json = nlohmann::json;
using metrics::HttpRequest;
using metrics::HttpResponse;


std::string ProtoJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  o.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

template <typename T>
HttpResponse Json(const absl::StatusOr<T>& r) {
  if (!r.ok()) return JsonFromStatus(r.status());
  HttpResponse out;
  out.body = ProtoJson(*r);
  return out;
}

// A spectator's server-sent event stream as the live hub sees it.
class SseSink : public LiveSink {
 public:
  explicit SseSink(std::shared_ptr<metrics::EventSink> sink) : sink_(std::move(sink)) {}
  bool Send(const std::string& event, const std::string& data) override { return sink_->Send(event, data); }
  void Close() override { sink_->Close(); }
  bool closed() const override { return sink_->closed(); }

 private:
  std::shared_ptr<metrics::EventSink> sink_;
};

// A stream the hub refused or has no match for: one "end" event saying why.
void Refuse(const std::shared_ptr<metrics::EventSink>& sink, const absl::Status& why) {
  json j;
  j["status"] = absl::IsNotFound(why) ? "not running" : "refused";
  j["error"] = std::string(why.message());
  sink->Send("end", j.dump());
  sink->Close();
}

}  // namespace

void RegisterHttpApi(Scheduler* scheduler, const prometheus::Registry* registry,
                     metrics::HttpServer* server) {
  server->ServeMetrics({registry});
  server->Get("/api/leaderboard", [scheduler](const HttpRequest& req) {
    auto it = req.query.find("variant");
    if (it == req.query.end() || it->second.empty())
      return JsonError(400, "give the variant: /api/leaderboard?variant=slovenian-4p");
    auto event = req.query.find("event");
    auto model = req.query.find("rating_model");
    return Json(scheduler->Leaderboard(it->second, event == req.query.end() ? "" : event->second,
                                       model == req.query.end() ? "" : model->second));
  });
  server->Get("/api/matches", [scheduler](const HttpRequest& req) {
    v1::ListMatchesRequest r;
    if (auto it = req.query.find("variant"); it != req.query.end()) r.set_variant(it->second);
    if (auto it = req.query.find("bot"); it != req.query.end()) r.set_bot(it->second);
    if (auto it = req.query.find("limit"); it != req.query.end()) {
      int limit;
      if (!absl::SimpleAtoi(it->second, &limit) || limit < 0)
        return JsonError(400, "limit must be a non-negative integer");
      r.set_limit(limit);
    }
    if (auto it = req.query.find("offset"); it != req.query.end() && !it->second.empty()) {
      int offset;
      if (!absl::SimpleAtoi(it->second, &offset) || offset < 0)
        return JsonError(400, "offset must be a non-negative integer");
      r.set_offset(offset);
    }
    if (auto it = req.query.find("kind"); it != req.query.end()) r.set_kind(it->second);
    if (auto it = req.query.find("status"); it != req.query.end()) r.set_status(it->second);
    if (auto it = req.query.find("event"); it != req.query.end()) r.set_event(it->second);
    for (const char* key : {"ladder", "tournament", "test"}) {
      auto it = req.query.find(key);
      if (it == req.query.end() || it->second.empty()) continue;
      int64_t id;
      if (!absl::SimpleAtoi(it->second, &id) || id < 0)
        return JsonError(400, std::string(key) + " must be an id");
      if (std::string(key) == "ladder") r.set_ladder_id(id);
      else if (std::string(key) == "test") r.set_test_id(id);
      else r.set_tournament_id(id);
    }
    return Json(scheduler->ListMatches(r));
  });
  server->Get(R"(/api/matches/([A-Za-z0-9_.-]+))", [scheduler](const HttpRequest& req) {
    absl::StatusOr<v1::ArenaMatch> m = scheduler->GetMatch(req.matches[1], true);
    if (!m.ok()) return JsonFromStatus(m.status());
    std::string record = m->record_json();
    m->clear_record_json();
    json body = json::parse(ProtoJson(*m));
    body.erase("record_json");
    body["record"] = record.empty() ? json() : json::parse(record, nullptr, false);
    HttpResponse out;
    out.body = body.dump();
    return out;
  });
  // The viewer's replay of one hand (arena/web/hand_replay.h).
  server->Get(R"(/api/matches/([A-Za-z0-9_.-]+)/hands/([0-9]+)/replay)",
              [scheduler](const HttpRequest& req) {
    absl::StatusOr<v1::ArenaMatch> m = scheduler->GetMatch(req.matches[1], true);
    if (!m.ok()) return JsonFromStatus(m.status());
    if (!m->deal_public())
      return JsonError(404, m->status() == "done"
                                ? "this deal is still being played at another table of its set"
                                : "the match is not finished");
    json record = json::parse(m->record_json(), nullptr, false);
    size_t k = 0;
    if (!record.is_object() || !record.contains("deals") || !absl::SimpleAtoi(req.matches[2], &k) ||
        k >= record["deals"].size())
      return JsonError(404, "no such hand in this match");
    absl::StatusOr<std::string> replay = HandReplayJson(record["deals"][k].dump());
    if (!replay.ok()) return JsonFromStatus(replay.status());
    HttpResponse out;
    out.body = std::move(*replay);
    return out;
  });
  server->Get("/api/tournaments", [scheduler](const HttpRequest& req) {
    int limit = 100;
    if (auto it = req.query.find("limit"); it != req.query.end() &&
        (!absl::SimpleAtoi(it->second, &limit) || limit < 1 || limit > 1000))
      return JsonError(400, "limit must be 1..1000");
    return Json(absl::StatusOr<v1::ListTournamentsResponse>(scheduler->ListTournaments(limit)));
  });
  server->Get(R"(/api/tournaments/([0-9]+))", [scheduler](const HttpRequest& req) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(req.matches[1], &id)) return JsonError(400, "bad tournament id");
    return Json(scheduler->GetTournament(id));
  });
  // Tests (`tarock compare` as an arena job): newest first; one with ?path=1
  // has its per-deal differences and LLR path.
  server->Get("/api/tests", [scheduler](const HttpRequest& req) {
    v1::ListTestsRequest r;
    if (auto it = req.query.find("limit"); it != req.query.end()) {
      int limit;
      if (!absl::SimpleAtoi(it->second, &limit) || limit < 1 || limit > 1000)
        return JsonError(400, "limit must be 1..1000");
      r.set_limit(limit);
    }
    return Json(absl::StatusOr<v1::ListTestsResponse>(scheduler->ListTests(r)));
  });
  server->Get(R"(/api/tests/([0-9]+))", [scheduler](const HttpRequest& req) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(req.matches[1], &id)) return JsonError(400, "bad test id");
    auto it = req.query.find("path");
    return Json(scheduler->GetTest(id, it != req.query.end() && it->second != "0"));
  });
  server->Get("/api/ladders", [scheduler](const HttpRequest&) {
    return Json(absl::StatusOr<v1::ListLaddersResponse>(scheduler->ListLadders()));
  });
  server->Get(R"(/api/bots/([A-Za-z0-9_.-]+)/stats)", [scheduler](const HttpRequest& req) {
    return Json(scheduler->BotStats(req.matches[1]));
  });
  server->Get("/api/bots", [scheduler](const HttpRequest&) {
    return Json(absl::StatusOr<v1::ListBotsResponse>(scheduler->ListBots({})));
  });
  server->Get(R"(/api/bots/([A-Za-z0-9_.-]+))", [scheduler](const HttpRequest& req) {
    return Json(scheduler->GetBot(req.matches[1], true));
  });
  // Events (docs/events.md). The organiser's pages send the organiser token
  // as "Authorization: Bearer TOKEN" (never in a URL).
  auto bearer = [](const HttpRequest& req) {
    auto it = req.headers.find("authorization");
    if (it == req.headers.end() || it->second.rfind("Bearer ", 0) != 0) return std::string();
    return it->second.substr(7);
  };
  server->Get("/api/events", [scheduler](const HttpRequest&) {
    return Json(absl::StatusOr<v1::ListEventsResponse>(scheduler->ListEvents()));
  });
  server->Get(R"(/api/events/([a-z0-9-]+))", [scheduler, bearer](const HttpRequest& req) {
    v1::GetEventRequest r;
    r.set_slug(req.matches[1]);
    r.set_organiser_token(bearer(req));
    return Json(scheduler->GetEvent(r));
  });
  server->Get(R"(/api/events/([a-z0-9-]+)/roster)", [scheduler, bearer](const HttpRequest& req) {
    v1::EventRosterRequest r;
    r.set_slug(req.matches[1]);
    r.set_organiser_token(bearer(req));
    return Json(scheduler->EventRoster(r));
  });
  server->Get(R"(/api/events/([a-z0-9-]+)/export)", [scheduler, bearer](const HttpRequest& req) {
    v1::ExportEventRequest r;
    r.set_slug(req.matches[1]);
    r.set_organiser_token(bearer(req));
    auto f = req.query.find("format");
    r.set_format(f == req.query.end() ? "csv" : f->second);
    absl::StatusOr<v1::ExportEventResponse> out = scheduler->ExportEvent(r);
    if (!out.ok()) return JsonFromStatus(out.status());
    HttpResponse res;
    res.content_type = out->content_type();
    res.body = out->body();
    res.headers.emplace_back("Content-Disposition",
                             absl::StrCat("attachment; filename=\"", r.slug(), ".", r.format(), "\""));
    res.headers.emplace_back("Cache-Control", "no-store");
    return res;
  });
  // Sign-up: {code, name} -> the entrant's token, once.
  server->Post("/api/events/join", [scheduler](const HttpRequest& req) {
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("code") || !body["code"].is_string() ||
        !body.contains("name") || !body["name"].is_string())
      return JsonError(400, "send {\"code\": \"...\", \"name\": \"...\"}");
    v1::JoinEventRequest r;
    r.set_code(body["code"].get<std::string>());
    r.set_name(body["name"].get<std::string>());
    HttpResponse res = Json(scheduler->JoinEvent(r));
    res.headers.emplace_back("Cache-Control", "no-store");
    return res;
  });
  // An entrant registers a bot from the join page (issue 47): the entrant
  // token as "Authorization: Bearer TOKEN", {name, variants: [...], hosted}
  // -> the bot's token, once (AddBot's rules: the event's limits, its
  // hosted-only rule, bots_per_entrant).
  server->Post(R"(/api/events/([a-z0-9-]+)/bots)", [scheduler, bearer](const HttpRequest& req) {
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("name") || !body["name"].is_string())
      return JsonError(400, "send {\"name\": \"...\", \"variants\": [\"...\"], \"hosted\": false}");
    const std::string token = bearer(req);
    if (token.empty()) return JsonError(401, "send your entrant token: Authorization: Bearer TOKEN");
    v1::AddBotRequest r;
    r.set_name(body["name"].get<std::string>());
    if (body.contains("variants") && body["variants"].is_array())
      for (const json& v : body["variants"])
        if (v.is_string() && r.variants_size() < 16) r.add_variants(v.get<std::string>());
    const bool hosted = body.value("hosted", false);
    r.set_hosted(hosted);
    r.set_dial_in(!hosted);
    r.set_event(req.matches[1]);
    r.set_entrant_token(token);
    absl::StatusOr<v1::AddBotResponse> out = scheduler->AddBot(r, req.remote_addr);
    if (out.ok()) out->clear_referee_secret();  // a dial-in or hosted bot never uses it
    HttpResponse res = Json(out);
    res.headers.emplace_back("Cache-Control", "no-store");
    return res;
  });
  server->Get("/api/status", [scheduler](const HttpRequest&) {
    return Json(absl::StatusOr<v1::StatusResponse>(scheduler->GetStatus()));
  });
  // Live spectating (live_hub.h), server-sent events; the server caps open
  // streams in total and per client.
  server->GetStream(R"(/api/live/matches/([A-Za-z0-9_.-]+))",
                    [scheduler](const HttpRequest& req, std::shared_ptr<metrics::EventSink> sink) {
                      absl::Status s = scheduler->live().Watch(req.matches[1], std::make_shared<SseSink>(sink));
                      if (!s.ok()) Refuse(sink, s);
                    });
  server->GetStream("/api/live", [scheduler](const HttpRequest&, std::shared_ptr<metrics::EventSink> sink) {
    absl::Status s = scheduler->live().WatchFeed(std::make_shared<SseSink>(sink));
    if (!s.ok()) Refuse(sink, s);
  });
  RegisterWebPages(scheduler, server);
}

}  // namespace tarock::arena
