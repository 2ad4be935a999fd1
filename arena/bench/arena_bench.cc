// The arena's benchmark: what the arena (scheduler, store, ratings, its
// referee client) costs on top of running the same matches on the same
// referees directly, and what rating and committing one match cost.
//
//   ./build/bin/arena_bench                                  # the defaults below
//   ./build/bin/arena_bench --matches=400 --hands=4 --referees=2 --max_parallel=4 --json
//
// It starts --referees `tarock-referee` processes, one `tarock-bot-random`
// process per seat of --variant (each registered as its own bot) and one
// `tarock-arena` (fresh data directory under --tmp_dir, --max_parallel), all
// found beside this binary or in --bin_dir, and measures in one run:
//  1. Through the arena ("tournament"): a round-robin tournament of --matches
//     matches of --hands hands among the bots, asked for over the Arena gRPC
//     service; timed from the RunTournament request until Status counts every
//     match done or failed (polled every --poll_ms, every 2 ms once no match
//     is left waiting for a referee).
//  2. Directly ("direct"): the same matches (the same specs: seats, seeds,
//     time control, result_only, read back from the arena) on the same
//     referees, from --max_parallel threads of this process calling
//     Referee.RunMatch, match k on referee k mod K (the arena's round robin),
//     no arena. The bots are seeded (--seed), so the replayed matches are the
//     same games: the report counts how many ended with the arena's totals.
//  3. The arena's overhead, 1 - (arena matches/s / direct matches/s), over
//     --repetitions rounds. Odd rounds run the tournament first and then the
//     direct replay of its matches; even rounds run the direct phases first
//     (replaying the previous tournament) and then a new tournament, so a drift
//     of the machine's speed weighs on both sides. The headline pools every
//     round (all matches over all wall time of each kind); the report adds the
//     per-round paired overheads with their mean's 95% interval, and the
//     overhead of the medians. The bar: under 5%.
//     Optional phases (--phases) that show where the arena's time goes:
//     "client" replays the same matches directly again, but through the arena's
//     own GrpcRefereeClient instead of a bare stub; "ladder" runs a ladder with
//     max_matches = --matches (the dispatcher's matchmaking and refill).
//  4. Rating and storage cost per match: RatingModel::Update for a table of the
//     variant's seats (a timed loop, median of 5 rounds of
//     --rating_iterations), and the arena's writes of one match on a temp
//     Store of the --database back end (SQLite on the same file system, or a
//     database of the private PostgreSQL server): InsertMatch (when it is created),
//     the scheduler's MatchResultOf (ranks, the record split into hands), and
//     CommitMatch (seats, records, ratings, history; one match per
//     transaction, the writer's worst case) with a real match record from
//     step 2, --commits matches; with commits per second (one per
//     transaction) and this process's CPU per commit (the arena's share; with
//     PostgreSQL the server's CPU is not in it).
//
// --database=postgresql runs all of it on PostgreSQL: a private server
// (tests/pg/postgres_server.h: initdb and pg_ctl in the temp directory, fsync
// and synchronous_commit on, as a real deployment) with one database for the
// arena (--database=postgresql://...) and one for the storage step.
//
// Per phase the report gives matches/s and hands/s, the mean match duration as
// the referee measured it, "slots" (the share of max_parallel x wall time that
// referees spent inside matches: what the arena leaves idle shows here, and it
// is far less noisy than matches/s on a loaded machine), CPU per match of the
// arena and of the referees, for arena phases the time of the request itself
// and until the first match ran, and for direct phases how many replayed games
// ended with the arena's totals.
//
// A match moved to another referee after a transport failure (the arena's
// retries, read back from each match's attempts; the direct phases retry the
// same way) is reported as a retry, not as a failure.
//
// Every process it starts is stopped at the end, on errors and on SIGINT/SIGTERM
// too; every wait is bounded (--phase_timeout_s) and a watchdog (--watchdog_s)
// ends a run that hangs. Exit status: 0 when everything ran without a fault or
// a failed match, 1 when a match failed or had a fault, 2 on a usage error or
// when the processes could not be started, 3 when the watchdog fired. Speed
// never changes the exit status.

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "referee/tools/program_usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/rating/rating.h"
#include "arena/scheduler/scheduler.h"
#include "arena/server/grpc_referee_client.h"
#include "arena/store/store.h"
#include "nlohmann/json.hpp"
#include "referee/core/stats.h"
#include "referee/engine/registry.h"
#include "referee/server/grpc_status.h"
#include "referee/tools/bench_util.h"
#include "referee/tools/subprocess.h"
#include "tarock/v1/arena.grpc.pb.h"
#include "tarock/v1/tarock.grpc.pb.h"
#include "tests/pg/postgres_server.h"

ABSL_FLAG(std::string, variant, "slovenian-4p", "the variant of every match");
ABSL_FLAG(int, referees, 2, "tarock-referee processes (K)");
ABSL_FLAG(int, max_parallel, 4, "matches in flight at once: the arena's --max_parallel and the "
                                "direct phase's threads");
ABSL_FLAG(int, matches, 200, "matches per phase (M)");
ABSL_FLAG(int, hands, 4, "hands per match (H; a multiple of the seats)");
ABSL_FLAG(int, repetitions, 3, "rounds of the phases; the report gives medians");
ABSL_FLAG(std::vector<std::string>, phases,
          std::vector<std::string>({"tournament", "direct", "client", "ladder"}),
          "phases of each round, in order: tournament (required), direct (required), client "
          "(direct through the arena's GrpcRefereeClient), ladder (a ladder of --matches)");
ABSL_FLAG(int, warmup_matches, 8,
          "matches through the arena and directly before the timed rounds (0: none)");
ABSL_FLAG(int64_t, per_decision_ms, 30000,
          "per-decision limit of every match: generous, so a loaded machine never times out");
ABSL_FLAG(int, poll_ms, 100,
          "how often the arena's Status is polled during a phase (each poll costs the arena "
          "CPU: the report gives how much)");
ABSL_FLAG(int, commits, 500, "storage: matches inserted and committed on a temp store (0: skip)");
ABSL_FLAG(std::string, database, "sqlite",
          "the arena's and the storage step's back end: sqlite, or postgresql (a private server "
          "the benchmark starts, durable: fsync on)");
ABSL_FLAG(int, rating_iterations, 200000, "rating: Update() calls per round (0: skip)");
ABSL_FLAG(uint64_t, seed, 1, "seed of the tournaments and of the bots");
ABSL_FLAG(std::string, bin_dir, "",
          "where tarock-referee, tarock-bot-random and tarock-arena are (default: beside this "
          "binary)");
ABSL_FLAG(std::string, tmp_dir, "",
          "parent of the temp data directory (default: $TMPDIR, else /tmp)");
ABSL_FLAG(bool, keep_data, false, "keep the temp data directory (the arena's database and log)");
ABSL_FLAG(int, phase_timeout_s, 1800, "a phase that takes longer fails");
ABSL_FLAG(int, watchdog_s, 7200,
          "stop every process and exit with status 3 after this many seconds (0: never)");
ABSL_FLAG(bool, json, false, "print the report as JSON instead of text");

