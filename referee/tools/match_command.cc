#include "referee/tools/match_command.h"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "referee/core/match_runner.h"
#include "referee/core/stats.h"
#include "referee/engine/registry.h"
#include "referee/engine/status_macros.h"
#include "referee/server/grpc_bot_connection.h"
#include "referee/server/grpc_status.h"
#include "referee/tools/bot_launch.h"
#include "referee/tools/remote_referee.h"
#include "referee/tools/subprocess.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock {
namespace {

using json = nlohmann::json;

void OnInterrupt(int sig) {
  KillAllChildren();
  _exit(128 + sig);
}

struct SeatLaunch {
  std::string name;
  LaunchedBot bot;  // bot.process is null for a running bot
};

// NAME=SPEC, SPEC as in bot_launch.h: an executable, py:PATH, stdio:COMMAND or
// HOST:PORT. The bots' standard error stays on ours, or goes to
// BotLogPath(bot_logs_dir, ...) when a directory is given.
absl::StatusOr<SeatLaunch> LaunchSeat(int seat, const std::string& arg,
                                      const std::string& bot_logs_dir) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    return absl::InvalidArgumentError(
        absl::StrCat("seat ", seat, ": expected NAME=SPEC, got '", arg, "'"));
  SeatLaunch out;
  out.name = arg.substr(0, eq);
  LaunchOptions options;
  options.name = out.name;
  if (!bot_logs_dir.empty()) options.log_path = BotLogPath(bot_logs_dir, absl::StrCat("seat", seat, "-", out.name));
  absl::StatusOr<LaunchedBot> bot = LaunchBot(arg.substr(eq + 1), options);
  if (!bot.ok())
    return absl::Status(bot.status().code(), absl::StrCat("seat ", seat, " (", out.name, "): ",
                                                          bot.status().message()));
  out.bot = std::move(*bot);
  return out;
}

