#include "referee/tools/compare/compare_command.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "referee/core/match_runner.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"
#include "referee/server/grpc_bot_connection.h"
#include "referee/server/grpc_status.h"
#include "referee/tools/bot_launch.h"
#include "referee/tools/remote_referee.h"
#include "referee/tools/compare/duplicate_design.h"
#include "referee/tools/subprocess.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock {
namespace {

using json = nlohmann::json;

void OnInterrupt(int sig) {
  KillAllChildren();
  _exit(128 + sig);
}

int Error(const std::string& message) {
  std::cerr << "tarock compare: " << message << "\n";
  return kCompareError;
}

// A role's bot: candidate, baseline or opponent j.
struct RoleBot {
  std::string role;  // "candidate", "baseline", "opponent-0", ...
  std::string spec;
  LaunchedBot bot;
  std::string hello_name;
  std::string hello_version;
};

// One played match (block k, seating si), as the workers hand it over.
struct MatchOutcome {
  absl::Status status;
  std::vector<PlayedHand> hands;
  std::vector<int> faults;                 // per seat
  std::vector<std::string> hello_names;    // per seat
  std::vector<std::string> hello_versions; // per seat
  json fault_list = json::array();         // the record's faults
  int64_t decisions = 0;
  int hands_played = 0;
  std::string ended_early;
};

// The remote matches in flight, so a decided run can cancel them.
class RemoteCalls {
 public:
  void Add(grpc::ClientContext* c) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.insert(c);
    if (cancelled_) c->TryCancel();
  }
  void Remove(grpc::ClientContext* c) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.erase(c);
  }
  void CancelAll() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    for (grpc::ClientContext* c : calls_) c->TryCancel();
  }

 private:
  std::mutex mu_;
  std::set<grpc::ClientContext*> calls_;
  bool cancelled_ = false;
};

absl::StatusOr<v1::MatchFinished> RunRemote(const std::string& referee, const v1::MatchSpec& spec,
                                            RemoteCalls& calls) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = RefereeChannel(referee);
  if (!channel.ok()) return channel.status();
  auto stub = v1::Referee::NewStub(*channel);
  grpc::ClientContext context;
  AuthorizeRefereeCall(&context);
  calls.Add(&context);
  auto reader = stub->RunMatch(&context, spec);
  v1::MatchEvent event;
  std::optional<v1::MatchFinished> finished;
  while (reader->Read(&event))
    if (event.has_match_finished()) finished = event.match_finished();
  grpc::Status status = reader->Finish();
  calls.Remove(&context);
  if (!status.ok()) {
    absl::Status s = FromGrpcStatus(status);
    return absl::Status(s.code(), absl::StrCat("referee at ", referee, ": ", s.message()));
  }
  if (!finished) return absl::InternalError(absl::StrCat("referee at ", referee,
                                                         ": the stream ended without a result"));
  return *finished;
}

MatchOutcome OutcomeOf(absl::StatusOr<v1::MatchFinished> finished) {
  MatchOutcome out;
  if (!finished.ok()) {
    out.status = finished.status();
    return out;
  }
  absl::StatusOr<std::vector<PlayedHand>> hands = HandsOfRecord(finished->record_json());
  if (!hands.ok()) {
    out.status = hands.status();
    return out;
  }
  out.hands = std::move(*hands);
  for (const v1::SeatSummary& s : finished->seats()) {
    out.faults.push_back(s.faults());
    out.hello_names.push_back(s.hello_name());
    out.hello_versions.push_back(s.hello_version());
  }
  json record = json::parse(finished->record_json(), nullptr, false);
  if (!record.is_discarded() && record.contains("faults")) out.fault_list = record["faults"];
  out.decisions = finished->decisions();
  out.hands_played = finished->hands();
  out.ended_early = finished->ended_early();
  return out;
}

std::string Signed(double x) { return absl::StrFormat("%+.2f", x); }

std::string Duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds < 90) return absl::StrFormat("%.0f s", seconds);
  if (seconds < 5400) return absl::StrFormat("%.0f min", seconds / 60);
  return absl::StrFormat("%.1f h", seconds / 3600);
}

// Deals still needed at the current drift of the LLR (its mean per deal), to
// the bound it heads for, capped by max_deals; infinite when it does not move.
double DealsLeft(const Sprt& s) {
  const double n = static_cast<double>(s.deals());
  double left = std::numeric_limits<double>::infinity();
  if (n >= 2 && s.llr() != 0) {
    const double drift = s.llr() / n;
    left = drift > 0 ? (s.upper_bound() - s.llr()) / drift : (s.lower_bound() - s.llr()) / drift;
    left = std::max(left, static_cast<double>(s.params().min_deals) - n);
  }
  if (s.params().max_deals > 0) left = std::min(left, static_cast<double>(s.params().max_deals) - n);
  return std::max(left, 0.0);
}

}  // namespace