namespace tarock {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr double kBarPercent = 5.0;

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string FileSystemType(const std::string& path) {
  struct statfs s;
  if (statfs(path.c_str(), &s) != 0) return "?";
  switch (static_cast<unsigned long>(s.f_type)) {
    case 0xEF53: return "ext4";
    case 0x01021994: return "tmpfs";
    case 0x794c7630: return "overlayfs";
    case 0x9123683E: return "btrfs";
    case 0x58465342: return "xfs";
    case 0x6969: return "nfs";
    default: return absl::StrFormat("0x%x", static_cast<unsigned long>(s.f_type));
  }
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// The temp data directory; removed on destruction unless kept.
class TempDir {
 public:
  static absl::StatusOr<std::unique_ptr<TempDir>> Make(std::string parent, bool keep) {
    if (parent.empty()) {
      const char* t = std::getenv("TMPDIR");
      parent = t && *t ? t : "/tmp";
    }
    std::string tmpl = parent + "/arena_bench.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr)
      return absl::InternalError(absl::StrCat("cannot create a directory under ", parent));
    return std::unique_ptr<TempDir>(new TempDir(buf.data(), keep));
  }
  ~TempDir() {
    if (keep_) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  TempDir(std::string path, bool keep) : path_(std::move(path)), keep_(keep) {}
  std::string path_;
  bool keep_;
};

double CpuOf(const std::vector<Server>& servers) {
  double s = 0;
  for (const Server& x : servers) s += ProcessCpuSeconds(x.process->pid());
  return s;
}

// Faults and failures, with the first few details of each for the report.
struct Problems {
  int failed_matches = 0;
  int faults = 0;
  int errors = 0;  // anything else that went wrong (an RPC, a timeout, a mismatch)
  // Matches moved to another referee after a transport failure (the arena's
  // retries, and this program's in the direct phases): reported, not failures.
  int retries = 0;
  std::vector<std::string> notes;
  void Note(const std::string& d) {
    if (notes.size() < 12) notes.push_back(d);
  }
  bool any() const { return failed_matches > 0 || faults > 0 || errors > 0; }
  void Add(const Problems& o) {
    failed_matches += o.failed_matches;
    faults += o.faults;
    errors += o.errors;
    retries += o.retries;
    for (const std::string& d : o.notes) Note(d);
  }
  json Json() const {
    return {{"failed_matches", failed_matches}, {"faults", faults}, {"errors", errors},
            {"retries", retries}, {"notes", notes}};
  }
};

// One match's outcome, as either side reports it.
struct Outcome {
  bool ok = false;
  std::vector<int64_t> totals;
  double duration_s = 0;  // the referee's own figure
  int hands = 0;
  int64_t decisions = 0;  // direct phases only
};

// One timed phase of one round.
struct PhaseResult {
  std::string kind;
  int round = 0;
  int matches = 0;
  double wall_s = 0;
  double request_s = 0;        // arena: the RunTournament / StartLadder call
  double first_running_s = -1; // arena: until Status first showed a match in flight or done
  std::vector<Outcome> outcomes;
  double arena_cpu_s = 0, referees_cpu_s = 0, bots_cpu_s = 0, self_cpu_s = 0;
  int identical = -1;          // direct replays: matches with the arena's totals
  Problems problems;

  int done() const {
    int n = 0;
    for (const Outcome& o : outcomes) n += o.ok;
    return n;
  }
  double matches_per_s() const { return wall_s > 0 ? done() / wall_s : 0; }
  int64_t hands() const {
    int64_t n = 0;
    for (const Outcome& o : outcomes) n += o.hands;
    return n;
  }
  int64_t decisions() const {
    int64_t n = 0;
    for (const Outcome& o : outcomes) n += o.decisions;
    return n;
  }
  double duration_sum() const {
    double s = 0;
    for (const Outcome& o : outcomes) s += o.duration_s;
    return s;
  }
  // Share of the slots (max_parallel x wall) that a referee spent in a match.
  double slot_utilization(int parallel) const {
    return wall_s > 0 ? duration_sum() / (wall_s * parallel) : 0;
  }
  json Json(int parallel) const {
    const double n = std::max(1, done());
    json j = {{"kind", kind},
              {"round", round},
              {"matches", matches},
              {"done", done()},
              {"wall_s", wall_s},
              {"matches_per_s", matches_per_s()},
              {"hands", hands()},
              {"hands_per_s", wall_s > 0 ? hands() / wall_s : 0},
              {"mean_match_duration_s", duration_sum() / n},
              {"slot_utilization", slot_utilization(parallel)},
              {"arena_cpu_ms_per_match", arena_cpu_s * 1e3 / n},
              {"referees_cpu_ms_per_match", referees_cpu_s * 1e3 / n},
              {"bots_cpu_ms_per_match", bots_cpu_s * 1e3 / n},
              {"bench_cpu_ms_per_match", self_cpu_s * 1e3 / n},
              {"problems", problems.Json()}};
    if (decisions() > 0) j["decisions"] = decisions();
    if (kind == "tournament" || kind == "ladder") {
      j["request_s"] = request_s;
      j["first_running_s"] = first_running_s;
    }
    if (identical >= 0) j["identical_to_arena"] = identical;
    j["retries"] = problems.retries;
    return j;
  }
};

// The processes and channels of the run.
struct Setup {
  std::string variant;
  int seats = 0;
  int hands = 0;
  int parallel = 0;
  std::vector<Server> referees;
  std::vector<Server> bots;
  std::vector<std::string> bot_names;
  std::map<std::string, std::string> endpoint_of;  // bot name -> endpoint
  Server arena;
  std::unique_ptr<v1::Arena::Stub> arena_stub;
  std::vector<std::unique_ptr<v1::Referee::Stub>> referee_stubs;
  arena::GrpcRefereeClient client;
  absl::Duration phase_timeout;
  absl::Duration poll;
};

template <typename Response, typename Request, typename Method>
absl::StatusOr<Response> Unary(v1::Arena::Stub* stub, Method method, const Request& request,
                               absl::Duration timeout = absl::Seconds(120)) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  Response response;
  grpc::Status status = (stub->*method)(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::StatusResponse> ArenaStatus(Setup& s) {
  return Unary<v1::StatusResponse>(s.arena_stub.get(), &v1::Arena::Stub::Status,
                                   v1::StatusRequest(), absl::Seconds(30));
}

// ---------------------------------------------------------------------------
// Direct: the matches on the referees from this process.

// A referee failure worth another referee, as the arena's scheduler sees it.
bool IsRefereeFailure(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsInternal(s) || absl::IsUnknown(s) ||
         absl::IsAborted(s) || absl::IsResourceExhausted(s);
}

// Runs `spec` on referee k mod K, or the next ones after a transport failure
// (at most 3 attempts, as the arena retries on another referee).
Outcome RunOneDirect(Setup& s, size_t k, const v1::MatchSpec& spec, bool via_client,
                     Problems* p, std::string* record) {
  Outcome out;
  std::optional<v1::MatchFinished> finished;
  absl::Status last = absl::UnknownError("no attempt");
  for (int attempt = 0; attempt < 3 && !finished; ++attempt) {
    const size_t r = (k + static_cast<size_t>(attempt)) % s.referees.size();
    if (attempt > 0) {
      ++p->retries;
      p->Note(absl::StrCat(spec.match_id(), ": retried on another referee after ",
                           last.ToString()));
    }
    if (via_client) {
      static const std::atomic<bool> kNever{false};
      absl::StatusOr<v1::MatchFinished> f =
          s.client.RunMatch(s.referees[r].endpoint, spec, &kNever);
      if (f.ok()) {
        finished = std::move(*f);
      } else {
        last = f.status();
      }
    } else {
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(absl::Now() + s.phase_timeout));
      auto reader = s.referee_stubs[r]->RunMatch(&context, spec);
      v1::MatchEvent event;
      std::optional<v1::MatchFinished> f;
      Problems faults;
      while (reader->Read(&event)) {
        if (event.has_fault()) {
          ++faults.faults;
          faults.Note(absl::StrCat(spec.match_id(), ": fault of seat ", event.fault().seat(),
                                   ": ", event.fault().detail()));
        }
        if (event.has_match_finished()) f = std::move(*event.mutable_match_finished());
      }
      grpc::Status status = reader->Finish();
      if (status.ok() && f) {
        finished = std::move(f);
        p->Add(faults);
      } else {
        last = status.ok() ? absl::UnavailableError("the referee ended without a result")
                           : FromGrpcStatus(status);
      }
    }
    if (!finished && !IsRefereeFailure(last)) break;
  }
  if (!finished) {
    ++p->failed_matches;
    p->Note(absl::StrCat(spec.match_id(), ": ", last.ToString()));
    return out;
  }
  if (finished->hands() != spec.num_hands()) {
    ++p->failed_matches;
    p->Note(absl::StrCat(spec.match_id(), ": ", finished->hands(), " hands of ", spec.num_hands()));
    return out;
  }
  for (const v1::SeatSummary& seat : finished->seats()) {
    if (via_client && seat.faults() > 0) {
      p->faults += seat.faults();
      p->Note(absl::StrCat(spec.match_id(), ": ", seat.faults(), " faults of ", seat.name()));
    }
    out.totals.push_back(seat.total());
  }
  out.ok = true;
  out.duration_s = finished->duration_s();
  out.hands = finished->hands();
  out.decisions = finished->decisions();
  if (record != nullptr) *record = finished->record_json();
  return out;
}

// The CPU seconds of every process of the run at one moment.
struct CpuMark {
  double arena = 0, referees = 0, bots = 0, self = 0;
};

CpuMark MarkCpu(const Setup& s) {
  return {ProcessCpuSeconds(s.arena.process->pid()), CpuOf(s.referees), CpuOf(s.bots),
          SelfCpuSeconds()};
}

// Charges the phase with what each process spent since `since`.
void ChargeCpu(const Setup& s, const CpuMark& since, PhaseResult* out) {
  const CpuMark now = MarkCpu(s);
  out->arena_cpu_s = now.arena - since.arena;
  out->referees_cpu_s = now.referees - since.referees;
  out->bots_cpu_s = now.bots - since.bots;
  out->self_cpu_s = now.self - since.self;
}

PhaseResult RunDirect(Setup& s, const std::string& kind, int round,
                      const std::vector<v1::MatchSpec>& specs, std::string* record) {
  PhaseResult out;
  out.kind = kind;
  out.round = round;
  out.matches = static_cast<int>(specs.size());
  out.outcomes.resize(specs.size());
  const bool via_client = kind == "client";
  std::atomic<size_t> next{0};
  std::mutex mu;
  const CpuMark cpu0 = MarkCpu(s);
  const Clock::time_point t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < s.parallel; ++t) {
    threads.emplace_back([&] {
      for (;;) {
        const size_t k = next.fetch_add(1);
        if (k >= specs.size()) return;
        v1::MatchSpec spec = specs[k];
        spec.set_match_id(absl::StrCat(kind, round, "-", spec.match_id()));
        Problems p;
        std::string rec;
        Outcome o = RunOneDirect(s, k, spec, via_client, &p, record && k == 0 ? &rec : nullptr);
        std::lock_guard<std::mutex> lock(mu);
        out.outcomes[k] = std::move(o);
        out.problems.Add(p);
        if (!rec.empty() && record->empty()) *record = std::move(rec);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  out.wall_s = SecondsSince(t0);
  ChargeCpu(s, cpu0, &out);
  return out;
}

// ---------------------------------------------------------------------------
// Through the arena.

// The arena's count of matches done or failed, or nullopt (noted in `out`)
// when Status fails.
std::optional<int64_t> MatchesEnded(Setup& s, PhaseResult* out) {
  absl::StatusOr<v1::StatusResponse> st = ArenaStatus(s);
  if (!st.ok()) {
    ++out->problems.errors;
    out->problems.Note(absl::StrCat("Status failed: ", st.status().ToString()));
    return std::nullopt;
  }
  return st->matches_done() + st->matches_failed();
}

// Waits until the arena counts `target` more matches done or failed than
// `baseline`; fills the timing of `out`.
void WaitForArena(Setup& s, int64_t baseline, int64_t target, Clock::time_point t0,
                  PhaseResult* out) {
  const absl::Time deadline = absl::Now() + s.phase_timeout;
  int rpc_failures = 0;
  for (;;) {
    absl::StatusOr<v1::StatusResponse> st = ArenaStatus(s);
    if (!st.ok()) {
      if (++rpc_failures >= 5) {
        ++out->problems.errors;
        out->problems.Note(absl::StrCat("Status failed: ", st.status().ToString()));
        break;
      }
    } else {
      rpc_failures = 0;
      const int64_t finished = st->matches_done() + st->matches_failed() - baseline;
      if (out->first_running_s < 0 && (st->running() > 0 || finished > 0))
        out->first_running_s = SecondsSince(t0);
      if (finished >= target) break;
      // Nothing left waiting for a referee (the last matches run or wait for
      // their commit): poll fast, so the poll interval does not add to the
      // arena's time.
      if (st->queue_depth() == 0 && finished > 0) {
        absl::SleepFor(std::min(s.poll, absl::Milliseconds(2)));
        continue;
      }
    }
    if (!s.arena.process->Running()) {
      ++out->problems.errors;
      out->problems.Note("the arena process died");
      break;
    }
    if (absl::Now() > deadline) {
      ++out->problems.errors;
      out->problems.Note(absl::StrCat("the arena did not finish within ",
                                      absl::FormatDuration(s.phase_timeout)));
      break;
    }
    absl::SleepFor(s.poll);
  }
  out->wall_s = SecondsSince(t0);
}

// The newest `n` matches of the arena (the phase's own), oldest first, as
// outcomes and as specs to replay.
void ReadBack(Setup& s, int n, const std::string& kind, PhaseResult* out,
              std::vector<v1::MatchSpec>* specs) {
  v1::ListMatchesRequest req;
  req.set_variant(s.variant);
  req.set_limit(n);
  absl::StatusOr<v1::ListMatchesResponse> list =
      Unary<v1::ListMatchesResponse>(s.arena_stub.get(), &v1::Arena::Stub::ListMatches, req);
  if (!list.ok()) {
    ++out->problems.errors;
    out->problems.Note(absl::StrCat("ListMatches failed: ", list.status().ToString()));
    return;
  }
  std::vector<v1::ArenaMatch> matches(list->matches().rbegin(), list->matches().rend());
  if (static_cast<int>(matches.size()) != n) {
    ++out->problems.errors;
    out->problems.Note(absl::StrCat("the arena lists ", matches.size(), " matches of ", n));
  }
  for (const v1::ArenaMatch& m : matches) {
    Outcome o;
    if (m.kind() != kind) {
      ++out->problems.errors;
      out->problems.Note(absl::StrCat("match ", m.id(), " is a ", m.kind(), " match"));
    }
    if (m.status() != "done") {
      ++out->problems.failed_matches;
      out->problems.Note(absl::StrCat("match ", m.id(), ": ", m.status(), " ", m.error()));
    } else {
      o.ok = true;
      o.duration_s = m.duration_s();
      o.hands = m.hands();
    }
    if (m.attempts() > 1) {
      out->problems.retries += m.attempts() - 1;
      out->problems.Note(absl::StrCat("match ", m.id(), " ran on ", m.attempts(),
                                      " referees (the arena retried it)"));
    }
    std::vector<v1::ArenaSeat> seats(m.seats().begin(), m.seats().end());
    std::sort(seats.begin(), seats.end(),
              [](const v1::ArenaSeat& a, const v1::ArenaSeat& b) { return a.seat() < b.seat(); });
    v1::MatchSpec spec;
    spec.set_match_id(m.id());
    spec.set_variant(m.variant());
    spec.set_num_hands(s.hands);
    spec.set_seed(m.seed());
    spec.mutable_time_control()->set_per_decision_ms(absl::GetFlag(FLAGS_per_decision_ms));
    spec.set_result_only(true);  // as the arena asks for its matches
    for (const v1::ArenaSeat& seat : seats) {
      if (seat.faults() > 0) {
        out->problems.faults += seat.faults();
        out->problems.Note(absl::StrCat("match ", m.id(), ": ", seat.faults(), " faults of ",
                                        seat.bot()));
      }
      o.totals.push_back(seat.total());
      v1::SeatSpec* ss = spec.add_seats();
      ss->set_name(seat.bot());
      ss->set_endpoint(s.endpoint_of[seat.bot()]);
    }
    out->outcomes.push_back(std::move(o));
    if (specs) specs->push_back(std::move(spec));
  }
}

PhaseResult RunTournament(Setup& s, int round, int matches, uint64_t seed,
                          std::vector<v1::MatchSpec>* specs) {
  PhaseResult out;
  out.kind = "tournament";
  out.round = round;
  out.matches = matches;
  v1::RunTournamentRequest req;
  req.set_name(absl::StrCat("arena_bench round ", round));
  req.set_variant(s.variant);
  for (const std::string& b : s.bot_names) req.add_bots(b);
  req.set_format(v1::RunTournamentRequest::ROUND_ROBIN);
  // One group (the field is one table): `deals` matches, or `deals` x seats
  // with the duplicate rotation (for more than 1000 matches).
  if (matches <= 1000) {
    req.set_no_duplicate(true);
    req.set_deals(matches);
  } else {
    req.set_deals(matches / s.seats);
  }
  req.set_hands_per_match(s.hands);
  req.set_seed(seed);
  req.mutable_time_control()->set_per_decision_ms(absl::GetFlag(FLAGS_per_decision_ms));
  const std::optional<int64_t> baseline = MatchesEnded(s, &out);
  if (!baseline) return out;
  const CpuMark cpu0 = MarkCpu(s);
  const Clock::time_point t0 = Clock::now();
  absl::StatusOr<v1::TournamentInfo> info = Unary<v1::TournamentInfo>(
      s.arena_stub.get(), &v1::Arena::Stub::RunTournament, req, s.phase_timeout);
  out.request_s = SecondsSince(t0);
  if (!info.ok()) {
    ++out.problems.errors;
    out.problems.Note(absl::StrCat("RunTournament failed: ", info.status().ToString()));
    return out;
  }
  if (info->matches_total() != matches) {
    ++out.problems.errors;
    out.problems.Note(absl::StrCat("the tournament has ", info->matches_total(), " matches, not ",
                                   matches));
  }
  WaitForArena(s, *baseline, info->matches_total(), t0, &out);
  ChargeCpu(s, cpu0, &out);
  // Not timed: the check and the specs.
  v1::GetTournamentRequest g;
  g.set_id(info->id());
  absl::StatusOr<v1::TournamentInfo> after =
      Unary<v1::TournamentInfo>(s.arena_stub.get(), &v1::Arena::Stub::GetTournament, g);
  if (!after.ok() || !after->finished() || after->matches_failed() > 0) {
    ++out.problems.errors;
    out.problems.Note(absl::StrCat(
        "tournament ", info->id(), after.ok() ? absl::StrCat(": finished ", after->finished(),
                                                             ", failed ", after->matches_failed())
                                              : absl::StrCat(": ", after.status().ToString())));
  }
  ReadBack(s, info->matches_total(), "tournament", &out, specs);
  return out;
}

PhaseResult RunLadder(Setup& s, int round, int matches) {
  PhaseResult out;
  out.kind = "ladder";
  out.round = round;
  out.matches = matches;
  v1::StartLadderRequest req;
  v1::LadderConfig* c = req.mutable_config();
  c->set_variant(s.variant);
  c->set_format("match");  // the overhead of one table per match, as measured before issue 33
  c->set_hands_per_match(s.hands);
  c->mutable_time_control()->set_per_decision_ms(absl::GetFlag(FLAGS_per_decision_ms));
  c->set_max_matches(matches);
  const std::optional<int64_t> baseline = MatchesEnded(s, &out);
  if (!baseline) return out;
  const CpuMark cpu0 = MarkCpu(s);
  const Clock::time_point t0 = Clock::now();
  absl::StatusOr<v1::LadderInfo> info =
      Unary<v1::LadderInfo>(s.arena_stub.get(), &v1::Arena::Stub::StartLadder, req);
  out.request_s = SecondsSince(t0);
  if (!info.ok()) {
    ++out.problems.errors;
    out.problems.Note(absl::StrCat("StartLadder failed: ", info.status().ToString()));
    return out;
  }
  WaitForArena(s, *baseline, matches, t0, &out);
  ChargeCpu(s, cpu0, &out);
  // Not timed: the ladder ends (so the next round may start one) and the check.
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  bool stopped = false;
  while (!stopped && absl::Now() < deadline) {
    absl::StatusOr<v1::ListLaddersResponse> l = Unary<v1::ListLaddersResponse>(
        s.arena_stub.get(), &v1::Arena::Stub::ListLadders, v1::ListLaddersRequest());
    stopped = true;
    if (l.ok()) {
      for (const v1::LadderInfo& li : l->ladders())
        if (li.id() == info->id() && li.running()) stopped = false;
    }
    if (!stopped) absl::SleepFor(absl::Milliseconds(20));
  }
  if (!stopped) {
    ++out.problems.errors;
    out.problems.Note(absl::StrCat("ladder ", info->id(), " did not stop after ", matches,
                                   " matches"));
  }
  ReadBack(s, matches, "ladder", &out, nullptr);
  return out;
}

// What this program's polling costs the arena: Status calls back to back on
// the idle arena, its CPU per call.
json PollCost(Setup& s, double arena_rate) {
  const int calls = 500;
  const double cpu0 = ProcessCpuSeconds(s.arena.process->pid());
  const Clock::time_point t0 = Clock::now();
  int ok = 0;
  for (int i = 0; i < calls; ++i) ok += ArenaStatus(s).ok();
  const double wall = SecondsSince(t0);
  const double cpu_us = (ProcessCpuSeconds(s.arena.process->pid()) - cpu0) * 1e6 / calls;
  const double polls_per_s = 1000.0 / absl::ToDoubleMilliseconds(s.poll);
  return {{"calls", calls},
          {"ok", ok},
          {"wall_us_per_call", wall * 1e6 / calls},
          {"arena_cpu_us_per_call", cpu_us},
          {"arena_cpu_ms_per_match_at_arena_rate",
           arena_rate > 0 ? cpu_us * polls_per_s / arena_rate / 1e3 : 0}};
}

int CountIdentical(const PhaseResult& a, const PhaseResult& b) {
  int n = 0;
  for (size_t i = 0; i < a.outcomes.size() && i < b.outcomes.size(); ++i)
    if (a.outcomes[i].ok && b.outcomes[i].ok && a.outcomes[i].totals == b.outcomes[i].totals) ++n;
  return n;
}

// ---------------------------------------------------------------------------
// 4. Rating and storage per match.

json RatingBench(int seats, int iterations) {
  const arena::RatingModel model;
  std::mt19937_64 rng(seats);
  std::normal_distribution<double> mu(25, 6);
  std::uniform_real_distribution<double> sigma(0.8, 25.0 / 3);
  struct Table {
    std::vector<arena::Rating> players;
    std::vector<int> ranks;
  };
  std::vector<Table> tables(1024);
  for (Table& t : tables) {
    for (int i = 0; i < seats; ++i) {
      t.players.push_back({mu(rng), sigma(rng)});
      t.ranks.push_back(static_cast<int>(rng() % seats));
    }
  }
  std::vector<double> ns;
  double sink = 0;
  for (int round = 0; round < 5; ++round) {
    const Clock::time_point t0 = Clock::now();
    for (int i = 0; i < iterations; ++i) {
      const Table& t = tables[static_cast<size_t>(i) & 1023];
      sink += model.Update(t.players, t.ranks)[0].mu;
    }
    ns.push_back(SecondsSince(t0) * 1e9 / iterations);
  }
  if (sink == 0.125) std::fprintf(stderr, " ");  // keeps the loop
  return {{"players", seats}, {"iterations_per_round", iterations}, {"rounds", 5},
          {"ns_per_update_median", Median(ns)}, {"ns_per_update_min",
                                                 *std::min_element(ns.begin(), ns.end())}};
}

// A synthetic match record of `hands` hands, when no real one is at hand.
std::string SyntheticRecord(int seats, int hands) {
  json deals = json::array();
  for (int h = 0; h < hands; ++h) {
    json actions = json::array();
    for (int a = 0; a < 90; ++a) actions.push_back("play T21");
    json scores = json::array();
    for (int s = 0; s < seats; ++s) scores.push_back(s % 2 ? 30 : -30);
    deals.push_back({{"variant", "slovenian-4p"}, {"dealer", h % seats}, {"actions", actions},
                     {"scores", scores}, {"decision_ms", std::vector<double>(90, 0.05)}});
  }
  return json{{"deals", deals}}.dump();
}

struct OpTimes {
  std::vector<double> us;
  json Json() const {
    return {{"mean_us", Mean(us)}, {"median_us", Median(us)}, {"p90_us", Percentile(us, 0.9)},
            {"max_us", us.empty() ? 0 : *std::max_element(us.begin(), us.end())}};
  }
};

// `url`: the store to use (OpenStore), empty.
json StoreBench(const std::string& dir, const std::string& url, const std::string& variant,
                int seats, int hands, int commits, std::string record, Problems* problems) {
  json out;
  std::string source = "a real match record of the direct phase";
  if (record.empty()) {
    record = SyntheticRecord(seats, hands);
    source = "synthetic";
  }
  absl::StatusOr<std::unique_ptr<arena::Store>> store = arena::OpenStore(url);
  if (!store.ok()) {
    ++problems->errors;
    problems->Note(absl::StrCat("store: ", store.status().ToString()));
    return out;
  }
  const arena::RatingModel model;
  std::vector<int64_t> bot_ids;
  for (int b = 0; b < seats; ++b) {
    arena::BotRow row;
    row.name = absl::StrCat("store-bench-", b);
    row.endpoint = "127.0.0.1:1";
    row.owner = "arena_bench";
    row.variants = {variant};
    row.token_hash = arena::HashToken("x");
    absl::StatusOr<arena::BotRow> added = (*store)->AddBot(row);
    if (!added.ok()) {
      ++problems->errors;
      problems->Note(absl::StrCat("store: ", added.status().ToString()));
      return out;
    }
    bot_ids.push_back(added->id);
  }
  // A spec as the scheduler stores it.
  v1::MatchSpec spec;
  spec.set_variant(variant);
  spec.set_num_hands(hands);
  spec.mutable_time_control()->set_per_decision_ms(absl::GetFlag(FLAGS_per_decision_ms));
  for (int b = 0; b < seats; ++b) {
    v1::SeatSpec* seat = spec.add_seats();
    seat->set_name(absl::StrCat("store-bench-", b));
    seat->set_endpoint("127.0.0.1:1");
  }
  OpTimes insert, split, commit;
  std::mt19937_64 rng(7);
  // As a tournament does it: every match created first, then run one by one.
  for (int k = 0; k < commits; ++k) {
    arena::MatchRow m;
    m.id = absl::StrCat("S-", k + 1);
    m.variant = variant;
    m.kind = "tournament";
    m.tournament_id = 1;
    m.seed = rng();
    m.bot_ids = bot_ids;
    spec.set_match_id(m.id);
    spec.set_seed(m.seed);
    std::string spec_json;
    google::protobuf::util::JsonPrintOptions o;
    o.preserve_proto_field_names = true;
    (void)google::protobuf::util::MessageToJsonString(spec, &spec_json, o);
    m.spec = spec_json;
    const Clock::time_point t0 = Clock::now();
    absl::Status s = (*store)->InsertMatch(m);
    insert.us.push_back(SecondsSince(t0) * 1e6);
    if (!s.ok()) {
      ++problems->errors;
      problems->Note(absl::StrCat("store: ", s.ToString()));
      return out;
    }
  }
  // Then each committed as the scheduler's writer does when results come one
  // at a time (its worst case: several queued results share one transaction).
  const Clock::time_point commits_start = Clock::now();
  const double cpu_start = SelfCpuSeconds();
  for (int k = 0; k < commits; ++k) {
    const std::string id = absl::StrCat("S-", k + 1);
    v1::MatchFinished finished;
    finished.set_record_json(record);
    finished.set_duration_s(0.1);
    finished.set_hands(hands);
    for (int b = 0; b < seats; ++b)
      finished.add_seats()->set_total(static_cast<int64_t>(rng() % 200) - 100);
    Clock::time_point t0 = Clock::now();
    const arena::MatchResultRow result = arena::MatchResultOf(finished, bot_ids, "127.0.0.1:2", 1);
    split.us.push_back(SecondsSince(t0) * 1e6);
    arena::Store::RateFn rate = [&](const arena::MatchRow& match, const arena::MatchResultRow& r,
                                    const std::vector<std::optional<arena::RatingRow>>& current) {
      return arena::RateMatch(model, match.variant, r.seats, current);
    };
    t0 = Clock::now();
    absl::StatusOr<bool> c = (*store)->CommitMatch(id, result, rate);
    commit.us.push_back(SecondsSince(t0) * 1e6);
    if (!c.ok() || !*c) {
      ++problems->errors;
      problems->Note(absl::StrCat("store: commit ", id, ": ",
                                  c.ok() ? "already done" : c.status().ToString()));
      return out;
    }
  }
  const double commits_wall = SecondsSince(commits_start);
  const double commits_cpu = SelfCpuSeconds() - cpu_start;
  int record_hands = 0;
  {
    json rec = json::parse(record, nullptr, false);
    if (rec.is_object() && rec.contains("deals")) record_hands = static_cast<int>(rec["deals"].size());
  }
  out = {{"commits", commits},
         {"database", absl::StartsWith(url, "sqlite:") ? "sqlite" : "postgresql"},
         {"file_system", FileSystemType(dir)},
         {"commits_per_s", commits / commits_wall},
         {"cpu_us_per_commit", commits_cpu / commits * 1e6},
         {"record_source", source},
         {"record_bytes", record.size()},
         {"record_hands", record_hands},
         {"insert_match", insert.Json()},
         {"split_record", split.Json()},
         {"commit_match", commit.Json()},
         {"total_mean_us_per_match",
          Mean(insert.us) + Mean(split.us) + Mean(commit.us)},
         {"total_median_us_per_match",
          Median(insert.us) + Median(split.us) + Median(commit.us)}};
  return out;
}

// ---------------------------------------------------------------------------
// The report.

std::string Pct(double x) { return absl::StrFormat("%.1f%%", x * 100); }

void PrintText(const json& r) {
  std::printf("arena_bench: %s, %d matches x %d hands per phase, %d referees, max_parallel %d, "
              "%d rounds\n",
              r["variant"].get<std::string>().c_str(), r["matches"].get<int>(),
              r["hands"].get<int>(), r["referees"].get<int>(), r["max_parallel"].get<int>(),
              r["repetitions"].get<int>());
  std::printf("load average: %s at the start, %s at the end (%d cores)\n",
              r["load_average_start"].get<std::string>().c_str(),
              r["load_average_end"].get<std::string>().c_str(), r["cores"].get<int>());
  std::printf("data dir: %s (%s), database %s\n\n", r["data_dir"].get<std::string>().c_str(),
              r["file_system"].get<std::string>().c_str(),
              r.value("database", std::string("sqlite")).c_str());
  std::printf("%-11s %5s %8s %10s %9s %9s %8s %10s %10s %10s %10s %9s %7s\n", "phase", "round",
              "wall_s", "matches/s", "hands/s", "match_s", "slots", "arena_cpu", "referee_cpu",
              "request_s", "1st_run_s", "same", "retries");
  std::printf("%-11s %5s %8s %10s %9s %9s %8s %10s %10s %10s %10s %9s %7s\n", "", "", "", "", "",
              "(mean)", "(busy)", "ms/match", "ms/match", "", "", "games", "");
  for (const json& p : r["phases"]) {
    const std::string kind = p["kind"];
    const bool arena = kind == "tournament" || kind == "ladder";
    std::printf("%-11s %5d %8.2f %10.2f %9.1f %9.3f %8s %10.2f %10.2f %10s %10s %9s %7d\n",
                kind.c_str(), p["round"].get<int>(), p["wall_s"].get<double>(),
                p["matches_per_s"].get<double>(), p["hands_per_s"].get<double>(),
                p["mean_match_duration_s"].get<double>(),
                Pct(p["slot_utilization"].get<double>()).c_str(),
                p["arena_cpu_ms_per_match"].get<double>(),
                p["referees_cpu_ms_per_match"].get<double>(),
                arena ? absl::StrFormat("%.3f", p["request_s"].get<double>()).c_str() : "-",
                arena ? absl::StrFormat("%.3f", p["first_running_s"].get<double>()).c_str() : "-",
                p.contains("identical_to_arena")
                    ? absl::StrCat(p["identical_to_arena"].get<int>(), "/", p["done"].get<int>()).c_str()
                    : "-",
                p["problems"]["retries"].get<int>());
  }
  const json& s = r["summary"];
  std::printf("\nmedians over the rounds (matches/s):\n");
  auto slots = [&](const char* kind) {
    return Pct(s["slot_utilization_median"].value(kind, 0.0));
  };
  std::printf("  direct (bare Referee.RunMatch, %d threads)   %8.2f   slots busy %s\n",
              r["max_parallel"].get<int>(), s["direct_matches_per_s"].get<double>(),
              slots("direct").c_str());
  if (s.contains("client_matches_per_s"))
    std::printf("  direct through arena's GrpcRefereeClient     %8.2f   slots busy %s   (%s below "
                "direct)\n",
                s["client_matches_per_s"].get<double>(), slots("client").c_str(),
                Pct(s["client_overhead"].get<double>()).c_str());
  std::printf("  arena tournament                             %8.2f   slots busy %s\n",
              s["arena_matches_per_s"].get<double>(), slots("tournament").c_str());
  if (s.contains("ladder_matches_per_s"))
    std::printf("  arena ladder (max_matches)                   %8.2f   slots busy %s   (%s below "
                "direct)\n",
                s["ladder_matches_per_s"].get<double>(), slots("ladder").c_str(),
                Pct(s["ladder_overhead"].get<double>()).c_str());
  std::printf("\narena overhead = 1 - arena/direct = %s (every round pooled: %.2f vs %.2f "
              "matches/s)\n",
              Pct(s["arena_overhead"].get<double>()).c_str(),
              s["pooled_arena_matches_per_s"].get<double>(),
              s["pooled_direct_matches_per_s"].get<double>());
  std::printf("  per round: %s\n  paired rounds: mean %s +- %s (95%%), median %s; of the medians "
              "above: %s\n",
              s["arena_overhead_per_round_text"].get<std::string>().c_str(),
              Pct(s["arena_overhead_paired_mean"].get<double>()).c_str(),
              s["arena_overhead_paired_ci95"].is_number()
                  ? Pct(s["arena_overhead_paired_ci95"].get<double>()).c_str()
                  : "?",
              Pct(s["arena_overhead_paired_median"].get<double>()).c_str(),
              Pct(s["arena_overhead_of_medians"].get<double>()).c_str());
  std::printf("bar: < %.0f%%: %s\n", kBarPercent, s["bar_met"].get<bool>() ? "met" : "NOT met");
  if (r.contains("status_poll_cost")) {
    const json& pc = r["status_poll_cost"];
    std::printf("(this program's Status polling every %d ms: %.0f us of arena CPU per call, about "
                "%.2f ms of arena CPU per match at the arena's median rate)\n",
                r["poll_ms"].get<int>(), pc["arena_cpu_us_per_call"].get<double>(),
                pc["arena_cpu_ms_per_match_at_arena_rate"].get<double>());
  }

  if (r.contains("rating") && !r["rating"].is_null()) {
    const json& g = r["rating"];
    std::printf("\nrating: RatingModel::Update, %d players: %.0f ns per match (median of %d "
                "rounds of %d; best %.0f ns)\n",
                g["players"].get<int>(), g["ns_per_update_median"].get<double>(),
                g["rounds"].get<int>(), g["iterations_per_round"].get<int>(),
                g["ns_per_update_min"].get<double>());
  }
  if (r.contains("store") && r["store"].contains("commit_match")) {
    const json& st = r["store"];
    std::printf("store (arena::Store, %s on %s; %d matches; record %zu bytes, %d hands, %s):\n",
                st["database"].get<std::string>().c_str(),
                st["file_system"].get<std::string>().c_str(), st["commits"].get<int>(),
                st["record_bytes"].get<size_t>(), st["record_hands"].get<int>(),
                st["record_source"].get<std::string>().c_str());
    for (const char* op : {"insert_match", "split_record", "commit_match"}) {
      const json& o = st[op];
      std::printf("  %-13s mean %8.1f us  median %8.1f us  p90 %8.1f us  max %9.1f us\n", op,
                  o["mean_us"].get<double>(), o["median_us"].get<double>(),
                  o["p90_us"].get<double>(), o["max_us"].get<double>());
    }
    std::printf("  per match (insert + split + commit): mean %.2f ms, median %.2f ms\n",
                st["total_mean_us_per_match"].get<double>() / 1e3,
                st["total_median_us_per_match"].get<double>() / 1e3);
    std::printf("  commits (one match per transaction): %.0f per second, %.0f us CPU of this "
                "process per commit\n",
                st["commits_per_s"].get<double>(), st["cpu_us_per_commit"].get<double>());
  }
  const json& pr = r["problems"];
  std::printf("\nproblems: %d failed matches, %d faults, %d errors; %d retries on another referee "
              "(not counted as failures)\n",
              pr["failed_matches"].get<int>(), pr["faults"].get<int>(), pr["errors"].get<int>(),
              pr["retries"].get<int>());
  for (const json& n : pr["notes"]) std::printf("  %s\n", n.get<std::string>().c_str());
}

int Main() {
  const std::string variant = absl::GetFlag(FLAGS_variant);
  const int num_referees = absl::GetFlag(FLAGS_referees);
  const int parallel = absl::GetFlag(FLAGS_max_parallel);
  const int matches = absl::GetFlag(FLAGS_matches);
  const int hands = absl::GetFlag(FLAGS_hands);
  const int rounds = absl::GetFlag(FLAGS_repetitions);
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  const std::vector<std::string> phases = absl::GetFlag(FLAGS_phases);
  auto usage = [](const std::string& m) {
    std::fprintf(stderr, "arena_bench: %s\n", m.c_str());
    return 2;
  };
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(variant);
  if (!info.ok()) return usage(absl::StrCat("unknown variant '", variant, "'"));
  const int seats = info->num_seats;
  if (num_referees < 1 || num_referees > 64) return usage("--referees must be 1..64");
  if (parallel < 1 || parallel > 256) return usage("--max_parallel must be 1..256");
  if (hands < 1 || hands % seats != 0)
    return usage(absl::StrCat("--hands must be a positive multiple of ", seats));
  if (matches < 1 || (matches > 1000 && (matches % seats != 0 || matches / seats > 1000)))
    return usage(absl::StrCat("--matches must be 1..1000, or a multiple of ", seats, " up to ",
                              1000 * seats));
  if (rounds < 1 || rounds > 100) return usage("--repetitions must be 1..100");
  bool has_tournament = false, has_direct = false;
  for (const std::string& p : phases) {
    if (p != "tournament" && p != "direct" && p != "client" && p != "ladder")
      return usage(absl::StrCat("unknown phase '", p, "'"));
    has_tournament |= p == "tournament";
    has_direct |= p == "direct";
  }
  if (!has_tournament || !has_direct) return usage("--phases needs tournament and direct");
  if (std::find(phases.begin(), phases.end(), "direct") <
      std::find(phases.begin(), phases.end(), "tournament"))
    return usage("--phases: tournament comes before direct (direct replays its matches)");
  const int warmup = absl::GetFlag(FLAGS_warmup_matches);
  if (warmup < 0 || warmup > 1000) return usage("--warmup_matches must be 0..1000");

  std::string bin_dir = absl::GetFlag(FLAGS_bin_dir);
  if (bin_dir.empty()) bin_dir = SelfDir();
  GuardBenchmark("arena_bench", absl::GetFlag(FLAGS_watchdog_s));

  const std::string load_start = LoadAverage();
  absl::StatusOr<std::unique_ptr<TempDir>> dir =
      TempDir::Make(absl::GetFlag(FLAGS_tmp_dir), absl::GetFlag(FLAGS_keep_data));
  if (!dir.ok()) return usage(std::string(dir.status().message()));

  // PostgreSQL: a private server in the temp directory, declared after it so
  // it stops first; one database for the arena, one for the storage step.
  const std::string database = absl::GetFlag(FLAGS_database);
  std::unique_ptr<testing::PostgresServer> pg;
  std::string arena_database = absl::StrCat("sqlite:", (*dir)->path(), "/arena");
  std::string store_database = absl::StrCat("sqlite:", (*dir)->path(), "/store_bench");
  if (database == "postgresql") {
    absl::StatusOr<std::unique_ptr<testing::PostgresServer>> server =
        testing::PostgresServer::Start(/*durable=*/true);
    if (!server.ok()) return usage(std::string(server.status().message()));
    pg = std::move(*server);
    absl::StatusOr<std::string> a = pg->CreateDatabase("arena");
    absl::StatusOr<std::string> b = pg->CreateDatabase("store_bench");
    if (!a.ok() || !b.ok()) return usage("cannot create the PostgreSQL databases");
    arena_database = *a;
    store_database = *b;
  } else if (database != "sqlite") {
    return usage("--database is sqlite or postgresql");
  }

  // Declared after the temp dir: the processes stop (destructors, reverse
  // order) before the directory goes.
  Setup s;
  s.variant = variant;
  s.seats = seats;
  s.hands = hands;
  s.parallel = parallel;
  s.phase_timeout = absl::Seconds(absl::GetFlag(FLAGS_phase_timeout_s));
  s.poll = absl::Milliseconds(std::max(1, absl::GetFlag(FLAGS_poll_ms)));
  auto start_failed = [](const absl::Status& st) {
    std::fprintf(stderr, "arena_bench: %s\n", std::string(st.message()).c_str());
    return 2;
  };
  for (int r = 0; r < num_referees; ++r) {
    absl::StatusOr<Server> ref =
        StartServer({bin_dir + "/tarock-referee", "--metrics_listen="}, "--listen");
    if (!ref.ok()) return start_failed(ref.status());
    s.referees.push_back(std::move(*ref));
  }
  for (int b = 0; b < seats; ++b) {
    absl::StatusOr<Server> bot = StartServer(
        {bin_dir + "/tarock-bot-random", absl::StrCat("--seed=", seed + 100 * (b + 1))},
        "--listen");
    if (!bot.ok()) return start_failed(bot.status());
    const std::string name = absl::StrCat("random-", b);
    s.bot_names.push_back(name);
    s.endpoint_of[name] = bot->endpoint;
    s.bots.push_back(std::move(*bot));
  }
  std::vector<std::string> referee_endpoints;
  for (const Server& r : s.referees) referee_endpoints.push_back(r.endpoint);
  {
    absl::StatusOr<Server> arena = StartServer(
        {bin_dir + "/tarock-arena", absl::StrCat("--data_dir=", (*dir)->path(), "/arena"),
         absl::StrCat("--database=", arena_database),
         absl::StrCat("--referees=", absl::StrJoin(referee_endpoints, ",")),
         absl::StrCat("--max_parallel=", parallel), "--http_listen="},
        "--listen", (*dir)->path() + "/arena.log");
    if (!arena.ok()) return start_failed(arena.status());
    s.arena = std::move(*arena);
  }
  auto arena_channel = grpc::CreateChannel(s.arena.endpoint, grpc::InsecureChannelCredentials());
  if (!arena_channel->WaitForConnected(absl::ToChronoTime(absl::Now() + absl::Seconds(30))))
    return start_failed(absl::UnavailableError("cannot connect to the arena"));
  s.arena_stub = v1::Arena::NewStub(arena_channel);
  for (const std::string& e : referee_endpoints) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(256 << 20);  // as the arena's client
    auto ch = grpc::CreateCustomChannel(e, grpc::InsecureChannelCredentials(), args);
    if (!ch->WaitForConnected(absl::ToChronoTime(absl::Now() + absl::Seconds(30))))
      return start_failed(absl::UnavailableError(absl::StrCat("cannot connect to referee ", e)));
    s.referee_stubs.push_back(v1::Referee::NewStub(ch));
  }
  for (int b = 0; b < seats; ++b) {
    v1::AddBotRequest req;
    req.set_name(s.bot_names[b]);
    req.set_endpoint(s.bots[b].endpoint);
    req.add_variants(variant);
    req.set_owner(absl::StrCat("owner-", b));
    absl::StatusOr<v1::AddBotResponse> added =
        Unary<v1::AddBotResponse>(s.arena_stub.get(), &v1::Arena::Stub::AddBot, req);
    if (!added.ok()) return start_failed(added.status());
  }

  Problems all;
  json report = {{"variant", variant},
                 {"seats", seats},
                 {"matches", matches},
                 {"hands", hands},
                 {"referees", num_referees},
                 {"max_parallel", parallel},
                 {"repetitions", rounds},
                 {"phases_per_round", phases},
                 {"per_decision_ms", absl::GetFlag(FLAGS_per_decision_ms)},
                 {"poll_ms", absl::GetFlag(FLAGS_poll_ms)},
                 {"cores", static_cast<int>(std::thread::hardware_concurrency())},
                 {"load_average_start", load_start},
                 {"data_dir", (*dir)->path()},
                 {"database", database},
                 {"file_system", FileSystemType((*dir)->path())}};

  // Warm-up, not counted: connections, threads and caches on every side.
  std::string record;
  if (warmup > 0) {
    std::vector<v1::MatchSpec> specs;
    PhaseResult t = RunTournament(s, 0, warmup, seed + 999, &specs);
    all.Add(t.problems);
    for (const char* kind : {"direct", "client"}) {
      PhaseResult d = RunDirect(s, kind, 0, specs, &record);
      all.Add(d.problems);
    }
  }

  std::vector<PhaseResult> results;
  std::map<std::string, std::vector<double>> rates, slots;
  std::vector<double> paired;
  std::vector<v1::MatchSpec> last_specs;  // of the previous round's tournament
  std::optional<PhaseResult> last_tournament;
  for (int round = 1; round <= rounds && !all.any(); ++round) {
    // Even rounds reverse the order: the direct phases first (replaying the
    // previous round's tournament), then a tournament of the same size (new
    // deals: the arena derives them from the tournament too), so a drift of
    // the machine's speed during the run weighs on both sides alike.
    const bool reversed = round % 2 == 0 && !last_specs.empty();
    std::vector<std::string> order = phases;
    if (reversed)
      std::stable_partition(order.begin(), order.end(), [](const std::string& k) {
        return k == "direct" || k == "client";
      });
    const uint64_t round_seed = seed + round;
    std::vector<v1::MatchSpec> specs = reversed ? last_specs : std::vector<v1::MatchSpec>();
    std::vector<PhaseResult> this_round;
    this_round.reserve(order.size());
    std::optional<PhaseResult> replayed;  // the tournament whose games the direct phases play
    for (const std::string& kind : order) {
      if (kind == "tournament") {
        std::vector<v1::MatchSpec> tournament_specs;
        this_round.push_back(RunTournament(s, round, matches, round_seed, &tournament_specs));
        if (!reversed) specs = tournament_specs;
        last_specs = std::move(tournament_specs);
        replayed = reversed ? std::move(last_tournament) : this_round.back();
        last_tournament = this_round.back();
      } else if (kind == "ladder") {
        this_round.push_back(RunLadder(s, round, matches));
      } else {
        this_round.push_back(RunDirect(s, kind, round, specs, &record));
      }
      all.Add(this_round.back().problems);
      rates[kind].push_back(this_round.back().matches_per_s());
      slots[kind].push_back(this_round.back().slot_utilization(parallel));
    }
    // The direct phases replayed the games of `replayed`: count the same ends.
    for (PhaseResult& p : this_round)
      if (replayed && (p.kind == "direct" || p.kind == "client"))
        p.identical = CountIdentical(*replayed, p);
    double t_rate = 0, d_rate = 0;
    for (const PhaseResult& p : this_round) {
      if (p.kind == "tournament") t_rate = p.matches_per_s();
      if (p.kind == "direct") d_rate = p.matches_per_s();
    }
    if (d_rate > 0) paired.push_back(1 - t_rate / d_rate);
    for (PhaseResult& p : this_round) results.push_back(std::move(p));
  }

  json phases_json = json::array();
  for (const PhaseResult& p : results) phases_json.push_back(p.Json(parallel));
  report["phases"] = phases_json;
  const double direct = Median(rates["direct"]);
  const double arena_rate = Median(rates["tournament"]);
  const double overhead_of_medians = direct > 0 ? 1 - arena_rate / direct : 0;
  // The headline: every round pooled (all matches over all wall time of each
  // kind), then the per-round paired overheads' mean with its 95% interval.
  double pooled_matches[2] = {0, 0}, pooled_wall[2] = {0, 0};
  for (const PhaseResult& p : results) {
    if (p.kind != "tournament" && p.kind != "direct") continue;
    const int i = p.kind == "tournament" ? 0 : 1;
    pooled_matches[i] += p.done();
    pooled_wall[i] += p.wall_s;
  }
  const double pooled_arena = pooled_wall[0] > 0 ? pooled_matches[0] / pooled_wall[0] : 0;
  const double pooled_direct = pooled_wall[1] > 0 ? pooled_matches[1] / pooled_wall[1] : 0;
  const double overhead = pooled_direct > 0 ? 1 - pooled_arena / pooled_direct : 0;
  const MeanCI paired_ci = ComputeMeanCI(paired);
  std::vector<std::string> per_round;
  for (double x : paired) per_round.push_back(Pct(x));
  json summary = {{"direct_matches_per_s", direct},
                  {"arena_matches_per_s", arena_rate},
                  {"pooled_direct_matches_per_s", pooled_direct},
                  {"pooled_arena_matches_per_s", pooled_arena},
                  {"arena_overhead", overhead},
                  {"arena_overhead_percent", overhead * 100},
                  {"arena_overhead_of_medians", overhead_of_medians},
                  {"arena_overhead_per_round", paired},
                  {"arena_overhead_per_round_text", absl::StrJoin(per_round, ", ")},
                  {"arena_overhead_paired_median", Median(paired)},
                  {"arena_overhead_paired_mean", paired_ci.mean},
                  // null with one round
                  {"arena_overhead_paired_ci95",
                   std::isfinite(paired_ci.half_width) ? json(paired_ci.half_width) : json()},
                  {"bar_percent", kBarPercent},
                  {"bar_met", overhead * 100 < kBarPercent}};
  json busy = json::object();
  for (const auto& [kind, v] : slots) busy[kind] = Median(v);
  summary["slot_utilization_median"] = busy;
  if (rates.count("client")) {
    const double c = Median(rates["client"]);
    summary["client_matches_per_s"] = c;
    summary["client_overhead"] = direct > 0 ? 1 - c / direct : 0;
  }
  if (rates.count("ladder")) {
    const double l = Median(rates["ladder"]);
    summary["ladder_matches_per_s"] = l;
    summary["ladder_overhead"] = direct > 0 ? 1 - l / direct : 0;
  }
  report["summary"] = summary;
  report["status_poll_cost"] = PollCost(s, arena_rate);

  // 4. Rating and storage, with the processes stopped (less noise).
  for (Server& x : s.bots) x.process->Stop();
  for (Server& x : s.referees) x.process->Stop();
  s.arena.process->Stop();
  if (const int it = absl::GetFlag(FLAGS_rating_iterations); it > 0)
    report["rating"] = RatingBench(seats, it);
  if (const int n = absl::GetFlag(FLAGS_commits); n > 0)
    report["store"] =
        StoreBench((*dir)->path(), store_database, variant, seats, hands, n, record, &all);
  report["load_average_end"] = LoadAverage();
  report["problems"] = all.Json();

  if (absl::GetFlag(FLAGS_json)) {
    std::printf("%s\n", report.dump(2).c_str());
  } else {
    PrintText(report);
  }
  std::fflush(stdout);
  return all.any() ? 1 : 0;
}

}  // namespace
}  // namespace tarock

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "arena_bench [--matches=N] [--hands=H] [--referees=K] [--max_parallel=P] [--json]\n"
      "Benchmark: plays N matches of tarock-bot-random processes through an in-process arena\n"
      "and the same matches by direct referee calls, and prints the arena's overhead per match\n"
      "and its rating and storage cost per match (docs/benchmarks.md).");
  tarock::ParseCommandLine(argc, argv);
  return tarock::Main();
}
