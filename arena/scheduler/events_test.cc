// Events (events.cc, issue 32) with real matches in process: separate
// fields, ladders and ratings; sign-ups and their refusals; the deadline, the
// final and a restart in the middle of it; who may change what; fair shares.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "arena/scheduler/scheduler_testing.h"

namespace tarock::arena {
namespace {

using namespace testing_internal;  // NOLINT: the fixture and fakes

class EventsTest : public SchedulerTest {
 protected:
  void SetUp() override {
    SchedulerTest::SetUp();
    options_.admin_token = "admin";
  }
  // An event of slovenian-3p with short matches.
  v1::CreateEventResponse Create(const std::string& slug, const std::string& deadline = "",
                                 int weight = 1, int max_entrants = 0) {
    v1::CreateEventRequest r;
    r.set_admin_token("admin");
    v1::EventConfig* c = r.mutable_config();
    c->set_slug(slug);
    c->set_name(absl::StrCat("Event ", slug));
    c->set_kind("competition");
    c->add_variants("slovenian-3p");
    c->set_hands_per_match(3);
    c->mutable_schedule()->set_deadline(deadline);
    c->set_weight(weight);
    c->set_max_entrants(max_entrants);
    c->set_final_deals_per_bot(6);  // two tables a bot
    absl::StatusOr<v1::CreateEventResponse> out = scheduler_->CreateEvent(r);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *out : v1::CreateEventResponse();
  }
  // Joins `name` with `code` and registers one in-process bot of `kind`.
  std::string Enter(const std::string& slug, const std::string& code, const std::string& name,
                    const std::string& kind) {
    v1::JoinEventRequest j;
    j.set_code(code);
    j.set_name(name);
    absl::StatusOr<v1::JoinEventResponse> joined = scheduler_->JoinEvent(j);
    EXPECT_TRUE(joined.ok()) << joined.status();
    if (!joined.ok()) return "";
    v1::AddBotRequest b;
    b.set_name(absl::StrCat(slug, "-", name));
    b.set_endpoint(absl::StrCat("inproc:", kind));
    b.add_variants("slovenian-3p");
    b.set_event(slug);
    b.set_entrant_token(joined->token());
    absl::StatusOr<v1::AddBotResponse> added = scheduler_->AddBot(b);
    EXPECT_TRUE(added.ok()) << added.status();
    return joined->token();
  }
  int64_t Done(const std::string& event) {
    v1::ListMatchesRequest r;
    r.set_event(event);
    r.set_status("done");
    r.set_kind("ladder");
    absl::StatusOr<v1::ListMatchesResponse> m = scheduler_->ListMatches(r);
    return m.ok() ? m->total() : -1;
  }
  // The organiser (`token`) enters registered bots into `slug`'s field.
  void EnterHouseBots(const std::string& slug, const std::string& token,
                      const std::vector<std::string>& bots) {
    for (const std::string& bot : bots) {
      v1::EnterHouseBotRequest e;
      e.set_slug(slug);
      e.set_organiser_token(token);
      e.set_bot(bot);
      e.set_bot_token(bot_tokens_[bot]);
      ASSERT_TRUE(scheduler_->EnterHouseBot(e).ok()) << bot;
    }
  }
  void WaitFor(const std::function<bool()>& done, absl::Duration limit = absl::Seconds(120)) {
    const absl::Time deadline = absl::Now() + limit;
    while (!done() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(50));
    ASSERT_TRUE(done()) << "timed out";
  }
};

// Issue 47: the lines handed to an entrant name the arena they were made
// for, keep the token in the environment, and transliterate the name.
TEST(EntrantConnectLineTest, NamesTheArenaKeepsTheTokenOutAndTransliterates) {
  v1::EventConfig c;
  c.add_variants("slovenian-4p");
  const std::string line =
      EntrantConnectLine("class-1a", "TOK", "Filip Kova\xC4\x8D \xC5\xBDiga", c, "arena.example.org:7700", true);
  EXPECT_EQ(line,
            "export TAROCK_ENTRANT_TOKEN=TOK\n"
            "python3 -m tarock_bot register class-1a-filipkovacziga --dial_in --variants slovenian-4p "
            "--event class-1a --arena arena.example.org:7700 --tls_ca ca.pem");
  c.set_hosted_only(true);
  EXPECT_NE(EntrantConnectLine("e", "T", "\xE2\x98\x83", c, "a:1", false).find(" register e-bot --hosted "),
            std::string::npos);
}

TEST_F(EventsTest, TwoEventsWithOverlappingBotsHaveSeparateLeaderboardsAndRatings) {
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  AddBot("r3", "random");
  v1::CreateEventResponse a = Create("class-a");
  v1::CreateEventResponse b = Create("class-b");
  EnterHouseBots("class-a", a.organiser_token(), {"h1", "r1", "r2"});
  EnterHouseBots("class-b", b.organiser_token(), {"h1", "r1", "r3"});
  WaitFor([&] { return Done("class-a") >= 6 && Done("class-b") >= 6; });
  absl::StatusOr<v1::LeaderboardResponse> la = scheduler_->Leaderboard("slovenian-3p", "class-a");
  absl::StatusOr<v1::LeaderboardResponse> lb = scheduler_->Leaderboard("slovenian-3p", "class-b");
  ASSERT_TRUE(la.ok() && lb.ok());
  std::set<std::string> in_a, in_b;
  for (const auto& e : la->entries()) in_a.insert(e.bot());
  for (const auto& e : lb->entries()) in_b.insert(e.bot());
  EXPECT_EQ(in_a, (std::set<std::string>{"h1", "r1", "r2"}));
  EXPECT_EQ(in_b, (std::set<std::string>{"h1", "r1", "r3"}));
  // No open ladder runs: the open board is empty.
  EXPECT_EQ(scheduler_->Leaderboard("slovenian-3p")->entries_size(), 0);
  // h1 has two ratings, one per event, each resting on its own matches.
  absl::StatusOr<v1::BotInfo> h1 = scheduler_->GetBot("h1", false);
  ASSERT_TRUE(h1.ok());
  std::map<std::string, int> matches;
  for (const auto& r : h1->ratings()) matches[r.event()] = r.matches();
  ASSERT_EQ(matches.size(), 2u);
  v1::ListMatchesRequest ra;
  ra.set_event("class-a");
  ra.set_limit(1000);
  absl::StatusOr<v1::ListMatchesResponse> in_a_matches = scheduler_->ListMatches(ra);
  ASSERT_TRUE(in_a_matches.ok());
  EXPECT_GE(in_a_matches->matches_size(), 6);
  for (const auto& m : in_a_matches->matches()) {
    EXPECT_EQ(m.event(), "class-a");
    for (const auto& s : m.seats()) EXPECT_NE(s.bot(), "r3") << m.id();
  }
  // The open event lists the class matches nowhere.
  v1::ListMatchesRequest ro;
  ro.set_event("open");
  EXPECT_EQ(scheduler_->ListMatches(ro)->total(), 0);
}

TEST_F(EventsTest, SignUpsAreRefusedClearlyAndRefusalsStoreNothing) {
  StartScheduler();
  v1::CreateEventResponse a = Create("small", "", 1, /*max_entrants=*/2);
  v1::JoinEventRequest j;
  j.set_code("not-the-code");
  j.set_name("Ann");
  EXPECT_EQ(scheduler_->JoinEvent(j).status().code(), absl::StatusCode::kNotFound);
  j.set_code(a.invite_code());
  ASSERT_TRUE(scheduler_->JoinEvent(j).ok());
  j.set_name("ANN");
  EXPECT_EQ(scheduler_->JoinEvent(j).status().code(), absl::StatusCode::kAlreadyExists);
  j.set_name("bad\x1bname");
  EXPECT_EQ(scheduler_->JoinEvent(j).status().code(), absl::StatusCode::kInvalidArgument);
  j.set_name("Bob");
  ASSERT_TRUE(scheduler_->JoinEvent(j).ok());
  j.set_name("Cid");
  absl::Status full = scheduler_->JoinEvent(j).status();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
  EXPECT_EQ(scheduler_->GetEvent([&] {
              v1::GetEventRequest g;
              g.set_slug("small");
              return g;
            }())->entrants(),
            2);
  // Registration closed: an event whose registration window has passed.
  v1::CreateEventRequest r;
  r.set_admin_token("admin");
  v1::EventConfig* c = r.mutable_config();
  c->set_slug("later");
  c->set_name("Later");
  c->set_kind("class");
  c->add_variants("slovenian-3p");
  c->mutable_schedule()->set_registration_opens("2099-01-01 00:00:00");
  absl::StatusOr<v1::CreateEventResponse> later = scheduler_->CreateEvent(r);
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_EQ(later->event().status(), "upcoming");
  j.set_code(later->invite_code());
  absl::Status closed = scheduler_->JoinEvent(j).status();
  EXPECT_EQ(closed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(closed.message().find("opens at 2099-01-01"), std::string::npos) << closed;
  // Bad configurations: one clear error each, nothing stored.
  for (const std::string& slug : std::vector<std::string>{"A", "open", "-x", std::string(41, 'a')}) {
    c->set_slug(slug);
    EXPECT_EQ(scheduler_->CreateEvent(r).status().code(), absl::StatusCode::kInvalidArgument) << slug;
  }
  c->set_slug("later");
  EXPECT_EQ(scheduler_->CreateEvent(r).status().code(), absl::StatusCode::kAlreadyExists);
  r.set_admin_token("wrong");
  c->set_slug("other");
  EXPECT_EQ(scheduler_->CreateEvent(r).status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(EventsTest, OrganisersAndEntrantsChangeOnlyWhatIsTheirs) {
  StartScheduler();
  v1::CreateEventResponse a = Create("ev-a");
  v1::CreateEventResponse b = Create("ev-b");
  v1::EventRosterRequest roster;
  roster.set_slug("ev-b");
  roster.set_organiser_token(a.organiser_token());
  EXPECT_EQ(scheduler_->EventRoster(roster).status().code(), absl::StatusCode::kPermissionDenied);
  roster.set_organiser_token(b.organiser_token());
  EXPECT_TRUE(scheduler_->EventRoster(roster).ok());
  v1::CloseEventRequest close;
  close.set_slug("ev-b");
  close.set_organiser_token(a.organiser_token());
  EXPECT_EQ(scheduler_->CloseEvent(close).status().code(), absl::StatusCode::kPermissionDenied);
  const std::string ann = Enter("ev-a", a.invite_code(), "ann", "random");
  const std::string bob = Enter("ev-a", a.invite_code(), "bob", "random");
  v1::WithdrawBotRequest w;
  w.set_slug("ev-a");
  w.set_bot("ev-a-ann");
  w.set_token(bob);  // another entrant
  EXPECT_EQ(scheduler_->WithdrawBot(w).status().code(), absl::StatusCode::kPermissionDenied);
  w.set_token(b.organiser_token());  // another event's organiser
  EXPECT_EQ(scheduler_->WithdrawBot(w).status().code(), absl::StatusCode::kPermissionDenied);
  w.set_token(ann);
  EXPECT_TRUE(scheduler_->WithdrawBot(w).ok());
  // An entrant's token registers into its own event only, within its limit.
  v1::AddBotRequest add;
  add.set_name("sneaky");
  add.set_endpoint("inproc:random");
  add.add_variants("slovenian-3p");
  add.set_event("ev-b");
  add.set_entrant_token(bob);
  EXPECT_EQ(scheduler_->AddBot(add).status().code(), absl::StatusCode::kPermissionDenied);
  add.set_event("ev-a");
  EXPECT_EQ(scheduler_->AddBot(add).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(scheduler_->GetBot("sneaky", false).ok());
  // The organiser reissues a lost token: the old one stops working.
  v1::ReissueEntrantTokenRequest re;
  re.set_slug("ev-a");
  re.set_organiser_token(a.organiser_token());
  re.set_entrant("BOB");
  absl::StatusOr<v1::JoinEventResponse> fresh = scheduler_->ReissueEntrantToken(re);
  ASSERT_TRUE(fresh.ok());
  EXPECT_NE(fresh->token(), bob);
  w.set_bot("ev-a-bob");
  w.set_token(bob);
  EXPECT_EQ(scheduler_->WithdrawBot(w).status().code(), absl::StatusCode::kPermissionDenied);
  w.set_token(fresh->token());
  EXPECT_TRUE(scheduler_->WithdrawBot(w).ok());
}

// Issue 47 (low): the roster shows each bot's newest upload and a failed
// build, and the upload counts as the entrant's last change.
TEST_F(EventsTest, TheRosterShowsTheNewestUploadAndAFailedBuild) {
  StartScheduler();
  v1::CreateEventResponse ev = Create("ev-r");
  Enter("ev-r", ev.invite_code(), "ann", "random");
  Enter("ev-r", ev.invite_code(), "bob", "random");
  absl::StatusOr<BotRow> ann = store_->FindBot("ev-r-ann");
  ASSERT_TRUE(ann.ok());
  VersionRow v;
  v.bot_id = ann->id;
  v.kind = "python";
  v.entry = "bot.py";
  v.filename = "bot.py";
  v.sha256 = std::string(64, 'a');
  v.size = 1;
  v.content = "eA==";
  absl::StatusOr<int64_t> first = store_->AddVersion(v, 3);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(store_->SetVersionStatus(*first, "ready", "").ok());
  v.sha256 = std::string(64, 'b');
  absl::StatusOr<int64_t> second = store_->AddVersion(v, 3);
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_TRUE(store_->SetVersionStatus(*second, "failed", "SyntaxError").ok());
  v1::EventRosterRequest r;
  r.set_slug("ev-r");
  r.set_organiser_token(ev.organiser_token());
  absl::StatusOr<v1::EventRosterResponse> roster = scheduler_->EventRoster(r);
  ASSERT_TRUE(roster.ok()) << roster.status();
  ASSERT_EQ(roster->entrants_size(), 2);
  for (const v1::EventEntrant& e : roster->entrants()) {
    ASSERT_EQ(e.bots_size(), 1) << e.name();
    if (e.name() == "ann") {
      EXPECT_EQ(e.bots(0).newest_version(), *second);
      EXPECT_EQ(e.bots(0).newest_version_status(), "failed");
      EXPECT_GE(e.updated_at(), store_->ListVersions(ann->id).front().uploaded_at);
    } else {
      EXPECT_EQ(e.bots(0).newest_version(), 0);
      EXPECT_EQ(e.bots(0).newest_version_status(), "");
    }
  }
}

// Issue 44 (medium 6): an organiser enters only bots whose owner agreed (the
// bot's token: their own bot, or one its owner gave them) and never an
// entrant's bot of another event; a hosted-only event takes no listening or
// dial-in bot by this door; the owner withdraws their bot whenever they like,
// frozen or not, and is then no longer held by that event.
TEST_F(EventsTest, AnOrganiserEntersOnlyBotsWhoseOwnerAgreedAndTheOwnerAlwaysWithdraws) {
  StartScheduler();
  AddBot("someone", "random");
  v1::CreateEventResponse a = Create("ev-a");
  v1::CreateEventResponse b = Create("ev-b");
  Enter("ev-a", a.invite_code(), "ann", "random");
  v1::EnterHouseBotRequest e;
  e.set_slug("ev-b");
  e.set_organiser_token(b.organiser_token());
  e.set_bot("ev-a-ann");  // another event's entrant's bot
  EXPECT_EQ(scheduler_->EnterHouseBot(e).status().code(), absl::StatusCode::kFailedPrecondition);
  e.set_bot("someone");  // somebody else's bot, without its token
  EXPECT_EQ(scheduler_->EnterHouseBot(e).status().code(), absl::StatusCode::kPermissionDenied);
  e.set_bot_token(a.organiser_token());
  EXPECT_EQ(scheduler_->EnterHouseBot(e).status().code(), absl::StatusCode::kPermissionDenied);
  for (const EventBotRow& x : store_->EventBots(store_->GetEvent("ev-b")->id))
    EXPECT_TRUE(x.withdrawn) << "bot " << x.bot_id << " entered without its owner";
  e.set_bot_token(bot_tokens_["someone"]);  // the owner agreed
  ASSERT_TRUE(scheduler_->EnterHouseBot(e).ok());
  // The final runs: the organiser can no longer withdraw it, its owner can.
  absl::StatusOr<EventRow> ev = store_->GetEvent("ev-b");
  ASSERT_TRUE(ev.ok());
  ev->status = "frozen";
  ASSERT_TRUE(store_->UpdateEvent(*ev).ok());
  v1::WithdrawBotRequest w;
  w.set_slug("ev-b");
  w.set_bot("someone");
  w.set_token(b.organiser_token());
  EXPECT_EQ(scheduler_->WithdrawBot(w).status().code(), absl::StatusCode::kFailedPrecondition);
  w.set_token(bot_tokens_["someone"]);
  ASSERT_TRUE(scheduler_->WithdrawBot(w).ok());
  for (const EventBotRow& x : store_->EventBots(ev->id)) EXPECT_TRUE(x.withdrawn);
  // A hosted-only event: a dial-in bot is refused even with its token; the
  // admin's token enters a hosted reference bot without one.
  v1::CreateEventRequest c;
  c.set_admin_token("admin");
  c.mutable_config()->set_slug("hosted-cup");
  c.mutable_config()->set_name("Hosted cup");
  c.mutable_config()->set_kind("competition");
  c.mutable_config()->add_variants("slovenian-3p");
  c.mutable_config()->set_hands_per_match(3);
  c.mutable_config()->set_hosted_only(true);
  absl::StatusOr<v1::CreateEventResponse> h = scheduler_->CreateEvent(c);
  ASSERT_TRUE(h.ok()) << h.status();
  for (const bool hosted : {false, true}) {
    v1::AddBotRequest r;
    r.set_name(hosted ? "ref-hosted" : "ref-dial-in");
    r.set_owner("arena");
    (hosted ? r.set_hosted(true) : r.set_dial_in(true));
    r.add_variants("slovenian-3p");
    absl::StatusOr<v1::AddBotResponse> added = scheduler_->AddBot(r);
    ASSERT_TRUE(added.ok()) << added.status();
    v1::EnterHouseBotRequest x;
    x.set_slug("hosted-cup");
    x.set_organiser_token(hosted ? "admin" : h->organiser_token());
    x.set_bot(r.name());
    x.set_bot_token(hosted ? "" : added->token());
    absl::StatusOr<v1::EventInfo> entered = scheduler_->EnterHouseBot(x);
    if (hosted) EXPECT_TRUE(entered.ok()) << entered.status();
    else EXPECT_EQ(entered.status().code(), absl::StatusCode::kFailedPrecondition);
  }
}

// Issue 44 (low): an entrant's name in the grading CSV is never a formula a
// spreadsheet would run: cells starting with = + - @ are quoted text with a
// leading ' (OWASP, "CSV Injection").
TEST_F(EventsTest, TheGradingCsvNeutralisesFormulas) {
  StartScheduler();
  v1::CreateEventResponse a = Create("ev-csv");
  for (const char* name : {"=HYPERLINK(\"http://evil\",\"x\")", "+1+2", "-3+4", "@SUM(A1)"}) {
    v1::JoinEventRequest j;
    j.set_code(a.invite_code());
    j.set_name(name);
    ASSERT_TRUE(scheduler_->JoinEvent(j).ok()) << name;
  }
  v1::ExportEventRequest x;
  x.set_slug("ev-csv");
  x.set_organiser_token(a.organiser_token());
  x.set_format("csv");
  absl::StatusOr<v1::ExportEventResponse> csv = scheduler_->ExportEvent(x);
  ASSERT_TRUE(csv.ok()) << csv.status();
  // The entrant is each row's first cell (docs/events.md, "Export").
  EXPECT_THAT(csv->body(), ::testing::HasSubstr("\n\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\","));
  EXPECT_THAT(csv->body(), ::testing::HasSubstr("\n\"'+1+2\","));
  EXPECT_THAT(csv->body(), ::testing::HasSubstr("\n\"'-3+4\","));
  EXPECT_THAT(csv->body(), ::testing::HasSubstr("\n\"'@SUM(A1)\","));
  for (const char* bad : {",=", ",+", ",-", ",@", "\n=", "\n+", "\n-", "\n@"})
    EXPECT_THAT(csv->body(), ::testing::Not(::testing::HasSubstr(bad))) << csv->body();
}

// Issue 44 (low): an unlisted event's slug and its entrants' names are not
// public through the bot listings (the HTTP API's /api/bots, gRPC ListBots
// and GetBot): no `event`, `events`, `owner` or ratings naming it.
TEST_F(EventsTest, AnUnlistedEventIsNotNamedByThePublicBotListings) {
  StartScheduler();
  AddBot("house", "random");
  v1::CreateEventRequest c;
  c.set_admin_token("admin");
  c.mutable_config()->set_slug("secret-cup");
  c.mutable_config()->set_name("Secret cup");
  c.mutable_config()->set_kind("class");
  c.mutable_config()->add_variants("slovenian-3p");
  c.mutable_config()->set_hands_per_match(3);
  c.mutable_config()->set_unlisted(true);
  absl::StatusOr<v1::CreateEventResponse> ev = scheduler_->CreateEvent(c);
  ASSERT_TRUE(ev.ok()) << ev.status();
  v1::JoinEventRequest j;
  j.set_code(ev->invite_code());
  j.set_name("Zoe Quill");
  absl::StatusOr<v1::JoinEventResponse> joined = scheduler_->JoinEvent(j);
  ASSERT_TRUE(joined.ok()) << joined.status();
  v1::AddBotRequest bot;
  bot.set_name("quiet-bot");
  bot.set_endpoint("inproc:random");
  bot.add_variants("slovenian-3p");
  bot.set_event("secret-cup");
  bot.set_entrant_token(joined->token());
  ASSERT_TRUE(scheduler_->AddBot(bot).ok());
  v1::EnterHouseBotRequest e;
  e.set_slug("secret-cup");
  e.set_organiser_token(ev->organiser_token());
  e.set_bot("house");
  e.set_bot_token(bot_tokens_["house"]);
  ASSERT_TRUE(scheduler_->EnterHouseBot(e).ok());
  const v1::ListBotsResponse list = scheduler_->ListBots({});
  ASSERT_EQ(list.bots_size(), 2);
  for (const v1::BotInfo& b : list.bots()) {
    EXPECT_EQ(b.DebugString().find("secret-cup\""), std::string::npos) << b.DebugString();
    EXPECT_EQ(b.DebugString().find("Zoe"), std::string::npos) << b.DebugString();
    absl::StatusOr<v1::BotInfo> one = scheduler_->GetBot(b.name(), true);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->DebugString().find("secret-cup\""), std::string::npos) << one->DebugString();
    EXPECT_EQ(one->DebugString().find("Zoe"), std::string::npos) << one->DebugString();
  }
}

// Issue 44 (low): an entrant's bot cannot be given variants outside its
// event by `bots update`; no bot's variants list names a variant twice.
TEST_F(EventsTest, AnEventsBotKeepsToItsVariantsAndNoListHoldsDuplicates) {
  StartScheduler();
  v1::CreateEventResponse a = Create("ev-u");
  v1::JoinEventRequest j;
  j.set_code(a.invite_code());
  j.set_name("ann");
  absl::StatusOr<v1::JoinEventResponse> joined = scheduler_->JoinEvent(j);
  ASSERT_TRUE(joined.ok()) << joined.status();
  v1::AddBotRequest b;
  b.set_name("ev-u-ann");
  b.set_endpoint("inproc:random");
  b.add_variants("slovenian-3p");
  b.add_variants("slovenian-3p");
  b.set_event("ev-u");
  b.set_entrant_token(joined->token());
  EXPECT_EQ(scheduler_->AddBot(b).status().code(), absl::StatusCode::kInvalidArgument);
  b.clear_variants();
  b.add_variants("slovenian-3p");
  absl::StatusOr<v1::AddBotResponse> added = scheduler_->AddBot(b);
  ASSERT_TRUE(added.ok()) << added.status();
  v1::UpdateBotRequest u;
  u.set_name("ev-u-ann");
  u.set_token(added->token());
  u.add_variants("slovenian-4p");  // not the event's
  EXPECT_EQ(scheduler_->UpdateBot(u).status().code(), absl::StatusCode::kInvalidArgument);
  u.clear_variants();
  for (int i = 0; i < 1000; ++i) u.add_variants("slovenian-3p");
  EXPECT_EQ(scheduler_->UpdateBot(u).status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<BotRow> row = store_->FindBot("ev-u-ann");
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->variants, std::vector<std::string>{"slovenian-3p"});
}

// A competition whose deadline passes while its ladder runs: the entries
// freeze, the final runs by itself and its standings are the results; an
// arena stopped in the middle of the final resumes it, nothing doubled.
TEST_F(EventsTest, TheDeadlineFreezesEntriesAndTheFinalRunsAndResumesAfterARestart) {
  StartScheduler();
  const std::string deadline = absl::FormatTime("%Y-%m-%d %H:%M:%S",
                                                absl::Now() + absl::Seconds(3), absl::UTCTimeZone());
  v1::CreateEventResponse ev = Create("cup", deadline);
  Enter("cup", ev.invite_code(), "ann", "heuristic");
  Enter("cup", ev.invite_code(), "bob", "random");
  Enter("cup", ev.invite_code(), "cid", "random");
  const std::string dan = Enter("cup", ev.invite_code(), "dan", "random");
  v1::GetEventRequest get;
  get.set_slug("cup");
  EXPECT_EQ(scheduler_->GetEvent(get)->final_matches_planned(), 3 * 3);  // ceil(4*2/3) tables x 3
  // The referees go down before the deadline, so the final is made but
  // cannot run until the arena is back.
  referees_.SetDown("ref-a:1");
  referees_.SetDown("ref-b:1");
  WaitFor([&] { return scheduler_->GetEvent(get)->status() != "open"; });
  absl::StatusOr<v1::EventInfo> frozen = scheduler_->GetEvent(get);
  ASSERT_TRUE(frozen.ok());
  EXPECT_FALSE(frozen->frozen_at().empty());
  // Entries are frozen: no new bot, no withdrawal.
  v1::AddBotRequest late;
  late.set_name("late");
  late.set_endpoint("inproc:random");
  late.add_variants("slovenian-3p");
  late.set_event("cup");
  late.set_entrant_token(dan);
  EXPECT_EQ(scheduler_->AddBot(late).status().code(), absl::StatusCode::kFailedPrecondition);
  WaitFor([&] { return scheduler_->GetEvent(get)->final_tournament_id() != 0; });
  const int64_t final_id = scheduler_->GetEvent(get)->final_tournament_id();
  EXPECT_EQ(scheduler_->GetTournament(final_id)->matches_done(), 0);
  EXPECT_EQ(scheduler_->GetEvent(get)->status(), "frozen");
  // Stopped with the final unplayed; started again with the referees up.
  scheduler_.reset();
  referees_.SetUp("ref-a:1");
  referees_.SetUp("ref-b:1");
  StartScheduler();
  WaitFor([&] { return scheduler_->GetEvent(get)->status() == "finished"; });
  absl::StatusOr<v1::EventInfo> done = scheduler_->GetEvent(get);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->final_tournament_id(), final_id);  // one final, not two
  ASSERT_EQ(done->results_size(), 4);
  std::set<std::string> entrants;
  for (const auto& r : done->results()) {
    entrants.insert(r.entrant());
    EXPECT_GT(r.hands(), 0);
    EXPECT_FALSE(r.frozen());  // listening bots: the arena cannot freeze them
    // The final's margin (issue 33): its rotated sets rated on margins.
    EXPECT_GT(r.margin().deals(), 0) << r.bot();
    EXPECT_LT(r.margin().low(), r.margin().mu()) << r.bot();
    EXPECT_GT(r.margin().high(), r.margin().mu()) << r.bot();
  }
  EXPECT_EQ(entrants, (std::set<std::string>{"ann", "bob", "cid", "dan"}));
  // Computed when read, the same bit for bit each time.
  absl::StatusOr<v1::EventInfo> again = scheduler_->GetEvent(get);
  ASSERT_TRUE(again.ok());
  for (int i = 0; i < done->results_size(); ++i) {
    EXPECT_EQ(again->results(i).margin().mu(), done->results(i).margin().mu());
    EXPECT_EQ(again->results(i).margin().sigma(), done->results(i).margin().sigma());
  }
  // The pairs table (collusion): pairs that met and also played apart.
  ASSERT_GT(done->pairs_size(), 0);
  for (const v1::EventPair& p : done->pairs()) {
    EXPECT_GT(p.matches_together(), 0);
    EXPECT_DOUBLE_EQ(p.joint_gain(), p.a_with() - p.a_without() + p.b_with() - p.b_without());
  }
  for (int i = 1; i < done->pairs_size(); ++i)
    EXPECT_GE(done->pairs(i - 1).joint_gain(), done->pairs(i).joint_gain());
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->GetTournament(final_id);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->matches_total(), 9);
  EXPECT_EQ(t->matches_done(), 9);
  for (const auto& [id, times] : referees_.finished()) EXPECT_EQ(times, 1) << id;
  // The export holds the final standings and the roster.
  v1::ExportEventRequest x;
  x.set_slug("cup");
  x.set_organiser_token(ev.organiser_token());
  x.set_format("csv");
  absl::StatusOr<v1::ExportEventResponse> csv = scheduler_->ExportEvent(x);
  ASSERT_TRUE(csv.ok()) << csv.status();
  // One table (docs/events.md "Export for grading"): the documented
  // columns, one row per bot, the final over.
  EXPECT_EQ(csv->body().substr(0, csv->body().find('\n')), absl::StrJoin(kEventExportColumns, ","));
  EXPECT_NE(csv->body().find("\ndan,cup-dan,online,final,"), std::string::npos) << csv->body();
  EXPECT_EQ(std::count(csv->body().begin(), csv->body().end(), '\n'), 5) << csv->body();
  x.set_format("json");
  EXPECT_NE(scheduler_->ExportEvent(x)->body().find("\"final\""), std::string::npos);
  x.set_format("xml");
  EXPECT_EQ(scheduler_->ExportEvent(x).status().code(), absl::StatusCode::kInvalidArgument);
}

// Issue 33: an event's ladder plays matches rated on places while its field
// cannot fill a duplicate set, switches to duplicate sets rated on margins
// (points a deal) once it can (6 bots for slovenian-3p: a bridge set), and
// back when a withdrawal leaves too few; both histories stay, nothing is
// recomputed, and the event's info, leaderboard and export say which.
TEST_F(EventsTest, AnEventLadderRatesMarginsOnceItsFieldFillsASet) {
  StartScheduler();
  for (const char* b : {"h1", "h2", "h3", "r1", "r2", "r3"}) AddBot(b, b[0] == 'h' ? "heuristic" : "random");
  v1::CreateEventResponse ev = Create("cup");
  EnterHouseBots("cup", ev.organiser_token(), {"h1", "r1", "r2"});
  WaitFor([&] { return Done("cup") >= 3; });
  v1::GetEventRequest get;
  get.set_slug("cup");
  absl::StatusOr<v1::EventInfo> info = scheduler_->GetEvent(get);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->ladders_size(), 1);
  EXPECT_EQ(info->ladders(0).rating_model(), "place");
  EXPECT_EQ(info->ladders(0).format(), "match");
  EXPECT_EQ(info->ladders(0).bots(), 3);
  EXPECT_EQ(info->ladders(0).set_bots(), 6);
  EXPECT_NE(info->ladders(0).note().find("6 bots needed, 3 play slovenian-3p"), std::string::npos)
      << info->ladders(0).note();
  EXPECT_EQ(scheduler_->Leaderboard("slovenian-3p", "cup")->rating_model(), "place");

  // Three more bots: a bridge set of 6. The match ladder stops, a duplicate
  // margin ladder starts, and its sets are booked.
  EnterHouseBots("cup", ev.organiser_token(), {"h2", "h3", "r3"});
  WaitFor([&] {
    absl::StatusOr<v1::LeaderboardResponse> b = scheduler_->Leaderboard("slovenian-3p", "cup");
    if (!b.ok() || b->rating_model() != "margin" || b->entries_size() != 6) return false;
    for (const auto& e : b->entries())
      if (e.margin().deals() < 6) return false;
    return true;
  });
  absl::StatusOr<v1::LeaderboardResponse> margin = scheduler_->Leaderboard("slovenian-3p", "cup");
  ASSERT_TRUE(margin.ok());
  EXPECT_EQ(margin->unit(), "points a deal");
  for (const auto& e : margin->entries()) {
    EXPECT_LT(e.margin().low(), e.margin().mu()) << e.bot();
    EXPECT_GT(e.margin().high(), e.margin().mu()) << e.bot();
  }
  info = scheduler_->GetEvent(get);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->ladders(0).rating_model(), "margin");
  EXPECT_EQ(info->ladders(0).format(), "duplicate");
  EXPECT_NE(info->ladders(0).note().find("points a deal with a 95% interval"), std::string::npos)
      << info->ladders(0).note();
  int event_ladders = 0;
  const v1::ListLaddersResponse ladders = scheduler_->ListLadders();
  for (const v1::LadderInfo& l : ladders.ladders()) {
    if (l.config().event() != "cup") continue;
    ++event_ladders;
    EXPECT_EQ(l.running(), l.config().rating_model() == "margin") << l.config().rating_model();
  }
  EXPECT_EQ(event_ladders, 2);
  // Both histories: the place ratings are still there (the first three's,
  // and those of bots that played a match while the field grew to 6).
  EXPECT_GE(scheduler_->Leaderboard("slovenian-3p", "cup", "place")->entries_size(), 3);
  absl::StatusOr<v1::BotInfo> h1 = scheduler_->GetBot("h1", false);
  ASSERT_TRUE(h1.ok());
  EXPECT_EQ(h1->ratings_size(), 1);
  EXPECT_EQ(h1->margin_ratings_size(), 1);

