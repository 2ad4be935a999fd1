// Fuzz target: the arena's HTTP API and web pages (arena/server/http_api.h,
// arena/web) as a client reaches them. At start-up it fills a store with a
// few bots, a ladder, a tournament, a test and matches (some with real match
// records from the committed record corpus, so the replay route runs the
// engine) and serves the API on loopback with cpp-httplib, as tarock-arena
// does. Each input picks a route, fills its path segments and writes its query
// string (both percent-encoded, so the handlers see arbitrary decoded text),
// then GETs it.
//
// Invariants: the server answers (no crash, no hang); no 5xx; every /api
// response that is not a 404 of an unknown route is valid JSON.
//
// Thread-safety: libFuzzer calls LLVMFuzzerTestOneInput from one thread; the
// server runs the handlers on its own threads, under the same sanitizers.

#include <httplib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/scheduler/referee_client.h"
#include "arena/scheduler/scheduler.h"
#include "arena/server/http_api.h"
#include "arena/store/sqlite_store.h"
#include "arena/store/store.h"
#include "nlohmann/json.hpp"
#include "prometheus/registry.h"
#include "referee/metrics/http_server.h"
#include "tests/fuzz/fuzz_util.h"

namespace tarock::arena {
namespace {

class NoReferee : public RefereeClient {
 public:
  absl::StatusOr<v1::MatchFinished> RunMatch(const std::string&, const v1::MatchSpec&,
                                             const std::atomic<bool>*) override {
    return absl::UnavailableError("no referee in the fuzzer");
  }
  void CancelAll() override {}
};

struct Server {
  std::filesystem::path dir;
  std::unique_ptr<Store> store;
  NoReferee client;
  prometheus::Registry registry;
  std::unique_ptr<Scheduler> scheduler;
  metrics::HttpServer http;
  std::unique_ptr<httplib::Client> get;
  std::vector<std::string> match_ids;
};

void Require(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "http_api_fuzz: %s: %s\n", what, s.ToString().c_str());
    std::abort();
  }
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Server* Start() {
  auto* s = new Server;
  char templ[] = "/tmp/http_api_fuzz.XXXXXX";
  s->dir = mkdtemp(templ);
  absl::StatusOr<std::unique_ptr<Store>> store = SqliteStore::Open((s->dir / "arena.db").string());
  Require(store.status(), "open store");
  s->store = std::move(*store);
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i) {
    BotRow b;
    b.name = absl::StrCat("bot", i);
    b.endpoint = absl::StrCat("203.0.113.", i + 1, ":7801");
    b.owner = i % 2 ? "alice" : "bob";
    b.variants = {"slovenian-3p", "slovenian-4p", "slovenian-5p"};
    b.token_hash = HashToken(b.name);
    absl::StatusOr<BotRow> added = s->store->AddBot(b);
    Require(added.status(), "add bot");
    ids.push_back(added->id);
  }
  absl::StatusOr<int64_t> ladder = s->store->InsertLadder({0, "slovenian-4p", "{}", true});
  Require(ladder.status(), "ladder");
  absl::StatusOr<int64_t> cup =
      s->store->InsertTournament({0, "cup", "slovenian-3p", "round-robin", "{}"});
  Require(cup.status(), "tournament");
  // Real records (the record fuzzer's seeds) for the replay route.
  const std::filesystem::path corpus =
      std::filesystem::path(TAROCK_FUZZ_SOURCE_DIR) / "corpus" / "record_fuzz";
  RatingModel model;
  int n = 0;
  for (const char* variant : {"slovenian-3p", "slovenian-4p", "slovenian-5p"}) {
    const int seats = variant[10] - '0';
    MatchRow m;
    m.variant = variant;
    m.kind = seats == 3 ? "tournament" : "ladder";
    m.id = absl::StrCat(seats == 3 ? "T1-" : "L1-", ++n);
    if (seats == 3) m.tournament_id = *cup;
    else m.ladder_id = *ladder;
    m.spec = "{}";
    m.seed = n;
    for (int i = 0; i < seats; ++i) m.bot_ids.push_back(ids[(i + n) % ids.size()]);
    Require(s->store->InsertMatch(m), "insert match");
    MatchResultRow r;
    for (int i = 0; i < seats; ++i) {
      SeatRow seat;
      seat.seat = i;
      seat.bot_id = m.bot_ids[i];
      seat.total = 10 * (i - 1);
      seat.rank = i;
      seat.hand_scores = std::vector<int64_t>{seat.total};
      r.seats.push_back(seat);
    }
    r.record_json = ReadFile(corpus / absl::StrCat("match-", variant, ".json"));
    r.hands = 1;
    r.referee = "127.0.0.1:7701";
    for (const CommitOutcome& o :
         s->store->CommitMatches({{m.id, r}}, [&](const MatchRow& match, const MatchResultRow& res,
                                                  const std::vector<std::optional<RatingRow>>& cur) {
           return RateMatch(model, match.variant, res.seats, cur);
         }))
      Require(o.status, "commit");
    s->match_ids.push_back(m.id);
  }
  SchedulerOptions options;
  options.referees = {"127.0.0.1:1"};
  s->scheduler = std::make_unique<Scheduler>(s->store.get(), &s->client, options, &s->registry);
  RegisterHttpApi(s->scheduler.get(), &s->registry, &s->http);
  absl::StatusOr<int> port = s->http.Start("127.0.0.1", 0);
  Require(port.status(), "listen");
  s->get = std::make_unique<httplib::Client>("127.0.0.1", *port);
  s->get->set_keep_alive(true);
  s->get->set_read_timeout(10, 0);
  return s;
}

