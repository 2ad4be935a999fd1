// The referee's end-to-end benchmark: what the referee costs per decision
// against real bots over loopback gRPC, next to what a bare gRPC round trip
// costs against the same bots, and many matches at once through the
// `tarock-referee` process.
//
//   ./build/bin/referee_bench                       # the defaults below
//   ./build/bin/referee_bench --matches=8 --hands=40 --concurrent_matches=1,100,1000,5000 --json
//
// It starts one `tarock-bot-random` process per seat (found beside this binary,
// or in --bin_dir) and measures, in one run:
//  1. End to end: the referee in this process (MatchRunner + GrpcBotConnector)
//     plays --matches matches of --hands hands one after another: hands/s,
//     decisions/s and the referee's cost per decision (wall time / decisions),
//     broken down by timing every BotConnection call the runner makes: Decide
//     (the bot and the transport, then the hand-off back to the match thread),
//     Send, connect, finish, and the runner's own work (engine, requests, the
//     match record); CPU time and context switches of the referee's process.
//     For reference, the same matches with in-process bots (no transport).
//  2. A bare bidirectional ping-pong against the same bot processes, as many
//     round trips as the end-to-end decisions (or --pingpongs): one Bot.Play
//     stream per seat, a MatchStart, then DecisionRequests taken from random
//     hands of the engine (MakeDecisionRequest, so sizes match), one at a time,
//     each waiting for its Decision. Four clients: the sync API (the bar), the
//     callback API (a minimal reactor), the referee's own GrpcBotConnection
//     (its transport without the engine) and the async API on a completion
//     queue polled by the waiting thread (deadlines without a thread hop). The
//     bar: the referee's cost per decision is at most 1.5 times the sync round
//     trip.
//  3. Concurrency: for each count in --concurrent_matches (1,100,1000 by
//     default), a fresh `tarock-referee` process plays that many matches of
//     --concurrent_hands hands at once (RunMatch calls on the callback API)
//     against the same bots, with a generous per-decision limit: every match
//     must finish without a single fault (a fault there is a bug, not
//     slowness). Reported per level: the referee's CPU per decision, its
//     threads and resident memory (sampled), the slowest decision; and the
//     ratio of the last level's CPU per decision to the first's.
//
// Every process it starts is stopped at the end, on errors and on SIGINT/SIGTERM
// too, and a watchdog (--watchdog_s) ends a run that hangs. Exit status: 0 when
// everything ran without a fault or failure, 1 when a match failed or had a
// fault, 2 on a usage error or when the processes could not be started, 3 when
// the watchdog fired. Speed never changes the exit status.

#include <grpcpp/grpcpp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <functional>
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
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "tests/inproc/in_process_connector.h"
#include "referee/core/match_runner.h"
#include "referee/core/referee_metrics.h"
#include "referee/engine/match.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/registry.h"
#include "referee/protocol/convert.h"
#include "referee/server/grpc_bot_connection.h"
#include "referee/tools/bench_util.h"
#include "referee/tools/subprocess.h"
#include "tarock/sdk/bot.h"
#include "tarock/v1/tarock.grpc.pb.h"

ABSL_FLAG(std::string, variant, "slovenian-4p", "the variant of every match");
ABSL_FLAG(int, matches, 4, "end to end: matches played one after another");
ABSL_FLAG(int, hands, 40, "end to end: hands per match (a multiple of the seats)");
ABSL_FLAG(int64_t, pingpongs, 0,
          "round trips of each ping-pong client (0: as many as the end-to-end decisions)");
ABSL_FLAG(std::vector<std::string>, concurrent_matches, std::vector<std::string>({"1", "100", "1000"}),
          "concurrency: matches run at once, one level after another, each on a fresh "
          "tarock-referee (0 or empty: skip the part)");
ABSL_FLAG(int, concurrent_hands, 8, "concurrency: hands per match (a multiple of the seats)");
ABSL_FLAG(int, concurrent_min_matches, 100,
          "concurrency: a level of fewer matches plays rounds of them, one after another, until "
          "this many have run (CPU time is counted in 10 ms ticks)");
ABSL_FLAG(int64_t, per_decision_ms, 30000,
          "per-decision limit of every match: generous, so a loaded machine never times out");
ABSL_FLAG(int, concurrent_deadline_s, 900, "concurrency: deadline of each RunMatch call");
ABSL_FLAG(bool, inproc, true, "also play the end-to-end matches with in-process bots");
ABSL_FLAG(uint64_t, seed, 1, "seed of the deals (match k uses seed + k) and of the bots");
ABSL_FLAG(std::string, bin_dir, "",
          "where tarock-bot-random and tarock-referee are (default: beside this binary)");
ABSL_FLAG(std::vector<std::string>, pingpong_clients,
          std::vector<std::string>({"sync", "callback", "connection", "async-cq"}),
          "ping-pong clients to run: sync (the bar), callback (a bare reactor), connection "
          "(GrpcBotConnection), async-cq (a completion queue polled by the waiting thread)");
ABSL_FLAG(bool, absl_deadlock_detection, true,
          "leave absl::Mutex deadlock detection as the abseil build has it (Debian's build "
          "has it on); false turns it off in this process, to measure what that costs");
ABSL_FLAG(int, watchdog_s, 3600,
          "stop every process and exit with status 3 after this many seconds (0: never)");
ABSL_FLAG(bool, json, false, "print the report as JSON instead of text");

namespace tarock {
namespace {

using json = nlohmann::json;

constexpr double kBar = 1.5;

v1::MatchSpec BaseSpec(const std::string& variant, const std::vector<Server>& bots, int hands) {
  v1::MatchSpec spec;
  spec.set_variant(variant);
  spec.set_num_hands(hands);
  spec.mutable_time_control()->set_per_decision_ms(absl::GetFlag(FLAGS_per_decision_ms));
  for (size_t s = 0; s < bots.size(); ++s) {
    v1::SeatSpec* seat = spec.add_seats();
    seat->set_name(absl::StrCat("random", s));
    seat->set_endpoint(bots[s].endpoint);
  }
  return spec;
}

// Faults and failures, with the first few details of each for the report.
struct Problems {
  int failed_matches = 0;
  int fault_events = 0;
  int fault_summaries = 0;  // sum of SeatSummary faults
  std::vector<std::string> failures;
  std::vector<std::string> faults;
  void Note(const std::string& d) {
    if (failures.size() < 10) failures.push_back(d);
  }
  void NoteFault(const std::string& d) {
    if (faults.size() < 5) faults.push_back(d);
  }
  bool any() const { return failed_matches > 0 || fault_events > 0 || fault_summaries > 0; }
  json Json() const {
    return {{"failed_matches", failed_matches}, {"fault_events", fault_events},
            {"fault_summaries", fault_summaries}, {"failures", failures}, {"faults", faults}};
  }
  void Add(const Problems& o) {
    failed_matches += o.failed_matches;
    fault_events += o.fault_events;
    fault_summaries += o.fault_summaries;
    for (const std::string& d : o.failures) Note(d);
    for (const std::string& d : o.faults) NoteFault(d);
  }
};

std::string FaultText(const v1::Fault& f) {
  return absl::StrCat("fault: seat ", f.seat(), " ", FaultKindName(f.kind()), " in hand ",
                      f.hand_index(), " at action ", f.action_index(), ": ", f.detail());
}

// Checks one finished match; returns its decisions.
int64_t CheckFinished(const v1::MatchFinished& f, int hands, const std::string& id,
                      Problems* problems) {
  for (const v1::SeatSummary& s : f.seats()) problems->fault_summaries += s.faults();
  if (f.hands() != hands) {
    ++problems->failed_matches;
    problems->Note(absl::StrCat(id, ": ", f.hands(), " hands played of ", hands));
  }
  return f.decisions();
}

// ---------------------------------------------------------------------------
// 1. Sequential matches with the referee in this process.

// Where a sequential match's time goes, measured around the BotConnection calls
// the runner makes (one match thread: no locking).
struct Timing {
  absl::Duration connect, send, decide, finish;
  absl::Duration decide_elapsed;  // BotReply::elapsed: request handed over -> answer arrived
  int64_t sends = 0, decides = 0;
};

class TimedConnection : public BotConnection {
 public:
  TimedConnection(std::unique_ptr<BotConnection> inner, Timing* timing)
      : inner_(std::move(inner)), t_(timing) {}
  void Send(const v1::RefereeMessage& message) override {
    const absl::Time t0 = absl::Now();
    inner_->Send(message);
    t_->send += absl::Now() - t0;
    ++t_->sends;
  }
  BotReply Decide(const v1::DecisionRequest& request, absl::Time deadline) override {
    const absl::Time t0 = absl::Now();
    BotReply r = inner_->Decide(request, deadline);
    t_->decide += absl::Now() - t0;
    t_->decide_elapsed += r.elapsed;
    ++t_->decides;
    return r;
  }
  // The referee's matches call these (they suspend instead of blocking).
  void DecideAsync(const v1::DecisionRequest& request, absl::Time deadline,
                   DecideDone done) override {
    const absl::Time t0 = absl::Now();
    inner_->DecideAsync(request, deadline,
                        [this, t0, done = std::move(done)](BotReply r) mutable {
                          t_->decide += absl::Now() - t0;
                          t_->decide_elapsed += r.elapsed;
                          ++t_->decides;
                          done(std::move(r));
                        });
  }
  void FinishAsync(absl::Time deadline, absl::AnyInvocable<void()> done) override {
    const absl::Time t0 = absl::Now();
    inner_->FinishAsync(deadline, [this, t0, done = std::move(done)]() mutable {
      t_->finish += absl::Now() - t0;
      done();
    });
  }
  bool connected() const override { return inner_->connected(); }
  std::string hello_name() const override { return inner_->hello_name(); }
  std::string hello_version() const override { return inner_->hello_version(); }
  void Finish(absl::Time deadline) override {
    const absl::Time t0 = absl::Now();
    inner_->Finish(deadline);
    t_->finish += absl::Now() - t0;
  }