class Progress {
 public:
  Progress(int hands, bool quiet) : hands_(hands), quiet_(quiet), tty_(isatty(2)) {}
  void Hand(const v1::HandFinished& h) {
    // A thrown-in deal is one of the match's hands; a deal dealt again is not.
    if (h.redeal() && !h.counts_as_hand()) ++redeals_;
    else ++done_;
    if (quiet_) return;
    if (tty_) {
      std::fprintf(stderr, "\rhand %d/%d  faults %d  redeals %d   ", done_, hands_, faults_,
                   redeals_);
    } else if (done_ % std::max(1, hands_ / 10) == 0 && (!h.redeal() || h.counts_as_hand())) {
      std::fprintf(stderr, "hand %d/%d  faults %d\n", done_, hands_, faults_);
    }
  }
  void Fault(const v1::Fault& f) {
    ++faults_;
    if (quiet_) return;
    std::fprintf(stderr, "%sfault: seat %d %s in hand %d at action %d: %s (played %s)\n",
                 tty_ ? "\r" : "", f.seat(), FaultKindName(f.kind()).c_str(), f.hand_index(),
                 f.action_index(), f.detail().c_str(), f.fallback_action().c_str());
  }
  void End() {
    if (!quiet_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  int hands_;
  bool quiet_;
  bool tty_;
  int done_ = 0, redeals_ = 0, faults_ = 0;
};

// The per-bot table: a bot that holds several seats gets one row over all of
// its seats' hands.
json Summarize(const v1::MatchFinished& finished) {
  json record = json::parse(finished.record_json());
  const int n = finished.seats_size();
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> per_hand;
  std::map<std::string, json> rows;
  for (int s = 0; s < n; ++s) {
    const v1::SeatSummary& seat = finished.seats(s);
    if (!rows.count(seat.name())) {
      order.push_back(seat.name());
      rows[seat.name()] = {{"bot", seat.name()}, {"seats", json::array()}, {"total", 0},
                           {"faults", 0},        {"forfeited", false},    {"decisions", 0},
                           {"decision_ms_sum", 0.0}};
    }
    json& row = rows[seat.name()];
    row["seats"].push_back(s);
    row["total"] = row["total"].get<int64_t>() + seat.total();
    row["faults"] = row["faults"].get<int>() + seat.faults();
    row["forfeited"] = row["forfeited"].get<bool>() || seat.forfeited();
    row["decisions"] = row["decisions"].get<int>() + seat.decisions();
    row["decision_ms_sum"] =
        row["decision_ms_sum"].get<double>() + seat.mean_decision_ms() * seat.decisions();
  }
  for (const json& deal : record["deals"]) {
    if (deal.value("redeal", false) && !deal.value("counts_as_hand", false)) continue;
    const json& scores = deal["scores"];
    for (int s = 0; s < n && s < static_cast<int>(scores.size()); ++s)
      per_hand[finished.seats(s).name()].push_back(scores[s].get<double>());
  }
  json out = json::array();
  for (const std::string& name : order) {
    json row = rows[name];
    MeanCI ci = ComputeMeanCI(per_hand[name]);
    row["mean_per_hand"] = ci.mean;
    row["ci95"] = std::isfinite(ci.half_width) ? ci.half_width : -1.0;
    row["mean_decision_ms"] = row["decisions"].get<int>() > 0
                                  ? row["decision_ms_sum"].get<double>() / row["decisions"].get<int>()
                                  : 0.0;
    row.erase("decision_ms_sum");
    out.push_back(row);
  }
  return out;
}

void PrintTable(const v1::MatchFinished& finished, const json& rows, const std::string& variant) {
  std::printf("%s: %d hands, %lld decisions in %.1f s\n", variant.c_str(), finished.hands(),
              static_cast<long long>(finished.decisions()), finished.duration_s());
  if (!finished.ended_early().empty())
    std::printf("the match ended early: %s; the totals are those of the hands played\n",
                finished.ended_early().c_str());
  std::printf("%-16s %-8s %9s %10s %9s %7s %9s %9s\n", "bot", "seats", "total", "mean/hand",
              "95% CI", "faults", "decisions", "mean ms");
  for (const json& r : rows) {
    std::string seats;
    for (const json& s : r["seats"]) absl::StrAppend(&seats, seats.empty() ? "" : ",", s.get<int>());
    std::string ci = r["ci95"].get<double>() < 0 ? "-" : absl::StrFormat("±%.2f", r["ci95"].get<double>());
    std::printf("%-16s %-8s %9lld %10.2f %9s %7d%s %9d %9.3f\n", r["bot"].get<std::string>().c_str(),
                seats.c_str(), static_cast<long long>(r["total"].get<int64_t>()),
                r["mean_per_hand"].get<double>(), ci.c_str(), r["faults"].get<int>(),
                r["forfeited"].get<bool>() ? "F" : " ", r["decisions"].get<int>(),
                r["mean_decision_ms"].get<double>());
  }
}

absl::StatusOr<v1::MatchFinished> RunRemote(const std::string& referee, const v1::MatchSpec& spec,
                                            Progress& progress) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = RefereeChannel(referee);
  if (!channel.ok()) return channel.status();
  auto stub = v1::Referee::NewStub(*channel);
  grpc::ClientContext context;
  AuthorizeRefereeCall(&context);
  auto reader = stub->RunMatch(&context, spec);
  v1::MatchEvent event;
  std::optional<v1::MatchFinished> finished;
  while (reader->Read(&event)) {
    if (event.has_hand_finished()) progress.Hand(event.hand_finished());
    if (event.has_fault()) progress.Fault(event.fault());
    if (event.has_match_finished()) finished = event.match_finished();
  }
  grpc::Status status = reader->Finish();
  if (!status.ok()) {
    absl::Status s = FromGrpcStatus(status);
    return absl::Status(s.code(), absl::StrCat("referee at ", referee, ": ", s.message()));
  }
  if (!finished) return absl::InternalError("the referee ended the stream without a result");
  return *finished;
}

}  // namespace

