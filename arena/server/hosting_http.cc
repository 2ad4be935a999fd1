#include "arena/server/hosting_http.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "arena/server/http_json.h"
#include "nlohmann/json.hpp"

namespace tarock::arena {
namespace {

using metrics::HttpRequest;
using metrics::HttpResponse;
using nlohmann::json;

std::string Bearer(const HttpRequest& req) {
  auto it = req.headers.find("authorization");
  if (it == req.headers.end() || !absl::StartsWithIgnoreCase(it->second, "bearer ")) return "";
  return it->second.substr(7);
}

std::string Query(const HttpRequest& req, const std::string& key) {
  auto it = req.query.find(key);
  return it == req.query.end() ? "" : it->second;
}

json VersionJson(const VersionRow& v, bool with_log) {
  json j = {{"id", v.id},         {"bot", v.bot},           {"kind", v.kind},
            {"entry", v.entry},   {"interpreter", v.interpreter}, {"sha256", v.sha256},
            {"size", v.size},     {"uploaded_at", v.uploaded_at}, {"status", v.status},
            {"ready_at", v.ready_at}};
  if (with_log) j["build_log"] = v.build_log;
  return j;
}

HttpResponse JsonBody(int status, const json& j) {
  HttpResponse r;
  r.status = status;
  r.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

// 429 for the per-bot upload limit and the admission's; the rest as usual.
HttpResponse Refusal(const absl::Status& s) {
  if (s.code() == absl::StatusCode::kResourceExhausted) return JsonError(429, s.message());
  if (s.code() == absl::StatusCode::kUnauthenticated) return JsonError(401, s.message());
  return JsonFromStatus(s);
}

}  // namespace

std::string FaultCause(const std::string& kind, const std::string& detail) {
  for (const char* cause : {"out of memory", "too many processes", "killed by the filter",
                            "output limit", "crashed", "timed out"})
    if (absl::StrContains(detail, cause)) return cause;
  if (kind == "timeout") return "timed out";
  if (kind == "disconnect" && (absl::StrContains(detail, "the bot program") ||
                               absl::StrContains(detail, "cannot run") ||
                               absl::StrContains(detail, "exited")))
    return "gone";
  return kind;
}

void RegisterHostingHttpApi(HostedBots* hosted, Store* store, Scheduler* scheduler,
                            Admission* admission, metrics::HttpServer* server) {
  server->Get(R"(/api/matches/([A-Za-z0-9_.-]+)/stderr)", [hosted, scheduler](const HttpRequest& req) {
    const std::string token = Bearer(req);
    if (token.empty()) return JsonError(401, "send the bot's token: Authorization: Bearer TOKEN");
    const std::string bot = Query(req, "bot");
    if (bot.empty()) return JsonError(400, "name the bot: ?bot=NAME");
    absl::StatusOr<HostedBots::SeatLogOut> log = hosted->SeatLogFor(
        req.matches[1], bot, token, [scheduler](const MatchRow& m) { return scheduler->DealPublic(m); });
    if (!log.ok()) return Refusal(log.status());
    HttpResponse r;
    r.content_type = "text/plain; charset=utf-8";
    r.body = log->log;
    r.headers.emplace_back("Cache-Control", "no-store");
    r.headers.emplace_back("Content-Disposition", "inline");
    return r;
  });
  // The upload's body may be up to --max_upload_bytes (over it: 413 before
  // the body is read, or as soon as a chunked body passes it).
  const size_t max_upload = static_cast<size_t>(std::max<int64_t>(1, hosted->options().package.max_upload_bytes));
  server->Post(R"(/api/bots/([A-Za-z0-9_.-]+)/versions)", max_upload, [hosted, admission](const HttpRequest& req) {
    const std::string token = Bearer(req);
    if (token.empty())
      return JsonError(401, "send the bot's token: Authorization: Bearer TOKEN");
    if (admission != nullptr) {
      absl::Duration retry_after;
      absl::Status s = admission->Admit(req.remote_addr, req.via_proxy, token,
                                        Admission::Kind::kRegistration, &retry_after);
      if (!s.ok()) {
        HttpResponse r = JsonError(429, s.message());
        r.headers.emplace_back("Retry-After", absl::StrCat(absl::ToInt64Seconds(retry_after)));
        return r;
      }
    }
    std::string filename = Query(req, "filename");
    if (filename.empty()) filename = "upload";
    std::string note;
    absl::StatusOr<VersionRow> v = hosted->Upload(req.matches[1], token, filename, req.body,
                                                  Query(req, "kind"), Query(req, "entry"),
                                                  Query(req, "reset_rating") == "1" ||
                                                      Query(req, "reset_rating") == "true",
                                                  &note);
    if (!v.ok()) return Refusal(v.status());
    // 201 for a new version; 200 with "unchanged" and its note for an upload
    // byte-identical to the bot's current version (nothing stored).
    json j = VersionJson(*v, true);
    j["unchanged"] = !note.empty();
    if (!note.empty()) j["note"] = note;
    return JsonBody(note.empty() ? 201 : 200, j);
  });
  server->Get(R"(/api/bots/([A-Za-z0-9_.-]+)/versions)", [hosted](const HttpRequest& req) {
    bool owner = false;
    absl::StatusOr<std::vector<VersionRow>> versions = hosted->Versions(req.matches[1], Bearer(req), &owner);
    if (!versions.ok()) return Refusal(versions.status());
    json list = json::array();
    // Anyone else gets a log only where HostedBots left one: the note that no
    // bot host is connected (no secret), so a page can say why it waits.
    for (const VersionRow& v : *versions) list.push_back(VersionJson(v, owner || !v.build_log.empty()));
    // The largest upload this arena takes (--max_upload_bytes), for the form.
    return JsonBody(200, json{{"versions", list},
                              {"owner", owner},
                              {"max_upload_bytes", hosted->options().package.max_upload_bytes}});
  });
  server->Get(R"(/api/bots/([A-Za-z0-9_.-]+)/faults)", [store, scheduler](const HttpRequest& req) {
    absl::StatusOr<BotRow> bot = store->FindBot(req.matches[1]);
    if (!bot.ok()) return JsonFromStatus(bot.status());
    MatchFilter filter;
    filter.bot_id = bot->id;
    filter.status = "done";
    int64_t total = 0;
    json faults = json::array();
    const std::vector<MatchRow> page = store->ListMatchesPage(filter, 0, 200, &total);
    // A fault's detail may name the bot's cards (an illegal "action" can be
    // its whole hand): only matches whose deal is public (DealPublic).
    const std::vector<bool> shown = scheduler->DealsPublic(page);
    for (size_t i = 0; i < page.size(); ++i) {
      const MatchRow& m = page[i];
      if (faults.size() >= 20) break;
      if (!shown[i]) continue;
      std::vector<int> seats;
      std::map<int, int64_t> versions;
      for (const SeatRow& s : store->SeatsOf(m.id))
        if (s.bot_id == bot->id && s.faults > 0) {
          seats.push_back(s.seat);
          versions[s.seat] = s.version_id;
        }
      if (seats.empty()) continue;
      absl::StatusOr<std::string> record = scheduler->PublicRecordOf(m);
      if (!record.ok()) continue;
      json r = json::parse(*record, nullptr, false);
      if (!r.is_object() || !r.contains("faults") || !r["faults"].is_array()) continue;
      // Newest first within the match too.
      for (auto it = r["faults"].rbegin(); it != r["faults"].rend() && faults.size() < 20; ++it) {
        const json& f = *it;
        const int seat = f.value("seat", -1);
        if (std::find(seats.begin(), seats.end(), seat) == seats.end()) continue;
        const std::string kind = f.value("kind", "");
        const std::string detail = f.value("detail", "");
        faults.push_back({{"match_id", m.id}, {"finished_at", m.finished_at},
                          {"version_id", versions[seat]}, {"hand_index", f.value("hand_index", 0)},
                          {"action_index", f.value("action_index", 0)}, {"kind", kind},
                          {"cause", FaultCause(kind, detail)}, {"detail", detail.substr(0, 300)}});
      }
    }
    return JsonBody(200, json{{"faults", faults}});
  });
}

}  // namespace tarock::arena