 private:
  std::unique_ptr<BotConnection> inner_;
  Timing* t_;
};

class TimedConnector : public BotConnector {
 public:
  TimedConnector(BotConnector* inner, Timing* timing) : inner_(inner), t_(timing) {}
  absl::StatusOr<std::unique_ptr<BotConnection>> Connect(const std::string& endpoint,
                                                         absl::Time deadline) override {
    const absl::Time t0 = absl::Now();
    absl::StatusOr<std::unique_ptr<BotConnection>> c = inner_->Connect(endpoint, deadline);
    t_->connect += absl::Now() - t0;
    if (!c.ok()) return c.status();
    return std::unique_ptr<BotConnection>(new TimedConnection(std::move(*c), t_));
  }
  // The runner's form: keeps the match on one of the connector's threads.
  void ConnectSeatAsync(const v1::SeatSpec& seat, absl::Time deadline,
                        ConnectDone done) override {
    const absl::Time t0 = absl::Now();
    inner_->ConnectSeatAsync(
        seat, deadline,
        [this, t0, done = std::move(done)](
            absl::StatusOr<std::unique_ptr<BotConnection>> c) mutable {
          t_->connect += absl::Now() - t0;
          if (!c.ok()) return done(c.status());
          done(std::unique_ptr<BotConnection>(new TimedConnection(std::move(*c), t_)));
        });
  }

 private:
  BotConnector* inner_;
  Timing* t_;
};

struct SequentialResult {
  int matches = 0;
  int64_t hands = 0;
  int64_t decisions = 0;
  double wall_s = 0;
  Timing timing;
  double self_cpu_s = 0;  // this process: the referee
  int64_t self_switches = 0;
  double bots_cpu_s = 0;
  Problems problems;

  double us_per_decision() const { return decisions ? wall_s * 1e6 / decisions : 0; }
  double PerDecisionUs(absl::Duration d) const {
    return decisions ? absl::ToDoubleMicroseconds(d) / static_cast<double>(decisions) : 0;
  }
  json Json() const {
    const absl::Duration runner = absl::Seconds(wall_s) - timing.connect - timing.send -
                                  timing.decide - timing.finish;
    return {{"matches", matches},
            {"hands", hands},
            {"decisions", decisions},
            {"wall_s", wall_s},
            {"hands_per_s", wall_s > 0 ? hands / wall_s : 0},
            {"decisions_per_s", wall_s > 0 ? decisions / wall_s : 0},
            {"us_per_decision", us_per_decision()},
            {"breakdown_us_per_decision",
             {{"decide", PerDecisionUs(timing.decide)},
              {"decide_bot_and_transport", PerDecisionUs(timing.decide_elapsed)},
              {"decide_rest", PerDecisionUs(timing.decide - timing.decide_elapsed)},
              {"send", PerDecisionUs(timing.send)},
              {"connect", PerDecisionUs(timing.connect)},
              {"finish", PerDecisionUs(timing.finish)},
              {"runner", PerDecisionUs(runner)}}},
            {"sends_per_decision",
             decisions ? static_cast<double>(timing.sends) / static_cast<double>(decisions) : 0},
            {"referee_cpu_us_per_decision", decisions ? self_cpu_s * 1e6 / decisions : 0},
            {"referee_context_switches_per_decision",
             decisions ? static_cast<double>(self_switches) / decisions : 0},
            {"bots_cpu_us_per_decision", decisions ? bots_cpu_s * 1e6 / decisions : 0},
            {"problems", problems.Json()}};
  }
};

SequentialResult PlaySequential(BotConnector* connector, v1::MatchSpec spec, int matches,
                                uint64_t seed, const std::vector<Server>& bots,
                                const std::string& label) {
  prometheus::Registry registry;
  RefereeMetrics referee_metrics(&registry);
  RefereeOptions options;
  options.connect_timeout = absl::Seconds(30);
  SequentialResult out;
  TimedConnector timed(connector, &out.timing);
  MatchRunner runner(options, &timed, &referee_metrics);
  double bots_cpu0 = 0;
  for (const Server& b : bots) bots_cpu0 += ProcessCpuSeconds(b.process->pid());
  const double cpu0 = SelfCpuSeconds();
  const int64_t switches0 = SelfContextSwitches();
  const absl::Time start = absl::Now();
  for (int k = 0; k < matches; ++k) {
    spec.set_seed(seed + static_cast<uint64_t>(k));
    spec.set_match_id(absl::StrCat(label, "-", k));
    absl::StatusOr<v1::MatchFinished> f = runner.Run(spec, [&](const v1::MatchEvent& e) {
      if (e.has_fault()) {
        ++out.problems.fault_events;
        out.problems.NoteFault(absl::StrCat(spec.match_id(), ": ", FaultText(e.fault())));
      }
    });
    ++out.matches;
    if (!f.ok()) {
      ++out.problems.failed_matches;
      out.problems.Note(absl::StrCat(spec.match_id(), ": ", f.status().ToString()));
      continue;
    }
    out.hands += f->hands();
    out.decisions += CheckFinished(*f, spec.num_hands(), spec.match_id(), &out.problems);
  }
  out.wall_s = absl::ToDoubleSeconds(absl::Now() - start);
  out.self_cpu_s = SelfCpuSeconds() - cpu0;
  out.self_switches = SelfContextSwitches() - switches0;
  double bots_cpu1 = 0;
  for (const Server& b : bots) bots_cpu1 += ProcessCpuSeconds(b.process->pid());
  out.bots_cpu_s = bots_cpu1 - bots_cpu0;
  return out;
}

// The random bot, in process (bots/random/random_bot.cc is an executable).
class InProcessRandomBot : public sdk::Bot {
 public:
  explicit InProcessRandomBot(uint64_t seed) : seed_(seed) {}
  void StartMatch(const sdk::MatchInfo& match) override { rng_.seed(seed_ + match.seat); }
  std::string Decide(const sdk::Situation& s) override {
    std::uniform_int_distribution<size_t> pick(0, s.legal().size() - 1);
    return s.legal()[pick(rng_)];
  }

