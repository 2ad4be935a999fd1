// The scheduler with real matches in process: the referee's MatchRunner plays
// them between in-process bots (random and the heuristic), behind a
// RefereeClient that can also play a referee that is down. The end-to-end
// tests with processes and gRPC are in tests/arena_test.cc.

#include "arena/scheduler/scheduler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bots/heuristic/heuristic_bot.h"
#include "nlohmann/json.hpp"
#include "referee/core/in_process_connector.h"
#include "referee/core/match_runner.h"
#include "referee/metrics/exposition.h"

namespace tarock::arena {
namespace {

namespace fs = std::filesystem;

class RandomBot : public sdk::Bot {
 public:
  void StartMatch(const sdk::MatchInfo& match) override { rng_.seed(match.seat + 1); }
  std::string Decide(const sdk::Situation& s) override {
    std::uniform_int_distribution<size_t> pick(0, s.legal().size() - 1);
    return s.legal()[pick(rng_)];
  }

 private:
  std::mt19937_64 rng_;
};

// Passes whenever it may: the first bot a student writes.
class AlwaysPassBot : public sdk::Bot {
 public:
  std::string Decide(const sdk::Situation& s) override {
    for (const std::string& a : s.legal())
      if (a == "pass") return a;
    return s.legal().front();
  }
};

// Referees in this process: every address runs the match on the calling
// thread, except the addresses marked down, which answer UNAVAILABLE.
class InProcessReferees : public RefereeClient {
 public:
  InProcessReferees() : runner_(RefereeOptions(), &connector_, nullptr) {
    connector_.Register("random", [] { return std::make_unique<RandomBot>(); });
    connector_.Register("heuristic", [] { return std::make_unique<bots::HeuristicBot>(); });
    connector_.Register("pass", [] { return std::make_unique<AlwaysPassBot>(); });
  }
  absl::StatusOr<v1::MatchFinished> RunMatch(const std::string& address, const v1::MatchSpec& spec,
                                             const std::atomic<bool>* cancel) override {
    {
      absl::MutexLock lock(&mu_);
      calls_.push_back(address);
      if (down_.count(address)) return absl::UnavailableError(absl::StrCat(address, " is down"));
    }
    return runner_.Run(spec, [](const v1::MatchEvent&) {},
                       [cancel] { return cancel != nullptr && cancel->load(); });
  }
  void SetDown(const std::string& address) {
    absl::MutexLock lock(&mu_);
    down_.insert(address);
  }
  std::vector<std::string> calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  InProcessConnector connector_;
  MatchRunner runner_;
  absl::Mutex mu_;
  std::set<std::string> down_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
};

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           absl::StrCat("scheduler_test_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    absl::StatusOr<std::unique_ptr<Store>> s = Store::Open((dir_ / "arena.db").string());
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
    options_.referees = {"ref-a:1", "ref-b:1"};
    options_.max_parallel = 3;
    options_.referee_rest = absl::Seconds(60);
  }
  void TearDown() override {
    scheduler_.reset();
    store_.reset();
    fs::remove_all(dir_);
  }
  void StartScheduler() {
    scheduler_ = std::make_unique<Scheduler>(store_.get(), &referees_, options_, &registry_);
    ASSERT_TRUE(scheduler_->Start().ok());
  }
  void AddBot(const std::string& name, const std::string& kind,
              const std::string& variant = "slovenian-3p") {
    v1::AddBotRequest r;
    r.set_name(name);
    r.set_endpoint(absl::StrCat("inproc:", kind));
    r.set_owner(name);
    r.add_variants(variant);
    ASSERT_TRUE(scheduler_->AddBot(r).ok());
  }
  // Waits (bounded) until the tournament has no match left to run.
  v1::TournamentInfo WaitForTournament(int64_t id) {
    const absl::Time deadline = absl::Now() + absl::Seconds(120);
    absl::StatusOr<v1::TournamentInfo> t = scheduler_->GetTournament(id);
    while (t.ok() && !t->finished() && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
      t = scheduler_->GetTournament(id);
    }
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : v1::TournamentInfo();
  }
  v1::RunTournamentRequest Tournament(int deals, int hands = 3) {
    v1::RunTournamentRequest r;
    r.set_variant("slovenian-3p");
    for (const char* b : {"h1", "r1", "r2"}) r.add_bots(b);
    r.set_deals(deals);
    r.set_hands_per_match(hands);
    r.set_seed(11);
    return r;
  }