// Percent-encodes everything but unreserved characters (and, in a query,
// '=' and '&', which keep their meaning).
std::string Encode(std::string_view text, bool query) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (query && (c == '=' || c == '&'))) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

// Up to `max` bytes of input as a segment; a known value when the first
// byte says so (so the fuzzer reaches the handlers' deeper paths).
std::string Segment(fuzz::Input& in, const std::vector<std::string>& known) {
  const uint8_t choice = in.Byte();
  if (choice < 200 && !known.empty()) return known[choice % known.size()];
  std::string s;
  for (int i = 0, len = in.Byte() % 24; i < len; ++i) s.push_back(static_cast<char>(in.Byte()));
  return s;
}

}  // namespace
}  // namespace tarock::arena

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tarock::arena;
  static Server* server = Start();
  tarock::fuzz::Input in(data, size);
  const std::vector<std::string> bots = {"bot0", "bot3", "nobody"};
  const std::vector<std::string> numbers = {"1", "2", "0", "99999999999999999999", "-1"};
  std::string path;
  switch (in.Byte() % 16) {
    case 0: path = "/api/leaderboard"; break;
    case 1: path = "/api/matches"; break;
    case 2: path = "/api/matches/" + Encode(Segment(in, server->match_ids), false); break;
    case 3:
      path = "/api/matches/" + Encode(Segment(in, server->match_ids), false) + "/hands/" +
             Encode(Segment(in, numbers), false) + "/replay";
      break;
    case 4: path = "/api/bots"; break;
    case 5: path = "/api/bots/" + Encode(Segment(in, bots), false); break;
    case 6: path = "/api/bots/" + Encode(Segment(in, bots), false) + "/stats"; break;
    case 7: path = "/api/tournaments"; break;
    case 8: path = "/api/tournaments/" + Encode(Segment(in, numbers), false); break;
    case 9: path = "/api/tests"; break;
    case 10: path = "/api/tests/" + Encode(Segment(in, numbers), false); break;
    case 11: path = "/api/ladders"; break;
    case 12: path = "/api/status"; break;
    case 13: path = "/metrics"; break;
    case 14: path = "/bots/" + Encode(Segment(in, bots), false); break;
    default: path = "/" + Encode(Segment(in, {"", "matches", "tournaments", "tests"}), false); break;
  }
  const std::string target = path + "?" + Encode(in.Rest(), true);
  httplib::Result r = server->get->Get(target);
  if (!r) {
    std::fprintf(stderr, "http_api_fuzz: no answer to GET %s (%s)\n", target.c_str(),
                 httplib::to_string(r.error()).c_str());
    std::abort();
  }
  if (r->status >= 500) {
    std::fprintf(stderr, "http_api_fuzz: GET %s answered %d: %s\n", target.c_str(), r->status,
                 r->body.c_str());
    std::abort();
  }
  if (path.rfind("/api/", 0) == 0 && !r->body.empty() &&
      !nlohmann::json::accept(r->body)) {
    std::fprintf(stderr, "http_api_fuzz: GET %s answered %d with invalid JSON: %s\n",
                 target.c_str(), r->status, r->body.substr(0, 300).c_str());
    std::abort();
  }
  return 0;
}
