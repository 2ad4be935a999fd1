// `tarock-arena-cli`: the command line over the Arena gRPC service.
//
//   tarock-arena-cli [--arena=HOST:PORT] COMMAND [ARGS] [FLAGS]
//     bots add NAME (--endpoint=HOST:PORT | --dial_in) --variants=V,... --owner=O   (prints the token)
//     bots update NAME --token=T [--endpoint=..] [--variants=..]
//     bots retire NAME --token=T
//     bots list [--all]            bots show NAME
//     ladder start --variant=V [--format=match|duplicate] [--rating_model=place|margin]
//                  [--hands=N] [--max_matches=N] [--self_play]
//                  [--separate_owners] [--per_decision_ms=MS] [--max_faults=N]
//     ladder stop --variant=V      ladder list
//     tournament run --variant=V --bots=A,B,... [--format=round-robin|gauntlet]
//                  [--challenger=X] [--deals=N] [--no_duplicate] [--hands=N] [--seed=S] [--wait]
//     tournament show ID
//     leaderboard --variant=V [--rating_model=place|margin] [--watch=SECONDS] [--compare=A,B]
//     matches [--variant=V] [--bot=B] [--status=S] [--limit=N]     match show ID [--record]
//     export [--variant=V]         every finished match record, one JSON line each
//     status
//     audit [--target=bot:NAME] [--limit=N] [--before=ID]   the audit log (admin)
//     test run|list|show|stop ...  (arena/cli/test_command.h)
// --json prints the response in protobuf's JSON mapping instead of a table.
// Errors are one line on standard error with a non-zero exit status.

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "arena/cli/cli_output.h"
#include "arena/cli/events_command.h"
#include "arena/bothost/package.h"
#include "arena/cli/test_command.h"
#include "arena/cli/leaderboard_print.h"
#include "arena/scheduler/bot_rules.h"
#include "referee/server/grpc_status.h"
#include "referee/tools/program_usage.h"
#include "tarock/transport/transport.h"
#include "tarock/v1/arena.grpc.pb.h"
#include "tarock/v1/hosting.grpc.pb.h"

ABSL_FLAG(std::string, arena, "127.0.0.1:7700", "HOST:PORT of the arena");
ABSL_FLAG(std::string, endpoint, "", "bot endpoint HOST:PORT");
ABSL_FLAG(bool, dial_in, false, "bots add: the bot dials in to the arena (no endpoint; docs/dial-in.md)");
ABSL_FLAG(std::vector<std::string>, variants, {}, "variants a bot plays");
ABSL_FLAG(std::string, owner, "", "bot owner");
ABSL_FLAG(std::string, token, "", "the bot's secret token");
ABSL_FLAG(std::string, admin_token, "",
          "the arena's admin token, if it has one (default $TAROCK_ADMIN_TOKEN)");
ABSL_FLAG(std::string, variant, "", "variant");
ABSL_FLAG(int, hands, 0, "hands per match (0: 2 per seat)");
ABSL_FLAG(int, max_matches, 0, "ladder: stop after this many matches (0: until stopped)");
ABSL_FLAG(bool, self_play, false, "ladder: a bot may hold two seats");
ABSL_FLAG(bool, separate_owners, false, "ladder: keep bots of one owner apart");
ABSL_FLAG(int64_t, per_decision_ms, 0, "per-decision time limit (0: the referee's default)");
ABSL_FLAG(int, max_faults, 0, "faults before a bot is forfeited (0: never); test: faults of the candidate or the baseline that end it with an error");
ABSL_FLAG(std::vector<std::string>, bots, {}, "tournament field");
ABSL_FLAG(std::string, format, "",
          "tournament: round-robin (default) or gauntlet; ladder: match or duplicate (default: "
          "duplicate sets rated on margins, docs/ratings.md)");
ABSL_FLAG(std::string, rating_model, "",
          "ladder: place or margin (default: margin for a duplicate ladder, else place); "
          "leaderboard: which ratings to show (default: those of the variant's newest ladder)");
ABSL_FLAG(std::string, challenger, "", "gauntlet challenger");
ABSL_FLAG(int, deals, 0, "tournament deals per group (0: 4)");
ABSL_FLAG(bool, no_duplicate, false, "tournament: do not replay deals with rotated seats");
ABSL_FLAG(uint64_t, seed, 0,
          "tournament, test: the seed of the deals; 0 (default): secret random deals, "
          "published with each match once every table has played it");