 private:
  uint64_t seed_;
  std::mt19937_64 rng_;
};

// ---------------------------------------------------------------------------
// 2. Ping-pong: realistic requests to the bot processes, one at a time.

// A RefereeMessage holding a DecisionRequest, and the seat it is for.
struct Captured {
  int seat = 0;
  v1::RefereeMessage message;
};

// The referee's CPU work per request, outside the transport, in microseconds.
struct RequestCosts {
  double observe_us = 0;       // State::Observe
  double make_request_us = 0;  // MakeDecisionRequest (observation -> proto)
  double copy_us = 0;          // copying a DecisionRequest into a RefereeMessage
  double serialize_us = 0;     // serializing that RefereeMessage
  json Json() const {
    return {{"observe", observe_us},
            {"make_request", make_request_us},
            {"copy_into_referee_message", copy_us},
            {"serialize", serialize_us}};
  }
};

// The first `count` decision requests of random matches, as the referee makes
// them, in play order. With `keep` false nothing is kept: the pass only times
// Observe and MakeDecisionRequest into `costs` (timing them while keeping every
// request would time the heap's growth instead).
absl::StatusOr<std::vector<Captured>> CaptureRequests(const Game& game, int64_t count, int hands,
                                                      uint64_t seed, bool keep,
                                                      RequestCosts* costs) {
  absl::Duration observe, make;
  int64_t taken = 0;
  size_t checksum = 0;
  std::vector<Captured> out;
  if (keep) out.reserve(static_cast<size_t>(count));
  Rng rng(seed ^ 0x70696e67ULL);
  const int n = game.num_seats();
  // Every hand has at least one decision: `count` matches are always enough.
  for (int64_t m = 0; m <= count && taken < count; ++m) {
    MatchOptions mo;
    mo.num_hands = hands;
    mo.seed = seed + static_cast<uint64_t>(m);
    absl::StatusOr<MatchProgress> progress = MatchProgress::Start(game, mo);
    if (!progress.ok()) return progress.status();
    while (!progress->Finished() && taken < count) {
      MatchProgress::NextHand next = progress->Next();
      absl::StatusOr<std::unique_ptr<State>> state = game.NewHand(next.deal, next.setup);
      if (!state.ok()) return state.status();
      std::vector<int> events_seen(n, 0);
      while (!(*state)->IsTerminal() && taken < count) {
        const int s = (*state)->CurrentSeat();
        const absl::Time t0 = absl::Now();
        Observation obs = (*state)->Observe(s);
        const absl::Time t1 = absl::Now();
        if (keep) {
          Captured c;
          c.seat = s;
          *c.message.mutable_decision_request() =
              MakeDecisionRequest(obs, taken + 1, next.hand_index, events_seen[s]);
          c.message.mutable_decision_request()->set_time_left_ms(
              absl::GetFlag(FLAGS_per_decision_ms));
          out.push_back(std::move(c));
        } else {
          v1::DecisionRequest probe =
              MakeDecisionRequest(obs, taken + 1, next.hand_index, events_seen[s]);
          checksum += static_cast<size_t>(probe.legal_actions_size());
          make += absl::Now() - t1;
          observe += t1 - t0;
        }
        ++taken;
        events_seen[s] = static_cast<int>(obs.history.size());
        (*state)->Apply(RandomLegalAction(**state, rng));
      }
      if (!(*state)->IsTerminal()) break;  // enough requests
      if (absl::Status st = progress->Record((*state)->Result()); !st.ok()) return st;
    }
  }
  if (taken == 0) return out;
  const double k = static_cast<double>(taken);
  if (!keep) {
    costs->observe_us = absl::ToDoubleMicroseconds(observe) / k;
    costs->make_request_us = absl::ToDoubleMicroseconds(make) / k;
  } else {
    absl::Time t0 = absl::Now();
    for (const Captured& c : out) {
      v1::RefereeMessage m;
      *m.mutable_decision_request() = c.message.decision_request();
      checksum += static_cast<size_t>(m.decision_request().legal_actions_size());
    }
    costs->copy_us = absl::ToDoubleMicroseconds(absl::Now() - t0) / k;
    std::string buffer;
    t0 = absl::Now();
    for (const Captured& c : out) {
      c.message.SerializeToString(&buffer);
      checksum += buffer.size();
    }
    costs->serialize_us = absl::ToDoubleMicroseconds(absl::Now() - t0) / k;
  }
  if (checksum == 0) std::fprintf(stderr, " ");  // keeps the loops
  return out;
}

v1::RefereeMessage MatchStartMessage(const v1::MatchSpec& spec, int seat) {
  v1::RefereeMessage m;
  v1::MatchStart* start = m.mutable_match_start();
  start->set_match_id("pingpong");
  start->set_variant(spec.variant());
  start->set_seat(seat);
  start->set_num_seats(spec.seats_size());
  start->set_num_hands(spec.num_hands());
  *start->mutable_time_control() = spec.time_control();
  for (const v1::SeatSpec& s : spec.seats()) start->add_seat_names(s.name());
  return m;
}

// Like GrpcBotConnector: one channel (and TCP connection) per stream.
std::shared_ptr<grpc::Channel> OwnChannel(const std::string& endpoint) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
}

struct PingPongResult {
  std::string client;
  int64_t round_trips = 0;
  double wall_s = 0;
  double self_cpu_s = 0;
  int64_t self_switches = 0;
  double bots_cpu_s = 0;
  std::string error;  // empty when every round trip got its Decision

