#include "referee/tools/check_bot.h"

#include <google/protobuf/util/json_util.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "referee/core/match_runner.h"
#include "referee/engine/record.h"
#include "referee/engine/registry.h"
#include "referee/protocol/convert.h"
#include "referee/server/grpc_bot_connection.h"
#include "referee/tools/bot_launch.h"
#include "referee/tools/remote_referee.h"

// Shared with `tarock match` (defined in tarock_main.cc).
ABSL_DECLARE_FLAG(int, hands);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(int64_t, per_decision_ms);
ABSL_DECLARE_FLAG(int64_t, grace_ms);
ABSL_DECLARE_FLAG(int, max_faults);
ABSL_DECLARE_FLAG(int, connect_timeout_ms);
ABSL_DECLARE_FLAG(bool, json);
ABSL_DECLARE_FLAG(std::vector<std::string>, option);

ABSL_FLAG(std::vector<std::string>, variants, {},
          "check-bot: the variants to play (default: every variant)");
ABSL_FLAG(std::vector<std::string>, opponents, {},
          "opponent bot specs. check-bot: used in turn for seats 1.. (default: the heuristic "
          "and random reference bots beside tarock); compare: the fixed opponents the candidate "
          "and then the baseline meet in each seat (default: head to head)");
ABSL_FLAG(int64_t, slow_ms, 0,
          "check-bot: report answers slower than this (0: half the per-decision limit)");
ABSL_FLAG(int, show_faults, 3, "check-bot: faults shown in full per variant (the rest are counted)");
ABSL_FLAG(std::string, bot_log, "",
          "check-bot: append the bot's standard error to this file (default: a temporary log)");

