#include "arena/web/web.h"

#include <string>
#include <string_view>

#include "arena/server/http_json.h"
#include "arena/web/assets.h"

namespace tarock::arena {
namespace web {

const Asset* FindAsset(std::string_view path) {
  for (int i = 0; i < kNumAssets; ++i) {
    if (path == kAssets[i].path) return &kAssets[i];
  }
  return nullptr;
}

const char* ContentTypeOf(std::string_view path) {
  auto ends = [&](std::string_view ext) {
    return path.size() >= ext.size() && path.substr(path.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".ico")) return "image/x-icon";
  if (ends(".json")) return "application/json";
  if (ends(".txt")) return "text/plain; charset=utf-8";
  // Markdown as plain text: every browser shows it (text/markdown is downloaded).
  if (ends(".md")) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

}  // namespace web

namespace {

using metrics::HttpRequest;
using metrics::HttpResponse;

// The app shell: every page is /static/index.html; app.js renders by the path.
HttpResponse Shell(int status) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  if (const web::Asset* a = web::FindAsset("/static/index.html")) r.body.assign(a->data, a->size);
  r.headers.emplace_back("Cache-Control", "no-cache");
  return r;
}

}  // namespace

void RegisterWebPages(Scheduler* scheduler, metrics::HttpServer* server) {
  // The files built in: the pages' static files and the documents (docs/*.md,
  // the text the pages point to, as plain text). Cached briefly, so a new
  // build shows within minutes.
  for (const char* path : {"/static/(.+)", "/docs/([A-Za-z0-9_.-]+)"}) {
    server->Get(path, [](const HttpRequest& req) {
      const web::Asset* a = web::FindAsset(req.path);
      if (a == nullptr) return Shell(404);
      HttpResponse r;
      r.content_type = web::ContentTypeOf(req.path);
      r.body.assign(a->data, a->size);
      r.headers.emplace_back("Cache-Control", "public, max-age=300");
      return r;
    });
  }
  for (const char* path : {"/", "/index.html", "/leaderboard", "/leaderboard/([A-Za-z0-9_.-]+)",
                           "/matches", "/bots", "/tournaments", "/tournaments/([0-9]+)",
                           "/tests", "/tests/([0-9]+)", "/ladders", "/events", "/join",
                           "/join/([A-Za-z0-9]+)"}) {
    server->Get(path, [](const HttpRequest&) { return Shell(200); });
  }
  // The reserved "human" (a person's seat in play matches) is not a bot: 404,
  // and the page says what it is.
  server->Get("/bots/([^/]+)", [scheduler](const HttpRequest& req) {
    return Shell(req.matches[1] != kHumanBotName && ValidBotName(req.matches[1]) &&
                         scheduler->GetBot(req.matches[1], false).ok()
                     ? 200
                     : 404);
  });
  server->Get("/events/([^/]+)", [scheduler](const HttpRequest& req) {
    v1::GetEventRequest r;
    r.set_slug(req.matches[1]);
    return Shell(req.matches[1] == "open" || scheduler->GetEvent(r).ok() ? 200 : 404);
  });
  server->Get("/ladders/([0-9]+)", [scheduler](const HttpRequest& req) {
    const v1::ListLaddersResponse ladders = scheduler->ListLadders();
    for (const v1::LadderInfo& l : ladders.ladders())
      if (std::to_string(l.id()) == req.matches[1]) return Shell(200);
    return Shell(404);
  });
  server->Get("/matches/([^/]+)", [scheduler](const HttpRequest& req) {
    return Shell(scheduler->MatchExists(req.matches[1]) ? 200 : 404);
  });
  // Any other path: the 404 page (API errors keep their JSON bodies).
  // A JSON client asking for an API path that does not exist gets JSON, not
  // the page (found by tests/fuzz/http_api_fuzz.cc: /api/bots/a%25b).
  server->SetNotFound([](const HttpRequest& req) {
    if (req.path == "/api" || req.path.rfind("/api/", 0) == 0)
      return JsonError(404, "no such API path: " + req.path.substr(0, 200));
    return Shell(404);
  });
}

}  // namespace tarock::arena