ABSL_FLAG(std::string, name, "", "tournament name; events create: the event's name; events join: your name");
ABSL_FLAG(bool, wait, false, "tournament run, test run: wait until it finishes and print the result");
ABSL_FLAG(bool, record, false, "match show: print the record");
ABSL_FLAG(std::string, bot, "", "matches: only this bot's; match stderr: the bot whose standard error");
ABSL_FLAG(std::string, status, "", "matches: only those pending, running, done or failed");
ABSL_FLAG(int, limit, 0, "matches: how many (0: 50); audit: how many (0: 100)");
ABSL_FLAG(std::string, target, "", "audit: only entries about this, e.g. bot:alpha or ladder:1");
ABSL_FLAG(int64_t, before, 0, "audit: entries older than this id (the next page)");
ABSL_FLAG(bool, all, false, "bots list: include retired bots");
ABSL_FLAG(int, watch, 0, "leaderboard: refresh every N seconds");
ABSL_FLAG(std::vector<std::string>, compare, {},
          "leaderboard: A,B also says how far the bots named A (or A-...) are above those "
          "named B (or B-...) head to head under margin ratings, with the 95% interval");
ABSL_FLAG(bool, json, false, "print JSON");
ABSL_FLAG(std::string, kind, "",
          "bots upload: python, cpp or stdio (default: by convention; docs/hosting.md); "
          "events create: class or competition (default: class)");
ABSL_FLAG(bool, reset_rating, false,
          "bots upload: the bot's ratings start again from the prior with this version "
          "(default: they carry over)");
ABSL_FLAG(std::string, entry, "", "bots upload: the entry point (default: tarock.json or convention)");
ABSL_FLAG(bool, hosted, false, "bots add: the bot is hosted by the arena's bot hosts (then bots upload; only the hosts connect for it)");

namespace {

using tarock::v1::Arena;
namespace v1 = tarock::v1;

using tarock::arena::cli::Fail;
using tarock::arena::cli::PrintJson;

// Stored text is printed through ForTerminal (bot_rules.h): rows stored
// before the arena checked owners may hold terminal control characters.
void PrintBot(const v1::BotInfo& b) {
  std::cout << tarock::arena::ForTerminal(b.name()) << "  " << (b.dial_in() ? (b.online() ? (b.dial_in_route().empty() ? std::string(b.hosted() ? "hosted" : "dial-in") + " (online)" : std::string(b.hosted() ? "hosted" : "dial-in") + " (online, " + tarock::arena::ForTerminal(b.dial_in_route()) + ")") : std::string(b.hosted() ? "hosted" : "dial-in") + " (offline)") : tarock::arena::ForTerminal(b.endpoint())) << "  owner " << tarock::arena::ForTerminal(b.owner()) << "  variants "
            << tarock::arena::ForTerminal(absl::StrJoin(b.variants(), ",")) << (b.retired() ? "  (retired)" : "");
  if (b.health() == "unreachable" || b.health() == "unresponsive")
    std::cout << "  " << b.health() << " since " << b.health_since() << " UTC, sits out ladders (next probe "
              << b.next_probe() << "): " << tarock::arena::ForTerminal(b.health_error());
  std::cout << "\n";
  for (const v1::RatingInfo& r : b.ratings()) {
    std::cout << absl::StrFormat("    %-16s display %7.2f  mu %6.2f  sigma %5.2f  matches %d  faults %d\n",
                                 r.variant(), r.display(), r.mu(), r.sigma(), r.matches(), r.faults());
  }
}

void PrintTournament(const v1::TournamentInfo& t) {
  std::cout << "tournament " << t.id() << " \"" << t.name() << "\" " << t.variant() << " "
            << t.format() << ": " << t.matches_done() << "/" << t.matches_total() << " matches done";
  if (t.matches_failed()) std::cout << ", " << t.matches_failed() << " failed";
  std::cout << (t.finished() ? " (finished)" : "") << "\n";
  for (const std::string& w : t.waiting())
    std::cout << "waiting: " << tarock::arena::ForTerminal(w) << "\n";
  // The arena's own text (bot names are [A-Za-z0-9._-]): printed whole.
  if (!t.deals_note().empty()) std::cout << "deals: " << t.deals_note() << "\n";
  std::cout << absl::StrFormat("%-20s %10s %6s %10s %9s %6s %9s\n", "bot", "total", "hands",
                               "mean/hand", "95% CI", "faults", "mean rank");
  for (const v1::TournamentStanding& s : t.standings()) {
    std::string ci = s.ci95() < 0 ? "-" : absl::StrFormat("±%.2f", s.ci95());
    std::cout << absl::StrFormat("%-20s %10d %6d %10.2f %9s %6d %9.2f\n", s.bot(), s.total(),
                                 s.hands(), s.mean_per_hand(), ci, s.faults(), s.mean_rank());
  }
}

void PrintMatch(const v1::ArenaMatch& m) {
  std::cout << m.id() << "  " << m.variant() << "  " << m.kind() << "  " << m.status();
  // A finished table whose deal other tables still play comes as running
  // (docs/security.md, "Secret deals").
  if (m.status() == "done")
    std::cout << absl::StrFormat("  #%d  %d hands  %.2f s  on %s", m.seq(), m.hands(),
                                 m.duration_s(), m.referee());
  if (!m.error().empty()) std::cout << "  error: " << m.error();
  std::cout << "\n";
  for (const v1::ArenaSeat& s : m.seats()) {
    // Places from 1, as the leaderboard's (the record's rank is 0-based).
    std::cout << absl::StrFormat("    seat %d  %-20s total %7d  place %d  faults %d%s%s\n", s.seat(),
                                 s.bot(), s.total(), s.rank() + 1, s.faults(),
                                 s.forfeited() ? "  forfeited" : "",
                                 s.version_id() ? absl::StrCat("  version ", s.version_id()) : "");
  }
}

}  // namespace

