#include "arena/cli/events_command.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <fstream>
#include <iostream>

#include "absl/flags/declare.h"
#include "arena/cli/cli_output.h"
#include "arena/cli/roster_csv.h"
#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "arena/scheduler/bot_rules.h"
#include "referee/server/grpc_status.h"
#include "tarock/transport/transport.h"

// Shared with the other commands (arena_cli.cc).
ABSL_DECLARE_FLAG(std::string, admin_token);
ABSL_DECLARE_FLAG(std::vector<std::string>, variants);
ABSL_DECLARE_FLAG(std::string, name);
ABSL_DECLARE_FLAG(std::string, bot);
ABSL_DECLARE_FLAG(std::string, token);
ABSL_DECLARE_FLAG(std::string, kind);
ABSL_DECLARE_FLAG(int, hands);
ABSL_DECLARE_FLAG(int64_t, per_decision_ms);
ABSL_DECLARE_FLAG(int, max_faults);
ABSL_DECLARE_FLAG(bool, json);

ABSL_FLAG(std::string, event, "",
          "bots add: register into this event (with --entrant_token); leaderboard, matches: "
          "this event's (its slug; \"open\" the open ladders)");
ABSL_FLAG(std::string, entrant_token, "",
          "bots add --event, events withdraw: your entrant token (else $TAROCK_ENTRANT_TOKEN)");
ABSL_FLAG(std::string, organiser_token, "",
          "events: the event's organiser token (else $TAROCK_ORGANISER_TOKEN)");
ABSL_FLAG(std::string, description, "", "events create: what the event is");
ABSL_FLAG(std::string, opens, "", "events create: registration opens (UTC \"YYYY-MM-DD HH:MM:SS\"; empty: now)");
ABSL_FLAG(std::string, closes, "", "events create: registration closes (UTC; empty: at the deadline)");
ABSL_FLAG(std::string, deadline, "",
          "events create: entries freeze and the final starts (UTC; empty: a standing event)");
ABSL_FLAG(bool, unlisted, false, "events create: not on /events (visible with its link)");
ABSL_FLAG(bool, hosted_only, false,
          "events create: entries must be hosted bots (bots add --hosted, then bots upload): frozen at the deadline");
ABSL_FLAG(int, max_entrants, 0, "events create: entrants at most (0: 200)");
ABSL_FLAG(int, bots_per_entrant, 0, "events create: bots an entrant may enter (0: 1)");
ABSL_FLAG(int, final_deals, 0, "events create: distinct deals each bot plays in the final (0: 64)");
ABSL_FLAG(int, final_budget, 0, "events create: matches the final may take at most (0: 2000)");
ABSL_FLAG(int, weight, 0, "events create: the event's share of the referees (0: 1)");
ABSL_FLAG(int, final_presence_minutes, 0,
          "events create: a bot not online within this many minutes before the deadline is left "
          "out of the final (0: 10)");
ABSL_FLAG(std::string, entrant, "", "events reissue: the entrant's name");
ABSL_FLAG(std::string, roster, "",
          "events register: a class list: one name a line, or a CSV (a spreadsheet's; quotes, "
          "a byte-order mark and CRLF are read; the column headed \"name\", else the first)");
ABSL_FLAG(std::string, roster_column, "",
          "events register: the header of the roster's column of names (default: \"name\" when "
          "the first row has it, else no header and the first column)");
ABSL_FLAG(bool, skip_existing, false,
          "events register: skip the names that joined already (late students) instead of "
          "refusing the whole list");
ABSL_FLAG(std::string, as, "csv", "events export: csv or json");

namespace tarock::arena {
namespace {

using cli::Context;
using cli::Fail;
using cli::PrintJson;

std::string OrganiserToken() {
  return transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_organiser_token), "TAROCK_ORGANISER_TOKEN");
}