  double us_per_round_trip() const { return round_trips ? wall_s * 1e6 / round_trips : 0; }
  json Json() const {
    return {{"client", client},
            {"round_trips", round_trips},
            {"wall_s", wall_s},
            {"round_trips_per_s", wall_s > 0 ? round_trips / wall_s : 0},
            {"us_per_round_trip", us_per_round_trip()},
            {"client_cpu_us_per_round_trip", round_trips ? self_cpu_s * 1e6 / round_trips : 0},
            {"client_context_switches_per_round_trip",
             round_trips ? static_cast<double>(self_switches) / round_trips : 0},
            {"bots_cpu_us_per_round_trip", round_trips ? bots_cpu_s * 1e6 / round_trips : 0},
            {"error", error}};
  }
};

// Times `count` round trips of `one(seat, message)` over the captured requests,
// with per-stream request ids counting from 1.
template <typename OneRoundTrip>
void TimeRoundTrips(std::vector<Captured>& captured, int64_t count, int num_seats,
                    const std::vector<Server>& bots, PingPongResult* out, OneRoundTrip one) {
  std::vector<int64_t> next_id(num_seats, 0);
  double bots_cpu0 = 0;
  for (const Server& b : bots) bots_cpu0 += ProcessCpuSeconds(b.process->pid());
  const double cpu0 = SelfCpuSeconds();
  const int64_t switches0 = SelfContextSwitches();
  const absl::Time start = absl::Now();
  for (int64_t i = 0; i < count; ++i) {
    Captured& c = captured[static_cast<size_t>(i) % captured.size()];
    const int64_t id = ++next_id[c.seat];
    c.message.mutable_decision_request()->set_request_id(id);
    std::string error = one(c.seat, c.message, id);
    if (!error.empty()) {
      out->error = absl::StrCat("round trip ", i, " (seat ", c.seat, "): ", error);
      break;
    }
    ++out->round_trips;
  }
  out->wall_s = absl::ToDoubleSeconds(absl::Now() - start);
  out->self_cpu_s = SelfCpuSeconds() - cpu0;
  out->self_switches = SelfContextSwitches() - switches0;
  double bots_cpu1 = 0;
  for (const Server& b : bots) bots_cpu1 += ProcessCpuSeconds(b.process->pid());
  out->bots_cpu_s = bots_cpu1 - bots_cpu0;
}

std::string CheckDecision(const v1::BotMessage& reply, int64_t id) {
  if (!reply.has_decision()) return "the bot sent something other than a Decision";
  if (reply.decision().request_id() != id)
    return absl::StrCat("Decision for request ", reply.decision().request_id(), ", expected ", id);
  return "";
}

// The sync API: Write, then Read on the calling thread.
PingPongResult SyncPingPong(const v1::MatchSpec& spec, const std::vector<Server>& bots,
                            std::vector<Captured>& captured, int64_t count, absl::Time deadline) {
  PingPongResult out;
  out.client = "sync";
  struct Stream {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::Bot::Stub> stub;
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::RefereeMessage, v1::BotMessage>> rw;
  };
  const int n = static_cast<int>(bots.size());
  std::vector<std::unique_ptr<Stream>> streams;
  for (int s = 0; s < n && out.error.empty(); ++s) {
    auto st = std::make_unique<Stream>();
    st->channel = OwnChannel(bots[s].endpoint);
    if (!st->channel->WaitForConnected(absl::ToChronoTime(absl::Now() + absl::Seconds(30)))) {
      out.error = absl::StrCat("cannot connect to ", bots[s].endpoint);
      break;
    }
    st->stub = v1::Bot::NewStub(st->channel);
    st->context.set_deadline(absl::ToChronoTime(deadline));
    st->rw = st->stub->Play(&st->context);
    v1::BotMessage hello;
    if (!st->rw->Write(MatchStartMessage(spec, s)) || !st->rw->Read(&hello) || !hello.has_hello())
      out.error = absl::StrCat("no Hello from ", bots[s].endpoint);
    streams.push_back(std::move(st));
  }
  if (out.error.empty()) {
    v1::BotMessage reply;
    TimeRoundTrips(captured, count, n, bots, &out,
                   [&](int seat, const v1::RefereeMessage& m, int64_t id) -> std::string {
                     Stream& st = *streams[seat];
                     if (!st.rw->Write(m)) return "write failed";
                     if (!st.rw->Read(&reply)) return "the stream ended";
                     return CheckDecision(reply, id);
                   });
  }
  for (auto& st : streams) {
    if (!out.error.empty()) st->context.TryCancel();
    else st->rw->WritesDone();
    grpc::Status status = st->rw->Finish();
    if (out.error.empty() && !status.ok())
      out.error = absl::StrCat("stream status: ", status.error_message());
  }
  return out;
}

// The callback API: a minimal reactor with one read and one write in flight per
// round trip, the caller waiting on a mutex (as the referee's match thread does).
class PingPongReactor : public grpc::ClientBidiReactor<v1::RefereeMessage, v1::BotMessage> {
 public:
  PingPongReactor(v1::Bot::Stub* stub, absl::Time deadline) : deadline_(deadline) {
    context_.set_deadline(absl::ToChronoTime(deadline));
    stub->async()->Play(&context_, this);
    AddHold();  // no OnDone before Close(), whatever the bot does
    StartCall();
  }
  ~PingPongReactor() override { Close(); }

  // Writes `m` (when not null) and reads one message into `in` (when not null).
  bool Exchange(const v1::RefereeMessage* m, v1::BotMessage* in) {
    {
      absl::MutexLock lock(&mu_);
      if (failed_ || closed_) return false;
      write_pending_ = m != nullptr;
      read_pending_ = in != nullptr;
    }
    if (in != nullptr) StartRead(in);
    if (m != nullptr) StartWrite(m);
    absl::MutexLock lock(&mu_);
    if (!mu_.AwaitWithDeadline(absl::Condition(this, &PingPongReactor::Idle), deadline_)) {
      failed_ = true;
      return false;
    }
    return !failed_;
  }

  // Half-closes (or cancels after a failure) and waits for the stream to end.
  void Close() {
    bool failed;
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return;
      closed_ = true;
      failed = failed_;
    }
    if (failed) {
      context_.TryCancel();
    } else {
      StartWritesDone();
    }
    RemoveHold();
    absl::MutexLock lock(&mu_);
    if (!mu_.AwaitWithDeadline(absl::Condition(&done_), absl::Now() + absl::Seconds(10))) {
      mu_.Unlock();
      context_.TryCancel();
      mu_.Lock();
      mu_.Await(absl::Condition(&done_));
    }
  }

  void OnReadDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    read_pending_ = false;
    if (!ok) failed_ = true;
  }
  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    write_pending_ = false;
    if (!ok) failed_ = true;
  }
  void OnDone(const grpc::Status& status) override {
    absl::MutexLock lock(&mu_);
    read_pending_ = write_pending_ = false;
    done_ = true;
  }

 private:
  bool Idle() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !write_pending_ && !read_pending_; }

  absl::Time deadline_;
  grpc::ClientContext context_;
  absl::Mutex mu_;
  bool write_pending_ ABSL_GUARDED_BY(mu_) = false;
  bool read_pending_ ABSL_GUARDED_BY(mu_) = false;
  bool failed_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
};

PingPongResult CallbackPingPong(const v1::MatchSpec& spec, const std::vector<Server>& bots,
                                std::vector<Captured>& captured, int64_t count,
                                absl::Time deadline) {
  PingPongResult out;
  out.client = "callback";
  const int n = static_cast<int>(bots.size());
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  std::vector<std::unique_ptr<v1::Bot::Stub>> stubs;
  std::vector<std::unique_ptr<PingPongReactor>> streams;
  for (int s = 0; s < n && out.error.empty(); ++s) {
    channels.push_back(OwnChannel(bots[s].endpoint));
    if (!channels.back()->WaitForConnected(absl::ToChronoTime(absl::Now() + absl::Seconds(30)))) {
      out.error = absl::StrCat("cannot connect to ", bots[s].endpoint);
      break;
    }
    stubs.push_back(v1::Bot::NewStub(channels.back()));
    streams.push_back(std::make_unique<PingPongReactor>(stubs.back().get(), deadline));
    const v1::RefereeMessage start = MatchStartMessage(spec, s);
    v1::BotMessage hello;
    if (!streams.back()->Exchange(&start, &hello) || !hello.has_hello()) {
      out.error = absl::StrCat("no Hello from ", bots[s].endpoint);
      streams.back()->Close();  // before `start` and `hello` go out of scope
    }
  }
  if (out.error.empty()) {
    v1::BotMessage reply;
    TimeRoundTrips(captured, count, n, bots, &out,
                   [&](int seat, const v1::RefereeMessage& m, int64_t id) -> std::string {
                     if (!streams[seat]->Exchange(&m, &reply)) return "the stream failed";
                     return CheckDecision(reply, id);
                   });
  }
  for (auto& st : streams) st->Close();
  return out;
}