constexpr char kUsage[] =
    "tarock-arena-cli [--arena=HOST:PORT] COMMAND [ARGS] [FLAGS]\n"
    "The command line of a running tarock-arena (its gRPC API).\n"
    "  bots add NAME (--endpoint=HOST:PORT | --dial_in | --hosted) --variants=V,... --owner=O   (prints the token)\n"
    "           [--event=SLUG --entrant_token=T]   (an entrant registers into an event)\n"
    "  bots update NAME --token=T [--endpoint=..] [--variants=..]\n"
    "  bots retire NAME --token=T\n"
    "  bots list [--all]            bots show NAME\n"
    "  bots upload NAME --token=T PATH [--kind=python|cpp|stdio] [--entry=FILE] [--reset_rating]   a hosted version\n"
    "                               (PATH: a file, a folder or a .zip; docs/hosting.md)\n"
    "  bots versions NAME [--token=T]   versions, their status (and build logs, with the token)\n"
    "  hosts add NAME               issue a bot host's token (needs the admin token)\n"
    "  ladder start --variant=V [--format=match|duplicate] [--rating_model=place|margin]\n"
    "               [--hands=N] [--max_matches=N] [--self_play]\n"
    "               [--separate_owners] [--per_decision_ms=MS] [--max_faults=N]\n"
    "  ladder stop --variant=V      ladder list\n"
    "  tournament run --variant=V --bots=A,B,... [--format=round-robin|gauntlet]\n"
    "               [--challenger=X] [--deals=N] [--no_duplicate] [--hands=N] [--seed=S] [--wait]\n"
    "  tournament show ID\n"
    "  leaderboard --variant=V [--rating_model=place|margin] [--watch=SECONDS] [--compare=A,B]\n"
    "  matches [--variant=V] [--bot=B] [--status=pending|running|done|failed] [--limit=N]\n"
    "  match show ID [--record]\n"
    "  match stderr ID --bot NAME --token T   a hosted bot's standard error (its owner)\n"
    "  export [--variant=V]         every finished match record, one JSON line each\n"
    "  status\n"
    "  audit [--target=bot:NAME] [--limit=N] [--before=ID]   the audit log (needs the admin token)\n"
    "  test run --variant=V --candidate=BOT --baseline=BOT [--opponents=BOT,...] [--h0=0]\n"
    "           [--h1=5] [--alpha=0.05] [--beta=0.05] [--max_deals=20000] [--seed=S] [--wait]\n"
    "           (`tarock compare` on the referees; exit 0 H1, 1 H0, 2 inconclusive, 3 error)\n"
    "  test list      test show ID [--path]      test stop ID\n"
    "  events create SLUG --name=N --kind=class|competition --variants=V,... [--deadline=UTC]\n"
    "         [--opens=UTC] [--closes=UTC] [--max_entrants=N] [--bots_per_entrant=N] ...   (admin)\n"
    "  events list      events show SLUG      events join CODE --name=NAME\n"
    "  events roster SLUG      events register SLUG --roster=FILE      events reissue SLUG --entrant=N\n"
    "  events enter SLUG --bot=B --token=BOT_TOKEN    events withdraw SLUG --bot=B [--token=BOT_TOKEN]\n"
    "  events export SLUG [--as=json]\n"
    "  events close SLUG    (organiser: --organiser_token or $TAROCK_ORGANISER_TOKEN; docs/events.md)\n"
    "  help [COMMAND]               a command's usage and flags\n"
    "--json prints the response in protobuf's JSON mapping instead of a table.";