void PrintEvent(const v1::EventInfo& e) {
  const v1::EventConfig& c = e.config();
  std::cout << ForTerminal(c.slug()) << "  " << ForTerminal(c.name()) << "  (" << c.kind() << ", "
            << e.status() << ")  variants " << absl::StrJoin(c.variants(), ",")
            << (c.hosted_only() ? "  hosted bots only" : "") << "\n";
  const bool over = e.status() == "frozen" || e.status() == "finished" || e.status() == "closed";
  if (over && !c.schedule().deadline().empty())
    std::cout << "  registration closed; deadline " << c.schedule().deadline() << " UTC"
              << (e.frozen_at().empty() ? "" : ", frozen at " + e.frozen_at() + " UTC") << "\n";
  else if (!c.schedule().deadline().empty() || !c.schedule().registration_opens().empty())
    std::cout << "  registration " << (c.schedule().registration_opens().empty() ? "open" : "opens " + c.schedule().registration_opens())
              << (c.schedule().registration_closes().empty() ? "" : ", closes " + c.schedule().registration_closes())
              << (c.schedule().deadline().empty() ? "" : "; deadline " + c.schedule().deadline()) << " UTC\n";
  std::cout << "  " << e.entrants() << " entrants, " << e.bots() << " bots, " << e.ladder_matches()
            << " ladder matches";
  if (e.final_matches_planned()) std::cout << "; the final would take " << e.final_matches_planned() << " matches";
  if (e.final_tournament_id()) std::cout << "; final: tournament " << e.final_tournament_id();
  std::cout << "\n";
  if (!e.note().empty()) std::cout << "  " << ForTerminal(e.note()) << "\n";
  for (const v1::EventLeftOut& x : e.left_out())
    std::cout << "  " << (over ? "left out of the final: " : "offline, not in the final: ")
              << ForTerminal(x.bot()) << (x.entrant().empty() ? "" : " (" + ForTerminal(x.entrant()) + ")")
              << ": " << ForTerminal(x.reason()) << "\n";
  if (!e.invite_code().empty()) std::cout << "  invite code " << e.invite_code() << "\n";
  for (const v1::EventLadder& l : e.ladders())
    std::cout << "  ladder " << l.variant() << ": " << ForTerminal(l.note()) << "\n";
  if (e.results_size())
    std::cout << "  final standings: points a deal [95% interval], deals; margin: points a deal "
                 "against the final's field [95% interval]\n";
  if (e.results_size() && e.status() != "finished")
    std::cout << "  (the final is still running: these standings are not final)\n";
  for (const v1::EventStanding& s : e.results())
    std::cout << absl::StrFormat(
        "  %2d. %-24s %-20s %+8.2f [%+.2f, %+.2f] deals %d  margin %+.2f [%+.2f, %+.2f]%s  faults %d%s%s%s\n",
        s.place(), ForTerminal(s.bot()), ForTerminal(s.entrant()), s.mean(), s.mean() - s.ci95(),
        s.mean() + s.ci95(), s.deals(), s.margin().mu(), s.margin().low(), s.margin().high(),
        s.unseparated_from_next() ? " ~" : "", s.faults(), s.frozen() ? "" : "  unfrozen",
        s.note().empty() ? "" : "  ", ForTerminal(s.note()));
}

void PrintJoin(const v1::JoinEventResponse& j) {
  std::cout << "entrant " << ForTerminal(j.entrant()) << " in " << j.event() << "\ntoken " << j.token()
            << "\n  " << j.connect_line() << "\n";
}

}  // namespace

std::vector<std::string> EventsCommandFlags() {
  return {"name", "kind", "variants", "description", "opens", "closes", "deadline", "unlisted",
          "hosted_only",
          "max_entrants", "bots_per_entrant", "final_deals", "final_budget", "weight", "hands",
          "final_presence_minutes",
          "per_decision_ms", "max_faults", "admin_token", "organiser_token", "entrant_token",
          "entrant", "bot", "roster", "roster_column", "skip_existing", "as"};
}

std::string EventFlag() { return absl::GetFlag(FLAGS_event); }

std::string EntrantToken() {
  return transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_entrant_token), "TAROCK_ENTRANT_TOKEN");
}