// The async API on a completion queue that the waiting thread polls itself
// (AsyncNext with a deadline): like the sync client, no gRPC thread stands
// between the socket and the waiter, yet every wait has its own deadline, as
// the referee needs. One queue for all seats, as one match thread would have.
PingPongResult CqPingPong(const v1::MatchSpec& spec, const std::vector<Server>& bots,
                          std::vector<Captured>& captured, int64_t count, absl::Time deadline) {
  PingPongResult out;
  out.client = "async-cq";
  enum Op { kStart, kWrite, kRead, kWritesDone, kFinish, kOps };
  struct Stream {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::Bot::Stub> stub;
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientAsyncReaderWriter<v1::RefereeMessage, v1::BotMessage>> rw;
    v1::BotMessage in;
    grpc::Status status;
    int outstanding[kOps] = {0, 0, 0, 0, 0};
    bool failed = false;
  };
  const int n = static_cast<int>(bots.size());
  grpc::CompletionQueue cq;
  std::vector<std::unique_ptr<Stream>> streams;
  auto tag = [](int seat, Op op) {
    return reinterpret_cast<void*>(static_cast<intptr_t>(seat * kOps + op + 1));
  };
  // Polls the queue until `pred` holds; false on the deadline (or a shut queue).
  auto poll_until = [&](absl::Time until, const std::function<bool()>& pred) {
    while (!pred()) {
      void* got = nullptr;
      bool ok = false;
      if (cq.AsyncNext(&got, &ok, absl::ToChronoTime(until)) !=
          grpc::CompletionQueue::GOT_EVENT)
        return false;
      const intptr_t t = reinterpret_cast<intptr_t>(got) - 1;
      Stream& st = *streams[static_cast<size_t>(t / kOps)];
      --st.outstanding[t % kOps];
      if (!ok) st.failed = true;
    }
    return true;
  };
  auto idle = [&](int seat) {
    return [&, seat] {
      const Stream& st = *streams[seat];
      return st.failed || (st.outstanding[kStart] == 0 && st.outstanding[kWrite] == 0 &&
                           st.outstanding[kRead] == 0);
    };
  };
  for (int s = 0; s < n && out.error.empty(); ++s) {
    auto st = std::make_unique<Stream>();
    st->channel = OwnChannel(bots[s].endpoint);
    if (!st->channel->WaitForConnected(absl::ToChronoTime(absl::Now() + absl::Seconds(30)))) {
      out.error = absl::StrCat("cannot connect to ", bots[s].endpoint);
      break;
    }
    st->stub = v1::Bot::NewStub(st->channel);
    st->context.set_deadline(absl::ToChronoTime(deadline));
    streams.push_back(std::move(st));
    Stream& x = *streams.back();
    x.rw = x.stub->AsyncPlay(&x.context, &cq, tag(s, kStart));
    ++x.outstanding[kStart];
    if (!poll_until(deadline, idle(s)) || x.failed) {
      out.error = absl::StrCat("cannot start a stream to ", bots[s].endpoint);
      break;
    }
    const v1::RefereeMessage start = MatchStartMessage(spec, s);
    x.rw->Write(start, tag(s, kWrite));  // serialized here: `start` may go
    ++x.outstanding[kWrite];
    x.rw->Read(&x.in, tag(s, kRead));
    ++x.outstanding[kRead];
    if (!poll_until(deadline, idle(s)) || x.failed || !x.in.has_hello())
      out.error = absl::StrCat("no Hello from ", bots[s].endpoint);
  }
  if (out.error.empty()) {
    TimeRoundTrips(captured, count, n, bots, &out,
                   [&](int seat, const v1::RefereeMessage& m, int64_t id) -> std::string {
                     Stream& st = *streams[seat];
                     st.rw->Write(m, tag(seat, kWrite));
                     ++st.outstanding[kWrite];
                     st.rw->Read(&st.in, tag(seat, kRead));
                     ++st.outstanding[kRead];
                     if (!poll_until(deadline, idle(seat))) return "no answer before the deadline";
                     if (st.failed) return "the stream failed";
                     return CheckDecision(st.in, id);
                   });
  }
  // Close every stream: half-close when all went well, else cancel; then Finish.
  for (size_t s = 0; s < streams.size(); ++s) {
    Stream& st = *streams[s];
    const bool cancel = !out.error.empty() || st.failed;
    if (cancel) {
      st.context.TryCancel();
    } else {
      st.rw->WritesDone(tag(static_cast<int>(s), kWritesDone));
      ++st.outstanding[kWritesDone];
    }
    if (st.outstanding[kStart] == 0) {  // a started call (a failed start has no call to finish)
      st.rw->Finish(&st.status, tag(static_cast<int>(s), kFinish));
      ++st.outstanding[kFinish];
    }
  }
  auto all_done = [&] {
    for (const auto& st : streams)
      for (int o = 0; o < kOps; ++o)
        if (st->outstanding[o] != 0) return false;
    return true;
  };
  if (!poll_until(absl::Now() + absl::Seconds(10), all_done)) {
    for (auto& st : streams) st->context.TryCancel();
    poll_until(absl::InfiniteFuture(), all_done);
  }
  for (const auto& st : streams)
    if (out.error.empty() && !st->status.ok())
      out.error = absl::StrCat("stream status: ", st->status.error_message());
  cq.Shutdown();
  void* ignored_tag;
  bool ignored_ok;
  while (cq.Next(&ignored_tag, &ignored_ok)) {
  }
  return out;
}

// The referee's own transport: GrpcBotConnection::Send and Decide.
PingPongResult ConnectionPingPong(const v1::MatchSpec& spec, const std::vector<Server>& bots,
                                  std::vector<Captured>& captured, int64_t count) {
  PingPongResult out;
  out.client = "GrpcBotConnection";
  GrpcBotConnector connector;
  const int n = static_cast<int>(bots.size());
  std::vector<std::unique_ptr<BotConnection>> streams;
  for (int s = 0; s < n; ++s) {
    absl::StatusOr<std::unique_ptr<BotConnection>> c =
        connector.Connect(bots[s].endpoint, absl::Now() + absl::Seconds(30));
    if (!c.ok()) {
      out.error = std::string(c.status().message());
      break;
    }
    (*c)->Send(MatchStartMessage(spec, s));
    streams.push_back(std::move(*c));
  }
  const absl::Duration limit = absl::Milliseconds(absl::GetFlag(FLAGS_per_decision_ms));
  if (out.error.empty()) {
    TimeRoundTrips(captured, count, n, bots, &out,
                   [&](int seat, const v1::RefereeMessage& m, int64_t id) -> std::string {
                     BotReply r = streams[seat]->Decide(m.decision_request(), absl::Now() + limit);
                     if (r.kind != BotReply::Kind::kDecision)
                       return absl::StrCat("no Decision: ", r.detail);
                     return "";
                   });
  }
  for (auto& st : streams) st->Finish(absl::Now() + absl::Seconds(5));
  return out;
}

// ---------------------------------------------------------------------------
// 3. Concurrent matches through the tarock-referee process.

struct ConcurrentResult {
  int matches = 0;  // at once
  int rounds = 1;   // of `matches`, one after another
  int finished = 0;
  int64_t hands = 0;
  int64_t decisions = 0;
  double wall_s = 0;
  double referee_cpu_s = 0;
  double bots_cpu_s = 0;
  double max_decision_ms = 0;
  int referee_threads_max = 0;    // sampled every 50 ms while the matches ran
  double referee_rss_max_mib = 0;  // the same samples
  bool processes_alive = true;
  Problems problems;
  double cpu_us_per_decision() const { return decisions ? referee_cpu_s * 1e6 / decisions : 0; }
  json Json() const {
    return {{"matches", matches},
            {"rounds", rounds},
            {"finished", finished},
            {"hands", hands},
            {"decisions", decisions},
            {"wall_s", wall_s},
            {"matches_per_s", wall_s > 0 ? finished / wall_s : 0},
            {"decisions_per_s", wall_s > 0 ? decisions / wall_s : 0},
            {"referee_cpu_us_per_decision", cpu_us_per_decision()},
            {"bots_cpu_us_per_decision", decisions ? bots_cpu_s * 1e6 / decisions : 0},
            {"max_decision_ms", max_decision_ms},
            {"referee_threads_max", referee_threads_max},
            {"referee_rss_max_mib", referee_rss_max_mib},
            {"processes_alive", processes_alive},
            {"problems", problems.Json()}};
  }
};