// --admin_token, else $TAROCK_ADMIN_TOKEN (which keeps it out of `ps`).
std::string AdminToken() {
  return tarock::transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_admin_token), "TAROCK_ADMIN_TOKEN");
}

// `tarock-arena-cli help COMMAND`: the command's lines of kUsage and the flags it
// reads, with their help and defaults.
int Help(const std::string& command) {
  static const std::map<std::string, std::vector<std::string>> kFlags = {
      {"bots", {"endpoint", "dial_in", "hosted", "variants", "owner", "token", "all", "kind", "entry",
                "event", "entrant_token"}},
      {"hosts", {"admin_token"}},
      {"ladder", {"variant", "format", "rating_model", "hands", "max_matches", "self_play",
                  "separate_owners", "per_decision_ms", "max_faults", "admin_token"}},
      {"tournament", {"variant", "bots", "format", "challenger", "deals", "no_duplicate", "hands",
                      "seed", "name", "wait", "per_decision_ms", "max_faults", "admin_token"}},
      {"leaderboard", {"variant", "rating_model", "watch", "event", "compare"}},
      {"matches", {"variant", "bot", "status", "limit", "event"}},
      {"events", tarock::arena::EventsCommandFlags()},
      {"match", {"record", "bot", "token"}},
      {"export", {"variant"}},
      {"status", {}},
      {"audit", {"target", "limit", "before", "admin_token"}},
      {"help", {}},
      {"test", tarock::arena::TestCommandFlags()},
  };
  absl::Status s = tarock::PrintCommandHelp(kUsage, command, kFlags, {"arena", "json"});
  return s.ok() ? 0 : Fail(s.message());
}