  // The export speaks margins for this ladder.
  v1::ExportEventRequest x;
  x.set_slug("cup");
  x.set_organiser_token(ev.organiser_token());
  x.set_format("csv");
  absl::StatusOr<v1::ExportEventResponse> csv = scheduler_->ExportEvent(x);
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_NE(csv->body().find(",margin,"), std::string::npos) << csv->body();
  x.set_format("json");
  absl::StatusOr<v1::ExportEventResponse> js = scheduler_->ExportEvent(x);
  ASSERT_TRUE(js.ok());
  EXPECT_NE(js->body().find("\"rating_model\": \"margin\""), std::string::npos) << js->body();
  EXPECT_NE(js->body().find("\"deals\""), std::string::npos);

  // A withdrawal leaves 5: back to matches rated on places; the margin
  // ratings stay as they were.
  v1::WithdrawBotRequest w;
  w.set_slug("cup");
  w.set_token(ev.organiser_token());
  w.set_bot("r3");
  ASSERT_TRUE(scheduler_->WithdrawBot(w).ok());
  WaitFor([&] {
    absl::StatusOr<v1::EventInfo> i = scheduler_->GetEvent(get);
    return i.ok() && i->ladders(0).rating_model() == "place";
  });
  EXPECT_EQ(scheduler_->Leaderboard("slovenian-3p", "cup")->rating_model(), "place");
  absl::StatusOr<v1::LeaderboardResponse> kept = scheduler_->Leaderboard("slovenian-3p", "cup", "margin");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->entries_size(), 6);  // r3 withdrawn from the field, its rating kept
}