int RunEventsCommand(v1::Arena::Stub* stub, const std::vector<std::string>& a) {
  const std::string sub = a.size() > 1 ? a[1] : "";
  const std::string arg = a.size() > 2 ? a[2] : "";
  const bool json = absl::GetFlag(FLAGS_json);
  auto need_arg = [&](const char* usage) -> bool {
    if (!arg.empty()) return true;
    Fail(usage);
    return false;
  };
  if (sub == "create") {
    if (!need_arg("events create SLUG --name=N --kind=class|competition --variants=V,...")) return 1;
    v1::CreateEventRequest r;
    r.set_admin_token(transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_admin_token), "TAROCK_ADMIN_TOKEN"));
    v1::EventConfig* c = r.mutable_config();
    c->set_slug(arg);
    c->set_name(absl::GetFlag(FLAGS_name).empty() ? arg : absl::GetFlag(FLAGS_name));
    c->set_kind(absl::GetFlag(FLAGS_kind).empty() ? "class" : absl::GetFlag(FLAGS_kind));
    c->set_description(absl::GetFlag(FLAGS_description));
    for (const std::string& v : absl::GetFlag(FLAGS_variants)) c->add_variants(v);
    c->set_unlisted(absl::GetFlag(FLAGS_unlisted));
    c->set_hosted_only(absl::GetFlag(FLAGS_hosted_only));
    c->mutable_schedule()->set_registration_opens(absl::GetFlag(FLAGS_opens));
    c->mutable_schedule()->set_registration_closes(absl::GetFlag(FLAGS_closes));
    c->mutable_schedule()->set_deadline(absl::GetFlag(FLAGS_deadline));
    c->set_max_entrants(absl::GetFlag(FLAGS_max_entrants));
    c->set_bots_per_entrant(absl::GetFlag(FLAGS_bots_per_entrant));
    c->set_final_deals_per_bot(absl::GetFlag(FLAGS_final_deals));
    c->set_final_match_budget(absl::GetFlag(FLAGS_final_budget));
    c->set_weight(absl::GetFlag(FLAGS_weight));
    c->set_final_presence_minutes(absl::GetFlag(FLAGS_final_presence_minutes));
    c->set_hands_per_match(absl::GetFlag(FLAGS_hands));
    if (absl::GetFlag(FLAGS_per_decision_ms) > 0)
      c->mutable_time_control()->set_per_decision_ms(absl::GetFlag(FLAGS_per_decision_ms));
    c->mutable_fault_policy()->set_max_faults(absl::GetFlag(FLAGS_max_faults));
    v1::CreateEventResponse out;
    if (grpc::Status s = stub->CreateEvent(Context().get(), r, &out); !s.ok()) return Fail(s);
    if (json) {
      PrintJson(out);
      return 0;
    }
    PrintEvent(out.event());
    std::cout << "organiser_token " << out.organiser_token()
              << "   (keep it: it manages this event; shown once)\ninvite_code " << out.invite_code()
              << "   (give it to your entrants: tarock-arena-cli events join " << out.invite_code()
              << " --name=NAME, or the web page /join/" << out.invite_code() << ")\n";
    return 0;
  }
  if (sub == "list") {
    v1::ListEventsResponse out;
    if (grpc::Status s = stub->ListEvents(Context().get(), {}, &out); !s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else for (const v1::EventInfo& e : out.events()) PrintEvent(e);
    return 0;
  }
  if (sub == "show") {
    if (!need_arg("events show SLUG")) return 1;
    v1::GetEventRequest r;
    r.set_slug(arg);
    r.set_organiser_token(OrganiserToken());
    v1::EventInfo out;
    if (grpc::Status s = stub->GetEvent(Context().get(), r, &out); !s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else PrintEvent(out);
    return 0;
  }
  if (sub == "join") {
    if (!need_arg("events join CODE --name=YOUR_NAME")) return 1;
    v1::JoinEventRequest r;
    r.set_code(arg);
    r.set_name(absl::GetFlag(FLAGS_name));
    v1::JoinEventResponse out;
    if (grpc::Status s = stub->JoinEvent(Context().get(), r, &out); !s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else PrintJoin(out);
    return 0;
  }
  if (sub == "roster") {
    if (!need_arg("events roster SLUG --organiser_token=T")) return 1;
    v1::EventRosterRequest r;
    r.set_slug(arg);
    r.set_organiser_token(OrganiserToken());
    v1::EventRosterResponse out;
    if (grpc::Status s = stub->EventRoster(Context().get(), r, &out); !s.ok()) return Fail(s);
    if (json) {
      PrintJson(out);
      return 0;
    }
    std::cout << "invite code " << out.invite_code() << "\n";
    for (const v1::EventEntrant& e : out.entrants()) {
      std::cout << ForTerminal(e.name()) << "  joined " << e.joined_at() << "  last changed "
                << e.updated_at() << "\n";
      if (e.bots().empty()) std::cout << "    (no bot yet)\n";
      for (const v1::BotInfo& b : e.bots())
        std::cout << "    " << ForTerminal(b.name()) << "  " << b.health()
                  << (b.health_error().empty() ? "" : ": " + ForTerminal(b.health_error()))
                  << (b.newest_version() ? absl::StrCat("  upload v", b.newest_version(), " ",
                                                        b.newest_version_status() == "failed"
                                                            ? "failed to build"
                                                            : b.newest_version_status())
                                         : "")
                  << "\n";
    }
    for (const v1::BotInfo& b : out.house_bots())
      std::cout << "house bot " << ForTerminal(b.name()) << "  " << b.health() << "\n";
    return 0;
  }
  if (sub == "register") {
    if (!need_arg("events register SLUG --roster=FILE")) return 1;
    std::ifstream in(absl::GetFlag(FLAGS_roster), std::ios::binary);
    if (!in) return Fail(absl::StrCat("cannot read --roster '", absl::GetFlag(FLAGS_roster), "'"));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    absl::StatusOr<std::vector<std::string>> names = RosterNames(text, absl::GetFlag(FLAGS_roster_column));
    if (!names.ok())
      return Fail(absl::StrCat("--roster '", absl::GetFlag(FLAGS_roster), "': ", names.status().message()));
    v1::RegisterRosterRequest r;
    r.set_slug(arg);
    r.set_organiser_token(OrganiserToken());
    r.set_skip_existing(absl::GetFlag(FLAGS_skip_existing));
    for (const std::string& name : *names) r.add_names(name);
    v1::RegisterRosterResponse out;
    if (grpc::Status s = stub->RegisterRoster(Context().get(), r, &out); !s.ok()) return Fail(s);
    if (json) {
      PrintJson(out);
      return 0;
    }
    for (const std::string& name : out.skipped())
      std::cout << "# skipped " << ForTerminal(name) << ": joined already\n";
    std::cout << "# the lines of each entrant: hand each their own (they hold their token)\n";
    for (const v1::JoinEventResponse& j : out.entrants())
      std::cout << "# " << ForTerminal(j.entrant()) << "\n" << j.connect_line() << "\n";
    return 0;
  }
  if (sub == "reissue") {
    if (!need_arg("events reissue SLUG --entrant=NAME")) return 1;
    v1::ReissueEntrantTokenRequest r;
    r.set_slug(arg);
    r.set_organiser_token(OrganiserToken());
    r.set_entrant(absl::GetFlag(FLAGS_entrant));
    v1::JoinEventResponse out;
    if (grpc::Status s = stub->ReissueEntrantToken(Context().get(), r, &out); !s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else PrintJoin(out);
    return 0;
  }
  if (sub == "enter" || sub == "withdraw") {
    if (!need_arg("events enter|withdraw SLUG --bot=NAME")) return 1;
    v1::EventInfo out;
    grpc::Status s;
    if (sub == "enter") {
      v1::EnterHouseBotRequest r;
      r.set_slug(arg);
      r.set_organiser_token(OrganiserToken());
      r.set_bot(absl::GetFlag(FLAGS_bot));
      // The bot's own token (the owner's agreement): --token or $TAROCK_BOT_TOKEN.
      r.set_bot_token(transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_token), "TAROCK_BOT_TOKEN"));
      s = stub->EnterHouseBot(Context().get(), r, &out);
    } else {
      v1::WithdrawBotRequest r;
      r.set_slug(arg);
      // The bot's owner (--token) withdraws it whatever the event's state.
      const std::string bot_token =
          transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_token), "TAROCK_BOT_TOKEN");
      r.set_token(!absl::GetFlag(FLAGS_token).empty() ? bot_token
                  : OrganiserToken().empty()          ? EntrantToken()
                                                      : OrganiserToken());
      r.set_bot(absl::GetFlag(FLAGS_bot));
      s = stub->WithdrawBot(Context().get(), r, &out);
    }
    if (!s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else PrintEvent(out);
    return 0;
  }
  if (sub == "export") {
    if (!need_arg("events export SLUG [--as=csv|json]")) return 1;
    v1::ExportEventRequest r;
    r.set_slug(arg);
    r.set_organiser_token(OrganiserToken());
    r.set_format(absl::GetFlag(FLAGS_as));
    v1::ExportEventResponse out;
    if (grpc::Status s = stub->ExportEvent(Context().get(), r, &out); !s.ok()) return Fail(s);
    std::cout << out.body();
    return 0;
  }
  if (sub == "close") {
    if (!need_arg("events close SLUG")) return 1;
    v1::CloseEventRequest r;
    r.set_slug(arg);
    r.set_organiser_token(OrganiserToken());
    v1::EventInfo out;
    if (grpc::Status s = stub->CloseEvent(Context().get(), r, &out); !s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else PrintEvent(out);
    return 0;
  }
  return Fail("events create|list|show|join|roster|register|reissue|enter|withdraw|export|close");
}

}  // namespace tarock::arena