// A field of /proc/PID/status ("Threads", "VmRSS" in kB), or -1.
int64_t ProcStatusField(pid_t pid, const std::string& field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::atoll(line.c_str() + field.size() + 1);
  }
  return -1;
}

// One RunMatch call on the callback API: the bench drives thousands of
// matches without a thread each (its own threads would crowd the referee's).
class MatchCall final : public grpc::ClientReadReactor<v1::MatchEvent> {
 public:
  MatchCall(v1::Referee::Stub* stub, v1::MatchSpec spec, absl::Duration deadline,
            std::function<void(MatchCall*)> on_done)
      : spec_(std::move(spec)), on_done_(std::move(on_done)) {
    context_.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
    stub->async()->RunMatch(&context_, &spec_, this);
    StartRead(&event_);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    if (event_.has_fault()) {
      ++problems.fault_events;
      problems.NoteFault(absl::StrCat(spec_.match_id(), ": ", FaultText(event_.fault())));
    }
    if (event_.has_match_finished()) finished = std::move(*event_.mutable_match_finished());
    StartRead(&event_);
  }
  void OnDone(const grpc::Status& s) override {
    status = s;
    on_done_(this);
  }
  const v1::MatchSpec& spec() const { return spec_; }

  Problems problems;
  std::optional<v1::MatchFinished> finished;
  grpc::Status status;

 private:
  v1::MatchSpec spec_;
  std::function<void(MatchCall*)> on_done_;
  grpc::ClientContext context_;
  v1::MatchEvent event_;
};

ConcurrentResult RunConcurrent(const Server& referee, v1::MatchSpec spec, int matches,
                               uint64_t seed, const std::vector<Server>& bots) {
  ConcurrentResult out;
  out.matches = matches;
  auto channel = grpc::CreateChannel(referee.endpoint, grpc::InsecureChannelCredentials());
  auto stub = v1::Referee::NewStub(channel);
  channel->WaitForConnected(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  absl::Mutex mu;
  int done = 0;
  double bots_cpu0 = 0;
  for (const Server& b : bots) bots_cpu0 += ProcessCpuSeconds(b.process->pid());
  const pid_t referee_pid = referee.process->pid();
  const double referee_cpu0 = ProcessCpuSeconds(referee_pid);
  const absl::Duration call_deadline = absl::Seconds(absl::GetFlag(FLAGS_concurrent_deadline_s));
  const absl::Time start = absl::Now();
  auto on_done = [&](MatchCall* call) {
    Problems p = std::move(call->problems);
    int64_t decisions = 0, hands = 0;
    double max_ms = 0;
    const std::string& id = call->spec().match_id();
    if (!call->status.ok()) {
      ++p.failed_matches;
      p.Note(absl::StrCat(id, ": RunMatch failed: ", call->status.error_code(), " ",
                          call->status.error_message()));
    } else if (!call->finished) {
      ++p.failed_matches;
      p.Note(absl::StrCat(id, ": no MatchFinished"));
    } else {
      decisions = CheckFinished(*call->finished, call->spec().num_hands(), id, &p);
      hands = call->finished->hands();
      for (const v1::SeatSummary& seat : call->finished->seats())
        max_ms = std::max(max_ms, seat.max_decision_ms());
    }
    absl::MutexLock lock(&mu);
    out.problems.Add(p);
    out.decisions += decisions;
    out.hands += hands;
    out.max_decision_ms = std::max(out.max_decision_ms, max_ms);
    if (call->status.ok() && call->finished) ++out.finished;
    ++done;
  };
  // A level of a few matches is played in rounds, one after another, until
  // --concurrent_min_matches have run: the CPU counters tick in 10 ms.
  const int rounds = std::max(1, (absl::GetFlag(FLAGS_concurrent_min_matches) + matches - 1) / matches);
  out.rounds = rounds;
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::unique_ptr<MatchCall>> calls;
    calls.reserve(static_cast<size_t>(matches));
    for (int k = 0; k < matches; ++k) {
      const int index = round * matches + k;
      v1::MatchSpec my = spec;
      my.set_seed(seed + 1000 + static_cast<uint64_t>(index));
      my.set_match_id(absl::StrCat("concurrent-", index));
      calls.push_back(
          std::make_unique<MatchCall>(stub.get(), std::move(my), call_deadline, on_done));
    }
    // Sample the referee's threads and memory until every call is done.
    absl::MutexLock lock(&mu);
    auto all_done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return done == (round + 1) * matches;
    };
    while (!mu.AwaitWithTimeout(absl::Condition(&all_done), absl::Milliseconds(50))) {
      out.referee_threads_max = std::max<int>(
          out.referee_threads_max, static_cast<int>(ProcStatusField(referee_pid, "Threads")));
      out.referee_rss_max_mib =
          std::max(out.referee_rss_max_mib, ProcStatusField(referee_pid, "VmRSS") / 1024.0);
    }
  }
  out.wall_s = absl::ToDoubleSeconds(absl::Now() - start);
  out.referee_cpu_s = ProcessCpuSeconds(referee_pid) - referee_cpu0;
  double bots_cpu1 = 0;
  for (const Server& b : bots) bots_cpu1 += ProcessCpuSeconds(b.process->pid());
  out.bots_cpu_s = bots_cpu1 - bots_cpu0;
  out.processes_alive = referee.process->Running();
  for (const Server& b : bots) out.processes_alive = out.processes_alive && b.process->Running();
  if (!out.processes_alive) {
    ++out.problems.failed_matches;
    out.problems.Note("the referee or a bot process died");
  }
  return out;
}

// ---------------------------------------------------------------------------

void PrintProblems(const Problems& p) {
  std::printf("  faults: %d fault events, %d in seat summaries; failed matches: %d%s\n",
              p.fault_events, p.fault_summaries, p.failed_matches, p.any() ? "  <-- ERROR" : "");
  for (const std::string& d : p.failures) std::printf("    %s\n", d.c_str());
  for (const std::string& d : p.faults) std::printf("    %s\n", d.c_str());
}

void PrintSequential(const char* title, const SequentialResult& r) {
  std::printf("%s\n", title);
  std::printf("  %d matches, %lld hands, %lld decisions in %.3f s\n", r.matches,
              static_cast<long long>(r.hands), static_cast<long long>(r.decisions), r.wall_s);
  json j = r.Json();
  std::printf("  hands/s %.1f   decisions/s %.0f   referee cost %.1f us/decision (wall / decisions)\n",
              j["hands_per_s"].get<double>(), j["decisions_per_s"].get<double>(),
              r.us_per_decision());
  const json& b = j["breakdown_us_per_decision"];
  std::printf("    per decision, us: Decide %.1f = bot + transport %.1f (BotReply::elapsed: request "
              "handed over -> answer stamped)\n"
              "                                 + %.1f (the rest: request copy, hand-off to the "
              "match thread)\n"
              "                      Send %.1f (%.2f HandStart/HandResult/... per decision), connect "
              "%.1f, finish %.1f\n"
              "                      the runner's own work %.1f (engine, requests, record, metrics)\n",
              b["decide"].get<double>(), b["decide_bot_and_transport"].get<double>(),
              b["decide_rest"].get<double>(), b["send"].get<double>(),
              j["sends_per_decision"].get<double>(), b["connect"].get<double>(),
              b["finish"].get<double>(), b["runner"].get<double>());
  std::printf("    per decision: CPU of the referee process %.1f us, of the bot processes %.1f us; "
              "%.2f context switches in the referee process\n",
              j["referee_cpu_us_per_decision"].get<double>(),
              j["bots_cpu_us_per_decision"].get<double>(),
              j["referee_context_switches_per_decision"].get<double>());
  PrintProblems(r.problems);
}