// Closing an event whose ladder plays duplicate sets stops it; the sets in
// play finish or are dropped, nothing else changes.
TEST_F(EventsTest, ClosingAnEventStopsItsDuplicateLadder) {
  StartScheduler();
  for (const char* b : {"h1", "h2", "h3", "r1", "r2", "r3"}) AddBot(b, b[0] == 'h' ? "heuristic" : "random");
  v1::CreateEventResponse ev = Create("cup");
  EnterHouseBots("cup", ev.organiser_token(), {"h1", "h2", "h3", "r1", "r2", "r3"});
  WaitFor([&] {
    absl::StatusOr<v1::LeaderboardResponse> b = scheduler_->Leaderboard("slovenian-3p", "cup");
    return b.ok() && b->rating_model() == "margin" && b->entries_size() == 6;
  });
  v1::CloseEventRequest c;
  c.set_slug("cup");
  c.set_organiser_token(ev.organiser_token());
  absl::StatusOr<v1::EventInfo> closed = scheduler_->CloseEvent(c);
  ASSERT_TRUE(closed.ok()) << closed.status();
  EXPECT_EQ(closed->status(), "closed");
  ASSERT_EQ(closed->ladders_size(), 1);
  EXPECT_EQ(closed->ladders(0).rating_model(), "margin");
  absl::SleepFor(absl::Milliseconds(1500));  // an event tick: nothing starts again
  const v1::ListLaddersResponse ladders = scheduler_->ListLadders();
  for (const v1::LadderInfo& l : ladders.ladders()) EXPECT_FALSE(l.running()) << l.id();
}

// Events share the referees by weight: a weight-3 event's ladder makes about
// three matches for every one of a weight-1 event's.
TEST_F(EventsTest, EventsShareTheSlotsByWeight) {
  options_.max_parallel = 2;
  StartScheduler();
  for (const char* b : {"h1", "r1", "r2", "h2", "r3", "r4"}) AddBot(b, b[0] == 'h' ? "heuristic" : "random");
  v1::CreateEventResponse big = Create("big", "", 3);
  v1::CreateEventResponse small = Create("small", "", 1);
  EnterHouseBots("big", big.organiser_token(), {"h1", "r1", "r2"});
  EnterHouseBots("small", small.organiser_token(), {"h2", "r3", "r4"});
  WaitFor([&] { return Done("big") + Done("small") >= 80; });
  const double big_done = static_cast<double>(Done("big"));
  const double small_done = static_cast<double>(Done("small"));
  EXPECT_GT(small_done, 0);
  EXPECT_GE(big_done / small_done, 1.8) << big_done << " to " << small_done;
  EXPECT_LE(big_done / small_done, 5.0) << big_done << " to " << small_done;
}

}  // namespace
}  // namespace tarock::arena
