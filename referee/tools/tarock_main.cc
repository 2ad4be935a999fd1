// `tarock`: the command-line tool of the rules engine.
//
//   tarock variants                      list the variants and their options
//   tarock deal --variant V --seed N     print a hand record with a deal and no actions
//   tarock replay FILE|-                 replay a hand (or match) record, print its result
//   tarock demo [--seed N]               deal and play one hand of every variant at random
//   tarock selfplay --variant V --hands N --seed S
//                                        a whole match between built-in random players
//   tarock match --variant V --hands N --seed S --record FILE NAME=SPEC...
//                                        a match between bots through the referee
//   tarock check-bot SPEC                plays every variant against the reference bots and
//                                        reports the bot's faults and slow answers
//   tarock compare --variant V --candidate SPEC --baseline SPEC [--h0 0] [--h1 5] ...
//                                        a sequential test on duplicate deals: is the candidate
//                                        stronger? exit 0 yes, 1 no, 2 inconclusive, 3 error
//
// Global flags: --plugin=PATH[,PATH...] (variant plugins to load), also read from
// the TAROCK_PLUGINS environment variable (a colon-separated list).
// Errors are one line on standard error and a non-zero exit status.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "referee/net/secure_random.h"
#include "referee/engine/match.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/record.h"
#include "referee/engine/registry.h"
#include "referee/logging/log.h"
#include "referee/tools/check_bot.h"
#include "referee/tools/compare/compare_command.h"
#include "referee/tools/match_command.h"
#include "referee/tools/program_usage.h"

ABSL_FLAG(std::string, variant, "", "variant name (see `tarock variants`)");
ABSL_FLAG(uint64_t, seed, 0,
          "seed of the deals; 0 (default): deal, demo and selfplay use 1, match and compare draw "
          "a secret random seed (no bot can compute the deals; the record and report name it)");
ABSL_FLAG(int, dealer, 0, "the dealer's seat (the first dealer in selfplay)");
ABSL_FLAG(int, hands, 0, "hands in a selfplay match (a multiple of the seats; default 10 per seat)");
ABSL_FLAG(std::vector<std::string>, option, {}, "variant options as NAME=VALUE, comma separated");
ABSL_FLAG(std::vector<std::string>, plugin, {}, "variant plugin libraries to load");
ABSL_FLAG(bool, pretty, false, "indent JSON output");
ABSL_FLAG(std::string, record, "", "match: write the match record (JSON) to this file");
ABSL_FLAG(std::string, referee, "", "match, compare: HOST:PORT of a tarock-referee (compare: a comma-separated list, "
          "matches spread round robin; default: in process)");
ABSL_FLAG(std::string, match_id, "", "match: the match id (default: a fresh one, never from the seed)");
ABSL_FLAG(int64_t, per_decision_ms, 0, "match, compare: per-decision time limit (0: the referee's 10 s)");
ABSL_FLAG(int64_t, bank_ms, 0, "match: time bank per bot for the whole match (0: none)");
ABSL_FLAG(int64_t, grace_ms, 0, "match: grace on every limit (0: the referee's 50 ms)");
ABSL_FLAG(int, max_faults, 0, "match: faults after which a bot is forfeited; compare: faults of the "
          "candidate or the baseline that fail the run, exit 3 (0: never)");
ABSL_FLAG(int, connect_timeout_ms, 10000, "match, compare: how long to wait for the bots to come up");
ABSL_FLAG(bool, quiet, false, "match, compare: no progress on standard error");
ABSL_FLAG(bool, json, false, "match: print the summary as JSON");
ABSL_FLAG(std::string, bot_logs, "",
          "match, compare: write each started bot's standard error to its own file in DIR (created):\n"
          "match: DIR/seat<N>-<NAME>.log; compare: DIR/candidate.log, baseline.log, opponent-<J>.log");