namespace tarock {
namespace {

using json = nlohmann::json;

constexpr int64_t kDefaultLimitMs = 2000;  // check-bot's per-decision limit
constexpr int kDefaultMaxFaults = 5;       // then the bot is forfeited for the variant
constexpr int kBotSeat = 0;

std::string RequestJson(const v1::DecisionRequest& request) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(request, &out, options);
  return out;
}

std::string ReadTail(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> tail;
  std::string line;
  while (std::getline(in, line)) {
    tail.push_back(line);
    if (static_cast<int>(tail.size()) > lines) tail.pop_front();
  }
  return absl::StrJoin(tail, "\n");
}

// The state of a hand just before its action `action_index`, as the bot's seat
// saw it, in every form a bot author may want.
json Snapshot(const HandRecord& hand, int hand_index, int action_index, int64_t limit_ms) {
  HandRecord prefix = hand;
  prefix.scores.reset();
  if (action_index < static_cast<int>(prefix.actions.size())) prefix.actions.resize(action_index);
  json out;
  out["record"] = HandRecordToJson(prefix);
  absl::StatusOr<Replay> replay = ReplayRecord(prefix);
  if (!replay.ok()) {
    out["error"] = std::string(replay.status().message());
    return out;
  }
  Observation obs = replay->state->Observe(kBotSeat);
  // new_events depend on the bot's earlier turns; left empty here.
  v1::DecisionRequest request =
      MakeDecisionRequest(obs, 0, hand_index, static_cast<int>(obs.history.size()));
  request.set_time_left_ms(limit_ms);
  out["request"] = RequestJson(request);
  out["phase"] = obs.phase;
  std::vector<std::string> cards;
  for (Card c : obs.hand) cards.push_back(CardName(c));
  out["hand"] = cards;
  cards.clear();
  for (Card c : obs.trick) cards.push_back(CardName(c));
  out["trick"] = cards;
  out["legal"] = obs.legal;
  json history = json::array();
  const size_t from = obs.history.size() > 8 ? obs.history.size() - 8 : 0;
  for (size_t i = from; i < obs.history.size(); ++i)
    history.push_back(absl::StrCat(obs.history[i].first, ":", obs.history[i].second));
  out["recent_history"] = history;
  out["contract"] = obs.contract;
  return out;
}

struct Opponent {
  std::string name;
  LaunchedBot bot;
};

struct Settings {
  std::string spec;
  int hands = 0;  // 0: two rounds of the dealer
  uint64_t seed = 1;
  int64_t limit_ms = kDefaultLimitMs;
  int64_t grace_ms = 0;
  int64_t slow_ms = 0;
  int max_faults = kDefaultMaxFaults;
  int show_faults = 3;
  int connect_timeout_ms = 10000;
  Options options;
  std::string log_path;
};

// One variant: start the bot, play, read the record.
json CheckVariant(const Settings& settings, const std::string& variant,
                  std::vector<Opponent>& opponents) {
  json report = {{"variant", variant}, {"ok", false}};
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(variant);
  if (!info.ok()) {
    report["error"] = std::string(info.status().message());
    return report;
  }
  const int n = info->num_seats;
  int hands = settings.hands > 0 ? settings.hands : 2 * n;
  hands = (hands + n - 1) / n * n;

  LaunchOptions launch;
  launch.log_path = settings.log_path;
  launch.name = "bot";
  absl::StatusOr<LaunchedBot> bot = LaunchBot(settings.spec, launch);
  if (!bot.ok()) {
    report["error"] = std::string(bot.status().message());
    return report;
  }
  // Only a bot we started writes to the log.
  const bool logged = bot->process != nullptr && !settings.log_path.empty();
  if (logged)
    std::ofstream(settings.log_path, std::ios::app) << "---- tarock check-bot: " << variant << "\n";
  const auto log_tail = [&] { return logged ? ReadTail(settings.log_path, 15) : std::string(); };
  if (absl::Status up = WaitUntilListening(
          *bot, absl::Now() + absl::Milliseconds(settings.connect_timeout_ms));
      !up.ok()) {
    if (bot->process) bot->process->Stop();
    report["error"] = std::string(up.message());
    report["log_tail"] = log_tail();
    return report;
  }

  v1::MatchSpec spec;
  spec.set_match_id(absl::StrCat("check-", variant));
  spec.set_variant(variant);
  for (const auto& [k, v] : settings.options) (*spec.mutable_options())[k] = v;
  spec.set_num_hands(hands);
  spec.set_seed(settings.seed);
  spec.mutable_time_control()->set_per_decision_ms(settings.limit_ms);
  spec.mutable_time_control()->set_grace_ms(settings.grace_ms);
  spec.mutable_fault_policy()->set_max_faults(settings.max_faults);
  v1::SeatSpec* me = spec.add_seats();
  me->set_name("bot");
  me->set_endpoint(bot->endpoint);
  std::vector<std::string> names = {"bot"};
  for (int s = 1; s < n; ++s) {
    const Opponent& o = opponents[(s - 1) % opponents.size()];
    v1::SeatSpec* seat = spec.add_seats();
    seat->set_name(o.name);
    seat->set_endpoint(o.bot.endpoint);
    names.push_back(o.name);
  }
  report["seats"] = names;

  absl::StatusOr<transport::Transport> transport = ToolTransport();
  if (!transport.ok()) {
    report["error"] = std::string(transport.status().message());
    return report;
  }
  GrpcBotConnector connector({}, *transport);
  RefereeOptions referee_options;
  referee_options.connect_timeout = absl::Milliseconds(settings.connect_timeout_ms);
  MatchRunner runner(referee_options, &connector, nullptr);
  absl::StatusOr<v1::MatchFinished> finished = runner.Run(spec, [](const v1::MatchEvent&) {});
  if (bot->process) bot->process->Stop();
  if (!finished.ok()) {
    report["error"] = std::string(finished.status().message());
    report["log_tail"] = log_tail();
    return report;
  }

  const v1::SeatSummary& summary = finished->seats(kBotSeat);
  report["hands"] = finished->hands();
  report["decisions"] = summary.decisions();
  report["mean_ms"] = summary.mean_decision_ms();
  report["max_ms"] = summary.max_decision_ms();
  report["forfeited"] = summary.forfeited();
  report["hello_name"] = summary.hello_name();
  report["total"] = summary.total();
  const int64_t slow_ms = settings.slow_ms > 0 ? settings.slow_ms
                                               : std::max<int64_t>(1, settings.limit_ms / 2);
  report["slow_ms"] = slow_ms;

  json record = json::parse(finished->record_json());
  json faults = json::array(), slow = json::array();
  std::map<std::string, int> counts;
  int shown = 0;
  for (const json& deal : record["deals"]) {
    absl::StatusOr<HandRecord> hand = ParseHandRecord(deal.dump());
    if (!hand.ok()) continue;
    const int hand_index = deal.value("hand_index", 0);
    for (const json& f : deal.value("faults", json::array())) {
      if (f["seat"].get<int>() != kBotSeat) continue;
      const std::string kind = f["kind"].get<std::string>();
      ++counts[kind];
      json entry = {{"kind", kind},
                    {"hand_index", f["hand_index"]},
                    {"action_index", f["action_index"]},
                    {"detail", f["detail"]},
                    {"fallback_action", f["fallback_action"]}};
      if (shown++ < settings.show_faults)
        entry["state"] = Snapshot(*hand, hand_index, f["action_index"].get<int>(), settings.limit_ms);
      faults.push_back(entry);
    }
    // Which decisions were the bot's: replay the hand and look at who acted.
    absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(hand->variant, hand->options);
    if (!game.ok()) continue;
    absl::StatusOr<std::unique_ptr<State>> state = (*game)->NewHand(hand->deal, hand->setup);
    if (!state.ok()) continue;
    const json& ms = deal.value("decision_ms", json::array());
    for (size_t i = 0; i < hand->actions.size() && !(*state)->IsTerminal(); ++i) {
      const bool mine = (*state)->CurrentSeat() == kBotSeat;
      if (mine && i < ms.size() && ms[i].get<double>() > slow_ms && slow.size() < 20) {
        json entry = {{"hand_index", hand_index},
                      {"action_index", i},
                      {"ms", ms[i].get<double>()},
                      {"action", hand->actions[i]}};
        if (slow.size() < static_cast<size_t>(settings.show_faults))
          entry["state"] = Snapshot(*hand, hand_index, static_cast<int>(i), settings.limit_ms);
        slow.push_back(entry);
      }
      absl::StatusOr<Action> a = (*game)->ParseAction(hand->actions[i]);
      if (!a.ok()) break;
      (*state)->Apply(*a);
    }
  }
  report["faults"] = faults;
  report["fault_counts"] = counts;
  report["slow"] = slow;
  report["ok"] = faults.empty();
  if (!faults.empty()) report["log_tail"] = log_tail();
  return report;
}

void PrintState(const json& state, const std::string& indent) {
  if (state.contains("error")) {
    std::printf("%sstate: (cannot replay: %s)\n", indent.c_str(),
                state["error"].get<std::string>().c_str());
    return;
  }
  auto join = [](const json& a) {
    std::vector<std::string> v = a.get<std::vector<std::string>>();
    return v.empty() ? std::string("-") : absl::StrJoin(v, " ");
  };
  std::printf("%sphase %s%s; your hand: %s\n", indent.c_str(),
              state["phase"].get<std::string>().c_str(),
              state["contract"].get<std::string>().empty()
                  ? ""
                  : absl::StrCat(" (contract ", state["contract"].get<std::string>(), ")").c_str(),
              join(state["hand"]).c_str());
  std::printf("%strick: %s; last events (seat:action): %s\n", indent.c_str(),
              join(state["trick"]).c_str(), join(state["recent_history"]).c_str());
  std::vector<std::string> legal = state["legal"].get<std::vector<std::string>>();
  std::printf("%slegal: %s\n", indent.c_str(), absl::StrJoin(legal, " | ").c_str());
  std::printf("%srequest (what your bot received, as stdio bots see it; new_events left out):\n%s  %s\n",
              indent.c_str(), indent.c_str(), state["request"].get<std::string>().c_str());
  std::printf("%shand record up to here (pipe it into `tarock replay -`):\n%s  %s\n",
              indent.c_str(), indent.c_str(), state["record"].get<std::string>().c_str());
}

void PrintReport(const json& r) {
  const std::string variant = r["variant"].get<std::string>();
  if (r.contains("error")) {
    std::printf("\n%s: ERROR %s\n", variant.c_str(), r["error"].get<std::string>().c_str());
  } else {
    std::printf("\n%s: %s — %d hands, %d decisions by your bot, %zu faults%s; mean %.2f ms, "
                "slowest %.2f ms; seats: %s\n",
                variant.c_str(), r["ok"].get<bool>() ? "OK" : "FAULTS", r["hands"].get<int>(),
                r["decisions"].get<int>(), r["faults"].size(),
                r["forfeited"].get<bool>() ? " (forfeited: the referee stopped asking it)" : "",
                r["mean_ms"].get<double>(), r["max_ms"].get<double>(),
                absl::StrJoin(r["seats"].get<std::vector<std::string>>(), ", ").c_str());
    if (r["hello_name"].get<std::string>().empty())
      std::printf("  note: the bot sent no Hello (optional, but it names the bot in records)\n");
    int shown = 0;
    for (const json& f : r["faults"]) {
      if (!f.contains("state")) continue;
      ++shown;
      std::printf("  FAULT %s in hand %d at action %d: %s\n", f["kind"].get<std::string>().c_str(),
                  f["hand_index"].get<int>(), f["action_index"].get<int>(),
                  f["detail"].get<std::string>().c_str());
      std::printf("    the referee played instead: %s\n",
                  f["fallback_action"].get<std::string>().c_str());
      PrintState(f["state"], "    ");
    }
    if (static_cast<int>(r["faults"].size()) > shown) {
      std::vector<std::string> parts;
      for (const auto& [k, v] : r["fault_counts"].items())
        parts.push_back(absl::StrCat(k, " ", v.get<int>()));
      std::printf("  ... %zu faults in all: %s\n", r["faults"].size(),
                  absl::StrJoin(parts, ", ").c_str());
    }
    for (const json& s : r["slow"]) {
      std::printf("  SLOW %.1f ms (over %lld ms) in hand %d at action %d, answered '%s'\n",
                  s["ms"].get<double>(), static_cast<long long>(r["slow_ms"].get<int64_t>()),
                  s["hand_index"].get<int>(), s["action_index"].get<int>(),
                  s["action"].get<std::string>().c_str());
      if (s.contains("state")) PrintState(s["state"], "    ");
    }
  }
  if (r.contains("log_tail") && !r["log_tail"].get<std::string>().empty()) {
    std::printf("  the bot's standard error (last lines):\n");
    for (absl::string_view line : absl::StrSplit(r["log_tail"].get<std::string>(), '\n'))
      std::printf("    | %s\n", std::string(line).c_str());
  }
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "tarock: check-bot: %s\n", message.c_str());
  return 2;
}

