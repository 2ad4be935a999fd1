// The JSON calls behind the web pages on a large store: a leaderboard of 1,000
// bots and a match list of 100,000 matches (first page, a deep page, filtered
// pages), a bot page and the status, each through the arena's real HTTP
// server and handlers (cpp-httplib client on loopback, JSON included).
//
//   build/bin/web_bench [--bots=1000] [--matches=100000] [--db=PATH]
//                       [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
//
// The store is built once through the store's own API (matches inserted, then
// committed with their seats and rating updates, as the scheduler does; the
// records are small placeholders: no list reads them) and kept at --db
// (default /tmp/tarock-web-bench-BOTSxMATCHES.db) for the next run.

#include <httplib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "arena/scheduler/match_stats.h"
#include "arena/scheduler/scheduler.h"
#include "arena/server/http_api.h"
#include "arena/store/sqlite_store.h"
#include "arena/store/store.h"
#include "benchmark/benchmark.h"
#include "referee/bench/benchmark_usage.h"

namespace tarock::arena {
namespace {

int g_bots = 1000;
int g_matches = 100000;
std::string g_db;
std::string g_record;  // --record=PATH: a match record for BM_SeatStats
std::unique_ptr<Store> g_store;
std::unique_ptr<Scheduler> g_scheduler;
std::unique_ptr<prometheus::Registry> g_registry;
std::unique_ptr<metrics::HttpServer> g_http;
int g_port = 0;

class NoReferee : public RefereeClient {
 public:
  absl::StatusOr<v1::MatchFinished> RunMatch(const std::string&, const v1::MatchSpec&,
                                             const std::atomic<bool>*) override {
    return absl::UnavailableError("no referee in the benchmark");
  }
};
NoReferee g_client;

std::string BotName(int i) { return absl::StrFormat("bot-%04d", i); }

void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "web_bench: %s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

// 1,000 bots; matches: 80% a slovenian-4p ladder, 10% slovenian-3p ladder, 10%
// tournaments of 1,000 matches each; 1% failed.
void BuildStore() {
  const absl::Time start = absl::Now();
  std::vector<int64_t> ids;
  for (int i = 0; i < g_bots; ++i) {
    BotRow b;
    b.name = BotName(i);
    b.endpoint = absl::StrCat("10.0.", i / 250, ".", i % 250, ":9000");
    b.owner = absl::StrCat("owner-", i % 97);
    b.variants = {"slovenian-4p", "slovenian-3p"};
    b.token_hash = HashToken(b.name);
    absl::StatusOr<BotRow> added = g_store->AddBot(b);
    Check(added.status(), "add bot");
    ids.push_back(added->id);
  }
  absl::StatusOr<int64_t> l4 = g_store->InsertLadder({0, "slovenian-4p", "{}", true});
  absl::StatusOr<int64_t> l3 = g_store->InsertLadder({0, "slovenian-3p", "{}", false});
  Check(l4.status(), "ladder");
  Check(l3.status(), "ladder");
  std::vector<int64_t> tournaments;
  for (int t = 0; t < g_matches / 10 / 1000 + 1; ++t) {
    absl::StatusOr<int64_t> id =
        g_store->InsertTournament({0, absl::StrCat("cup ", t), "slovenian-4p", "round-robin", "{}"});
    Check(id.status(), "tournament");
    tournaments.push_back(*id);
  }
  std::mt19937_64 rng(7);
  RatingModel model;
  const int kBatch = 2000;
  for (int base = 0; base < g_matches; base += kBatch) {
    std::vector<MatchRow> rows;
    std::vector<MatchCommit> commits;
    for (int i = base; i < std::min(g_matches, base + kBatch); ++i) {
      MatchRow m;
      const int r = static_cast<int>(rng() % 10);
      m.variant = r == 8 ? "slovenian-3p" : "slovenian-4p";
      const int n = m.variant == "slovenian-3p" ? 3 : 4;
      if (r == 9) {
        m.kind = "tournament";
        m.tournament_id = tournaments[(i / 10) / 1000 % tournaments.size()];
        m.id = absl::StrCat("T", m.tournament_id, "-", i);
      } else {
        m.kind = "ladder";
        m.ladder_id = r == 8 ? *l3 : *l4;
        m.id = absl::StrCat("L", m.ladder_id, "-", i);
      }
      m.spec = "{}";
      m.seed = rng();
      std::vector<int> seat_bots;
      while (static_cast<int>(seat_bots.size()) < n) {
        int b = static_cast<int>(rng() % g_bots);
        if (std::find(seat_bots.begin(), seat_bots.end(), b) == seat_bots.end()) seat_bots.push_back(b);
      }
      for (int b : seat_bots) m.bot_ids.push_back(ids[b]);
      rows.push_back(m);
      if (rng() % 100 == 0) continue;  // stays pending, then fails
      MatchResultRow res;
      std::vector<int64_t> totals;
      for (int s = 0; s < n; ++s) {
        SeatRow seat;
        seat.seat = s;
        seat.bot_id = m.bot_ids[s];
        seat.total = static_cast<int64_t>(rng() % 200) - 100;
        seat.rank = s;
        seat.hand_scores = std::vector<int64_t>(8, seat.total / 8);
        seat.declarer_hands = 2;
        seat.declarer_won = 1;
        seat.declarer_score = seat.total;
        seat.defender_hands = 5;
        seat.decisions = 100;
        seat.decision_ms = 35;
        if (rng() % 50 == 0) {
          seat.faults = 1;
          seat.fault_kinds = "timeout:1";
        }
        res.seats.push_back(seat);
      }
      res.record_json = "{\"deals\": []}";
      res.hands = 8;
      res.duration_s = 0.5;
      res.referee = "127.0.0.1:7701";
      commits.push_back({m.id, res});
    }
    Check(g_store->InsertMatches(rows), "insert matches");
    for (const CommitOutcome& o : g_store->CommitMatches(
             commits, [&](const MatchRow& match, const MatchResultRow& result,
                          const std::vector<std::optional<RatingRow>>& current) {
               return RateMatch(model, match.variant, result.seats, current);
             }))
      Check(o.status, "commit");
    std::set<std::string> committed;
    for (const MatchCommit& c : commits) committed.insert(c.id);
    for (const MatchRow& m : rows) {
      if (!committed.count(m.id)) Check(g_store->MarkFailed(m.id, "referee unavailable"), "mark failed");
    }
  }
  std::fprintf(stderr, "web_bench: built %d bots, %d matches in %.1f s\n", g_bots, g_matches,
               absl::ToDoubleSeconds(absl::Now() - start));
}

void Setup() {
  if (g_db.empty()) g_db = absl::StrCat("/tmp/tarock-web-bench-", g_bots, "x", g_matches, ".db");
  const bool exists = std::filesystem::exists(g_db);
  absl::StatusOr<std::unique_ptr<Store>> s = SqliteStore::Open(g_db);
  Check(s.status(), "open store");
  g_store = std::move(*s);
  if (!exists || g_store->CountMatches("done") + g_store->CountMatches("failed") < g_matches) {
    if (exists) {
      g_store.reset();
      std::filesystem::remove(g_db);
      std::filesystem::remove(g_db + "-wal");
      std::filesystem::remove(g_db + "-shm");
      g_store = std::move(*SqliteStore::Open(g_db));
    }
    BuildStore();
  }
  g_registry = std::make_unique<prometheus::Registry>();
  SchedulerOptions options;
  options.referees = {"127.0.0.1:1"};
  g_scheduler = std::make_unique<Scheduler>(g_store.get(), &g_client, options, g_registry.get());
  g_http = std::make_unique<metrics::HttpServer>();
  RegisterHttpApi(g_scheduler.get(), g_registry.get(), g_http.get());
  absl::StatusOr<int> port = g_http->Start("127.0.0.1", 0);
  Check(port.status(), "http");
  g_port = *port;
}

void Get(benchmark::State& state, const std::string& path) {
  httplib::Client client("127.0.0.1", g_port);
  client.set_keep_alive(true);
  size_t bytes = 0;
  for (auto _ : state) {
    httplib::Result r = client.Get(path.c_str());
    if (!r || r->status != 200) {
      state.SkipWithError(absl::StrCat("GET ", path, " failed").c_str());
      return;
    }
    bytes = r->body.size();
    benchmark::DoNotOptimize(r->body.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_Leaderboard(benchmark::State& s) { Get(s, "/api/leaderboard?variant=slovenian-4p"); }
void BM_MatchesFirstPage(benchmark::State& s) { Get(s, "/api/matches?limit=50"); }
void BM_MatchesDeepPage(benchmark::State& s) {
  Get(s, absl::StrCat("/api/matches?limit=50&offset=", std::max(0, g_matches - 100)));
}
void BM_MatchesByBot(benchmark::State& s) { Get(s, "/api/matches?limit=50&bot=bot-0500"); }
void BM_MatchesByVariant(benchmark::State& s) { Get(s, "/api/matches?limit=50&variant=slovenian-3p&offset=1000"); }
void BM_MatchesFailed(benchmark::State& s) { Get(s, "/api/matches?limit=50&status=failed"); }
void BM_MatchesByTournament(benchmark::State& s) { Get(s, "/api/matches?limit=50&tournament=1"); }
void BM_BotPage(benchmark::State& s) { Get(s, "/api/bots/bot-0500"); }
void BM_BotStats(benchmark::State& s) { Get(s, "/api/bots/bot-0500/stats"); }
void BM_Status(benchmark::State& s) { Get(s, "/api/status"); }
void BM_Tournaments(benchmark::State& s) { Get(s, "/api/tournaments"); }

// What a commit adds for the web pages: the declarer/defender, decision and
// fault statistics of a real match record (--record=PATH, e.g. from
// GET /api/matches/ID's "record"), replaying every hand with the engine.
void BM_SeatStats(benchmark::State& state) {
  if (g_record.empty()) {
    state.SkipWithError("give --record=PATH (a match record)");
    return;
  }
  std::ifstream in(g_record);
  std::stringstream text;
  text << in.rdbuf();
  v1::MatchFinished finished;
  finished.set_record_json(text.str());
  for (int s = 0; s < 5; ++s) finished.add_seats()->set_decisions(10);
  for (auto _ : state) {
    MatchResultRow result;
    result.seats.resize(5);
    AddSeatStats(finished, &result);
    benchmark::DoNotOptimize(result.seats[0].declarer_hands);
  }
}
BENCHMARK(BM_SeatStats)->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_Leaderboard)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatchesFirstPage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatchesDeepPage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatchesByBot)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatchesByVariant)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatchesFailed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatchesByTournament)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BotPage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BotStats)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Status)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tournaments)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tarock::arena

int main(int argc, char** argv) {
  tarock::PrintBenchmarkPurposeOnHelp(
      argc, argv, "web_bench",
      "web_bench [--bots=1000] [--matches=100000] [--db=PATH] [--benchmark_* flags]\n"
      "Benchmark: the JSON calls behind the web pages on a large store (a leaderboard of --bots "
      "bots, match lists of --matches matches, a bot page, the status), through the arena's "
      "HTTP server on loopback; the store is built once and kept at --db.");
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--bots=", 0) == 0) tarock::arena::g_bots = std::atoi(a.c_str() + 7);
    else if (a.rfind("--matches=", 0) == 0) tarock::arena::g_matches = std::atoi(a.c_str() + 10);
    else if (a.rfind("--db=", 0) == 0) tarock::arena::g_db = a.substr(5);
    else if (a.rfind("--record=", 0) == 0) tarock::arena::g_record = a.substr(9);
    else rest.push_back(argv[i]);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  tarock::arena::Setup();
  benchmark::RunSpecifiedBenchmarks();
  tarock::arena::g_http->Stop();
  benchmark::Shutdown();
  return 0;
}