ABSL_FLAG(std::string, candidate, "", "compare: the candidate bot's SPEC");
ABSL_FLAG(std::string, baseline, "", "compare: the baseline bot's SPEC");
// --opponents (SPECs, comma separated) is check-bot's flag (check_bot.cc); compare
// reads it too: fixed opponents (default: candidate against baseline head to head).
ABSL_DECLARE_FLAG(std::vector<std::string>, opponents);
ABSL_FLAG(double, h0, 0, "compare: H0, the candidate is better by at most this per deal");
ABSL_FLAG(double, h1, 5, "compare: H1, the candidate is better by at least this per deal");
ABSL_FLAG(double, alpha, 0.05, "compare: the rate of accepting H1 when H0 holds");
ABSL_FLAG(double, beta, 0.05, "compare: the rate of accepting H0 when H1 holds");
ABSL_FLAG(int64_t, max_deals, 20000, "compare: inconclusive (exit 2) after this many deals (0: no limit)");
ABSL_FLAG(int64_t, min_deals, 20, "compare: no decision before this many deals");
ABSL_FLAG(int, concurrency, 1, "compare: matches played at once");
ABSL_FLAG(std::string, report, "", "compare: write the whole report (JSON) to this file");

namespace tarock {
namespace {

constexpr char kUsage[] =
    "tarock COMMAND [FLAGS]   (tarock help COMMAND: its usage and flags)\n"
    "  variants                    list the variants and their options\n"
    "  deal --variant V --seed N   print a hand record with the deal and no actions\n"
    "  replay [--option K=V] FILE|-\n"
    "                              replay a hand or match record and print the result;\n"
    "                              --option fills in options the record does not name\n"
    "                              (old records: --option house=legacy replays them the old way)\n"
    "  demo [--seed N]             play one hand of every variant with random players\n"
    "  selfplay --variant V [--hands N] [--seed S]\n"
    "                              a whole match between random players: totals per seat\n"
    "  match --variant V [--hands N] [--seed S] [--record FILE] [--referee HOST:PORT] NAME=SPEC...\n"
    "                              a match between bots, one NAME=SPEC per seat in seat order;\n"
    "                              SPEC is an executable (a path, or a program name looked up on\n"
    "                              PATH; started with --listen 127.0.0.1:PORT), py:PATH (a Python\n"
    "                              bot file), stdio:COMMAND (a program that reads JSON lines and\n"
    "                              writes actions) or HOST:PORT of a running bot;\n"
    "                              --bot_logs DIR: each started bot's standard error in DIR/seat<N>-<NAME>.log\n"
    "  check-bot [--variants V,..] [--hands N] [--per_decision_ms MS] SPEC\n"
    "                              plays a few hands of every variant against the reference bots;\n"
    "                              reports faults and slow answers with the state (exit 1 on faults)\n"
    "  compare --variant V --candidate SPEC --baseline SPEC [--opponents SPEC,...]\n"
    "          [--h0 0] [--h1 5] [--alpha 0.05] [--beta 0.05] [--max_deals N] [--seed S]\n"
    "          [--concurrency N] [--referee HOST:PORT,...] [--max_faults N] [--report FILE]\n"
    "                              a sequential test (SPRT) on duplicate deals, candidate minus\n"
    "                              baseline per deal; exit 0 H1 accepted (better by at least h1),\n"
    "                              1 H0 accepted (by at most h0), 2 inconclusive, 3 an error;\n"
    "                              --max_faults: faults of either bot that fail the run (0: never)";

int Fail(absl::string_view message) {
  std::cerr << "tarock: " << message << "\n";
  return 1;
}

// --seed for the commands that replay a fixed deal (deal, demo, selfplay).
uint64_t FixedSeed() {
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  return seed != 0 ? seed : 1;
}

// --seed for commands whose deals bots play (match, compare): a given seed,
// or a secret random one, so that no bot at the table can compute the deals
// (docs/security.md, "Secret deals"). The record and the report name it.
absl::StatusOr<uint64_t> SecretOrGivenSeed() {
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  if (seed != 0) return seed;
  return net::SecureRandomSeed();
}

absl::Status LoadPlugins() {
  std::vector<std::string> paths = absl::GetFlag(FLAGS_plugin);
  if (const char* env = std::getenv("TAROCK_PLUGINS"); env != nullptr && *env) {
    for (absl::string_view p : absl::StrSplit(env, ':', absl::SkipEmpty())) paths.emplace_back(p);
  }
  for (const std::string& p : paths) {
    absl::Status s = Registry::Global().LoadPlugin(p);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<Options> ParseOptions() {
  Options out;
  for (const std::string& kv : absl::GetFlag(FLAGS_option)) {
    std::vector<std::string> parts = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty())
      return absl::InvalidArgumentError(absl::StrCat("--option wants NAME=VALUE, got '", kv, "'"));
    out[parts[0]] = parts[1];
  }
  return out;
}

int Variants() {
  for (const VariantInfo& v : Registry::Global().List()) {
    std::cout << v.name << "  " << v.title << "\n"
              << "    seats " << v.num_seats << ", " << v.hand_size << " cards each, talon "
              << v.talon_size << "; rules: " << v.rules_source;
    if (!v.rules_page.empty()) std::cout << " (" << v.rules_page << ")";
    std::cout << "\n";
    if (!v.contracts.empty()) std::cout << "    contracts: " << absl::StrJoin(v.contracts, " ") << "\n";
    if (!v.bonuses.empty()) std::cout << "    bonuses:   " << absl::StrJoin(v.bonuses, " ") << "\n";
    for (const OptionSpec& o : v.options) {
      std::cout << "    option " << o.name << " = " << o.default_value;
      if (!o.choices.empty()) std::cout << "  {" << absl::StrJoin(o.choices, "|") << "}";
      std::cout << "\n        " << o.help << "\n";
    }
    for (const OptionSet& set : v.option_sets) {  // selected with --option=house=NAME
      std::vector<std::string> values;
      for (const auto& [k, val] : set.values) values.push_back(absl::StrCat(k, "=", val));
      std::cout << "    option set house=" << set.name << "  {" << absl::StrJoin(values, ",") << "}\n"
                << "        " << set.help << "\n";
    }
  }
  return 0;
}

int DealCommand() {
  const std::string variant = absl::GetFlag(FLAGS_variant);
  if (variant.empty()) return Fail("deal needs --variant (see `tarock variants`)");
  absl::StatusOr<Options> options = ParseOptions();
  if (!options.ok()) return Fail(options.status().message());
  absl::StatusOr<HandRecord> r =
      DealRecord(variant, *options, FixedSeed(), absl::GetFlag(FLAGS_dealer));
  if (!r.ok()) return Fail(r.status().message());
  std::cout << HandRecordToJson(*r, absl::GetFlag(FLAGS_pretty) ? 2 : -1) << "\n";
  return 0;
}

int ReplayCommand(const std::string& path) {
  std::string text;
  if (path == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Fail(absl::StrCat("cannot read ", path));
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  absl::StatusOr<std::vector<HandRecord>> records = ParseRecords(text);
  if (!records.ok()) return Fail(records.status().message());
  // --option fills in options a record does not name: a record written before
  // an option existed replays under that option's default unless told, e.g.
  // `--option house=real-play` for the readings older versions played by.
  absl::StatusOr<Options> fill = ParseOptions();
  if (!fill.ok()) return Fail(fill.status().message());
  for (HandRecord& r : *records) {
    Options merged = *fill;
    for (const auto& [k, v] : r.options) merged[k] = v;
    r.options = std::move(merged);
  }
  const int indent = absl::GetFlag(FLAGS_pretty) ? 2 : -1;
  const bool many = records->size() > 1;
  for (size_t i = 0; i < records->size(); ++i) {
    absl::StatusOr<Replay> replay = ReplayRecord((*records)[i]);
    if (!replay.ok())
      return Fail(many ? absl::StrCat("hand ", i, ": ", replay.status().message())
                       : std::string(replay.status().message()));
    std::cout << ReplayReportJson(*replay->game, *replay->state, indent) << "\n";
    const auto& recorded = (*records)[i].scores;
    if (recorded && replay->state->IsTerminal() && *recorded != replay->state->Result().scores)
      return Fail(absl::StrCat("hand ", i, ": replayed scores differ from the recorded scores"));
  }
  return 0;
}

int Demo() {
  const uint64_t seed = FixedSeed();
  std::cout << "Tarock Arena demo: one hand of every variant, random legal play, seed " << seed << "\n";
  int index = 0;
  for (const VariantInfo& v : Registry::Global().List()) {
    absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(v.name);
    if (!game.ok()) return Fail(game.status().message());
    Rng rng(HandSeed(seed, 1000 + index++));
    // Deal until a hand is playable (a void deal is redealt, as at the table).
    std::unique_ptr<State> state;
    uint64_t hand_seed = 0;
    for (int attempt = 0; attempt < 100; ++attempt) {
      hand_seed = HandSeed(seed, attempt);
      absl::StatusOr<std::unique_ptr<State>> s = (*game)->NewHand((*game)->DealCards(hand_seed, 0), HandSetup{});
      if (!s.ok()) return Fail(s.status().message());
      if (!(*s)->IsTerminal()) {
        state = std::move(*s);
        break;
      }
    }
    // Random players, but shy: where passing is legal they pass three times in
    // four (else uniform random bidding nearly always ends in a Valat bid).
    int n = 0;
    for (; !state->IsTerminal(); ++n) {
      ActionList legal;
      state->LegalActions(&legal);
      Action a = legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
      if (legal.Contains(kPassAction) && rng.Below(4) != 0) a = kPassAction;
      state->Apply(a);
    }
    HandRecord record = RecordOf(**game, *state, hand_seed);
    std::cout << "\n== " << v.name << " (" << v.title << "): " << n << " decisions\n";
    const HandResult r = state->Result();
    std::cout << "summary: ";
    if (r.redeal) {
      std::cout << (r.counts_as_hand ? "thrown in (all passed): every seat scores 0, the deal passes on"
                                     : "void deal: dealt again by the same dealer");
    } else if (r.contract == "klop") {
      std::cout << "Klop, everyone for himself";
    } else if (r.declarer < 0 || r.card_thirds.empty()) {
      std::cout << r.contract;
    } else {
      std::cout << r.contract << " by seat " << r.declarer;
      if (r.partner >= 0) std::cout << " with seat " << r.partner;
      std::cout << ", " << (r.declarer_won ? "won" : "lost") << " with "
                << RoundThirds(r.card_thirds[0]) << " card points";
    }
    std::cout << "; scores " << absl::StrJoin(r.scores, " ") << "; radli "
              << absl::StrJoin(r.radli, " ") << "\n";
    std::cout << "record: " << HandRecordToJson(record) << "\n";
    std::cout << "result: " << ReplayReportJson(**game, *state) << "\n";
  }
  return 0;
}

int Selfplay() {
  const std::string variant = absl::GetFlag(FLAGS_variant);
  if (variant.empty()) return Fail("selfplay needs --variant (see `tarock variants`)");
  absl::StatusOr<Options> options = ParseOptions();
  if (!options.ok()) return Fail(options.status().message());
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(variant, *options);
  if (!game.ok()) return Fail(game.status().message());
  const int n = (*game)->num_seats();
  MatchOptions mo;
  mo.num_hands = absl::GetFlag(FLAGS_hands) > 0 ? absl::GetFlag(FLAGS_hands) : 10 * n;
  mo.seed = FixedSeed();
  mo.first_dealer = absl::GetFlag(FLAGS_dealer);
  absl::StatusOr<MatchProgress> match = MatchProgress::Start(**game, mo);
  if (!match.ok()) return Fail(match.status().message());
  Rng rng(HandSeed(mo.seed, 0xB0B));
  std::map<std::string, int> contracts;
  while (!match->Finished()) {
    MatchProgress::NextHand h = match->Next();
    absl::StatusOr<std::unique_ptr<State>> state = (*game)->NewHand(h.deal, h.setup);
    if (!state.ok()) return Fail(state.status().message());
    while (!(*state)->IsTerminal()) {  // shy random players, as in the demo
      ActionList legal;
      (*state)->LegalActions(&legal);
      Action a = legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
      if (legal.Contains(kPassAction) && rng.Below(4) != 0) a = kPassAction;
      (*state)->Apply(a);
    }
    const HandResult r = (*state)->Result();
    if (!r.redeal) ++contracts[r.contract];
    else if (r.counts_as_hand) ++contracts["(thrown in)"];
    if (absl::Status s = match->Record(r); !s.ok()) return Fail(s.message());
  }
  std::cout << variant << ": " << mo.num_hands << " hands, seed " << mo.seed << ", "
            << match->redeals() << " void deals";
  if (!match->ended_early().empty()) std::cout << ", ended early: " << match->ended_early();
  std::cout << "\ncontracts:";
  for (const auto& [c, k] : contracts) std::cout << " " << c << "=" << k;
  std::cout << "\nseat  total  radli left\n";
  const std::vector<int64_t> totals = match->Totals();
  for (int s = 0; s < n; ++s)
    std::cout << s << "  " << totals[s] << "  " << match->radli()[s] << "\n";
  if ((*game)->info().starting_account != 0) {  // 004: chip accounts, borrowing from the bank
    std::cout << "seat  chips (from " << (*game)->info().starting_account << ")  borrowed\n";
    const std::vector<int64_t> accounts = match->Accounts(), borrowed = match->Borrowed();
    for (int s = 0; s < n; ++s) std::cout << s << "  " << accounts[s] << "  " << borrowed[s] << "\n";
  }
  return 0;
}

int MatchCommand(const std::vector<std::string>& seats) {
  absl::StatusOr<Options> options = ParseOptions();
  if (!options.ok()) return Fail(options.status().message());
  MatchCommandOptions o;
  o.variant = absl::GetFlag(FLAGS_variant);
  o.options = *options;
  o.hands = absl::GetFlag(FLAGS_hands);
  absl::StatusOr<uint64_t> seed = SecretOrGivenSeed();
  if (!seed.ok()) return Fail(seed.status().message());
  o.seed = *seed;
  o.record_path = absl::GetFlag(FLAGS_record);
  o.referee = absl::GetFlag(FLAGS_referee);
  o.match_id = absl::GetFlag(FLAGS_match_id);
  o.per_decision_ms = absl::GetFlag(FLAGS_per_decision_ms);
  o.bank_ms = absl::GetFlag(FLAGS_bank_ms);
  o.grace_ms = absl::GetFlag(FLAGS_grace_ms);
  o.max_faults = absl::GetFlag(FLAGS_max_faults);
  o.connect_timeout_ms = absl::GetFlag(FLAGS_connect_timeout_ms);
  o.quiet = absl::GetFlag(FLAGS_quiet);
  o.json = absl::GetFlag(FLAGS_json);
  o.bot_logs_dir = absl::GetFlag(FLAGS_bot_logs);
  absl::Status s = RunMatchCommand(o, seats);
  if (!s.ok()) return Fail(s.message());
  return 0;
}

int CompareCommand(const std::vector<std::string>& extra) {
  if (!extra.empty()) return Fail(absl::StrCat("compare takes no positional arguments, got '", extra[0], "'"));
  absl::StatusOr<Options> options = ParseOptions();
  if (!options.ok()) {
    std::cerr << "tarock compare: " << options.status().message() << "\n";
    return kCompareError;
  }
  CompareOptions o;
  o.variant = absl::GetFlag(FLAGS_variant);
  o.options = *options;
  o.candidate = absl::GetFlag(FLAGS_candidate);
  o.baseline = absl::GetFlag(FLAGS_baseline);
  o.opponents = absl::GetFlag(FLAGS_opponents);
  o.sprt.h0 = absl::GetFlag(FLAGS_h0);
  o.sprt.h1 = absl::GetFlag(FLAGS_h1);
  o.sprt.alpha = absl::GetFlag(FLAGS_alpha);
  o.sprt.beta = absl::GetFlag(FLAGS_beta);
  o.sprt.max_deals = absl::GetFlag(FLAGS_max_deals);
  o.sprt.min_deals = absl::GetFlag(FLAGS_min_deals);
  absl::StatusOr<uint64_t> seed = SecretOrGivenSeed();
  if (!seed.ok()) return Fail(seed.status().message());
  o.seed = *seed;
  o.concurrency = absl::GetFlag(FLAGS_concurrency);
  for (absl::string_view r : absl::StrSplit(absl::GetFlag(FLAGS_referee), ',', absl::SkipEmpty()))
    o.referees.emplace_back(r);
  o.report_path = absl::GetFlag(FLAGS_report);
  o.per_decision_ms = absl::GetFlag(FLAGS_per_decision_ms);
  o.bank_ms = absl::GetFlag(FLAGS_bank_ms);
  o.grace_ms = absl::GetFlag(FLAGS_grace_ms);
  o.max_faults = absl::GetFlag(FLAGS_max_faults);
  o.connect_timeout_ms = absl::GetFlag(FLAGS_connect_timeout_ms);
  o.bot_logs_dir = absl::GetFlag(FLAGS_bot_logs);
  o.quiet = absl::GetFlag(FLAGS_quiet);
  return RunCompareCommand(o);
}

}  // namespace
// `tarock help COMMAND`: the command's usage lines from kUsage and the flags it
// reads, with their help and defaults.
int HelpCommand(const std::string& command) {
  static const std::map<std::string, std::vector<std::string>> kFlags = {
      {"variants", {}},
      {"deal", {"variant", "seed", "dealer", "option", "pretty"}},
      {"replay", {"option", "pretty"}},
      {"demo", {"seed"}},
      {"selfplay", {"variant", "hands", "seed", "dealer", "option"}},
      {"match", {"variant", "hands", "seed", "option", "record", "referee", "match_id",
                 "per_decision_ms", "bank_ms", "grace_ms", "max_faults", "connect_timeout_ms",
                 "quiet", "json"}},
      {"check-bot", {"variants", "opponents", "hands", "per_decision_ms", "slow_ms", "show_faults",
                     "bot_log"}},
      {"compare", {"variant", "option", "candidate", "baseline", "opponents", "h0", "h1", "alpha",
                   "beta", "max_deals", "min_deals", "seed", "concurrency", "referee",
                   "max_faults", "report", "per_decision_ms", "bank_ms", "grace_ms",
                   "connect_timeout_ms", "quiet"}},
      {"help", {}},
  };
  absl::Status s = tarock::PrintCommandHelp(kUsage, command, kFlags, {"plugin"});
  return s.ok() ? 0 : Fail(s.message());
}

}  // namespace tarock

int main(int argc, char** argv) {
  tarock::SetProgramUsage(tarock::kUsage);
  // The tool's own results and progress are its output; the event log
  // (docs/logging.md) shows only errors unless --log_level asks for more.
  absl::SetFlag(&FLAGS_log_level, "error");
  std::vector<char*> args = tarock::ParseCommandLine(argc, argv);
  if (absl::Status s = tarock::logging::ApplyLogFlags(); !s.ok()) return tarock::Fail(s.message());
  if (absl::Status s = tarock::LoadPlugins(); !s.ok()) return tarock::Fail(s.message());
  if (args.size() < 2) {
    std::cerr << tarock::kUsage << "\n";
    return 2;
  }
  const std::string command = args[1];
  if (command == "variants") return tarock::Variants();
  if (command == "deal") return tarock::DealCommand();
  if (command == "demo") return tarock::Demo();
  if (command == "selfplay") return tarock::Selfplay();
  if (command == "match") return tarock::MatchCommand(std::vector<std::string>(args.begin() + 2, args.end()));
  if (command == "compare")
    return tarock::CompareCommand(std::vector<std::string>(args.begin() + 2, args.end()));
  if (command == "check-bot")
    return tarock::RunCheckBotCommand(std::vector<std::string>(args.begin() + 2, args.end()));
  if (command == "help") {
    if (args.size() == 2) {
      std::cout << tarock::kUsage << "\n(tarock help COMMAND: a command's usage and flags)\n";
      return 0;
    }
    return tarock::HelpCommand(args[2]);
  }
  if (command == "replay") {
    if (args.size() != 3) return tarock::Fail("replay wants one FILE (or - for standard input)");
    return tarock::ReplayCommand(args[2]);
  }
  return tarock::Fail(absl::StrCat("unknown command '", command, "' (want variants, deal, replay, demo, selfplay, match, check-bot, compare or help)"));
}