absl::Status RunMatchCommand(const MatchCommandOptions& options,
                             const std::vector<std::string>& seat_args) {
  if (options.variant.empty()) return absl::InvalidArgumentError("--variant is required");
  ASSIGN_OR_RETURN(VariantInfo info, Registry::Global().Info(options.variant));
  if (static_cast<int>(seat_args.size()) != info.num_seats)
    return absl::InvalidArgumentError(absl::StrCat(options.variant, " needs ", info.num_seats,
                                                   " NAME=SPEC seats, got ", seat_args.size()));
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);

  v1::MatchSpec spec;
  spec.set_match_id(options.match_id);
  spec.set_variant(options.variant);
  for (const auto& [k, v] : options.options) (*spec.mutable_options())[k] = v;
  spec.set_num_hands(options.hands > 0 ? options.hands : 10 * info.num_seats);
  spec.set_seed(options.seed);
  spec.mutable_time_control()->set_per_decision_ms(options.per_decision_ms);
  spec.mutable_time_control()->set_match_bank_ms(options.bank_ms);
  spec.mutable_time_control()->set_grace_ms(options.grace_ms);
  spec.mutable_fault_policy()->set_max_faults(options.max_faults);

  if (!options.bot_logs_dir.empty()) RETURN_IF_ERROR(MakeDirectories(options.bot_logs_dir));
  std::vector<SeatLaunch> launched;
  for (int s = 0; s < static_cast<int>(seat_args.size()); ++s) {
    ASSIGN_OR_RETURN(SeatLaunch seat, LaunchSeat(s, seat_args[s], options.bot_logs_dir));
    v1::SeatSpec* seat_spec = spec.add_seats();
    seat_spec->set_name(seat.name);
    seat_spec->set_endpoint(seat.bot.endpoint);
    launched.push_back(std::move(seat));
  }

  // Let launched bots come up first: one that exits at once (a Python bot
  // with a syntax error) fails the command now, naming its seat.
  const absl::Time up_deadline = absl::Now() + absl::Milliseconds(options.connect_timeout_ms);
  for (size_t s = 0; s < launched.size(); ++s) {
    if (absl::Status up = WaitUntilListening(launched[s].bot, up_deadline); !up.ok()) {
      for (SeatLaunch& seat : launched)
        if (seat.bot.process) seat.bot.process->Stop();
      return absl::UnavailableError(
          absl::StrCat("seat ", s, " (", launched[s].name, "): ", up.message()));
    }
  }

  Progress progress(spec.num_hands(), options.quiet);
  absl::StatusOr<v1::MatchFinished> finished;
  if (options.referee.empty()) {
    absl::StatusOr<transport::Transport> transport = ToolTransport();
    if (!transport.ok()) return transport.status();
    GrpcBotConnector connector({}, *transport);
    RefereeOptions referee_options;
    referee_options.connect_timeout = absl::Milliseconds(options.connect_timeout_ms);
    MatchRunner runner(referee_options, &connector, nullptr);
    finished = runner.Run(spec, [&](const v1::MatchEvent& e) {
      if (e.has_hand_finished()) progress.Hand(e.hand_finished());
      if (e.has_fault()) progress.Fault(e.fault());
    });
  } else {
    finished = RunRemote(options.referee, spec, progress);
  }
  progress.End();
  for (SeatLaunch& seat : launched)
    if (seat.bot.process) seat.bot.process->Stop();
  if (!finished.ok()) return finished.status();

  if (!options.record_path.empty()) {
    std::ofstream out(options.record_path);
    out << finished->record_json() << "\n";
    if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", options.record_path));
  }
  json rows = Summarize(*finished);
  if (options.json) {
    json out = {{"variant", options.variant},
                {"hands", finished->hands()},
                {"ended_early", finished->ended_early()},
                {"decisions", finished->decisions()},
                {"duration_s", finished->duration_s()},
                {"totals", json(std::vector<int64_t>(finished->totals().begin(),
                                                     finished->totals().end()))},
                {"bots", rows}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    PrintTable(*finished, rows, options.variant);
    if (!options.record_path.empty()) std::printf("record: %s\n", options.record_path.c_str());
  }
  return absl::OkStatus();
}

}  // namespace tarock