  fs::path dir_;
  std::unique_ptr<Store> store_;
  SchedulerOptions options_;
  InProcessReferees referees_;
  prometheus::Registry registry_;
  std::unique_ptr<Scheduler> scheduler_;
};

TEST_F(SchedulerTest, ADuplicateTournamentCommitsEveryMatchOnceAndRatesIt) {
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->RunTournament(Tournament(4));
  ASSERT_TRUE(t.ok()) << t.status();
  v1::TournamentInfo done = WaitForTournament(t->id());
  // Duplicate: 3 rotations of each of 4 deals.
  EXPECT_EQ(done.matches_total(), 12);
  EXPECT_EQ(done.matches_done(), 12);
  EXPECT_EQ(done.matches_failed(), 0);
  ASSERT_EQ(done.standings_size(), 3);
  EXPECT_EQ(done.standings(0).bot(), "h1");  // the heuristic beats random players
  // Per-hand scores come from the seats (schema 2): every bot sat in every
  // match, 3 played hands each.
  for (const v1::TournamentStanding& s : done.standings()) EXPECT_EQ(s.hands(), 36) << s.bot();
  std::set<int64_t> seqs;
  for (const MatchRow& m : store_->TournamentMatches(t->id())) {
    EXPECT_EQ(m.status, "done");
    seqs.insert(m.seq);
    const std::vector<SeatRow> seats = store_->SeatsOf(m.id);
    ASSERT_EQ(seats.size(), 3u);
    // The stored per-hand scores are the record's.
    const nlohmann::json record = nlohmann::json::parse(*store_->RecordOf(m.id));
    for (const SeatRow& seat : seats) {
      std::vector<int64_t> from_record;
      for (const nlohmann::json& deal : record["deals"])
        if (!deal.value("redeal", false) || deal.value("counts_as_hand", false))
          from_record.push_back(deal["scores"][seat.seat]);
      ASSERT_TRUE(seat.hand_scores.has_value());
      EXPECT_EQ(*seat.hand_scores, from_record) << m.id << " seat " << seat.seat;
    }
  }
  EXPECT_EQ(seqs.size(), 12u);  // one completion number each
  absl::StatusOr<BotRow> h1 = store_->FindBot("h1");
  ASSERT_TRUE(h1.ok());
  EXPECT_EQ(store_->GetRating(h1->id, "slovenian-3p")->matches, 12);
  EXPECT_TRUE(VerifyRatings(*store_, scheduler_->rating_model()).ok());
  // The per-bot gauges follow the committed ratings without reading them back
  // (set just after the commit the tournament's status comes from: a moment later).
  const std::string want = "tarock_arena_bot_matches{bot=\"h1\",variant=\"slovenian-3p\"} 12\n";
  std::string text = metrics::SerializeMetrics({&registry_});
  for (absl::Time until = absl::Now() + absl::Seconds(10);
       text.find(want) == std::string::npos && absl::Now() < until;
       text = metrics::SerializeMetrics({&registry_})) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_NE(text.find(want), std::string::npos) << text;
}

TEST_F(SchedulerTest, StopCommitsWhatFinishedAndARestartRunsTheRest) {
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  // Long matches (30 hands), so the stop comes with most of them still to run.
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->RunTournament(Tournament(20, 30));
  ASSERT_TRUE(t.ok()) << t.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (store_->CountMatches("done") < 3 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(5));
  scheduler_->Stop();
  const int64_t done = store_->CountMatches("done");
  EXPECT_GE(done, 3);
  EXPECT_LT(done, 60);
  EXPECT_EQ(store_->CountMatches("failed"), 0);
  // Nothing is left half done: every match is done or pending, and the ratings
  // are exactly those of the done ones.
  EXPECT_EQ(done + static_cast<int64_t>(store_->UnfinishedMatches().size()), 60);
  EXPECT_TRUE(VerifyRatings(*store_, scheduler_->rating_model()).ok());
  scheduler_.reset();
  StartScheduler();
  v1::TournamentInfo finished = WaitForTournament(t->id());
  EXPECT_EQ(finished.matches_done(), 60);
  absl::StatusOr<BotRow> h1 = store_->FindBot("h1");
  EXPECT_EQ(store_->GetRating(h1->id, "slovenian-3p")->matches, 60);
  EXPECT_TRUE(VerifyRatings(*store_, scheduler_->rating_model()).ok());
}

TEST_F(SchedulerTest, ALadderMakesItsMatchesAheadAndEndsAtItsLimit) {
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  AddBot("r3", "random");
  v1::StartLadderRequest request;
  request.mutable_config()->set_variant("slovenian-3p");
  request.mutable_config()->set_hands_per_match(6);
  request.mutable_config()->set_max_matches(25);
  absl::StatusOr<v1::LadderInfo> ladder = scheduler_->StartLadder(request);
  ASSERT_TRUE(ladder.ok()) << ladder.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  auto running = [&] {
    const v1::ListLaddersResponse ladders = scheduler_->ListLadders();
    for (const v1::LadderInfo& l : ladders.ladders())
      if (l.id() == ladder->id()) return l.running();
    return false;
  };
  while (running() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(10));
  EXPECT_FALSE(running());
  EXPECT_EQ(store_->CountLadderMatches(ladder->id(), "done"), 25);
  EXPECT_EQ(store_->CountMatches("done"), 25);  // no more were made
  int seats = 0;
  for (const MatchRow& m : store_->ListMatches("slovenian-3p", 0, 100)) {
    std::set<int64_t> bots(m.bot_ids.begin(), m.bot_ids.end());
    EXPECT_EQ(bots.size(), 3u) << m.id;  // never a bot against itself
    seats += static_cast<int>(m.bot_ids.size());
  }
  EXPECT_EQ(seats, 75);
  // Matchmaking spreads the matches: every bot plays (4 bots, 3 seats).
  for (const char* name : {"h1", "r1", "r2", "r3"}) {
    absl::StatusOr<BotRow> b = store_->FindBot(name);
    ASSERT_TRUE(b.ok());
    std::optional<RatingRow> r = store_->GetRating(b->id, "slovenian-3p");
    ASSERT_TRUE(r.has_value()) << name;
    EXPECT_GE(r->matches, 10) << name;
  }
  EXPECT_TRUE(VerifyRatings(*store_, scheduler_->rating_model()).ok());
}

TEST_F(SchedulerTest, AStoppedLadderPlaysOnlyWhatIsRunning) {
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  v1::StartLadderRequest request;
  request.mutable_config()->set_variant("slovenian-3p");
  request.mutable_config()->set_hands_per_match(30);  // long matches: the stop comes mid-way
  ASSERT_TRUE(scheduler_->StartLadder(request).ok());
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (store_->CountMatches("done") < 3 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(5));
  v1::StopLadderRequest stop;
  stop.set_variant("slovenian-3p");
  absl::StatusOr<v1::LadderInfo> stopped = scheduler_->StopLadder(stop);
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_FALSE(stopped->running());
  // Running (or waiting for its commit) first, then done: a match that
  // finishes in between is counted twice, never missed.
  const int64_t running_at_stop = scheduler_->GetStatus().running();
  const int64_t done_at_stop = store_->CountMatches("done");
  EXPECT_LE(running_at_stop, options_.max_parallel + 64);
  // What was running finishes; nothing made ahead starts or stays behind.
  while (scheduler_->GetStatus().running() > 0 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(5));
  const v1::StatusResponse status = scheduler_->GetStatus();
  EXPECT_EQ(status.running(), 0);
  EXPECT_EQ(status.queue_depth(), 0);
  EXPECT_TRUE(store_->UnfinishedMatches().empty());
  const int64_t done = store_->CountMatches("done");
  EXPECT_LE(done, done_at_stop + running_at_stop);  // nothing started after the stop
  EXPECT_EQ(store_->CountLadderMatches(stopped->id(), "done"), done);
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(store_->CountMatches("done"), done);
  EXPECT_TRUE(VerifyRatings(*store_, scheduler_->rating_model()).ok());
  // A new ladder for the variant can start.
  request.mutable_config()->set_max_matches(2);
  EXPECT_TRUE(scheduler_->StartLadder(request).ok());
}

// Every match ends, whatever the bots do: three bots that pass every bid in
// tapp-tarock-classic throw in every deal. By default each thrown-in deal is
// one of the match's hands (0 each); under thrown_in=redeal the match ends
// early at the bound on deals dealt again. Either way every match is done,
// stored with its result, rated, and never retried.
TEST_F(SchedulerTest, ALadderOfAlwaysPassBotsCompletesEveryMatch) {
  StartScheduler();
  for (const char* name : {"p1", "p2", "p3"}) AddBot(name, "pass", "tapp-tarock-classic");
  for (const char* thrown_in : {"hand", "redeal"}) {
    SCOPED_TRACE(thrown_in);
    v1::StartLadderRequest request;
    request.mutable_config()->set_variant("tapp-tarock-classic");
    (*request.mutable_config()->mutable_options())["thrown_in"] = thrown_in;
    request.mutable_config()->set_hands_per_match(6);
    request.mutable_config()->set_max_matches(4);
    absl::StatusOr<v1::LadderInfo> ladder = scheduler_->StartLadder(request);
    ASSERT_TRUE(ladder.ok()) << ladder.status();
    const absl::Time deadline = absl::Now() + absl::Seconds(120);
    while (store_->CountLadderMatches(ladder->id(), "done") +
                   store_->CountLadderMatches(ladder->id(), "failed") <
               4 &&
           absl::Now() < deadline)
      absl::SleepFor(absl::Milliseconds(10));
    EXPECT_EQ(store_->CountLadderMatches(ladder->id(), "done"), 4);
    EXPECT_EQ(store_->CountLadderMatches(ladder->id(), "failed"), 0);
    for (const MatchRow& m : store_->ListMatches("tapp-tarock-classic", 0, 100)) {
      if (m.ladder_id != ladder->id()) continue;
      EXPECT_EQ(m.attempts, 1) << m.id << ": never retried";
      EXPECT_EQ(m.hands, std::string(thrown_in) == "hand" ? 6 : 0) << m.id;
      absl::StatusOr<std::string> record_json = store_->RecordOf(m.id);
      ASSERT_TRUE(record_json.ok()) << m.id << ": " << record_json.status();
      const nlohmann::json record = nlohmann::json::parse(*record_json);
      if (std::string(thrown_in) == "redeal")
        EXPECT_NE(record.value("ended_early", "").find("void deals in a row"), std::string::npos);
      else
        EXPECT_FALSE(record.contains("ended_early"));
      for (const SeatRow& seat : store_->SeatsOf(m.id)) EXPECT_EQ(seat.total, 0);
    }
    // Wait for the ladder to stop before starting the next one for the variant.
    auto running = [&] {
      const v1::ListLaddersResponse ladders = scheduler_->ListLadders();
      for (const v1::LadderInfo& l : ladders.ladders())
        if (l.id() == ladder->id()) return l.running();
      return false;
    };
    while (running() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(10));
  }
  // The leaderboard counts them like any other match.
  absl::StatusOr<v1::LeaderboardResponse> board = scheduler_->Leaderboard("tapp-tarock-classic");
  ASSERT_TRUE(board.ok());
  ASSERT_EQ(board->entries_size(), 3);
  for (const v1::LeaderboardEntry& e : board->entries()) EXPECT_EQ(e.rating().matches(), 8);
  EXPECT_TRUE(VerifyRatings(*store_, scheduler_->rating_model()).ok());
}

// Bad options in arena requests: one line naming the valid ones, and nothing
// stored or started.
TEST_F(SchedulerTest, UnknownOptionsInLaddersAndTournamentsChangeNothing) {
  StartScheduler();
  for (const char* name : {"p1", "p2", "p3"}) AddBot(name, "pass", "tapp-tarock-classic");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"thrown_in", "never"}, {"thrown_on", "hand"}, {"house", "nowhere"}};
  for (const auto& [key, value] : bad) {
    SCOPED_TRACE(key + "=" + value);
    v1::StartLadderRequest ladder;
    ladder.mutable_config()->set_variant("tapp-tarock-classic");
    (*ladder.mutable_config()->mutable_options())[key] = value;
    absl::StatusOr<v1::LadderInfo> l = scheduler_->StartLadder(ladder);
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(l.status().message()).find('\n'), std::string::npos);
    if (key == "thrown_in") EXPECT_NE(l.status().message().find("hand, redeal"), absl::string_view::npos);
    if (key == "thrown_on") EXPECT_NE(l.status().message().find("thrown_in"), absl::string_view::npos);
    v1::RunTournamentRequest t;
    t.set_variant("tapp-tarock-classic");
    for (const char* b : {"p1", "p2", "p3"}) t.add_bots(b);
    (*t.mutable_options())[key] = value;
    absl::StatusOr<v1::TournamentInfo> ti = scheduler_->RunTournament(t);
    ASSERT_FALSE(ti.ok());
    EXPECT_EQ(ti.status().code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(store_->ListLadders().empty());
  EXPECT_EQ(store_->CountMatches("pending") + store_->CountMatches("done"), 0);
  EXPECT_EQ(scheduler_->ListLadders().ladders_size(), 0);
}

TEST_F(SchedulerTest, AMatchOnADownRefereeRunsOnAnotherAndCountsItsAttempts) {
  referees_.SetDown("ref-a:1");
  options_.max_parallel = 1;
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->RunTournament(Tournament(1));
  ASSERT_TRUE(t.ok());
  v1::TournamentInfo done = WaitForTournament(t->id());
  EXPECT_EQ(done.matches_done(), 3);
  std::vector<MatchRow> matches = store_->TournamentMatches(t->id());
  ASSERT_EQ(matches.size(), 3u);
  int attempts = 0;
  for (const MatchRow& m : matches) {
    EXPECT_EQ(m.referee, "ref-b:1");
    attempts += m.attempts;
  }
  EXPECT_EQ(attempts, 4);  // the first match tried ref-a first; then ref-a rested
  EXPECT_EQ(referees_.calls().front(), "ref-a:1");
  EXPECT_EQ(scheduler_->GetStatus().referees_available(), 1);
}

}  // namespace
}  // namespace tarock::arena