int Main() {
  const std::string variant = absl::GetFlag(FLAGS_variant);
  const int matches = absl::GetFlag(FLAGS_matches);
  const int hands = absl::GetFlag(FLAGS_hands);
  std::vector<int> concurrent_levels;
  for (const std::string& level : absl::GetFlag(FLAGS_concurrent_matches)) {
    int k = 0;
    if (!absl::SimpleAtoi(level, &k) || k < 0) {
      std::fprintf(stderr, "referee_bench: --concurrent_matches takes counts, not '%s'\n",
                   level.c_str());
      return 2;
    }
    if (k > 0) concurrent_levels.push_back(k);
  }
  const int concurrent_matches = concurrent_levels.empty() ? 0 : concurrent_levels.back();
  const int concurrent_hands = absl::GetFlag(FLAGS_concurrent_hands);
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  const bool as_json = absl::GetFlag(FLAGS_json);
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(variant);
  if (!info.ok()) {
    std::fprintf(stderr, "referee_bench: %s\n", std::string(info.status().message()).c_str());
    return 2;
  }
  const int n = info->num_seats;
  if (matches < 1 || hands < n || hands % n != 0 || concurrent_matches < 0 ||
      (concurrent_matches > 0 && (concurrent_hands < n || concurrent_hands % n != 0)) ||
      absl::GetFlag(FLAGS_pingpongs) < 0 || absl::GetFlag(FLAGS_per_decision_ms) <= 0) {
    std::fprintf(stderr,
                 "referee_bench: --matches >= 1; --hands and --concurrent_hands positive "
                 "multiples of %d; --pingpongs, --concurrent_matches >= 0\n",
                 n);
    return 2;
  }
  for (const std::string& client : absl::GetFlag(FLAGS_pingpong_clients)) {
    if (client != "sync" && client != "callback" && client != "connection" &&
        client != "async-cq") {
      std::fprintf(stderr, "referee_bench: unknown --pingpong_clients entry '%s'\n",
                   client.c_str());
      return 2;
    }
  }
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(variant);
  if (!game.ok()) {
    std::fprintf(stderr, "referee_bench: %s\n", std::string(game.status().message()).c_str());
    return 2;
  }
  std::string bin_dir = absl::GetFlag(FLAGS_bin_dir);
  if (bin_dir.empty()) bin_dir = SelfDir();
  GuardBenchmark("referee_bench", absl::GetFlag(FLAGS_watchdog_s));
  if (!absl::GetFlag(FLAGS_absl_deadlock_detection))
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);

  const std::string load_start = LoadAverage();
  // Servers stop in their destructors, on every return path.
  std::vector<Server> bots;
  for (int s = 0; s < n; ++s) {
    absl::StatusOr<Server> bot = StartServer(
        {bin_dir + "/tarock-bot-random", absl::StrCat("--seed=", seed + 100 * (s + 1))}, "--listen");
    if (!bot.ok()) {
      std::fprintf(stderr, "referee_bench: %s\n", std::string(bot.status().message()).c_str());
      return 2;
    }
    bots.push_back(std::move(*bot));
  }
  v1::MatchSpec spec = BaseSpec(variant, bots, hands);
  Problems all;
  json report = {{"variant", variant},
                 {"bots", n},
                 {"per_decision_ms", absl::GetFlag(FLAGS_per_decision_ms)},
                 {"absl_deadlock_detection", absl::GetFlag(FLAGS_absl_deadlock_detection)},
                 {"load_average_start", load_start}};

  // Warm-up, not counted: one short match, so both sides have their threads,
  // connections and allocations in place.
  GrpcBotConnector connector;
  {
    v1::MatchSpec warm = spec;
    warm.set_num_hands(n);
    SequentialResult w = PlaySequential(&connector, warm, 1, seed + 999, bots, "warmup");
    all.Add(w.problems);
  }

  // 1. End to end.
  SequentialResult e2e = PlaySequential(&connector, spec, matches, seed, bots, "e2e");
  all.Add(e2e.problems);
  report["end_to_end"] = e2e.Json();
  report["end_to_end"]["hands_per_match"] = hands;

  SequentialResult inproc;
  if (absl::GetFlag(FLAGS_inproc)) {
    InProcessConnector in_process;
    in_process.Register("random", [seed] { return std::make_unique<InProcessRandomBot>(seed); });
    v1::MatchSpec local = spec;
    for (v1::SeatSpec& seat : *local.mutable_seats()) seat.set_endpoint("inproc:random");
    inproc = PlaySequential(&in_process, local, matches, seed, {}, "inproc");
    all.Add(inproc.problems);
    report["in_process"] = inproc.Json();
  }

  // 2. Ping-pong with as many round trips as there were decisions.
  int64_t pingpongs = absl::GetFlag(FLAGS_pingpongs);
  if (pingpongs == 0) pingpongs = std::max<int64_t>(e2e.decisions, 1);
  constexpr int64_t kMaxCaptured = 50000;  // the ping-pong cycles through these
  RequestCosts costs;
  absl::StatusOr<std::vector<Captured>> timing_pass =
      CaptureRequests(**game, std::min(pingpongs, kMaxCaptured), hands, seed, false, &costs);
  absl::StatusOr<std::vector<Captured>> captured =
      CaptureRequests(**game, std::min(pingpongs, kMaxCaptured), hands, seed, true, &costs);
  if (!timing_pass.ok()) captured = timing_pass.status();
  if (!captured.ok() || captured->empty()) {
    std::fprintf(stderr, "referee_bench: capturing requests: %s\n",
                 captured.ok() ? "none" : std::string(captured.status().message()).c_str());
    return 2;
  }
  double request_bytes = 0;
  for (const Captured& c : *captured)
    request_bytes += static_cast<double>(c.message.decision_request().ByteSizeLong());
  request_bytes /= static_cast<double>(captured->size());
  // Bounds every wait of the sync and callback clients.
  const absl::Time pingpong_deadline =
      absl::Now() + absl::Seconds(120) + absl::Milliseconds(pingpongs * 20);
  std::vector<PingPongResult> pingpong;
  for (const std::string& client : absl::GetFlag(FLAGS_pingpong_clients)) {
    if (client == "sync") {
      pingpong.push_back(SyncPingPong(spec, bots, *captured, pingpongs, pingpong_deadline));
    } else if (client == "callback") {
      pingpong.push_back(CallbackPingPong(spec, bots, *captured, pingpongs, pingpong_deadline));
    } else if (client == "connection") {
      pingpong.push_back(ConnectionPingPong(spec, bots, *captured, pingpongs));
    } else if (client == "async-cq") {
      pingpong.push_back(CqPingPong(spec, bots, *captured, pingpongs, pingpong_deadline));
    }
  }
  bool pingpong_failed = false;
  report["pingpong"] = {{"mean_request_bytes", request_bytes}, {"clients", json::array()}};
  report["request_costs_us"] = costs.Json();
  for (const PingPongResult& p : pingpong) {
    report["pingpong"]["clients"].push_back(p.Json());
    if (!p.error.empty()) pingpong_failed = true;
  }
  double bare_us = 0;  // the bar is against the sync client
  for (const PingPongResult& p : pingpong)
    if (p.client == "sync" && p.error.empty()) bare_us = p.us_per_round_trip();
  const double ratio = bare_us > 0 ? e2e.us_per_decision() / bare_us : 0;
  const bool bar_met = bare_us > 0 && ratio <= kBar;
  report["bar"] = {{"referee_us_per_decision", e2e.us_per_decision()},
                   {"bare_sync_us_per_round_trip", bare_us},
                   {"ratio", ratio},
                   {"limit", kBar},
                   {"met", bar_met}};

  // A bot that died would turn every later decision into a fault: say so once.
  bool bots_alive = true;
  for (Server& b : bots) bots_alive = bots_alive && b.process->Running();
  if (!bots_alive) {
    ++all.failed_matches;
    all.Note("a tarock-bot-random process exited during parts 1-2; part 3 skipped");
  }

  // 3. Concurrency through the tarock-referee process: each level on a fresh
  // referee, so threads and memory are that level's.
  std::vector<ConcurrentResult> levels;
  const bool run_concurrent = concurrent_matches > 0 && bots_alive;
  if (run_concurrent) {
    report["concurrent"] = json::array();
    for (int level : concurrent_levels) {
      absl::StatusOr<Server> referee = StartServer(
          // A match waits for its bots' streams as long as the call may last: with
          // thousands starting at once, the last open their streams minutes later.
          // and every level's matches at once (--max_matches: no limit).
          {bin_dir + "/tarock-referee", "--metrics_listen=", "--max_matches=0",
           absl::StrCat("--connect_timeout_ms=",
                        int64_t{1000} * absl::GetFlag(FLAGS_concurrent_deadline_s))},
          "--listen");
      if (!referee.ok()) {
        std::fprintf(stderr, "referee_bench: %s\n", std::string(referee.status().message()).c_str());
        return 2;
      }
      ConcurrentResult conc =
          RunConcurrent(*referee, BaseSpec(variant, bots, concurrent_hands), level, seed, bots);
      referee->process->Stop();
      all.Add(conc.problems);
      json j = conc.Json();
      j["hands_per_match"] = concurrent_hands;
      report["concurrent"].push_back(j);
      levels.push_back(std::move(conc));
      if (!levels.back().processes_alive) break;
    }
    if (levels.size() >= 2 && levels.front().cpu_us_per_decision() > 0) {
      report["concurrent_cpu_ratio_last_to_first"] =
          levels.back().cpu_us_per_decision() / levels.front().cpu_us_per_decision();
    }
  }
  for (Server& b : bots) b.process->Stop();
  report["load_average_end"] = LoadAverage();
  const bool ok = !all.any() && !pingpong_failed;
  report["ok"] = ok;
  report["problems"] = all.Json();

  if (as_json) {
    std::printf("%s\n", report.dump(2).c_str());
    return ok ? 0 : 1;
  }
  std::printf("referee_bench: %s, %d tarock-bot-random processes on loopback, from %s\n",
              variant.c_str(), n, bin_dir.c_str());
  std::printf("load average at start %s, at end %s\n\n", load_start.c_str(),
              report["load_average_end"].get<std::string>().c_str());
  PrintSequential(
      absl::StrFormat("1. end to end: referee in process (MatchRunner + GrpcBotConnector), %d "
                      "matches x %d hands, one after another",
                      matches, hands)
          .c_str(),
      e2e);
  if (absl::GetFlag(FLAGS_inproc)) {
    std::printf("\n");
    PrintSequential("   for reference: the same matches with in-process bots (no transport)",
                    inproc);
  }
  std::printf("\n2. bare gRPC ping-pong against the same bot processes: %lld round trips per "
              "client, one stream per seat,\n   DecisionRequests from random hands (mean %.0f "
              "bytes), one at a time\n",
              static_cast<long long>(pingpongs), request_bytes);
  for (const PingPongResult& p : pingpong) {
    json j = p.Json();
    std::printf("  %-18s %7.0f round trips/s %7.1f us/round trip  (client: CPU %.1f us, %.2f "
                "context switches; bots: CPU %.1f us)%s\n",
                p.client.c_str(), j["round_trips_per_s"].get<double>(), p.us_per_round_trip(),
                j["client_cpu_us_per_round_trip"].get<double>(),
                j["client_context_switches_per_round_trip"].get<double>(),
                j["bots_cpu_us_per_round_trip"].get<double>(), p.error.empty() ? "" : "  <-- ERROR");
    if (!p.error.empty()) std::printf("    %s\n", p.error.c_str());
  }
  std::printf("  the referee's CPU per request outside the transport: Observe %.2f us, "
              "MakeDecisionRequest %.2f us,\n    copy into a RefereeMessage %.2f us, "
              "serialization %.2f us\n",
              costs.observe_us, costs.make_request_us, costs.copy_us, costs.serialize_us);
  if (bare_us > 0) {
    std::printf("  bar: referee cost per decision <= %.1f x the bare (sync) round trip: %.1f us / "
                "%.1f us = %.2f x  -> %s\n",
                kBar, e2e.us_per_decision(), bare_us, ratio, bar_met ? "met" : "NOT met");
  } else {
    std::printf("  bar: not measured (no sync ping-pong)\n");
  }
  if (run_concurrent) {
    std::printf("\n3. concurrency: one tarock-referee process per level, N matches x %d hands "
                "at once (RunMatch on the callback API)\n",
                concurrent_hands);
    std::printf("  %6s %7s %9s %10s %8s %12s %12s %8s %9s %12s\n", "N", "rounds", "finished",
                "decisions",
                "wall s", "decisions/s", "CPU us/dec", "threads", "RSS MiB", "slowest ms");
    for (const ConcurrentResult& c : levels) {
      std::printf("  %6d %7d %9d %10lld %8.2f %12.0f %12.1f %8d %9.1f %12.1f\n", c.matches,
                  c.rounds, c.finished, static_cast<long long>(c.decisions), c.wall_s,
                  c.wall_s > 0 ? c.decisions / c.wall_s : 0, c.cpu_us_per_decision(),
                  c.referee_threads_max, c.referee_rss_max_mib, c.max_decision_ms);
    }
    if (report.contains("concurrent_cpu_ratio_last_to_first")) {
      std::printf("  the referee's CPU per decision at %d matches / at %d: %.2f x (bar: <= 2 at "
                  "1,000)\n",
                  levels.back().matches, levels.front().matches,
                  report["concurrent_cpu_ratio_last_to_first"].get<double>());
    }
    for (const ConcurrentResult& c : levels) {
      if (c.problems.any()) {
        std::printf("  at %d matches:\n", c.matches);
        PrintProblems(c.problems);
      }
    }
    std::printf("  (per-decision limit %lld ms: far above any real latency here, so a fault is "
                "a bug, not slowness)\n",
                static_cast<long long>(absl::GetFlag(FLAGS_per_decision_ms)));
  }
  if (ok) {
    std::printf("\nOK: no faults, no failures\n");
  } else {
    std::printf("\nFAILED (exit status 1), over all parts:\n");
    PrintProblems(all);
    if (pingpong_failed) std::printf("  and a ping-pong client failed (above)\n");
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace tarock

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "referee_bench [--matches=K --hands=H --concurrent_matches=M --json]\n"
      "Benchmark: the referee end to end: plays K matches of H hands (M at a time) against\n"
      "tarock-bot-random processes and prints matches and decisions per second and the\n"
      "latency of a decision (docs/benchmarks.md).");
  tarock::ParseCommandLine(argc, argv);
  // Thousands of matches are four times as many bot streams, each its own TCP
  // connection at both ends: raise the open-file limit as far as allowed (the
  // referee and bot processes inherit it).
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    rlimit wanted{1 << 20, 1 << 20};
    if (setrlimit(RLIMIT_NOFILE, &wanted) != 0) {
      files.rlim_cur = files.rlim_max;
      setrlimit(RLIMIT_NOFILE, &files);
    }
  }
  return tarock::Main();
}