void OnInterrupt(int sig) {
  KillAllChildren();
  _exit(128 + sig);
}

}  // namespace

int RunCheckBotCommand(const std::vector<std::string>& args) {
  if (args.size() != 1)
    return Fail("wants one bot: HOST:PORT, an executable (a path or a program on PATH), py:PATH or "
                "stdio:COMMAND");
  Settings settings;
  settings.spec = args[0];
  settings.hands = absl::GetFlag(FLAGS_hands);
  settings.seed = absl::GetFlag(FLAGS_seed);
  if (absl::GetFlag(FLAGS_per_decision_ms) > 0)
    settings.limit_ms = absl::GetFlag(FLAGS_per_decision_ms);
  settings.grace_ms = absl::GetFlag(FLAGS_grace_ms);
  settings.slow_ms = absl::GetFlag(FLAGS_slow_ms);
  if (absl::GetFlag(FLAGS_max_faults) > 0) settings.max_faults = absl::GetFlag(FLAGS_max_faults);
  settings.show_faults = std::max(0, absl::GetFlag(FLAGS_show_faults));
  settings.connect_timeout_ms = absl::GetFlag(FLAGS_connect_timeout_ms);
  for (const std::string& kv : absl::GetFlag(FLAGS_option)) {
    std::vector<std::string> parts = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty())
      return Fail(absl::StrCat("--option wants NAME=VALUE, got '", kv, "'"));
    settings.options[parts[0]] = parts[1];
  }
  const bool as_json = absl::GetFlag(FLAGS_json);
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);

  std::vector<std::string> variants = absl::GetFlag(FLAGS_variants);
  if (variants.empty())
    for (const VariantInfo& v : Registry::Global().List()) variants.push_back(v.name);
  for (const std::string& v : variants)
    if (absl::Status s = Registry::Global().Info(v).status(); !s.ok()) return Fail(std::string(s.message()));

  // A scratch directory for the logs, removed at the end.
  char tmpl[] = "/tmp/tarock-check-bot-XXXXXX";
  const char* tmp = mkdtemp(tmpl);
  if (tmp == nullptr) return Fail("cannot create a temporary directory");
  const std::string logdir = tmp;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{logdir};
  settings.log_path = absl::GetFlag(FLAGS_bot_log);
  if (settings.log_path.empty()) settings.log_path = logdir + "/bot.log";

  // The opponents: started once, each serves all of its seats in every variant.
  std::vector<std::string> opponent_specs = absl::GetFlag(FLAGS_opponents);
  if (opponent_specs.empty()) {
    for (const char* name : {"tarock-bot-heuristic", "tarock-bot-random"}) {
      std::string path = ToolDirectory() + "/" + name;
      if (access(path.c_str(), X_OK) == 0) opponent_specs.push_back(path);
    }
    if (opponent_specs.empty())
      return Fail(absl::StrCat("no reference bots beside tarock in ", ToolDirectory(),
                               " (build tarock-bot-random, or give --opponents)"));
  }
  std::vector<Opponent> opponents;
  for (size_t i = 0; i < opponent_specs.size(); ++i) {
    LaunchOptions launch;
    launch.log_path = absl::StrCat(logdir, "/opponent", i, ".log");
    absl::StatusOr<LaunchedBot> bot = LaunchBot(opponent_specs[i], launch);
    if (!bot.ok()) return Fail(absl::StrCat("opponent ", opponent_specs[i], ": ", bot.status().message()));
    std::string name = opponent_specs[i].substr(opponent_specs[i].rfind('/') + 1);
    if (name.rfind("tarock-bot-", 0) == 0) name = name.substr(11);
    opponents.push_back({name, std::move(*bot)});
  }
  const absl::Time up = absl::Now() + absl::Milliseconds(settings.connect_timeout_ms);
  for (Opponent& o : opponents)
    if (absl::Status s = WaitUntilListening(o.bot, up); !s.ok())
      return Fail(absl::StrCat("opponent ", std::string(s.message())));

  std::vector<std::string> opponent_names;
  for (const Opponent& o : opponents) opponent_names.push_back(o.name);
  if (!as_json) {
    std::printf("tarock check-bot: %s in seat 0 against %s; %zu variant(s), seed %llu, "
                "%lld ms per decision\n",
                settings.spec.c_str(), absl::StrJoin(opponent_names, ", ").c_str(),
                variants.size(), static_cast<unsigned long long>(settings.seed),
                static_cast<long long>(settings.limit_ms));
    std::fflush(stdout);
  }

  json reports = json::array();
  int faults = 0, errors = 0, slow = 0, decisions = 0;
  std::map<std::string, int> counts;
  std::vector<std::string> failing;
  for (const std::string& v : variants) {
    json r = CheckVariant(settings, v, opponents);
    if (r.contains("error")) {
      ++errors;
      failing.push_back(v);
    } else {
      faults += r["faults"].size();
      slow += r["slow"].size();
      decisions += r["decisions"].get<int>();
      for (const auto& [k, c] : r["fault_counts"].items()) counts[k] += c.get<int>();
      if (!r["faults"].empty()) failing.push_back(v);
    }
    if (!as_json) {
      PrintReport(r);
      std::fflush(stdout);
    }
    reports.push_back(std::move(r));
  }
  for (Opponent& o : opponents)
    if (o.bot.process) o.bot.process->Stop();

  const bool pass = faults == 0 && errors == 0;
  std::string verdict;
  if (pass) {
    verdict = absl::StrCat("PASS: no faults in ", decisions, " decisions over ", variants.size(),
                           " variant(s)");
  } else {
    std::vector<std::string> parts;
    for (const auto& [k, c] : counts) parts.push_back(absl::StrCat(k, " ", c));
    if (errors > 0) parts.push_back(absl::StrCat(errors, " variant(s) could not be played"));
    verdict = absl::StrCat("FAIL: ", faults, " fault(s)", parts.empty() ? "" : " (",
                           absl::StrJoin(parts, ", "), parts.empty() ? "" : ")", " in ",
                           absl::StrJoin(failing, ", "));
  }
  if (slow > 0)
    absl::StrAppend(&verdict, "; ", slow, " slow answer(s) (a warning: the arena's limit may be lower)");
  if (as_json) {
    json out = {{"spec", settings.spec},     {"pass", pass},      {"verdict", verdict},
                {"faults", faults},          {"fault_counts", counts}, {"slow", slow},
                {"decisions", decisions},    {"opponents", opponent_names},
                {"variants", reports}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("\nverdict: %s\n", verdict.c_str());
  }
  return pass ? 0 : 1;
}

}  // namespace tarock