int RunCompareCommand(const CompareOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (o.variant.empty()) return Error("--variant is required");
  if (o.candidate.empty() || o.baseline.empty())
    return Error("--candidate SPEC and --baseline SPEC are required");
  if (absl::Status s = ValidateSprtParams(o.sprt); !s.ok()) return Error(std::string(s.message()));
  if (o.concurrency < 1 || o.concurrency > 256) return Error("--concurrency must be in 1..256");
  if (o.max_faults < 0) return Error("--max_faults must be >= 0");
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(o.variant, o.options);
  if (!game.ok()) return Error(std::string(game.status().message()));
  const int n = (*game)->num_seats();
  const std::vector<Seating> seatings =
      o.opponents.empty() ? HeadToHeadSeatings(n)
                          : OpponentSeatings(n, static_cast<int>(o.opponents.size()));
  const int64_t per_block = static_cast<int64_t>(seatings.size());

  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);

  // Start every bot once; each serves all the matches (a stream per seat).
  std::vector<RoleBot> bots;
  bots.push_back({"candidate", o.candidate, {}, "", ""});
  bots.push_back({"baseline", o.baseline, {}, "", ""});
  for (size_t j = 0; j < o.opponents.size(); ++j)
    bots.push_back({absl::StrCat("opponent-", j), o.opponents[j], {}, "", ""});
  auto stop_bots = [&] {
    for (RoleBot& b : bots)
      if (b.bot.process) b.bot.process->Stop();
  };
  if (!o.bot_logs_dir.empty()) {
    if (absl::Status made = MakeDirectories(o.bot_logs_dir); !made.ok()) return Error(std::string(made.message()));
  }
  for (RoleBot& b : bots) {
    LaunchOptions lo;
    lo.name = b.role;
    if (!o.bot_logs_dir.empty()) lo.log_path = BotLogPath(o.bot_logs_dir, b.role);
    absl::StatusOr<LaunchedBot> launched = LaunchBot(b.spec, lo);
    if (!launched.ok()) {
      stop_bots();
      return Error(absl::StrCat(b.role, " (", b.spec, "): ", launched.status().message()));
    }
    b.bot = std::move(*launched);
  }
  const absl::Time up_deadline = absl::Now() + absl::Milliseconds(o.connect_timeout_ms);
  for (RoleBot& b : bots) {
    if (absl::Status up = WaitUntilListening(b.bot, up_deadline); !up.ok()) {
      stop_bots();
      return Error(absl::StrCat(b.role, " (", b.spec, "): ", up.message()));
    }
  }
  auto role_index = [](int role) { return role == kCandidate ? 0 : role == kBaseline ? 1 : 2 + role; };

  // The match of task t: block t / per_block, seating t % per_block.
  auto spec_of = [&](int64_t t) {
    const int64_t k = t / per_block;
    const int64_t si = t % per_block;
    v1::MatchSpec spec;
    // Never the seed in the id: every bot sees it (docs/security.md).
    spec.set_match_id(absl::StrCat("compare-", k, "-", SeatingName(seatings[si])));
    spec.set_variant(o.variant);
    for (const auto& [key, v] : o.options) (*spec.mutable_options())[key] = v;
    spec.set_num_hands(n);
    spec.set_seed(HandSeed(o.seed, static_cast<uint64_t>(k)));
    spec.set_withhold_hand_records(true);  // the deal's other seatings play it too
    spec.mutable_time_control()->set_per_decision_ms(o.per_decision_ms);
    spec.mutable_time_control()->set_match_bank_ms(o.bank_ms);
    spec.mutable_time_control()->set_grace_ms(o.grace_ms);
    spec.mutable_fault_policy()->set_max_faults(0);  // never forfeit: every deal stays comparable
    spec.set_result_only(true);
    for (int seat = 0; seat < n; ++seat) {
      const RoleBot& b = bots[role_index(seatings[si][seat])];
      v1::SeatSpec* s = spec.add_seats();
      s->set_name(b.role);
      s->set_endpoint(b.bot.endpoint);
    }
    return spec;
  };

  const int64_t max_blocks =
      o.sprt.max_deals > 0 ? (o.sprt.max_deals + n - 1) / n : std::numeric_limits<int64_t>::max() / 1024;
  const int64_t max_tasks = max_blocks * per_block;
  // Workers run ahead of the consumer by at most this many matches.
  const int64_t window = std::max<int64_t>(2 * per_block, 2 * static_cast<int64_t>(o.concurrency));

  std::mutex mu;
  std::condition_variable cv;
  std::map<int64_t, MatchOutcome> done;  // guarded by mu
  int64_t consumed_tasks = 0;            // guarded by mu: tasks of the blocks consumed
  int64_t next_task = 0;                 // guarded by mu
  std::atomic<bool> stop{false};
  RemoteCalls remote_calls;
  absl::StatusOr<transport::Transport> transport = ToolTransport();
  if (!transport.ok()) {
    stop_bots();
    return Error(std::string(transport.status().message()));
  }

  auto worker = [&](int w) {
    GrpcBotConnector connector({}, *transport);
    RefereeOptions ro;
    ro.connect_timeout = absl::Milliseconds(o.connect_timeout_ms);
    MatchRunner runner(ro, &connector, nullptr);
    for (;;) {
      int64_t t;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stop.load() || next_task < consumed_tasks + window; });
        if (stop.load() || next_task >= max_tasks) return;
        t = next_task++;
      }
      const v1::MatchSpec spec = spec_of(t);
      absl::StatusOr<v1::MatchFinished> finished;
      if (o.referees.empty()) {
        finished = runner.Run(spec, [](const v1::MatchEvent&) {}, [&] { return stop.load(); });
      } else {
        // Round robin over the referees; a referee that is down (UNAVAILABLE)
        // hands the same match, same seed, to the next one.
        const size_t r0 = static_cast<size_t>(t) % o.referees.size();
        for (size_t a = 0; a < o.referees.size(); ++a) {
          finished = RunRemote(o.referees[(r0 + a) % o.referees.size()], spec, remote_calls);
          if (finished.ok() || finished.status().code() != absl::StatusCode::kUnavailable ||
              stop.load())
            break;
        }
      }
      MatchOutcome outcome = OutcomeOf(std::move(finished));
      {
        std::lock_guard<std::mutex> lock(mu);
        done[t] = std::move(outcome);
      }
      cv.notify_all();
    }
    (void)w;
  };
  std::vector<std::thread> pool;
  for (int w = 0; w < o.concurrency; ++w) pool.emplace_back(worker, w);

  Sprt sprt(o.sprt);
  std::vector<double> differences;
  std::vector<double> llr_path;
  std::vector<int64_t> faults_by_role(bots.size(), 0);
  std::vector<std::map<std::string, int64_t>> fault_kinds(bots.size());
  json fault_details = json::array();
  int64_t matches = 0, hands_played = 0, decisions = 0, skipped_deals = 0;
  std::string error;
  const bool tty = isatty(2);
  double last_print = -1e9;

  auto progress_line = [&] {
    const double secs = elapsed();
    const double rate = secs > 0 ? static_cast<double>(sprt.deals()) / secs : 0;
    const double left = DealsLeft(sprt);
    return absl::StrFormat(
        "deals %d  mean %s [%s, %s]  LLR %+.2f in [%+.2f, %+.2f]  %.2f deals/s  ~%s left  "
        "faults C %d B %d",
        sprt.deals(), Signed(sprt.mean()),
        std::isfinite(sprt.HalfWidth95()) ? Signed(sprt.mean() - sprt.HalfWidth95()) : "-inf",
        std::isfinite(sprt.HalfWidth95()) ? Signed(sprt.mean() + sprt.HalfWidth95()) : "+inf",
        sprt.llr(), sprt.lower_bound(), sprt.upper_bound(), rate,
        rate > 0 ? Duration(left / rate) : std::string("?"), faults_by_role[0], faults_by_role[1]);
  };

  for (int64_t k = 0; k < max_blocks && sprt.decision() == SprtDecision::kContinue; ++k) {
    std::vector<MatchOutcome> block;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] {
        for (int64_t si = 0; si < per_block; ++si)
          if (!done.count(k * per_block + si)) return false;
        return true;
      });
      for (int64_t si = 0; si < per_block; ++si) {
        auto it = done.find(k * per_block + si);
        block.push_back(std::move(it->second));
        done.erase(it);
      }
      consumed_tasks = (k + 1) * per_block;
    }
    cv.notify_all();
    for (int64_t si = 0; si < per_block; ++si) {
      if (!block[si].status.ok()) {
        error = absl::StrCat("block ", k, " seating ", SeatingName(seatings[si]), ": ",
                             block[si].status.message());
        break;
      }
    }
    if (!error.empty()) {
      for (RoleBot& b : bots)
        if (b.bot.process && !b.bot.process->Running())
          absl::StrAppend(&error, " (the ", b.role, " bot process ", b.spec, " has exited)");
      break;
    }
    std::vector<std::vector<PlayedHand>> hands;
    for (int64_t si = 0; si < per_block; ++si) {
      const MatchOutcome& m = block[si];
      ++matches;
      hands_played += m.hands_played;
      decisions += m.decisions;
      for (int seat = 0; seat < n && seat < static_cast<int>(m.faults.size()); ++seat) {
        const int r = role_index(seatings[si][seat]);
        faults_by_role[r] += m.faults[seat];
        if (bots[r].hello_name.empty()) bots[r].hello_name = m.hello_names[seat];
        if (bots[r].hello_version.empty()) bots[r].hello_version = m.hello_versions[seat];
      }
      for (const json& f : m.fault_list) {
        const int seat = f.value("seat", -1);
        if (seat < 0 || seat >= n) continue;
        const int r = role_index(seatings[si][seat]);
        ++fault_kinds[r][f.value("kind", std::string("?"))];
        if (fault_details.size() < 200) {
          json d = f;
          d["bot"] = bots[r].role;
          d["block"] = k;
          d["seating"] = SeatingName(seatings[si]);
          fault_details.push_back(d);
        }
      }
      hands.push_back(m.hands);
    }
    const std::vector<double> diffs = BlockDifferences(seatings, hands, n);
    skipped_deals += n - static_cast<int64_t>(diffs.size());
    for (double d : diffs) {
      differences.push_back(d);
      sprt.Add(d);
      llr_path.push_back(sprt.llr());
      if (sprt.decision() != SprtDecision::kContinue) break;
    }
    // A bot process that exited, or too many faults, ends the run.
    for (RoleBot& b : bots)
      if (b.bot.process && !b.bot.process->Running())
        error = absl::StrCat("the ", b.role, " bot process ", b.spec, " has exited");
    if (error.empty() && o.max_faults > 0) {
      for (int r = 0; r < 2; ++r)
        if (faults_by_role[r] > o.max_faults)
          error = absl::StrCat("the ", bots[r].role, " made ", faults_by_role[r],
                               " faults (more than --max_faults ", o.max_faults, ")");
    }
    if (!error.empty()) break;
    if (!o.quiet) {
      const double now = elapsed();
      if (tty) {
        std::fprintf(stderr, "\r%s   ", progress_line().c_str());
      } else if (now - last_print >= 5 || sprt.decision() != SprtDecision::kContinue) {
        std::fprintf(stderr, "%s\n", progress_line().c_str());
        last_print = now;
      }
    }
  }
  // Stop: matches beyond the decision are discarded.
  stop = true;
  cv.notify_all();
  remote_calls.CancelAll();
  for (std::thread& t : pool) t.join();
  stop_bots();
  if (!o.quiet && tty) std::fprintf(stderr, "\n");

  SprtDecision decision = sprt.decision();
  if (error.empty() && decision == SprtDecision::kContinue) decision = SprtDecision::kInconclusive;
  int exit_status = kCompareError;
  if (error.empty()) {
    exit_status = decision == SprtDecision::kAcceptH1   ? kCompareH1
                  : decision == SprtDecision::kAcceptH0 ? kCompareH0
                                                        : kCompareInconclusive;
  }
  const double seconds = elapsed();

  std::vector<std::string> patterns;
  for (const Seating& s : seatings) patterns.push_back(SeatingName(s));
  if (!o.report_path.empty()) {
    json report;
    report["variant"] = o.variant;
    report["options"] = o.options;
    report["seed"] = o.seed;
    report["concurrency"] = o.concurrency;
    report["referees"] = o.referees;
    report["design"] = o.opponents.empty() ? "head-to-head" : "opponents";
    report["seatings"] = patterns;
    report["block_hands"] = n;
    report["bots"] = json::array();
    for (size_t r = 0; r < bots.size(); ++r) {
      json kinds = json::object();
      for (const auto& [kind, c] : fault_kinds[r]) kinds[kind] = c;
      report["bots"].push_back({{"role", bots[r].role},
                                {"spec", bots[r].spec},
                                {"endpoint", bots[r].bot.endpoint},
                                {"hello_name", bots[r].hello_name},
                                {"hello_version", bots[r].hello_version},
                                {"faults", faults_by_role[r]},
                                {"faults_by_kind", kinds}});
    }
    report["sprt"] = {{"h0", o.sprt.h0},
                      {"h1", o.sprt.h1},
                      {"alpha", o.sprt.alpha},
                      {"beta", o.sprt.beta},
                      {"min_deals", o.sprt.min_deals},
                      {"max_deals", o.sprt.max_deals},
                      {"llr", o.sprt.form == LlrForm::kFishtest ? "fishtest" : "generalized"},
                      {"lower_bound", sprt.lower_bound()},
                      {"upper_bound", sprt.upper_bound()}};
    const double hw = sprt.HalfWidth95();
    report["result"] = {{"decision", error.empty() ? SprtDecisionName(decision) : "error"},
                        {"exit_status", exit_status},
                        {"error", error},
                        {"deals", sprt.deals()},
                        {"mean", sprt.mean()},
                        {"ci95", std::isfinite(hw) ? json::array({sprt.mean() - hw, sprt.mean() + hw})
                                                   : json(nullptr)},
                        {"sd", std::sqrt(sprt.variance())},
                        {"llr", sprt.llr()},
                        {"matches", matches},
                        {"hands", hands_played},
                        {"decisions", decisions},
                        {"deals_left_out", skipped_deals},
                        {"seconds", seconds},
                        {"deals_per_second", seconds > 0 ? sprt.deals() / seconds : 0.0}};
    report["differences"] = differences;
    report["llr_path"] = llr_path;
    report["faults"] = fault_details;
    std::ofstream out(o.report_path);
    out << report.dump(2) << "\n";
    if (!out) {
      std::cerr << "tarock compare: cannot write " << o.report_path << "\n";
      exit_status = kCompareError;
    }
  }

  std::printf("%s: candidate %s against baseline %s, %s (%s), seed %llu\n", o.variant.c_str(),
              o.candidate.c_str(), o.baseline.c_str(),
              o.opponents.empty() ? "head to head"
                                  : absl::StrCat("against ", absl::StrJoin(o.opponents, ", ")).c_str(),
              absl::StrJoin(patterns, " ").c_str(), static_cast<unsigned long long>(o.seed));
  std::printf("  H0: better by at most %g per deal; H1: by at least %g (alpha %g, beta %g)\n",
              o.sprt.h0, o.sprt.h1, o.sprt.alpha, o.sprt.beta);
  const double hw = sprt.HalfWidth95();
  std::printf("  deals %lld (%lld matches, %lld hands) in %.1f s, %.2f deals/s\n",
              static_cast<long long>(sprt.deals()), static_cast<long long>(matches),
              static_cast<long long>(hands_played), seconds, seconds > 0 ? sprt.deals() / seconds : 0.0);
  if (std::isfinite(hw))
    std::printf("  mean difference %s per deal, 95%% CI [%s, %s]\n", Signed(sprt.mean()).c_str(),
                Signed(sprt.mean() - hw).c_str(), Signed(sprt.mean() + hw).c_str());
  std::printf("  LLR %+.3f, bounds [%+.3f, %+.3f]\n", sprt.llr(), sprt.lower_bound(),
              sprt.upper_bound());
  std::string faults_line;
  for (size_t r = 0; r < bots.size(); ++r) {
    std::string kinds;
    for (const auto& [kind, c] : fault_kinds[r]) absl::StrAppend(&kinds, kinds.empty() ? "" : ", ", kind, " ", c);
    absl::StrAppend(&faults_line, r ? "; " : "", bots[r].role, " ", faults_by_role[r],
                    kinds.empty() ? "" : absl::StrCat(" (", kinds, ")"));
  }
  std::printf("  faults: %s\n", faults_line.c_str());
  if (!error.empty()) {
    std::printf("  result: error (exit 3): %s\n", error.c_str());
    std::cerr << "tarock compare: " << error << "\n";
  } else if (decision == SprtDecision::kAcceptH1) {
    std::printf("  result: H1 accepted (exit 0): the candidate is better by at least %g per deal\n",
                o.sprt.h1);
  } else if (decision == SprtDecision::kAcceptH0) {
    std::printf("  result: H0 accepted (exit 1): the candidate is not better by %g per deal\n",
                o.sprt.h1);
  } else {
    std::printf("  result: inconclusive at %lld deals (exit 2)\n",
                static_cast<long long>(sprt.deals()));
  }
  if (!o.report_path.empty()) std::printf("  report: %s\n", o.report_path.c_str());
  std::fflush(stdout);
  return exit_status;
}

}  // namespace tarock
