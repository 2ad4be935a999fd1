// The scheduler with real matches in process: the referee's MatchRunner plays
// them between in-process bots (random and the heuristic), behind a
// RefereeClient that can also play a referee that is down. The end-to-end
// tests with processes and gRPC are in tests/arena_test.cc.

#include "arena/scheduler/deal_seal.h"
#include "arena/scheduler/scheduler_internal.h"
#include "arena/scheduler/scheduler_testing.h"

#include <cmath>


#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tarock::arena {
namespace {

using namespace testing_internal;  // NOLINT: the fixture and fakes

// Issue 30: a bot nobody can reach sits out the ladder after its first
// failed match instead of failing every match; it is probed with backoff and
// comes back by itself once it answers.
class FakeProber : public BotProber {
 public:
  absl::Status Probe(const std::string& endpoint, absl::Time) override {
    absl::MutexLock lock(&mu_);
    ++probes_;
    return up_ ? absl::OkStatus() : absl::UnavailableError(endpoint + " refuses connections");
  }
  void SetUp(bool up) {
    absl::MutexLock lock(&mu_);
    up_ = up;
  }
  int probes() {
    absl::MutexLock lock(&mu_);
    return probes_;
  }

 private:
  absl::Mutex mu_;
  bool up_ ABSL_GUARDED_BY(mu_) = false;
  int probes_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST_F(SchedulerTest, AnUnreachableBotIsBenchedFromTheLadderAndReturnsWhenItAnswers) {
  options_.health.first_backoff = absl::Milliseconds(100);
  options_.health.max_backoff = absl::Milliseconds(200);
  FakeProber prober;
  scheduler_ = std::make_unique<Scheduler>(store_.get(), &referees_, options_, &registry_);
  scheduler_->SetBotProber(&prober);
  ASSERT_TRUE(scheduler_->Start().ok());
  AddBot("r1", "random");
  AddBot("r2", "random");
  AddBot("r3", "random");
  AddBot("ghost", "nobody-listens");  // the connector knows no such bot
  const v1::StartLadderRequest l = MatchLadder("slovenian-3p", 3, 12);
  ASSERT_TRUE(scheduler_->StartLadder(l).ok());
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  auto count = [&](const std::string& status) {
    v1::ListMatchesRequest r;
    r.set_kind("ladder");
    r.set_status(status);
    r.set_limit(100);
    absl::StatusOr<v1::ListMatchesResponse> m = scheduler_->ListMatches(r);
    return m.ok() ? m->total() : -1;
  };
  while (count("done") + count("failed") < 12 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(20));
  // Only the matches made before its first failure seat it (up to the
  // queue's depth); the ladder goes on without it.
  EXPECT_EQ(count("done") + count("failed"), 12);
  EXPECT_GE(count("done"), 12 - 3 * options_.max_parallel) << count("failed") << " failed";
  EXPECT_GE(count("failed"), 1);
  v1::ListMatchesRequest ghost;
  ghost.set_bot("ghost");
  ghost.set_status("failed");
  EXPECT_EQ(scheduler_->ListMatches(ghost)->total(), count("failed"));  // charged to it alone
  absl::StatusOr<v1::BotInfo> g = scheduler_->GetBot("ghost", false);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->health(), "unreachable");
  EXPECT_NE(g->health_error().find("unreachable"), std::string::npos) << g->health_error();
  EXPECT_FALSE(g->next_probe().empty());
  EXPECT_EQ(scheduler_->GetBot("r1", false)->health(), "online");
  // Probed with backoff while it stays down...
  const absl::Time probed = absl::Now() + absl::Seconds(10);
  while (prober.probes() < 2 && absl::Now() < probed) absl::SleepFor(absl::Milliseconds(20));
  EXPECT_GE(prober.probes(), 2);
  EXPECT_EQ(scheduler_->GetBot("ghost", false)->health(), "unreachable");
  // ...and back by itself once it answers.
  prober.SetUp(true);
  const absl::Time back = absl::Now() + absl::Seconds(10);
  while (scheduler_->GetBot("ghost", false)->health() != "online" && absl::Now() < back)
    absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(scheduler_->GetBot("ghost", false)->health(), "online");
}

// The open ladder started (without a format) with fewer bots than a duplicate
// set needs plays matches rated on places and says so, and becomes a duplicate
// ladder rated on margins once its field fills a set (issue 47: it used to wait
// for ever, playing nothing).
TEST_F(SchedulerTest, AnOpenLadderTooSmallForASetPlaysOnPlacesUntilItsFieldFillsOne) {
  StartScheduler();
  for (const char* b : {"r1", "r2", "r3", "r4"}) AddBot(b, "random", "slovenian-4p");
  v1::StartLadderRequest request;
  request.mutable_config()->set_variant("slovenian-4p");
  request.mutable_config()->set_hands_per_match(4);
  absl::StatusOr<v1::LadderInfo> ladder = scheduler_->StartLadder(request);
  ASSERT_TRUE(ladder.ok()) << ladder.status();
  EXPECT_EQ(ladder->config().format(), "match");
  EXPECT_EQ(ladder->config().rating_model(), "place");
  EXPECT_TRUE(ladder->config().until_set());
  EXPECT_NE(ladder->note().find("until the field can fill a duplicate set: 8 bots needed, 4 play"),
            std::string::npos)
      << ladder->note();
  auto done = [&] {
    v1::ListMatchesRequest r;
    r.set_kind("ladder");
    r.set_status("done");
    r.set_limit(100);
    absl::StatusOr<v1::ListMatchesResponse> m = scheduler_->ListMatches(r);
    return m.ok() ? m->total() : -1;
  };
  absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (done() < 2 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
  EXPECT_GE(done(), 2) << "the small field plays nothing";
  // The field fills a bridge set (2n = 8): a duplicate ladder on margins replaces it.
  for (const char* b : {"r5", "r6", "r7", "r8"}) AddBot(b, "random", "slovenian-4p");
  auto duplicate_running = [&] {
    const v1::ListLaddersResponse ladders = scheduler_->ListLadders();
    for (const v1::LadderInfo& l : ladders.ladders())
      if (l.running() && l.config().variant() == "slovenian-4p")
        return l.config().format() == "duplicate" && l.config().rating_model() == "margin" &&
               !l.config().until_set();
    return false;
  };
  deadline = absl::Now() + absl::Seconds(30);
  while (!duplicate_running() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
  EXPECT_TRUE(duplicate_running());
  ASSERT_TRUE(scheduler_->StopLadder([] {
                v1::StopLadderRequest r;
                r.set_variant("slovenian-4p");
                return r;
              }()).ok());
}

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
  // Issue 30: one truth for numbers. The total is the hands' sum plus the
  // end-of-match settlement; the mean per hand is the hands' sum over the hands.
  for (const v1::TournamentStanding& s : done.standings()) {
    EXPECT_EQ(s.hand_total() + s.settlement(), s.total()) << s.bot();
    EXPECT_NEAR(s.mean_per_hand(), static_cast<double>(s.hand_total()) / s.hands(), 1e-9) << s.bot();
    absl::StatusOr<v1::BotStatsResponse> stats = scheduler_->BotStats(s.bot());
    ASSERT_TRUE(stats.ok());
    ASSERT_EQ(stats->variants_size(), 1);
    EXPECT_EQ(stats->variants(0).hand_total(), s.hand_total()) << s.bot();
    EXPECT_EQ(stats->variants(0).settlement(), s.settlement()) << s.bot();
    EXPECT_EQ(stats->variants(0).hands(), s.hands()) << s.bot();
  }
  EXPECT_EQ(done.created_at().size(), 19u) << done.created_at();
  EXPECT_EQ(done.deals(), 4);
  EXPECT_EQ(done.seats(), 3);
  // The bot filter: a name in any case is that bot; a part of names, every bot
  // containing it; an offset past the end shows the last page.
  v1::ListMatchesRequest q;
  q.set_bot("H1");
  q.set_limit(5);
  absl::StatusOr<v1::ListMatchesResponse> page = scheduler_->ListMatches(q);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->total(), 12);
  EXPECT_THAT(page->bots(), testing::ElementsAre("h1"));
  q.set_bot("R");
  page = scheduler_->ListMatches(q);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(page->bots(), testing::UnorderedElementsAre("r1", "r2"));
  q.set_bot("nobody");
  EXPECT_TRUE(absl::IsNotFound(scheduler_->ListMatches(q).status()));
  q.clear_bot();
  q.set_offset(100000);
  page = scheduler_->ListMatches(q);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->offset(), 10);
  EXPECT_EQ(page->matches_size(), 2);
  q.set_offset(12);
  EXPECT_EQ(scheduler_->ListMatches(q)->offset(), 10);
  q.set_offset(5);
  EXPECT_EQ(scheduler_->ListMatches(q)->offset(), 5);
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
  const v1::StartLadderRequest request = MatchLadder("slovenian-3p", 6, 25);
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

// Issue 33: the default ladder plays bridge duplicate sets (six bots in a
// 3-seat variant: two tables, each bot at one, one seed per set), rates each
// set on margins once both tables are done, keeps place ratings untouched,
// and --verify_ratings rebuilds the margin ratings and noise bit for bit.
// Unknown names and a margin model without sets are refused, nothing stored.
TEST_F(SchedulerTest, ADuplicateLadderPlaysBridgeSetsAndRatesThemOnMargins) {
  StartScheduler();
  for (const char* name : {"h1", "h2", "h3"}) AddBot(name, "heuristic");
  for (const char* name : {"r1", "r2", "r3"}) AddBot(name, "random");
  v1::StartLadderRequest bad;
  bad.mutable_config()->set_variant("slovenian-3p");
  bad.mutable_config()->set_format("swiss");
  absl::StatusOr<v1::LadderInfo> refused = scheduler_->StartLadder(bad);
  EXPECT_EQ(refused.status().message(), "unknown ladder format 'swiss' (valid: match, duplicate)");
  bad.mutable_config()->set_format("duplicate");
  bad.mutable_config()->set_rating_model("elo");
  refused = scheduler_->StartLadder(bad);
  EXPECT_EQ(refused.status().message(), "unknown rating model 'elo' (valid: place, margin)");
  bad.mutable_config()->set_format("match");
  bad.mutable_config()->set_rating_model("margin");
  EXPECT_TRUE(absl::IsInvalidArgument(scheduler_->StartLadder(bad).status()));
  EXPECT_TRUE(store_->ListLadders().empty());

  v1::StartLadderRequest request;
  request.mutable_config()->set_variant("slovenian-3p");
  request.mutable_config()->set_hands_per_match(6);
  request.mutable_config()->set_max_matches(20);  // ten sets of two tables
  absl::StatusOr<v1::LadderInfo> ladder = scheduler_->StartLadder(request);
  ASSERT_TRUE(ladder.ok()) << ladder.status();
  EXPECT_EQ(ladder->config().format(), "duplicate");
  EXPECT_EQ(ladder->config().rating_model(), "margin");
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  while (store_->BookedSets().size() < 10 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(20));
  ASSERT_EQ(store_->BookedSets().size(), 10u);
  EXPECT_EQ(store_->CountLadderMatches(ladder->id(), "done"), 20);
  // Each set: two tables, one seed and commitment, six distinct bots.
  std::map<uint64_t, std::vector<MatchRow>> sets;
  for (const MatchRow& m : store_->ListMatches("slovenian-3p", 0, 100)) sets[m.seed].push_back(m);
  EXPECT_EQ(sets.size(), 10u);
  for (const auto& [seed, tables] : sets) {
    ASSERT_EQ(tables.size(), 2u);
    EXPECT_EQ(tables[0].seed_commitment, tables[1].seed_commitment);
    EXPECT_EQ(tables[0].set_tables, 2);
    std::set<int64_t> bots;
    for (const MatchRow& t : tables) bots.insert(t.bot_ids.begin(), t.bot_ids.end());
    EXPECT_EQ(bots.size(), 6u) << "a bot sat at both tables of a set";
    const v1::MatchSpec spec = scheduler_internal::FromJson<v1::MatchSpec>(tables[0].spec);
    EXPECT_TRUE(spec.withhold_hand_records());
  }
  // Margin ratings only: no place rating was written for these tables.
  for (const char* name : {"h1", "r1"}) {
    absl::StatusOr<BotRow> b = store_->FindBot(name);
    ASSERT_TRUE(b.ok());
    EXPECT_FALSE(store_->GetRating(b->id, "slovenian-3p").has_value()) << name;
    std::vector<MarginRatingRow> m = store_->MarginRatingsOfBot(b->id);
    ASSERT_EQ(m.size(), 1u) << name;
    EXPECT_EQ(m[0].sets, 10) << name;
    EXPECT_EQ(m[0].deals, 60) << name;
  }
  absl::StatusOr<v1::LeaderboardResponse> board = scheduler_->Leaderboard("slovenian-3p");
  ASSERT_TRUE(board.ok());
  EXPECT_EQ(board->rating_model(), "margin");
  ASSERT_EQ(board->entries_size(), 6);
  // The heuristic bots ahead of the random ones, in points a deal.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(board->entries(i).bot()[0], 'h') << board->DebugString();
  for (int i = 0; i + 1 < 6; ++i) {
    const v1::MarginRatingInfo& a = board->entries(i).margin();
    const v1::MarginRatingInfo& b = board->entries(i + 1).margin();
    EXPECT_EQ(board->entries(i).unseparated_from_next(), !(a.low() > b.high())) << i;
    // How far apart the two are head to head (issue 47): their difference
    // with its 95% interval.
    ASSERT_TRUE(board->entries(i).has_vs_next()) << i;
    const v1::HeadToHead& h = board->entries(i).vs_next();
    EXPECT_DOUBLE_EQ(h.diff(), a.mu() - b.mu()) << i;
    EXPECT_DOUBLE_EQ(h.sigma(), std::sqrt(a.sigma() * a.sigma() + b.sigma() * b.sigma())) << i;
    EXPECT_NEAR(h.low(), h.diff() - 1.96 * h.sigma(), 1e-9) << i;
    EXPECT_NEAR(h.high(), h.diff() + 1.96 * h.sigma(), 1e-9) << i;
  }
  EXPECT_FALSE(board->entries(5).has_vs_next());
  absl::StatusOr<v1::LeaderboardResponse> place = scheduler_->Leaderboard("slovenian-3p", "", "place");
  ASSERT_TRUE(place.ok());
  EXPECT_EQ(place->entries_size(), 0);
  EXPECT_TRUE(VerifyRatings(*store_, scheduler_->rating_model(), scheduler_->margin_model()).ok());
}

TEST_F(SchedulerTest, AStoppedLadderPlaysOnlyWhatIsRunning) {
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  // Long matches: the stop comes mid-way.
  v1::StartLadderRequest request = MatchLadder("slovenian-3p", 30);
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

// Issue 29: status=running lists the running matches (the store has them as
// pending; running is a state in memory), and status=pending does not.
TEST_F(SchedulerTest, RunningMatchesAreListedAsRunning) {
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  const v1::StartLadderRequest request = MatchLadder("slovenian-3p", 30);
  ASSERT_TRUE(scheduler_->StartLadder(request).ok());
  v1::ListMatchesRequest running;
  running.set_status("running");
  absl::StatusOr<v1::ListMatchesResponse> listed;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  do {
    listed = scheduler_->ListMatches(running);
    ASSERT_TRUE(listed.ok()) << listed.status();
    if (listed->matches_size() > 0) break;
    absl::SleepFor(absl::Milliseconds(5));
  } while (absl::Now() < deadline);
  ASSERT_GT(listed->matches_size(), 0);
  EXPECT_EQ(listed->total(), listed->matches_size());
  for (const v1::ArenaMatch& m : listed->matches()) {
    EXPECT_EQ(m.status(), "running") << m.id();
    EXPECT_FALSE(m.referee().empty());
  }
  running.set_variant("slovenian-4p");  // the other filters apply too
  absl::StatusOr<v1::ListMatchesResponse> other = scheduler_->ListMatches(running);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->matches_size(), 0);
  v1::ListMatchesRequest pending;
  pending.set_status("pending");
  absl::StatusOr<v1::ListMatchesResponse> waiting = scheduler_->ListMatches(pending);
  ASSERT_TRUE(waiting.ok()) << waiting.status();
  for (const v1::ArenaMatch& m : waiting->matches()) EXPECT_EQ(m.status(), "pending") << m.id();
  v1::StopLadderRequest stop;
  stop.set_variant("slovenian-3p");
  ASSERT_TRUE(scheduler_->StopLadder(stop).ok());
}

// Issue 29: names unique without regard to case, reserved names, owners.
TEST_F(SchedulerTest, BotNamesAndOwnersFollowTheRules) {
  StartScheduler();
  AddBot("rnd1", "random");
  auto add = [&](const std::string& name, const std::string& owner) {
    v1::AddBotRequest r;
    r.set_name(name);
    r.set_endpoint("inproc:random");
    r.set_owner(owner);
    r.add_variants("slovenian-3p");
    return scheduler_->AddBot(r).status();
  };
  EXPECT_EQ(add("RND1", "o").code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(add("Rnd1", "o").code(), absl::StatusCode::kAlreadyExists);
  for (const char* reserved : {"human", "HUMAN", ".", ".."})
    EXPECT_EQ(add(reserved, "o").code(), absl::StatusCode::kInvalidArgument) << reserved;
  EXPECT_EQ(add("ctl", "evil\x1b]0;title\x07").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(add("big", std::string(100 << 10, 'o')).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(add("rnd2", "Žiga <z@example.org>").ok());
  EXPECT_EQ(scheduler_->ListBots({}).bots_size(), 2);
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
    v1::StartLadderRequest request = MatchLadder("tapp-tarock-classic", 6, 4);
    (*request.mutable_config()->mutable_options())["thrown_in"] = thrown_in;
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
    ladder.mutable_config()->set_format("match");
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

// Secret deals: the bots of a failed attempt may have seen its cards (a
// referee that died mid-match). A match whose deal is its own is dealt afresh
// for its next attempt, its new seed sealed and stored; the tables of a
// duplicate set keep the deal they share.
TEST_F(SchedulerTest, ARetriedMatchIsDealtAfreshUnlessItIsADuplicateTable) {
  referees_.SetDown("ref-a:1");
  options_.max_parallel = 1;
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  const v1::StartLadderRequest l = MatchLadder("slovenian-3p", 3, 2);
  absl::StatusOr<v1::LadderInfo> ladder = scheduler_->StartLadder(l);
  ASSERT_TRUE(ladder.ok()) << ladder.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (store_->CountLadderMatches(ladder->id(), "done") < 2 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(20));
  ASSERT_EQ(store_->CountLadderMatches(ladder->id(), "done"), 2);
  std::map<std::string, std::vector<uint64_t>> seeds = referees_.seeds();
  int retried = 0;
  for (const MatchRow& m : store_->ListMatches("slovenian-3p", 0, 10)) {
    const std::vector<uint64_t>& tried = seeds[m.id];
    ASSERT_EQ(static_cast<int>(tried.size()), m.attempts) << m.id;
    // What was played is what is stored, sealed, and in the record.
    EXPECT_EQ(tried.back(), m.seed) << m.id;
    EXPECT_EQ(m.seed_commitment, SeedCommitment(m.seed, m.seed_salt)) << m.id;
    EXPECT_EQ(scheduler_internal::FromJson<v1::MatchSpec>(m.spec).seed(), m.seed) << m.id;
    absl::StatusOr<std::string> record = store_->RecordOf(m.id);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(nlohmann::json::parse(*record)["seed"].get<uint64_t>(), m.seed) << m.id;
    if (tried.size() < 2) continue;
    ++retried;
    EXPECT_NE(tried[0], tried[1]) << m.id << ": tried again with the deal its bots may have seen";
  }
  EXPECT_GE(retried, 1);  // the first match tried ref-a

  // A duplicate tournament's tables share their deal: a retried table keeps it.
  referees_.SetUp("ref-a:1");
  scheduler_->SetReferees({"ref-c:1", "ref-d:1"});
  referees_.SetDown("ref-c:1");
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->RunTournament(Tournament(1));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(WaitForTournament(t->id()).matches_done(), 3);
  seeds = referees_.seeds();
  std::set<uint64_t> deal;
  retried = 0;
  for (const MatchRow& m : store_->TournamentMatches(t->id())) {
    for (uint64_t seed : seeds[m.id]) deal.insert(seed);
    if (seeds[m.id].size() > 1) ++retried;
  }
  EXPECT_GE(retried, 1);
  EXPECT_EQ(deal.size(), 1u) << "the tables of one duplicate set were dealt different cards";
}

// An attempt that was under way when the arena stopped (recorded before the
// referee deals) counts as seen after a restart: that match is dealt afresh;
// the ones never tried keep their deal.
TEST_F(SchedulerTest, AMatchTriedBeforeARestartIsDealtAfresh) {
  options_.referees = {};  // nothing runs yet: the matches wait
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  v1::RunTournamentRequest r = Tournament(2);
  r.set_no_duplicate(true);  // each match its own deal
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->RunTournament(r);
  ASSERT_TRUE(t.ok());
  scheduler_.reset();
  std::map<std::string, uint64_t> before;
  for (const MatchRow& m : store_->TournamentMatches(t->id())) before[m.id] = m.seed;
  ASSERT_EQ(before.size(), 2u);
  const std::string tried = before.begin()->first;
  ASSERT_TRUE(store_->RecordAttempt(tried, "ref-x:1", 1).ok());
  options_.referees = {"ref-b:1"};
  StartScheduler();
  EXPECT_EQ(WaitForTournament(t->id()).matches_done(), 2);
  for (const MatchRow& m : store_->TournamentMatches(t->id())) {
    EXPECT_EQ(referees_.seeds()[m.id], std::vector<uint64_t>{m.seed}) << m.id;
    if (m.id == tried) {
      EXPECT_NE(m.seed, before[m.id]) << "tried again with the deal its bots may have seen";
      EXPECT_EQ(m.attempts, 2);
    } else {
      EXPECT_EQ(m.seed, before[m.id]);
      EXPECT_EQ(m.attempts, 1);
    }
  }
}

TEST_F(SchedulerTest, TheRefereePoolFollowsSetReferees) {
  // An empty pool (a DNS name with no ready referee yet): matches wait, no
  // attempt is spent.
  options_.referees = {};
  options_.max_parallel = 1;
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->RunTournament(Tournament(1));
  ASSERT_TRUE(t.ok());
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_TRUE(referees_.calls().empty());
  EXPECT_EQ(scheduler_->GetStatus().referees_total(), 0);
  // A referee joins: every match runs on it.
  scheduler_->SetReferees({"ref-c:1"});
  v1::TournamentInfo done = WaitForTournament(t->id());
  EXPECT_EQ(done.matches_done(), 3);
  for (const MatchRow& m : store_->TournamentMatches(t->id())) {
    EXPECT_EQ(m.referee, "ref-c:1");
    EXPECT_EQ(m.attempts, 1);
  }
  // It leaves and another joins: new matches go to the new one only.
  scheduler_->SetReferees({"ref-d:1"});
  EXPECT_EQ(scheduler_->GetStatus().referees_total(), 1);
  v1::RunTournamentRequest again = Tournament(1);
  again.set_seed(12);
  absl::StatusOr<v1::TournamentInfo> t2 = scheduler_->RunTournament(again);
  ASSERT_TRUE(t2.ok());
  EXPECT_EQ(WaitForTournament(t2->id()).matches_done(), 3);
  for (const MatchRow& m : store_->TournamentMatches(t2->id())) EXPECT_EQ(m.referee, "ref-d:1");
}

TEST_F(SchedulerTest, ARefereeThatLeavesAndComesBackIsNoLongerResting) {
  referees_.SetDown("ref-a:1");
  options_.max_parallel = 1;
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  AddBot("r2", "random");
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->RunTournament(Tournament(1));
  ASSERT_TRUE(t.ok());
  WaitForTournament(t->id());
  EXPECT_EQ(scheduler_->GetStatus().referees_available(), 1);  // ref-a rests 60 s
  scheduler_->SetReferees({"ref-b:1"});
  EXPECT_EQ(scheduler_->GetStatus().referees_available(), 1);
  scheduler_->SetReferees({"ref-a:1", "ref-b:1"});  // back: a new pod at the old address
  EXPECT_EQ(scheduler_->GetStatus().referees_available(), 2);
}

TEST_F(SchedulerTest, ATestAcceptsH1ForTheBetterBotAndH0ForItsTwinUnrated) {
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("h2", "heuristic");
  AddBot("r1", "random");
  absl::StatusOr<v1::TestInfo> started = scheduler_->StartTest(Test("h1", "r1"));
  ASSERT_TRUE(started.ok()) << started.status();
  EXPECT_EQ(started->status(), "running");
  EXPECT_EQ(started->exit_status(), -1);
  EXPECT_EQ(started->config().alpha(), 0.05);  // the defaults filled in
  v1::TestInfo t = WaitForTest(started->id());
  EXPECT_EQ(t.result(), "H1") << t.ShortDebugString();
  EXPECT_EQ(t.exit_status(), 0);
  EXPECT_GE(t.llr(), t.upper_bound());
  EXPECT_GE(t.deals(), 20);  // min_deals
  ASSERT_EQ(t.llr_path_size(), t.deals());
  ASSERT_EQ(t.differences_size(), t.deals());
  for (int i = 0; i + 1 < t.llr_path_size(); ++i) EXPECT_LT(t.llr_path(i), t.upper_bound());
  EXPECT_GT(t.mean(), 3);
  EXPECT_LE(t.ci_low(), t.mean());
  EXPECT_EQ(t.seatings_size(), 6);  // 3 seats head to head: every rotation of CBC and BCB
  EXPECT_EQ(t.bots(0).bot(), "h1");
  EXPECT_EQ(t.bots(1).role(), "baseline");
  // Its matches: kind test, listed by the test's id, never rated.
  v1::ListMatchesRequest lr;
  lr.set_test_id(t.id());
  lr.set_limit(1000);
  absl::StatusOr<v1::ListMatchesResponse> matches = scheduler_->ListMatches(lr);
  ASSERT_TRUE(matches.ok());
  EXPECT_EQ(matches->total(), t.matches_total());
  EXPECT_GE(t.matches_done(), t.blocks() * 6);
  for (const v1::ArenaMatch& m : matches->matches()) {
    EXPECT_EQ(m.kind(), "test");
    EXPECT_EQ(m.test_id(), t.id());
  }
  EXPECT_FALSE(store_->GetRating(store_->FindBot("h1")->id, "slovenian-3p").has_value());
  EXPECT_TRUE(VerifyRatings(*store_, scheduler_->rating_model()).ok());
  // The same deterministic bot twice: every difference 0, H0 once min_deals are in.
  absl::StatusOr<v1::TestInfo> twin = scheduler_->StartTest(Test("h1", "h2"));
  ASSERT_TRUE(twin.ok()) << twin.status();
  t = WaitForTest(twin->id());
  EXPECT_EQ(t.result(), "H0") << t.ShortDebugString();
  EXPECT_EQ(t.exit_status(), 1);
  EXPECT_EQ(t.deals(), 20);  // the 20th deal decides; the rest of its block is not counted
  EXPECT_EQ(scheduler_->ListTests({}).tests_size(), 2);
  // Every match run to its end at most once, and none left queued.
  for (const auto& [id, n] : referees_.finished()) EXPECT_EQ(n, 1) << id;
  // Bad requests change nothing.
  v1::StartTestRequest bad = Test("h1", "nobody");
  EXPECT_TRUE(absl::IsInvalidArgument(scheduler_->StartTest(bad).status()));
  bad = Test("h1", "r1");
  bad.mutable_config()->set_h1(-1);
  EXPECT_TRUE(absl::IsInvalidArgument(scheduler_->StartTest(bad).status()));
  EXPECT_EQ(scheduler_->ListTests({}).tests_size(), 2);
  v1::StopTestRequest stop;
  stop.set_id(twin->id());
  EXPECT_TRUE(absl::IsFailedPrecondition(scheduler_->StopTest(stop).status()));
}

TEST_F(SchedulerTest, ATestResumesAfterARestartWithoutReplayingADealAndEndsAsAnUninterruptedOne) {
  // The same test twice: through to the end, and stopped mid-way then
  // resumed by a new scheduler on the same store. min_deals = max_deals, so
  // both play every one of the 60 deals (20 blocks, 120 matches).
  auto config = [this] {
    v1::StartTestRequest r = Test("h1", "r1");
    r.mutable_config()->set_min_deals(60);
    r.mutable_config()->set_max_deals(60);
    return r;
  };
  StartScheduler();
  AddBot("h1", "heuristic");
  AddBot("r1", "random");
  absl::StatusOr<v1::TestInfo> whole = scheduler_->StartTest(config());
  ASSERT_TRUE(whole.ok()) << whole.status();
  const v1::TestInfo reference = WaitForTest(whole->id());
  ASSERT_EQ(reference.deals(), 60) << reference.ShortDebugString();

  absl::StatusOr<v1::TestInfo> resumed = scheduler_->StartTest(config());
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (store_->CountTestMatches(resumed->id(), "done") < 40 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(5));
  scheduler_.reset();  // stops: matches in flight are cancelled
  absl::StatusOr<TestRow> row = store_->GetTest(resumed->id());
  ASSERT_TRUE(row.ok());
  ASSERT_EQ(row->status, "running");  // stopped mid-test
  const int64_t done_before = store_->CountTestMatches(resumed->id(), "done");
  EXPECT_GE(done_before, 40);
  EXPECT_LT(done_before, 120);
  StartScheduler();
  const v1::TestInfo t = WaitForTest(resumed->id());
  EXPECT_EQ(t.result(), reference.result());
  EXPECT_EQ(t.deals(), 60);
  EXPECT_EQ(t.llr(), reference.llr());
  ASSERT_EQ(t.differences_size(), reference.differences_size());
  for (int i = 0; i < t.differences_size(); ++i)
    EXPECT_EQ(t.differences(i), reference.differences(i)) << "deal " << i;
  EXPECT_EQ(t.matches_done(), 120);
  // No match of either test ran to its end twice.
  const std::map<std::string, int> finished = referees_.finished();
  for (const auto& [id, n] : finished) EXPECT_EQ(n, 1) << id;
  int of_resumed = 0;
  for (const auto& [id, n] : finished)
    if (id.rfind(absl::StrCat("S", resumed->id(), "-"), 0) == 0) ++of_resumed;
  EXPECT_EQ(of_resumed, 120);
}

}  // namespace
}  // namespace tarock::arena

namespace tarock::arena {
namespace {

// Hosted seats through a gateway that never joins them: every bot is online
// and every seat prepared, but the seat's endpoint (the relay's) answers no
// referee, as when a host keeps its connection up and does not join (stopped,
// starting, starved).
class NeverJoinedSeats : public DialInSeats {
 public:
  bool Online(int64_t) override { return true; }
  bool AwaitOnline(int64_t, absl::Time) override { return true; }
  absl::Status Prepare(const std::string&, int, int64_t, const std::string&) override {
    prepared_.fetch_add(1);
    return absl::OkStatus();
  }
  void Release(const std::string&, int) override {}
  int prepared() const { return prepared_.load(); }

 private:
  std::atomic<int> prepared_{0};
};
class OpenRelayGate : public RelayGate {
 public:
  absl::Status Authorize(const std::string&, int, const std::string&) override {
    return absl::OkStatus();
  }
};

// A scheduler whose hosted seats are never joined (NeverJoinedSeats behind an
// OpenRelayGate). The scheduler's threads use both: TearDown stops it before
// they go (they are destroyed before the base's scheduler_), an early ASSERT too.
class HostedSeatsTest : public SchedulerTest {
 protected:
  void TearDown() override {
    if (scheduler_ != nullptr) scheduler_->Stop();
    SchedulerTest::TearDown();
  }
  // Gives the scheduler the seats and the gate (after Start, or before).
  void UseHostedSeats() {
    scheduler_->SetDialIn(&seats_, "inproc:nobody-listens", absl::Seconds(1));
    scheduler_->SetRelayGate(&gate_);
  }
  NeverJoinedSeats seats_;
  OpenRelayGate gate_;
};

// A hosted seat its host did not join is the host's failure, not the bot's:
// nothing was dealt, so the match runs again (dealt afresh), the bot is never
// benched, and once the attempts are spent the match fails as "host lost",
// charged to nobody. A dial-in bot that is not hosted stays its own business.
TEST_F(HostedSeatsTest, AHostedSeatItsHostDidNotJoinIsRunAgainAndNeverBenchesTheBot) {
  options_.max_attempts = 3;
  options_.max_parallel = 1;
  // A one-match ladder of two random bots and `bot` (registered hosted or
  // dial-in: its seat is never joined), on a fresh store `db`; the failed
  // match it leaves.
  auto fail_one = [&](const std::string& db, v1::AddBotRequest bot) -> v1::ArenaMatch {
    scheduler_.reset();
    absl::StatusOr<std::unique_ptr<Store>> store = SqliteStore::Open((dir_ / db).string());
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return {};
    store_ = std::move(*store);
    scheduler_ = std::make_unique<Scheduler>(store_.get(), &referees_, options_, &registry_);
    UseHostedSeats();
    EXPECT_TRUE(scheduler_->Start().ok());
    AddBot("r1", "random");
    AddBot("r2", "random");
    bot.set_owner(bot.name());
    bot.add_variants("slovenian-3p");
    EXPECT_TRUE(scheduler_->AddBot(bot).ok());
    absl::StatusOr<v1::LadderInfo> ladder = scheduler_->StartLadder(MatchLadder("slovenian-3p", 3, 1));
    EXPECT_TRUE(ladder.ok()) << ladder.status();
    v1::ListMatchesRequest failed;
    failed.set_status("failed");
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    absl::StatusOr<v1::ListMatchesResponse> m = scheduler_->ListMatches(failed);
    while (m.ok() && m->total() < 1 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
      m = scheduler_->ListMatches(failed);
    }
    EXPECT_TRUE(m.ok() && m->total() == 1) << (m.ok() ? m->DebugString() : m.status().ToString());
    return m.ok() && m->total() == 1 ? m->matches(0) : v1::ArenaMatch();
  };

  v1::AddBotRequest hosted;
  hosted.set_name("hb");
  hosted.set_hosted(true);
  const v1::ArenaMatch match = fail_one("hosted.db", hosted);
  EXPECT_EQ(match.attempts(), 3);
  EXPECT_EQ(seats_.prepared(), 1);  // prepared once, held across the attempts
  EXPECT_THAT(match.error(), ::testing::MatchesRegex(
                                 "host lost: the bot host of seat [0-2] \\(hb\\) did not join "
                                 "the seat in time"))
      << match.error();
  // Every attempt dealt afresh: nothing was dealt, but a seed is never reused.
  const std::vector<uint64_t> seeds = referees_.seeds()[match.id()];
  ASSERT_EQ(seeds.size(), 3u);
  EXPECT_EQ(std::set<uint64_t>(seeds.begin(), seeds.end()).size(), 3u);
  absl::StatusOr<v1::BotInfo> hb = scheduler_->GetBot("hb", false);
  ASSERT_TRUE(hb.ok()) << hb.status();
  EXPECT_NE(hb->health(), "unreachable") << hb->health_error();

  // The control: the same seat of a dial-in bot that is not hosted is its
  // own process's, benched as before, with one attempt.
  v1::AddBotRequest own;
  own.set_name("db");
  own.set_dial_in(true);
  const v1::ArenaMatch control = fail_one("dial-in.db", own);
  EXPECT_EQ(control.attempts(), 1);
  EXPECT_THAT(control.error(), ::testing::HasSubstr("unreachable")) << control.error();
  EXPECT_EQ(scheduler_->GetBot("db", false)->health(), "unreachable");
}

// Issue 44 (high 4): processes of one bot that may hold cards of one deal
// never share a kernel. A hosted bot is held by one host, so all its seats
// run on one machine: a duplicate ladder of hosted bots plays bridge sets
// (each bot at one table of a seed), never a rotated set with every bot at
// every table; with only 3 hosted bots (one rotated set's worth) no set is
// made at all. Without the rule the three would play a rotated set.
TEST_F(HostedSeatsTest, HostedBotsOnOneHostNeverHoldTwoTablesOfOneDeal) {
  options_.max_attempts = 1;
  StartScheduler();
  UseHostedSeats();
  auto add_hosted = [&](const std::string& name) {
    v1::AddBotRequest r;
    r.set_name(name);
    r.set_owner(name);
    r.set_hosted(true);
    r.add_variants("slovenian-3p");
    ASSERT_TRUE(scheduler_->AddBot(r).ok());
    absl::StatusOr<BotRow> b = store_->FindBot(name);
    ASSERT_TRUE(b.ok());
    VersionRow v;
    v.bot_id = b->id;
    v.kind = "python";
    v.entry = "bot.py";
    v.filename = "bot.zip";
    v.sha256 = std::string(64, '0');
    v.status = "ready";
    ASSERT_TRUE(store_->AddVersion(v, 5).ok());
  };
  for (const char* name : {"a1", "a2", "a3"}) add_hosted(name);
  v1::StartLadderRequest request;
  request.mutable_config()->set_variant("slovenian-3p");
  // A duplicate ladder asked for: without a format, an open ladder this small
  // plays place-rated matches until its field fills a set (ladders.cc).
  request.mutable_config()->set_format("duplicate");
  request.mutable_config()->set_hands_per_match(3);
  request.mutable_config()->set_max_matches(6);
  absl::StatusOr<v1::LadderInfo> ladder = scheduler_->StartLadder(request);
  ASSERT_TRUE(ladder.ok()) << ladder.status();
  EXPECT_EQ(ladder->config().format(), "duplicate");
  absl::SleepFor(absl::Milliseconds(500));  // the dispatcher's rounds
  EXPECT_TRUE(store_->ListMatches("slovenian-3p", 0, 100).empty())
      << "three hosted bots on one host played a rotated set";
  // Three more: a bridge set of six, each bot at one table of each seed.
  for (const char* name : {"a4", "a5", "a6"}) add_hosted(name);
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (store_->ListMatches("slovenian-3p", 0, 100).size() < 6 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(20));
  std::map<uint64_t, std::vector<MatchRow>> sets;
  for (const MatchRow& m : store_->ListMatches("slovenian-3p", 0, 100)) sets[m.seed].push_back(m);
  ASSERT_EQ(sets.size(), 3u);
  for (const auto& [seed, tables] : sets) {
    ASSERT_EQ(tables.size(), 2u);
    std::map<int64_t, int> tables_of_bot;
    for (const MatchRow& t : tables)
      for (int64_t b : std::set<int64_t>(t.bot_ids.begin(), t.bot_ids.end())) ++tables_of_bot[b];
    EXPECT_EQ(tables_of_bot.size(), 6u);
    for (const auto& [bot, n] : tables_of_bot) EXPECT_EQ(n, 1) << "bot " << bot;
  }
}

// Issue 44 (review of 2026-11-29): a tournament (an event's final too: the
// same ScheduleTournament) plays each deal in every seating of a group, so a
// hosted bot there would meet one deal once per seating, every time on its one
// bot host's kernel. A group with a hosted bot never meets a deal twice: it
// shares each seating's deal with a group that has no bot in common (a bridge
// set of two tables) or, without such a partner, gets a deal per seating;
// groups of bots that are not hosted rotate as before. The tournament says what
// was done and why. Without the rule every seed is played at the three tables
// of one group, each hosted bot at all three.
TEST_F(HostedSeatsTest, ATournamentNeverGivesAHostedBotOneDealTwice) {
  options_.max_attempts = 1;
  StartScheduler();
  UseHostedSeats();
  std::set<int64_t> hosted;
  for (const char* name : {"a1", "a2"}) {
    v1::AddBotRequest r;
    r.set_name(name);
    r.set_owner(name);
    r.set_hosted(true);
    r.add_variants("slovenian-3p");
    ASSERT_TRUE(scheduler_->AddBot(r).ok());
    hosted.insert(store_->FindBot(name)->id);
  }
  for (const char* name : {"r1", "r2", "r3", "r4"}) AddBot(name, "random");
  v1::RunTournamentRequest request = Tournament(2);
  request.clear_bots();
  for (const char* name : {"a1", "a2", "r1", "r2", "r3", "r4"}) request.add_bots(name);
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->RunTournament(request);
  ASSERT_TRUE(t.ok()) << t.status();
  // 20 groups of 3, 2 deals each, 3 seatings: as many tables as before.
  const std::vector<MatchRow> matches = store_->TournamentMatches(t->id());
  ASSERT_EQ(matches.size(), 120u);
  std::map<uint64_t, std::vector<const MatchRow*>> by_seed;
  for (const MatchRow& m : matches) by_seed[m.seed].push_back(&m);
  auto bots_of = [](const MatchRow* m) { return std::set<int64_t>(m->bot_ids.begin(), m->bot_ids.end()); };
  int rotated = 0, bridged = 0, single = 0;
  for (const auto& [seed, tables] : by_seed) {
    // The rule: no hosted bot at two tables of one deal.
    for (int64_t h : hosted) {
      int tables_of_h = 0;
      for (const MatchRow* m : tables) tables_of_h += bots_of(m).count(h);
      EXPECT_LE(tables_of_h, 1) << "hosted bot " << h << " meets deal " << seed << " " << tables_of_h
                                << " times";
    }
    const bool shared = tables.size() > 1;
    for (const MatchRow* m : tables)
      EXPECT_EQ(scheduler_internal::FromJson<v1::MatchSpec>(m->spec).withhold_hand_records(), shared) << m->id;
    if (tables.size() == 3) {
      // Rotated, as before: one group without a hosted bot, every bot in every seat.
      ++rotated;
      std::set<int64_t> first_seats;
      for (const MatchRow* m : tables) {
        EXPECT_EQ(bots_of(m), bots_of(tables[0])) << m->id;
        for (int64_t b : m->bot_ids) EXPECT_EQ(hosted.count(b), 0u) << m->id;
        first_seats.insert(m->bot_ids[0]);
      }
      EXPECT_EQ(first_seats.size(), 3u);
    } else if (tables.size() == 2) {
      // A bridge set: two groups with no bot in common.
      ++bridged;
      std::set<int64_t> both = bots_of(tables[0]);
      for (int64_t b : tables[1]->bot_ids) EXPECT_TRUE(both.insert(b).second) << tables[1]->id;
    } else {
      ASSERT_EQ(tables.size(), 1u);
      ++single;
    }
  }
  EXPECT_EQ(rotated, 8);   // the 4 groups of r1..r4, 2 deals each
  EXPECT_EQ(bridged, 36);  // 6 pairs {a1,x,y}+{a2,z,w}, 2 deals, 3 seatings
  EXPECT_EQ(single, 24);   // the 4 groups {a1,a2,x}, 2 deals, 3 seatings
  // Each bot of a group still holds every seat once a deal index.
  std::map<std::set<int64_t>, std::map<int64_t, std::multiset<int>>> seats_of;  // group -> bot -> seats
  for (const MatchRow& m : matches)
    for (size_t s = 0; s < m.bot_ids.size(); ++s)
      seats_of[bots_of(&m)][m.bot_ids[s]].insert(static_cast<int>(s));
  ASSERT_EQ(seats_of.size(), 20u);
  for (const auto& [group, bots] : seats_of)
    for (const auto& [bot, held] : bots)
      for (int s = 0; s < 3; ++s) EXPECT_EQ(held.count(s), 2u) << "bot " << bot << " seat " << s;
  // What was done, and why.
  absl::StatusOr<v1::TournamentInfo> info = scheduler_->GetTournament(t->id());
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->rotated_deals(), 8);
  EXPECT_EQ(info->bridged_deals(), 36);
  EXPECT_EQ(info->single_table_deals(), 24);
  EXPECT_THAT(info->deals_note(), ::testing::HasSubstr("Groups with a hosted bot (a1, a2)"));
  EXPECT_THAT(info->deals_note(), ::testing::HasSubstr("One kernel per deal"));

  // The control: a field without a hosted bot keeps the rotated design.
  request.clear_bots();
  for (const char* name : {"r1", "r2", "r3", "r4"}) request.add_bots(name);
  t = scheduler_->RunTournament(request);
  ASSERT_TRUE(t.ok()) << t.status();
  std::map<uint64_t, int> tables_of_seed;
  for (const MatchRow& m : store_->TournamentMatches(t->id())) ++tables_of_seed[m.seed];
  EXPECT_EQ(tables_of_seed.size(), 8u);
  for (const auto& [seed, n] : tables_of_seed) EXPECT_EQ(n, 3) << seed;
  info = scheduler_->GetTournament(t->id());
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->rotated_deals(), 8);
  EXPECT_EQ(info->bridged_deals() + info->single_table_deals(), 0);
  EXPECT_EQ(info->deals_note(), "");
}

// Which faults of a record say the player was away (its host lost, when the
// hub saw the host's connection end), and which name a bot's own cause.
TEST(HostLostTest, AwayFaultsAreTheRefereesAndTheRelaysNotAHostsCause) {
  EXPECT_TRUE(IsAwayFault("timeout", ""));
  EXPECT_TRUE(IsAwayFault("disconnect", "not connected: the bot's stream to the referee ended"));
  EXPECT_TRUE(IsAwayFault("disconnect", "the dial-in bot was not connected for the whole decision"));
  EXPECT_TRUE(IsAwayFault("disconnect", "the dial-in bot is not connected"));
  // A host's Absent with its bot's cause: the bot's fault, charged.
  EXPECT_FALSE(IsAwayFault("disconnect", "out of memory (limit 512 MiB)"));
  EXPECT_FALSE(IsAwayFault("disconnect", "crashed (signal 11)"));
  EXPECT_FALSE(IsAwayFault("illegal_action", "not connected"));
  EXPECT_FALSE(IsAwayFault("malformed", ""));
}

// Red team, 2026-11-29: a duplicate table that ended while its twin still
// plays is shown as running until the deal is public, and its worker's slot
// stays taken as long: no next match starts, no new set is made, the running
// and queue counts (status and /metrics) stay as they were. Once the twin
// ends, the next matches start. A stop while a slot is held returns.
class SealedSlotTest : public SchedulerTest {
 protected:
  // A duplicate ladder of bridge sets (six bots in a 3-seat variant: two
  // tables a set, one seed), every match held at its start.
  int64_t StartHeldLadder(int max_matches) {
    referees_.HoldAll(true);
    StartScheduler();
    for (const char* name : {"h1", "h2", "h3"}) AddBot(name, "heuristic");
    for (const char* name : {"r1", "r2", "r3"}) AddBot(name, "random");
    v1::StartLadderRequest request;
    request.mutable_config()->set_variant("slovenian-3p");
    request.mutable_config()->set_format("duplicate");
    request.mutable_config()->set_hands_per_match(3);
    request.mutable_config()->set_max_matches(max_matches);
    absl::StatusOr<v1::LadderInfo> ladder = scheduler_->StartLadder(request);
    EXPECT_TRUE(ladder.ok()) << ladder.status();
    return ladder.ok() ? ladder->id() : 0;
  }
  // The other table of `id`'s set: the match of the same seed.
  std::string TwinOf(const std::string& id) {
    absl::StatusOr<MatchRow> m = store_->GetMatch(id);
    EXPECT_TRUE(m.ok());
    for (const MatchRow& t : store_->ListMatches("slovenian-3p", 0, 100))
      if (m.ok() && t.seed == m->seed && t.id != id) return t.id;
    return "";
  }
  std::string StoredStatus(const std::string& id) {
    absl::StatusOr<MatchRow> m = store_->GetMatch(id);
    return m.ok() ? m->status : m.status().ToString();
  }
  // Waits (bounded) for `done`; false if it never came.
  static bool WaitFor(const std::function<bool()>& done, absl::Duration within = absl::Seconds(30)) {
    for (const absl::Time deadline = absl::Now() + within; absl::Now() < deadline;
         absl::SleepFor(absl::Milliseconds(5)))
      if (done()) return true;
    return done();
  }
  std::string Gauges() {
    const std::string text = metrics::SerializeMetrics({&registry_});
    std::string out;
    for (const char* name : {"tarock_arena_matches_running ", "tarock_arena_queue_depth "}) {
      const size_t at = text.find(absl::StrCat("\n", name));
      out += at == std::string::npos ? "?" : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
      out += ";";
    }
    return out;
  }
};

TEST_F(SealedSlotTest, ATableThatEndsWhileItsTwinPlaysKeepsItsSlotUntilTheDealIsPublic) {
  options_.max_parallel = 4;
  const int64_t ladder = StartHeldLadder(0);
  // Four tables held at their start (two sets), four made ahead and queued.
  ASSERT_TRUE(WaitFor([&] {
    const v1::StatusResponse s = scheduler_->GetStatus();
    return referees_.held().size() == 4 && s.queue_depth() == 4 && s.running() == 4 &&
           store_->CountLadderMatches(ladder, "pending") == 8;
  })) << scheduler_->GetStatus().DebugString();
  const std::vector<std::string> first = referees_.started();
  ASSERT_EQ(first.size(), 4u);
  const std::string a = first[0];
  const std::string b = TwinOf(a);
  ASSERT_TRUE(referees_.held().count(b)) << a << "'s twin " << b << " is not running";
  const std::string gauges = "tarock_arena_matches_running 4;tarock_arena_queue_depth 4;";
  ASSERT_TRUE(WaitFor([&] { return Gauges() == gauges; })) << Gauges();

  // A plays to its end, B still plays the deal.
  referees_.Release(a);
  ASSERT_TRUE(WaitFor([&] { return StoredStatus(a) == "done"; })) << StoredStatus(a);
  // Committed and (not) published by now; a next match would start within
  // milliseconds: a second shows that none does.
  for (const absl::Time until = absl::Now() + absl::Seconds(1); absl::Now() < until;
       absl::SleepFor(absl::Milliseconds(10))) {
    ASSERT_EQ(referees_.started(), first) << "a match started after a sealed table ended";
    ASSERT_EQ(store_->CountLadderMatches(ladder, "pending") +
                  store_->CountLadderMatches(ladder, "done"),
              8)
        << "a new set was made after a sealed table ended";
    ASSERT_EQ(scheduler_->GetStatus().queue_depth(), 4);
  }
  const v1::StatusResponse status = scheduler_->GetStatus();
  EXPECT_EQ(status.running(), 4);
  EXPECT_EQ(status.queue_depth(), 4);
  EXPECT_EQ(Gauges(), gauges);
  absl::StatusOr<v1::ArenaMatch> shown = scheduler_->GetMatch(a, false);
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(shown->status(), "running");

  // B ends: the deal is public, both slots free, the next two tables start.
  referees_.Release(b);
  ASSERT_TRUE(WaitFor([&] { return referees_.started().size() >= 6; }))
      << referees_.started().size() << " started";
  EXPECT_EQ(StoredStatus(b), "done");
  EXPECT_EQ(scheduler_->GetMatch(a, false)->status(), "done");

  // A stop while a slot is held (C ended, its twin D held) returns.
  const std::string c = first[1] == b ? first[2] : first[1];
  const std::string d = TwinOf(c);
  referees_.Release(c);
  ASSERT_TRUE(WaitFor([&] { return StoredStatus(c) == "done"; })) << StoredStatus(c);
  const absl::Time stop = absl::Now();
  scheduler_->Stop();
  EXPECT_LT(absl::Now() - stop, absl::Seconds(10));
  EXPECT_EQ(StoredStatus(d), "pending");
}

// One slot and sets of two tables: the twin of an ended table can only run
// in the slot that table holds, so it does (at once: a start follows the
// end, the residual docs/security.md names), and the ladder plays on.
TEST_F(SealedSlotTest, WithFewerSlotsThanASetHasTablesTheHeldSlotRunsTheTwin) {
  options_.max_parallel = 1;
  const int64_t ladder = StartHeldLadder(4);
  ASSERT_TRUE(WaitFor([&] { return referees_.held().size() == 1; }));
  const std::string a = referees_.started().at(0);
  const std::string b = TwinOf(a);
  referees_.Release(a);
  ASSERT_TRUE(WaitFor([&] { return referees_.held().count(b) > 0; }))
      << "the twin " << b << " of " << a << " never started: " << StoredStatus(a);
  EXPECT_EQ(referees_.started().size(), 2u);
  referees_.HoldAll(false);
  ASSERT_TRUE(WaitFor([&] { return store_->CountLadderMatches(ladder, "done") == 4; }))
      << store_->CountLadderMatches(ladder, "done") << " done";
  EXPECT_EQ(referees_.started().size(), 4u);
}

// Every slot held, twins of the held deal queued: each holder takes one at
// once (the starts tell only that every running table ended); one at a time,
// each next start would tell when a twin ended. A duplicate tournament of a
// 4-seat variant plays a deal at four tables; two slots.
TEST_F(SealedSlotTest, WhenEverySlotHoldsEachHolderRunsATwinAtOnce) {
  options_.max_parallel = 2;
  referees_.HoldAll(true);
  StartScheduler();
  v1::RunTournamentRequest r;
  r.set_variant("slovenian-4p");
  for (const char* name : {"h1", "h2", "r1", "r2"}) {
    AddBot(name, name[0] == 'h' ? "heuristic" : "random", "slovenian-4p");
    r.add_bots(name);
  }
  r.set_deals(1);
  r.set_hands_per_match(4);
  r.set_seed(3);
  absl::StatusOr<v1::TournamentInfo> t = scheduler_->RunTournament(r);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_TRUE(WaitFor([&] { return referees_.held().size() == 2; }));
  const std::vector<std::string> first = referees_.started();
  ASSERT_EQ(first.size(), 2u);
  for (const std::string& id : first) referees_.Release(id);
  // Both ended, the other two tables of the deal start together.
  ASSERT_TRUE(WaitFor([&] { return referees_.started().size() == 4 && referees_.held().size() == 2; }))
      << referees_.started().size() << " started";
  for (const std::string& id : referees_.held())
    EXPECT_EQ(std::count(first.begin(), first.end(), id), 0) << id << " ran twice";
  EXPECT_EQ(referees_.started().size(), 4u);
  for (const std::string& id : first) EXPECT_EQ(scheduler_->GetMatch(id, false)->status(), "running") << id;
  referees_.HoldAll(false);
  const v1::TournamentInfo done = WaitForTournament(t->id());
  EXPECT_EQ(done.matches_done(), 4);
}

// Several arenas (here one, on the shared path: matches claimed from the
// database, the ladder's counts read from it): a finished table whose deal
// is sealed still counts for the ladder, so no set is made as it ends.
TEST_F(SealedSlotTest, SharedArenasMakeNoSetAndStartNothingWhenASealedTableEnds) {
  options_.max_parallel = 4;
  options_.lease = absl::Seconds(30);
  options_.lease_owner = "arena-a";
  const int64_t ladder = StartHeldLadder(0);
  auto made = [&] {  // (claimed ones are running in the database)
    int64_t n = 0;
    for (const char* status : {"pending", "running", "done", "failed"})
      n += store_->CountLadderMatches(ladder, status);
    return n;
  };
  ASSERT_TRUE(WaitFor([&] {
    return referees_.held().size() == 4 && made() == 8;
  })) << referees_.held().size() << " held";
  const std::vector<std::string> first = referees_.started();
  ASSERT_EQ(first.size(), 4u);
  const std::string a = first[0];
  const std::string b = TwinOf(a);
  ASSERT_TRUE(referees_.held().count(b)) << a << "'s twin " << b << " is not running";
  referees_.Release(a);
  ASSERT_TRUE(WaitFor([&] { return StoredStatus(a) == "done"; })) << StoredStatus(a);
  for (const absl::Time until = absl::Now() + absl::Seconds(1); absl::Now() < until;
       absl::SleepFor(absl::Milliseconds(10))) {
    ASSERT_EQ(referees_.started(), first) << "a match started after a sealed table ended";
    ASSERT_EQ(made(), 8) << "a new set was made after a sealed table ended";
  }
  EXPECT_EQ(scheduler_->GetStatus().running(), 4);
  referees_.Release(b);
  ASSERT_TRUE(WaitFor([&] { return referees_.started().size() >= 6; }))
      << referees_.started().size() << " started";
  EXPECT_EQ(StoredStatus(b), "done");
}

// The last table of a deal hands its result to the writer and then holds
// its slot like the others, every slot held: its deal turns public with that
// commit, so no slot takes a match before (that start would come before the
// tables' ends are public). The next set starts once both are shown done.
TEST_F(SealedSlotTest, TheNextSetStartsOnlyOnceTheLastTablesEndIsPublic) {
  options_.max_parallel = 2;
  absl::Mutex mu;
  std::string a, b;
  std::map<std::string, std::string> seen;  // started match -> a's and b's status then
  referees_.OnStart([&](const std::string& id) {
    std::string first, second;
    {
      absl::MutexLock lock(&mu);
      if (a.empty()) return;
      first = a;
      second = b;
    }
    const std::string shown = absl::StrCat(scheduler_->GetMatch(first, false)->status(), ",",
                                           scheduler_->GetMatch(second, false)->status());
    absl::MutexLock lock(&mu);
    seen[id] = shown;
  });
  const int64_t ladder = StartHeldLadder(0);
  ASSERT_TRUE(WaitFor([&] {
    return referees_.held().size() == 2 && store_->CountLadderMatches(ladder, "pending") == 4;
  }));
  {
    absl::MutexLock lock(&mu);
    a = referees_.started().at(0);
    b = referees_.started().at(1);
  }
  ASSERT_EQ(TwinOf(a), b);
  referees_.Release(a);
  ASSERT_TRUE(WaitFor([&] { return StoredStatus(a) == "done"; })) << StoredStatus(a);
  referees_.Release(b);
  ASSERT_TRUE(WaitFor([&] { return referees_.started().size() >= 4; }))
      << referees_.started().size() << " started";
  absl::MutexLock lock(&mu);
  ASSERT_EQ(seen.size(), 2u);
  for (const auto& [id, shown] : seen) EXPECT_EQ(shown, "done,done") << id << " started when";
}

// Second red team, 2026-11-29: an arena restart told which sealed tables
// had ended. The held slots lived in memory, so the next set started beside
// the twins; the unfinished tables were tried again (attempts + 1) while the
// ended one kept its count; the running gauge and the live feed left it out.
// Now the slots of the ended tables are held again from the store, the
// attempts and referee of a sealed deal's tables are shown with its result,
// and the ended table is running on the gauge and the feed until the deal is
// public, when its end is counted.
TEST_F(SealedSlotTest, ARestartHoldsTheSlotsOfTheSealedTablesThatHadEnded) {
  options_.max_parallel = 4;
  const int64_t ladder = StartHeldLadder(0);
  ASSERT_TRUE(WaitFor([&] {
    return referees_.held().size() == 4 && scheduler_->GetStatus().queue_depth() == 4 &&
           store_->CountLadderMatches(ladder, "pending") == 8;
  })) << scheduler_->GetStatus().DebugString();
  const std::vector<std::string> first = referees_.started();
  ASSERT_EQ(first.size(), 4u);
  const std::string a = first[0];
  const std::string b = TwinOf(a);
  ASSERT_TRUE(referees_.held().count(b)) << a << "'s twin " << b << " is not running";
  referees_.Release(a);
  ASSERT_TRUE(WaitFor([&] { return StoredStatus(a) == "done"; })) << StoredStatus(a);

  // The restart, first with no referee: the tables that had started (b and
  // the other set's two) wait, and look as a does, running, on the live feed
  // too, all four begun at once; the two of the next set that never started
  // are the queue.
  // The stop: every table of the sealed sets ends on the live feed alike,
  // "not finished", a (which had ended) too.
  class Recorder : public LiveSink {
   public:
    bool Send(const std::string& event, const std::string& data) override {
      absl::MutexLock lock(&mu);
      if (event == "finished") finished.push_back(data);
      return true;
    }
    void Close() override {}
    bool closed() const override { return false; }
    absl::Mutex mu;
    std::vector<std::string> finished;
  };
  auto feed = std::make_shared<Recorder>();
  ASSERT_TRUE(scheduler_->live().WatchFeed(feed).ok());
  const std::vector<std::string> referees = options_.referees;
  options_.referees = {};
  scheduler_.reset();
  {
    absl::MutexLock lock(&feed->mu);
    ASSERT_EQ(feed->finished.size(), 4u);
    std::set<std::string> ended;
    for (const std::string& f : feed->finished) {
      EXPECT_THAT(f, ::testing::HasSubstr("not finished"));
      ended.insert(nlohmann::json::parse(f)["id"].get<std::string>());
    }
    EXPECT_TRUE(ended.count(a)) << "the ended table did not end with its twins on the feed";
  }
  StartScheduler();
  for (const absl::Time until = absl::Now() + absl::Milliseconds(500); absl::Now() < until;
       absl::SleepFor(absl::Milliseconds(10))) {
    const v1::StatusResponse s = scheduler_->GetStatus();
    ASSERT_EQ(s.running(), 4);
    ASSERT_EQ(s.queue_depth(), 4);
    for (const std::string& id : first)
      ASSERT_EQ(scheduler_->GetMatch(id, false)->status(), "running") << id;
    const std::vector<LiveMatchInfo> live = scheduler_->live().Running();
    ASSERT_EQ(live.size(), 4u);
    for (const LiveMatchInfo& m : live) ASSERT_EQ(m.started_ms, live[0].started_ms) << m.id;
  }
  EXPECT_EQ(Gauges(), "tarock_arena_matches_running 4;tarock_arena_queue_depth 4;");
  v1::ListMatchesRequest pending;
  pending.set_status("pending");
  EXPECT_EQ(scheduler_->ListMatches(pending)->total(), 4);
  // The referee is back: the three unfinished tables run again, a's slot is held.
  scheduler_->SetReferees(referees);
  ASSERT_TRUE(WaitFor([&] { return referees_.held().size() == 3; })) << referees_.held().size();
  for (const absl::Time until = absl::Now() + absl::Seconds(1); absl::Now() < until;
       absl::SleepFor(absl::Milliseconds(10))) {
    ASSERT_EQ(referees_.started().size(), 7u) << "a match started beside the sealed tables";
    ASSERT_EQ(store_->CountLadderMatches(ladder, "pending") +
                  store_->CountLadderMatches(ladder, "done"),
              8)
        << "a new set was made after the restart";
  }
  const v1::StatusResponse status = scheduler_->GetStatus();
  EXPECT_EQ(status.running(), 4);
  EXPECT_EQ(status.queue_depth(), 4);
  EXPECT_EQ(Gauges(), "tarock_arena_matches_running 4;tarock_arena_queue_depth 4;");
  for (const std::string& id : {a, b}) {
    absl::StatusOr<v1::ArenaMatch> shown = scheduler_->GetMatch(id, false);
    ASSERT_TRUE(shown.ok()) << id;
    EXPECT_EQ(shown->status(), "running") << id;
    EXPECT_EQ(shown->attempts(), 0) << id << ": attempts shown before the deal is public";
    EXPECT_EQ(shown->referee(), "") << id << ": referee shown before the deal is public";
  }
  std::map<std::string, int64_t> live;  // id -> started_ms
  for (const LiveMatchInfo& m : scheduler_->live().Running()) live[m.id] = m.started_ms;
  EXPECT_EQ(live.size(), 4u);
  EXPECT_TRUE(live.count(a)) << "the ended table is missing from the live feed";
  EXPECT_EQ(live[a], live[b]) << "the ended table was begun apart from its twin";

  // b ends: the deal is public, a's end counted, both slots free.
  referees_.Release(b);
  ASSERT_TRUE(WaitFor([&] { return referees_.started().size() >= 9; }))
      << referees_.started().size() << " started";
  absl::StatusOr<v1::ArenaMatch> shown = scheduler_->GetMatch(a, false);
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(shown->status(), "done");
  EXPECT_EQ(shown->attempts(), 1);
  EXPECT_NE(shown->referee(), "");
  EXPECT_EQ(scheduler_->GetMatch(b, false)->attempts(), 2);
  const std::string text = metrics::SerializeMetrics({&registry_});
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "tarock_arena_matches_total{outcome=\"done\",variant=\"slovenian-3p\"} 2"));
}

}  // namespace
}  // namespace tarock::arena