int main(int argc, char** argv) {
  tarock::SetProgramUsage(kUsage);
  std::vector<char*> args = tarock::ParseCommandLine(argc, argv);
  std::vector<std::string> a(args.begin() + 1, args.end());
  if (a.empty()) return Fail("give a command: bots, ladder, tournament, leaderboard, matches, match, export, status, audit, test, events, help");
  if (a[0] == "help") {
    if (a.size() == 1) {
      std::cout << kUsage << "\n(tarock-arena-cli help COMMAND: a command's usage and flags)\n";
      return 0;
    }
    return Help(a[1]);
  }
  absl::StatusOr<tarock::transport::Transport> transport = tarock::transport::Transport::FromFlags();
  if (!transport.ok()) {
    std::cerr << "tarock-arena-cli: " << transport.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      transport->Channel(absl::GetFlag(FLAGS_arena));
  if (!channel.ok()) {
    std::cerr << "tarock-arena-cli: " << channel.status().message() << "\n";
    return 1;
  }
  auto stub = Arena::NewStub(*channel);
  const bool json = absl::GetFlag(FLAGS_json);
  auto context = [] {
    auto c = std::make_unique<grpc::ClientContext>();
    c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return c;
  };
  const std::string cmd = a[0];
  const std::string sub = a.size() > 1 ? a[1] : "";
  const std::string arg = a.size() > 2 ? a[2] : "";

  if (cmd == "test") return tarock::arena::RunTestCommand(stub.get(), a);
  if (cmd == "events") return tarock::arena::RunEventsCommand(stub.get(), a);

  if (cmd == "hosts") {
    if (sub != "add" || arg.empty()) return Fail("hosts add NAME [--admin_token=T]");
    auto hosting = v1::Hosting::NewStub(*channel);
    v1::AddHostRequest r;
    r.set_name(arg);
    r.set_admin_token(AdminToken());
    v1::AddHostResponse out;
    grpc::Status s = hosting->AddHost(context().get(), r, &out);
    if (!s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else std::cout << "host " << out.name() << "\ntoken " << out.token() << "\n";
    return 0;
  }
  if (cmd == "bots" && (sub == "upload" || sub == "versions")) {
    if (arg.empty()) return Fail(absl::StrCat("bots ", sub, " NAME --token=T", sub == "upload" ? " PATH" : ""));
    auto hosting = v1::Hosting::NewStub(*channel);
    const std::string token = tarock::transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_token), "TAROCK_BOT_TOKEN");
    if (sub == "upload") {
      if (a.size() < 4) return Fail("bots upload NAME --token=T PATH");
      absl::StatusOr<std::pair<std::string, std::string>> packed = tarock::bothost::PackUpload(a[3]);
      if (!packed.ok()) return Fail(packed.status().message());
      v1::UploadVersionRequest r;
      r.set_bot(arg);
      r.set_token(token);
      r.set_filename(packed->first);
      r.set_kind(absl::GetFlag(FLAGS_kind));
      r.set_entry(absl::GetFlag(FLAGS_entry));
      r.set_reset_rating(absl::GetFlag(FLAGS_reset_rating));
      r.set_total_bytes(static_cast<int64_t>(packed->second.size()));
      // In pieces of 512 KiB (Hosting.UploadVersionStream): no message over
      // the arena's --max_request_bytes whatever the file's size.
      constexpr size_t kPiece = size_t{512} << 10;
      v1::VersionInfo out;
      auto ctx = context();
      std::unique_ptr<grpc::ClientWriter<v1::UploadVersionRequest>> writer =
          hosting->UploadVersionStream(ctx.get(), &out);
      const std::string& bytes = packed->second;
      for (size_t at = 0; at == 0 || at < bytes.size(); at += kPiece) {
        r.set_content(bytes.substr(at, kPiece));
        if (!writer->Write(r)) break;  // refused: Finish says why
        r = v1::UploadVersionRequest();
      }
      writer->WritesDone();
      grpc::Status s = writer->Finish();
      if (!s.ok()) return Fail(s);
      if (json) PrintJson(out);
      else
        std::cout << "version " << out.id() << "  " << out.kind() << "  " << out.size()
                  << " bytes  sha256 " << out.sha256() << "  " << out.status() << "\n"
                  // An identical re-upload: the note says nothing new was stored.
                  << (out.note().empty() ? "" : tarock::arena::ForTerminal(out.note(), 300) + "\n")
                  << (out.build_log().empty() ? "" : tarock::arena::ForTerminal(out.build_log(), 1000) + "\n")
                  << (out.note().empty() || out.status() == "building"
                          ? absl::StrCat("(a bot host builds it; `tarock-arena-cli bots versions ", arg,
                                         "` shows when it is ready)\n")
                          : "");
      return 0;
    }
    v1::ListVersionsRequest r;
    r.set_bot(arg);
    r.set_token(token);
    v1::ListVersionsResponse out;
    grpc::Status s = hosting->ListVersions(context().get(), r, &out);
    if (!s.ok()) return Fail(s);
    if (json) {
      PrintJson(out);
      return 0;
    }
    for (const v1::VersionInfo& v : out.versions()) {
      std::cout << "version " << v.id() << "  " << v.status() << "  " << v.kind() << "  "
                << tarock::arena::ForTerminal(v.entry()) << "  " << v.size() << " bytes  sha256 "
                << v.sha256().substr(0, 16) << "  uploaded " << v.uploaded_at()
                << (v.ready_at().empty() ? "" : "  ready " + v.ready_at()) << "\n";
      if (!v.build_log().empty())
      {
        std::cout << "  build log:\n";
        for (absl::string_view line : absl::StrSplit(v.build_log(), '\n'))
          std::cout << "    " << tarock::arena::ForTerminal(line, 1000) << "\n";
      }
    }
    return 0;
  }
  if (cmd == "bots") {
    if (sub == "add") {
      if (arg.empty()) return Fail("bots add NAME --endpoint=HOST:PORT --variants=V --owner=O");
      v1::AddBotRequest r;
      r.set_name(arg);
      r.set_endpoint(absl::GetFlag(FLAGS_endpoint));
      r.set_dial_in(absl::GetFlag(FLAGS_dial_in));
      r.set_hosted(absl::GetFlag(FLAGS_hosted));
      for (const std::string& v : absl::GetFlag(FLAGS_variants)) r.add_variants(v);
      r.set_owner(absl::GetFlag(FLAGS_owner));
      r.set_event(tarock::arena::EventFlag());
      if (!r.event().empty()) r.set_entrant_token(tarock::arena::EntrantToken());
      v1::AddBotResponse out;
      grpc::Status s = stub->AddBot(context().get(), r, &out);
      if (!s.ok()) return Fail(s);
      if (json) PrintJson(out);
      else {
        std::cout << "added " << out.bot().name() << "\ntoken " << out.token() << "\n";
        // A dial-in bot never serves a referee's call, so the secret that
        // authenticates those calls means nothing to it: not printed.
        if (!out.referee_secret().empty() && !r.dial_in() && !r.hosted())
          std::cout << "referee_secret " << out.referee_secret()
                    << "   (the bot's --referee_secret: it then refuses referees this arena did "
                       "not send)\n";
      }
      return 0;
    }
    if (sub == "update" || sub == "retire") {
      if (arg.empty()) return Fail(absl::StrCat("bots ", sub, " NAME --token=T"));
      v1::BotInfo out;
      grpc::Status s;
      if (sub == "update") {
        v1::UpdateBotRequest r;
        r.set_name(arg);
        r.set_token(absl::GetFlag(FLAGS_token));
        r.set_endpoint(absl::GetFlag(FLAGS_endpoint));
        for (const std::string& v : absl::GetFlag(FLAGS_variants)) r.add_variants(v);
        s = stub->UpdateBot(context().get(), r, &out);
      } else {
        v1::RetireBotRequest r;
        r.set_name(arg);
        r.set_token(absl::GetFlag(FLAGS_token));
        s = stub->RetireBot(context().get(), r, &out);
      }
      if (!s.ok()) return Fail(s);
      if (json) PrintJson(out);
      else PrintBot(out);
      return 0;
    }
    if (sub == "list") {
      v1::ListBotsRequest r;
      r.set_include_retired(absl::GetFlag(FLAGS_all));
      v1::ListBotsResponse out;
      grpc::Status s = stub->ListBots(context().get(), r, &out);
      if (!s.ok()) return Fail(s);
      if (json) PrintJson(out);
      else for (const auto& b : out.bots()) PrintBot(b);
      return 0;
    }
    if (sub == "show") {
      v1::GetBotRequest r;
      r.set_name(arg);
      v1::BotInfo out;
      grpc::Status s = stub->GetBot(context().get(), r, &out);
      if (!s.ok()) return Fail(s);
      if (json) {
        PrintJson(out);
      } else {
        PrintBot(out);
        std::cout << "  rating history: " << out.history_size() << " points";
        if (out.history_size() > 0) {
          const auto& h = out.history(out.history_size() - 1);
          std::cout << absl::StrFormat(", last after match %s: mu %.2f sigma %.2f", h.match_id(),
                                       h.mu(), h.sigma());
        }
        std::cout << "\n";
      }
      return 0;
    }
    return Fail("bots add|update|retire|list|show");
  }

  if (cmd == "ladder") {
    if (sub == "start") {
      v1::StartLadderRequest r;
      r.set_admin_token(AdminToken());
      v1::LadderConfig* c = r.mutable_config();
      c->set_variant(absl::GetFlag(FLAGS_variant));
      c->set_format(absl::GetFlag(FLAGS_format));  // "": the arena's default
      c->set_rating_model(absl::GetFlag(FLAGS_rating_model));
      c->set_hands_per_match(absl::GetFlag(FLAGS_hands));
      c->set_max_matches(absl::GetFlag(FLAGS_max_matches));
      c->set_allow_self_play(absl::GetFlag(FLAGS_self_play));
      c->set_separate_owners(absl::GetFlag(FLAGS_separate_owners));
      c->mutable_time_control()->set_per_decision_ms(absl::GetFlag(FLAGS_per_decision_ms));
      c->mutable_fault_policy()->set_max_faults(absl::GetFlag(FLAGS_max_faults));
      v1::LadderInfo out;
      grpc::Status s = stub->StartLadder(context().get(), r, &out);
      if (!s.ok()) return Fail(s);
      if (json) PrintJson(out);
      else std::cout << "ladder " << out.id() << " started for " << out.config().variant() << " ("
                     << out.config().format() << ", rated by " << out.config().rating_model()
                     << ")\n" << (out.note().empty() ? "" : out.note() + "\n");
      return 0;
    }
    if (sub == "stop") {
      v1::StopLadderRequest r;
      r.set_variant(absl::GetFlag(FLAGS_variant));
      r.set_admin_token(AdminToken());
      v1::LadderInfo out;
      grpc::Status s = stub->StopLadder(context().get(), r, &out);
      if (!s.ok()) return Fail(s);
      if (json) PrintJson(out);
      else std::cout << "ladder " << out.id() << " stopped after " << out.matches_done() << " matches\n";
      return 0;
    }
    if (sub == "list") {
      v1::ListLaddersResponse out;
      grpc::Status s = stub->ListLadders(context().get(), {}, &out);
      if (!s.ok()) return Fail(s);
      if (json) PrintJson(out);
      else
        for (const auto& l : out.ladders())
          std::cout << "ladder " << l.id() << "  " << l.config().variant() << "  "
                    << (l.running() ? "running" : "stopped") << "  " << l.matches_done()
                    << " matches done  "
                    << (l.config().format().empty() ? "match" : l.config().format()) << "/"
                    << (l.config().rating_model().empty() ? "place" : l.config().rating_model())
                    << "\n";
      return 0;
    }
    return Fail("ladder start|stop|list");
  }

  if (cmd == "tournament") {
    if (sub == "run") {
      v1::RunTournamentRequest r;
      r.set_variant(absl::GetFlag(FLAGS_variant));
      for (const std::string& b : absl::GetFlag(FLAGS_bots)) r.add_bots(b);
      const std::string format =
          absl::GetFlag(FLAGS_format).empty() ? "round-robin" : absl::GetFlag(FLAGS_format);
      if (format == "gauntlet") r.set_format(v1::RunTournamentRequest::GAUNTLET);
      else if (format == "round-robin") r.set_format(v1::RunTournamentRequest::ROUND_ROBIN);
      else return Fail("--format is round-robin or gauntlet");
      r.set_challenger(absl::GetFlag(FLAGS_challenger));
      r.set_deals(absl::GetFlag(FLAGS_deals));
      r.set_no_duplicate(absl::GetFlag(FLAGS_no_duplicate));
      r.set_hands_per_match(absl::GetFlag(FLAGS_hands));
      r.set_seed(absl::GetFlag(FLAGS_seed));
      r.set_name(absl::GetFlag(FLAGS_name));
      r.set_admin_token(AdminToken());
      r.mutable_time_control()->set_per_decision_ms(absl::GetFlag(FLAGS_per_decision_ms));
      r.mutable_fault_policy()->set_max_faults(absl::GetFlag(FLAGS_max_faults));
      v1::TournamentInfo out;
      grpc::Status s = stub->RunTournament(context().get(), r, &out);
      if (!s.ok()) return Fail(s);
      while (absl::GetFlag(FLAGS_wait) && !out.finished()) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        v1::GetTournamentRequest g;
        g.set_id(out.id());
        s = stub->GetTournament(context().get(), g, &out);
        if (!s.ok()) return Fail(s);
        if (!json) std::cerr << "\r" << out.matches_done() << "/" << out.matches_total() << " matches";
      }
      if (!json && absl::GetFlag(FLAGS_wait)) std::cerr << "\n";
      if (json) PrintJson(out);
      else PrintTournament(out);
      return 0;
    }
    if (sub == "show") {
      v1::GetTournamentRequest g;
      g.set_id(std::atoll(arg.c_str()));
      v1::TournamentInfo out;
      grpc::Status s = stub->GetTournament(context().get(), g, &out);
      if (!s.ok()) return Fail(s);
      if (json) PrintJson(out);
      else PrintTournament(out);
      return 0;
    }
    return Fail("tournament run|show");
  }

  if (cmd == "leaderboard") {
    const std::vector<std::string> compare = absl::GetFlag(FLAGS_compare);
    if (!compare.empty() && compare.size() != 2)
      return Fail("--compare takes two groups of bots, e.g. --compare=search,heuristic");
    v1::LeaderboardRequest r;
    r.set_variant(absl::GetFlag(FLAGS_variant));
    r.set_event(tarock::arena::EventFlag());
    r.set_rating_model(absl::GetFlag(FLAGS_rating_model));
    for (;;) {
      v1::LeaderboardResponse out;
      grpc::Status s = stub->Leaderboard(context().get(), r, &out);
      if (!s.ok()) return Fail(s);
      if (json) PrintJson(out);
      else std::cout << tarock::arena::FormatLeaderboard(out);
      if (!json && !compare.empty()) {
        absl::StatusOr<std::string> line =
            tarock::arena::HeadToHeadLine(out, compare[0], compare[1]);
        std::cout << (line.ok() ? *line : std::string(line.status().message())) << "\n";
      }
      if (absl::GetFlag(FLAGS_watch) <= 0) return 0;
      std::this_thread::sleep_for(std::chrono::seconds(absl::GetFlag(FLAGS_watch)));
    }
  }

  if (cmd == "matches") {
    v1::ListMatchesRequest r;
    r.set_variant(absl::GetFlag(FLAGS_variant));
    r.set_bot(absl::GetFlag(FLAGS_bot));
    r.set_status(absl::GetFlag(FLAGS_status));
    r.set_limit(absl::GetFlag(FLAGS_limit));
    r.set_event(tarock::arena::EventFlag());
    v1::ListMatchesResponse out;
    grpc::Status s = stub->ListMatches(context().get(), r, &out);
    if (!s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else for (const auto& m : out.matches()) PrintMatch(m);
    return 0;
  }

  if (cmd == "match" && sub == "stderr") {
    // A hosted bot's standard error in a match, for its owner.
    if (arg.empty() || absl::GetFlag(FLAGS_bot).empty())
      return Fail("match stderr ID --bot NAME --token T");
    auto hosting = v1::Hosting::NewStub(*channel);
    v1::GetSeatLogRequest r;
    r.set_match_id(arg);
    r.set_bot(absl::GetFlag(FLAGS_bot));
    r.set_token(tarock::transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_token), "TAROCK_BOT_TOKEN"));
    v1::SeatLog out;
    grpc::Status s = hosting->GetSeatLog(context().get(), r, &out);
    if (!s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else if (out.log().empty())  // said on stderr, so `> file` still gets the (empty) log
      std::cerr << "(" << absl::GetFlag(FLAGS_bot) << " wrote nothing to its standard error in match "
                << arg << ")\n";
    else std::cout << out.log() << (out.log().back() == '\n' ? "" : "\n");
    return 0;
  }
  if (cmd == "match") {
    if (sub != "show" || arg.empty()) return Fail("match show ID [--record] | match stderr ID --bot NAME --token T");
    v1::GetMatchRequest r;
    r.set_id(arg);
    r.set_with_record(absl::GetFlag(FLAGS_record));
    v1::ArenaMatch out;
    grpc::Status s = stub->GetMatch(context().get(), r, &out);
    if (!s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else {
      PrintMatch(out);
      if (!out.record_json().empty()) std::cout << out.record_json() << "\n";
    }
    return 0;
  }

  if (cmd == "export") {
    v1::ExportRecordsRequest r;
    r.set_variant(absl::GetFlag(FLAGS_variant));
    grpc::ClientContext c;
    auto reader = stub->ExportRecords(&c, r);
    v1::ExportedRecord line;
    while (reader->Read(&line)) std::cout << line.json_line() << "\n";
    grpc::Status s = reader->Finish();
    if (!s.ok()) return Fail(s);
    return 0;
  }

  if (cmd == "status") {
    v1::StatusResponse out;
    grpc::Status s = stub->Status(context().get(), {}, &out);
    if (!s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else
      std::cout << absl::StrFormat(
          "queue %d  running %d  referees %d/%d available  matches done %d  failed %d\n",
          out.queue_depth(), out.running(), out.referees_available(), out.referees_total(),
          out.matches_done(), out.matches_failed());
    if (!json)
      for (const std::string& w : out.waiting_for_dial_in()) std::cout << "waiting for dial-in bot: " << w << "\n";
    return 0;
  }
  if (cmd == "audit") {
    v1::ListAuditRequest r;
    r.set_admin_token(AdminToken());
    r.set_target(absl::GetFlag(FLAGS_target));
    r.set_limit(absl::GetFlag(FLAGS_limit));
    r.set_before_id(absl::GetFlag(FLAGS_before));
    v1::ListAuditResponse out;
    grpc::Status s = stub->ListAudit(context().get(), r, &out);
    if (!s.ok()) return Fail(s);
    if (json) {
      PrintJson(out);
    } else {
      for (const v1::AuditEntry& e : out.entries())
        std::cout << absl::StrFormat("%-6d %s  %-15s %-24s %-13s %-16s %s  %s\n", e.id(), e.at(),
                                     e.client(), e.actor(), e.action(), e.target(), e.outcome(),
                                     e.detail());
    }
    return 0;
  }
  return Fail(absl::StrCat("unknown command '", cmd, "'"));
}
