// The arena's store: schema, idempotent and batched commits, attempts. Every
// test runs on both back ends: SQLite, and PostgreSQL on a private server the
// test starts (tests/pg/postgres_server.h; skipped, saying why, only when the
// PostgreSQL binaries are not installed).

#include "arena/store/store.h"

#include <gtest/gtest.h>

#include <tuple>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "arena/store/sqlite_store.h"
#include "tests/pg/postgres_server.h"

#ifdef TAROCK_HAVE_POSTGRES
#include <pqxx/pqxx>

#include "arena/store/postgres_store.h"
#endif

namespace tarock::arena {
namespace {

namespace fs = std::filesystem;

// One server for the whole test program, started by the first test that needs
// it and stopped at exit.
absl::StatusOr<testing::PostgresServer*> SharedServer() {
  static auto* server = new absl::StatusOr<std::unique_ptr<testing::PostgresServer>>(
      testing::PostgresServer::Start());
  static struct Stop {
    ~Stop() {
      if (server->ok()) server->value().reset();
    }
  } stop;
  if (!server->ok()) return server->status();
  return server->value().get();
}

class StoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  bool postgres() const { return GetParam() == "postgresql"; }

  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() / absl::StrCat("store_test_", getpid(), "_",
                                                      ::testing::UnitTest::GetInstance()
                                                          ->current_test_info()
                                                          ->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    url_ = absl::StrCat("sqlite:", dir_.string());
    if (postgres()) {
#ifndef TAROCK_HAVE_POSTGRES
      GTEST_SKIP() << "this build has no PostgreSQL back end (libpqxx-dev was missing)";
#endif
      absl::StatusOr<testing::PostgresServer*> server = SharedServer();
      if (absl::IsNotFound(server.status())) GTEST_SKIP() << server.status().message();
      ASSERT_TRUE(server.ok()) << server.status();
      absl::StatusOr<std::string> url =
          (*server)->CreateDatabase(absl::StrCat("store_test_", counter++));
      ASSERT_TRUE(url.ok()) << url.status();
      url_ = *url;
    }
    Open();
    for (int b = 0; b < 3; ++b) {
      BotRow row;
      row.name = absl::StrCat("bot", b);
      row.endpoint = "127.0.0.1:1";
      row.owner = "me";
      row.variants = {"slovenian-3p"};
      row.token_hash = HashToken("t");
      absl::StatusOr<BotRow> added = store_->AddBot(row);
      ASSERT_TRUE(added.ok()) << added.status();
      bots_.push_back(added->id);
    }
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  void Open() {
    store_.reset();
    absl::StatusOr<std::unique_ptr<Store>> s = OpenStore(url_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
  }
  // Runs SQL on the database behind the store's back (the store closed).
  void RawExec(const std::string& sql) {
    if (postgres()) {
#ifdef TAROCK_HAVE_POSTGRES
      try {
        pqxx::connection c(url_);
        pqxx::nontransaction t(c);
        t.exec(sql);
      } catch (const std::exception& e) {
        FAIL() << e.what();
      }
#endif
      return;
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / SqliteStore::kFileName).string().c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  // A pending tournament match seating every bot; `seed` sealed with a
  // made-up salt and commitment when given.
  void Insert(const std::string& id, uint64_t seed = 0) {
    MatchRow m;
    m.id = id;
    m.variant = "slovenian-3p";
    m.kind = "tournament";
    m.spec = "{}";
    m.bot_ids = bots_;
    // Without a seed, a deal of its own (no twin whose rating it waits for).
    m.seed = 1000000 + ++own_deals_;
    if (seed != 0) {
      m.seed = seed;
      m.seed_salt = "00112233445566778899aabbccddeeff";
      m.seed_commitment = std::string(64, 'c');
    }
    ASSERT_TRUE(store_->InsertMatch(m).ok());
  }
  // Bot b finishes in place b (bot0 first).
  MatchCommit Result(const std::string& id, int attempts = 1) {
    MatchCommit c;
    c.id = id;
    c.result.record_json = R"({"deals":[{"h":0},{"h":1}]})";
    c.result.hand_records = {R"({"h":0})", R"({"h":1})"};
    c.result.hands = 2;
    c.result.referee = "127.0.0.1:2";
    c.result.attempts = attempts;
    for (int s = 0; s < 3; ++s) {
      SeatRow seat;
      seat.seat = s;
      seat.bot_id = bots_[s];
      seat.total = 10 - s;
      seat.rank = s;
      seat.hand_scores = std::vector<int64_t>{7 - s, 3};
      c.result.seats.push_back(seat);
    }
    return c;
  }
  // A rating step that counts matches and moves mu by the rank.
  static std::vector<RatingRow> Rate(const MatchRow& match, const MatchResultRow& result,
                                     const std::vector<std::optional<RatingRow>>& current) {
    std::vector<RatingRow> out;
    for (size_t s = 0; s < result.seats.size(); ++s) {
      RatingRow r = current[s] ? *current[s] : RatingRow{result.seats[s].bot_id, match.variant, 25, 8, 0, 0};
      r.mu += 1 - result.seats[s].rank;
      ++r.matches;
      out.push_back(r);
    }
    return out;
  }

  fs::path dir_;
  std::string url_;  // sqlite:DIR or the test's PostgreSQL database
  std::unique_ptr<Store> store_;
  std::vector<int64_t> bots_;
  uint64_t own_deals_ = 0;
};

// Issue 33: a duplicate set is booked once, only when every table of it is
// finished, in booking order, with the ratings, their history and the
// pool's noise; a failing rating step books nothing.
TEST_P(StoreTest, ADuplicateSetIsBookedOnceWhenEveryTableIsFinished) {
  auto insert = [&](const std::string& id, uint64_t seed) {
    MatchRow m;
    m.id = id;
    m.variant = "slovenian-3p";
    m.kind = "ladder";
    m.ladder_id = 7;
    m.spec = "{}";
    m.bot_ids = bots_;
    m.seed = seed;
    m.set_tables = 2;
    ASSERT_TRUE(store_->InsertMatch(m).ok());
  };
  const uint64_t big = 0xF00DFACEDEADBEEFULL;  // beyond int64: stored and found again
  insert("L7-1", big);
  insert("L7-2", big);
  int calls = 0;
  Store::SetRateFn rate = [&](const std::vector<SetTableRow>& tables,
                              const std::map<int64_t, MarginRatingRow>& current,
                              const MarginNoiseRow& noise) -> absl::StatusOr<Store::SetRating> {
    ++calls;
    Store::SetRating out;
    out.noise = {noise.sum_sq + 4, noise.residuals + 2};
    for (const SetTableRow& t : tables)
      for (const SeatRow& seat : t.seats) {
        auto it = current.find(seat.bot_id);
        MarginRatingRow r = it == current.end() ? MarginRatingRow{seat.bot_id, "", 0, 10, 0, 0, 0}
                                                : it->second;
        r.mu += 1.5;
        r.deals += 2;
        r.sets += 1;
        out.ratings.push_back(r);
        out.set_margin[seat.bot_id] = 0.25;
      }
    return out;
  };
  absl::StatusOr<bool> booked = store_->BookSet(7, big, "slovenian-3p", rate);
  ASSERT_TRUE(booked.ok()) << booked.status();
  EXPECT_FALSE(*booked);  // nothing finished yet
  ASSERT_TRUE(store_->CommitMatch("L7-1", Result("L7-1").result, Rate).ok());
  EXPECT_FALSE(*store_->BookSet(7, big, "slovenian-3p", rate));  // L7-2 still pending
  EXPECT_TRUE(store_->UnbookedFinishedSets().empty());
  ASSERT_TRUE(store_->MarkFailed("L7-2", "referee gone").ok());
  ASSERT_EQ(store_->UnbookedFinishedSets().size(), 1u);
  EXPECT_EQ(store_->UnbookedFinishedSets()[0].second, big);
  EXPECT_EQ(calls, 0);
  // A failing step books nothing.
  Store::SetRateFn broken = [](const std::vector<SetTableRow>&, const std::map<int64_t, MarginRatingRow>&,
                               const MarginNoiseRow&) -> absl::StatusOr<Store::SetRating> {
    return absl::InvalidArgumentError("broken");
  };
  EXPECT_TRUE(absl::IsInvalidArgument(store_->BookSet(7, big, "slovenian-3p", broken).status()));
  EXPECT_TRUE(store_->BookedSets().empty());
  booked = store_->BookSet(7, big, "slovenian-3p", rate);
  ASSERT_TRUE(booked.ok()) << booked.status();
  EXPECT_TRUE(*booked);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(*store_->BookSet(7, big, "slovenian-3p", rate));  // once
  EXPECT_EQ(calls, 1);
  std::vector<MarginSetRow> sets = store_->BookedSets();
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].seq, 1);
  EXPECT_EQ(sets[0].seed, big);
  EXPECT_EQ(sets[0].pool, "slovenian-3p");
  EXPECT_TRUE(store_->UnbookedFinishedSets().empty());
  std::vector<MarginRatingRow> r = store_->MarginRatingsOfBot(bots_[1]);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].mu, 1.5);
  EXPECT_EQ(r[0].deals, 2);
  EXPECT_EQ(r[0].sets, 1);
  EXPECT_EQ(store_->MarginNoiseOf("slovenian-3p").sum_sq, 4);
  EXPECT_EQ(store_->MarginNoises().size(), 1u);
  std::vector<MarginLeaderRow> board = store_->MarginLeaderboardRows("slovenian-3p");
  EXPECT_EQ(board.size(), 3u);
  // The tables: the done one with its seats, the failed one without.
  std::vector<SetTableRow> tables = store_->SetTables(7, big);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].match.set_tables, 2);
  EXPECT_EQ(tables[0].seats.size(), 3u);
  EXPECT_TRUE(tables[1].seats.empty());
  // Place ratings untouched by the booking (the commit's Rate waits for the
  // deal: L7-2 was pending then, and no commit came after its failure).
  EXPECT_FALSE(store_->GetRating(bots_[0], "slovenian-3p").has_value());
  EXPECT_EQ(store_->GetMatch("L7-1")->rating_wait, -1);
}

TEST_P(StoreTest, TheAuditLogKeepsEntriesNewestFirstAndPages) {
  for (int i = 0; i < 5; ++i) {
    AuditRow row{0, "", i == 4 ? "admin" : "owner of a", "10.0.0.7", "UpdateBot",
                 i % 2 ? "bot:a" : "bot:b", i == 3 ? "PERMISSION_DENIED" : "ok", "detail"};
    ASSERT_TRUE(store_->AppendAudit(row).ok());
  }
  std::vector<AuditRow> all = store_->ListAudit("", 0, 100);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].actor, "admin");
  EXPECT_GT(all[0].id, all[1].id);
  EXPECT_EQ(all[1].outcome, "PERMISSION_DENIED");
  EXPECT_EQ(all[4].client, "10.0.0.7");
  EXPECT_EQ(all[4].at.size(), std::string("2026-11-25T07:00:00.000Z").size()) << all[4].at;
  EXPECT_EQ(store_->ListAudit("bot:a", 0, 100).size(), 2u);
  std::vector<AuditRow> page = store_->ListAudit("", all[1].id, 2);
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0].id, all[2].id);
  // It survives a reopen (it is in the database, not in memory).
  store_.reset();
  Open();
  EXPECT_EQ(store_->ListAudit("", 0, 100).size(), 5u);
}

TEST_P(StoreTest, FreshDatabaseHasTheCurrentSchemaAndReopens) {
  EXPECT_EQ(store_->SchemaVersion(), Store::kSchemaVersion);
  Open();
  EXPECT_EQ(store_->SchemaVersion(), Store::kSchemaVersion);
  EXPECT_EQ(store_->ListBots(false).size(), 3u);
}

TEST_P(StoreTest, CommitIsAllOfAMatchAndNeverTwice) {
  Insert("M1");
  absl::StatusOr<bool> first = store_->CommitMatch("M1", Result("M1").result, Rate);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(*first);
  absl::StatusOr<bool> again = store_->CommitMatch("M1", Result("M1").result, Rate);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  absl::StatusOr<MatchRow> m = store_->GetMatch("M1");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->status, "done");
  EXPECT_EQ(m->seq, 1);
  EXPECT_EQ(m->attempts, 1);
  EXPECT_EQ(store_->SeatsOf("M1").size(), 3u);
  std::optional<RatingRow> r = store_->GetRating(bots_[0], "slovenian-3p");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->matches, 1);  // counted once
  EXPECT_EQ(r->mu, 26);
  EXPECT_EQ(store_->HistoryOfBot(bots_[0]).size(), 1u);
}

TEST_P(StoreTest, ABatchCommitsInOrderAndAFailingMatchFailsAlone) {
  for (const char* id : {"A", "B", "C"}) Insert(id);
  std::vector<MatchCommit> batch = {Result("A", 2), Result("missing"), Result("B"), Result("A"),
                                    Result("C")};
  std::vector<CommitOutcome> out = store_->CommitMatches(batch, Rate);
  ASSERT_EQ(out.size(), batch.size());
  EXPECT_TRUE(out[0].status.ok() && out[0].committed);
  EXPECT_TRUE(absl::IsNotFound(out[1].status)) << out[1].status;
  EXPECT_TRUE(out[2].status.ok() && out[2].committed);
  EXPECT_TRUE(out[3].status.ok());
  EXPECT_FALSE(out[3].committed);  // A again, in the same batch: not twice
  EXPECT_TRUE(out[4].status.ok() && out[4].committed);
  ASSERT_EQ(out[0].ratings.size(), 3u);
  EXPECT_EQ(out[4].ratings[0].matches, 3);  // each saw the ones before it
  EXPECT_EQ(store_->GetMatch("A")->seq, 1);
  EXPECT_EQ(store_->GetMatch("A")->attempts, 2);
  EXPECT_EQ(store_->GetMatch("B")->seq, 2);
  EXPECT_EQ(store_->GetMatch("C")->seq, 3);
  EXPECT_EQ(store_->CountMatches("done"), 3);
  EXPECT_EQ(store_->GetRating(bots_[2], "slovenian-3p")->matches, 3);
  // Survives a reopen.
  Open();
  EXPECT_EQ(store_->CountMatches("done"), 3);
  EXPECT_EQ(store_->GetRating(bots_[0], "slovenian-3p")->mu, 28);
}

// A duplicate table's rating waits for its deal (docs/security.md, "Secret
// deals"): while a twin dealt from the same seed is pending or running, its
// commit writes no rating; the commit that makes the deal public rates the
// waiting tables first, in seq order, then its own match. A twin that fails
// leaves them to the next commit. Either way the order is kept (rating_wait).
TEST_P(StoreTest, ADuplicateTablesRatingWaitsUntilItsDealIsPublic) {
  Insert("T1", 77);
  Insert("T2", 77);
  Insert("T3", 77);
  Insert("OWN");
  CommitOutcome one = store_->CommitMatches({Result("T1")}, Rate)[0];
  ASSERT_TRUE(one.status.ok() && one.committed) << one.status;
  EXPECT_TRUE(one.ratings.empty());
  EXPECT_FALSE(store_->GetRating(bots_[0], "slovenian-3p").has_value());
  EXPECT_TRUE(store_->HistoryOfBot(bots_[0]).empty());
  EXPECT_EQ(store_->GetMatch("T1")->rating_wait, -1);
  // T2 finishes while T3 still plays: neither is rated.
  CommitOutcome two = store_->CommitMatches({Result("T2")}, Rate)[0];
  EXPECT_TRUE(two.ratings.empty() && two.late_ratings.empty());
  EXPECT_FALSE(store_->GetRating(bots_[0], "slovenian-3p").has_value());
  // T3 fails: the deal is public; the next commit (a match of its own) rates
  // T1 and T2 first, then itself.
  ASSERT_TRUE(store_->MarkFailed("T3", "referee gone").ok());
  CommitOutcome own = store_->CommitMatches({Result("OWN")}, Rate)[0];
  ASSERT_TRUE(own.status.ok() && own.committed);
  EXPECT_EQ(own.late_ratings.size(), 6u);  // two tables of three bots
  ASSERT_EQ(own.ratings.size(), 3u);
  EXPECT_EQ(own.ratings[0].matches, 3);
  EXPECT_EQ(store_->GetMatch("T1")->rating_wait, 3);
  EXPECT_EQ(store_->GetMatch("T2")->rating_wait, 3);
  EXPECT_EQ(store_->GetMatch("OWN")->rating_wait, 0);
  EXPECT_EQ(store_->GetRating(bots_[0], "slovenian-3p")->matches, 3);
  EXPECT_EQ(store_->HistoryOfBot(bots_[0]).size(), 3u);
  // The last twin done rates the set in the same commit.
  Insert("U1", 78);
  Insert("U2", 78);
  EXPECT_TRUE(store_->CommitMatches({Result("U1")}, Rate)[0].ratings.empty());
  CommitOutcome last = store_->CommitMatches({Result("U2")}, Rate)[0];
  EXPECT_EQ(last.late_ratings.size(), 3u);
  EXPECT_EQ(last.ratings.size(), 3u);
  EXPECT_EQ(store_->GetMatch("U1")->rating_wait, store_->GetMatch("U2")->seq);
  EXPECT_EQ(store_->GetRating(bots_[0], "slovenian-3p")->matches, 5);
}

// A finished table whose twin still plays its deal counts as running for the
// public (docs/security.md, "Secret deals"): no done count, status filter or
// tournament summary shows it done until the twin has finished.
TEST_P(StoreTest, AFinishedTableCountsAsRunningUntilItsDealIsPublic) {
  TournamentRow t;
  t.name = "cup";
  t.variant = "slovenian-3p";
  t.format = "round-robin";
  t.config = "{}";
  absl::StatusOr<int64_t> tid = store_->InsertTournament(t);
  ASSERT_TRUE(tid.ok()) << tid.status();
  for (const char* id : {"T1", "T2", "T3"}) {
    MatchRow m;
    m.id = id;
    m.variant = "slovenian-3p";
    m.kind = "tournament";
    m.spec = "{}";
    m.bot_ids = bots_;
    m.tournament_id = *tid;
    m.seed = std::string(id) == "T3" ? 91 : 90;  // T1 and T2 share a deal
    ASSERT_TRUE(store_->InsertMatch(m).ok());
  }
  ASSERT_TRUE(store_->CommitMatches({Result("T1")}, Rate)[0].committed);
  ASSERT_TRUE(store_->CommitMatches({Result("T3")}, Rate)[0].committed);
  auto counts = [&] {
    MatchFilter done, failed, sealed;
    done.status = "done";
    failed.status = "failed";
    sealed.sealed_finished = true;
    int64_t d = 0, f = 0, s = 0;
    std::vector<MatchRow> page = store_->ListMatchesPage(done, 0, 10, &d);
    store_->ListMatchesPage(failed, 0, 10, &f);
    std::vector<MatchRow> sealed_page = store_->ListMatchesPage(sealed, 0, 10, &s);
    std::string ids;
    for (const MatchRow& m : page) ids += m.id + " ";
    ids += "| ";
    for (const MatchRow& m : sealed_page) ids += m.id + " ";
    TournamentSummaryRow summary = store_->ListTournaments(10).at(0);
    return std::make_tuple(d, f, s, ids, store_->CountPublicFinished("done", 0),
                           store_->CountDoneSince(3600), summary.done, summary.failed);
  };
  // T3's deal is its own: done. T1's twin T2 plays on: running.
  EXPECT_EQ(counts(), std::make_tuple(int64_t{1}, int64_t{0}, int64_t{1}, std::string("T3 | T1 "),
                                      int64_t{1}, int64_t{1}, 1, 0));
  EXPECT_EQ(store_->CountMatches("done"), 2);  // the truth, for the operator
  ASSERT_TRUE(store_->MarkFailed("T2", "referee gone").ok());
  EXPECT_EQ(counts(), std::make_tuple(int64_t{2}, int64_t{1}, int64_t{0}, std::string("T3 T1 | "),
                                      int64_t{2}, int64_t{2}, 2, 1));
}

TEST_P(StoreTest, AttemptsAreKeptForPendingMatchesOnly) {
  Insert("P");
  ASSERT_TRUE(store_->RecordAttempt("P", "127.0.0.1:9", 2).ok());
  EXPECT_EQ(store_->GetMatch("P")->attempts, 2);
  EXPECT_EQ(store_->GetMatch("P")->status, "pending");
  EXPECT_EQ(store_->UnfinishedMatches().size(), 1u);
  ASSERT_TRUE(store_->CommitMatch("P", Result("P", 3).result, Rate).ok());
  ASSERT_TRUE(store_->RecordAttempt("P", "127.0.0.1:9", 7).ok());
  EXPECT_EQ(store_->GetMatch("P")->attempts, 3);  // done: unchanged
  EXPECT_TRUE(store_->UnfinishedMatches().empty());
  ASSERT_TRUE(store_->MarkFailed("P", "late").ok());
  EXPECT_EQ(store_->GetMatch("P")->status, "done");  // a done match never fails
}

// Secret deals (arena/scheduler/deal_seal.h): the salt and commitment are
// stored with the match, and a deal counts as unfinished while any match dealt
// from its seed is pending (the tables of a duplicate set).
TEST_P(StoreTest, SealedSeedsAreKeptAndUnfinishedTablesOfADealCounted) {
  const uint64_t big = 0xF123456789ABCDEFULL;  // above INT64_MAX: stored as a negative integer
  Insert("D1", big);
  Insert("D2", big);
  Insert("E1", 5);
  EXPECT_EQ(store_->GetMatch("D1")->seed, big);
  EXPECT_EQ(store_->GetMatch("D1")->seed_salt, "00112233445566778899aabbccddeeff");
  EXPECT_EQ(store_->GetMatch("D1")->seed_commitment, std::string(64, 'c'));
  EXPECT_EQ(store_->CountUnfinishedWithSeed(big), 2);
  ASSERT_TRUE(store_->CommitMatch("D1", Result("D1").result, Rate).ok());
  EXPECT_EQ(store_->CountUnfinishedWithSeed(big), 1);
  ASSERT_TRUE(store_->MarkFailed("D2", "gone").ok());
  EXPECT_EQ(store_->CountUnfinishedWithSeed(big), 0);
  EXPECT_EQ(store_->CountUnfinishedWithSeed(5), 1);
}

// A match tried again is dealt afresh (Scheduler::Redeal): the seed, salt,
// commitment and spec change while it is unfinished, never once it is done.
TEST_P(StoreTest, ARedealReplacesAnUnfinishedMatchsSealedSeed) {
  const uint64_t big = 0xF123456789ABCDEFULL;
  Insert("R", 5);
  ASSERT_TRUE(store_->Redeal("R", big, std::string(32, 'a'), std::string(64, 'b'), "{\"seed\":\"1\"}").ok());
  absl::StatusOr<MatchRow> m = store_->GetMatch("R");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->seed, big);
  EXPECT_EQ(m->seed_salt, std::string(32, 'a'));
  EXPECT_EQ(m->seed_commitment, std::string(64, 'b'));
  EXPECT_EQ(m->spec, "{\"seed\":\"1\"}");
  EXPECT_EQ(store_->CountUnfinishedWithSeed(5), 0);
  EXPECT_EQ(store_->CountUnfinishedWithSeed(big), 1);
  ASSERT_TRUE(store_->CommitMatch("R", Result("R").result, Rate).ok());
  EXPECT_TRUE(absl::IsNotFound(store_->Redeal("R", 9, std::string(32, 'c'), std::string(64, 'd'), "{}")));
  EXPECT_EQ(store_->GetMatch("R")->seed, big);
  EXPECT_TRUE(absl::IsNotFound(store_->Redeal("nope", 9, "", "", "{}")));
}

TEST_P(StoreTest, SeatsKeepTheirScoresPerHand) {
  Insert("H");
  MatchCommit c = Result("H");
  c.result.seats[2].hand_scores = std::vector<int64_t>{};  // no hand played
  ASSERT_TRUE(store_->CommitMatch("H", c.result, Rate).ok());
  std::vector<SeatRow> seats = store_->SeatsOf("H");
  ASSERT_EQ(seats.size(), 3u);
  ASSERT_TRUE(seats[0].hand_scores.has_value());
  EXPECT_EQ(*seats[0].hand_scores, (std::vector<int64_t>{7, 3}));
  EXPECT_EQ(*seats[1].hand_scores, (std::vector<int64_t>{6, 3}));
  ASSERT_TRUE(seats[2].hand_scores.has_value());
  EXPECT_TRUE(seats[2].hand_scores->empty());
  EXPECT_EQ(seats[1].bot, "bot1");
}

// What schema version 13 added (when a rating was applied), 12 (rating resets, seat logs), version 11 (margin ratings), version 10 (hosted bots), version 9 (events), version 8
// (names unique whatever their case), version 7 (sealed seeds), version 6
// (leases), version 5 (the audit log), version 4 (tests), then version 3
// (the web pages' statistics and indexes).
#define kDropVersion13 \
  "DROP INDEX matches_rating_wait; ALTER TABLE matches DROP COLUMN rating_wait; "           \
  "DROP INDEX bots_owner; DROP INDEX bots_client_net; ALTER TABLE bots DROP COLUMN client_net; "
#define kDropVersion12 kDropVersion13 "DROP TABLE rating_resets; DROP TABLE seat_logs; "
#define kDropVersion11                                                                       \
  kDropVersion12                                                                             \
  "DROP TABLE margin_noise; DROP TABLE margin_history; DROP TABLE margin_ratings; "         \
  "DROP TABLE margin_sets; DROP INDEX matches_ladder_seed; "                                \
  "ALTER TABLE matches DROP COLUMN set_tables; "
#define kDropVersion10                                                                       \
  kDropVersion11                                                                             \
  "DROP INDEX bot_versions_bot; DROP TABLE bot_versions; DROP TABLE bot_hosts; "           \
  "ALTER TABLE match_seats DROP COLUMN version_id; "
#define kDropVersion9                                                                        \
  kDropVersion10                                                                             \
  "DROP TABLE event_bots; DROP INDEX entrants_name; DROP TABLE entrants; DROP TABLE events; " \
  "DROP INDEX matches_event; ALTER TABLE matches DROP COLUMN event_id; "                      \
  "ALTER TABLE bots DROP COLUMN event_id; "
#define kDropVersion3                                                                        \
  kDropVersion9                                                                              \
  "DROP INDEX bots_name_folded; "                                                            \
  "DROP INDEX matches_seed; ALTER TABLE matches DROP COLUMN seed_salt; "                     \
  "ALTER TABLE matches DROP COLUMN seed_commitment; "                                        \
  "DROP TABLE leases; ALTER TABLE matches DROP COLUMN lease_owner; "                         \
  "ALTER TABLE matches DROP COLUMN lease_expires; "                                          \
  "DROP INDEX audit_target; DROP TABLE audit; "                                             \
  "DROP INDEX matches_test; ALTER TABLE matches DROP COLUMN test_id; DROP TABLE tests; "     \
  "DROP INDEX matches_variant; DROP INDEX matches_kind; DROP INDEX matches_ladder; "        \
  "DROP INDEX matches_finished; DROP INDEX rating_history_bot; "                            \
  "ALTER TABLE match_seats DROP COLUMN declarer_hands; "                                    \
  "ALTER TABLE match_seats DROP COLUMN declarer_won; "                                      \
  "ALTER TABLE match_seats DROP COLUMN declarer_score; "                                    \
  "ALTER TABLE match_seats DROP COLUMN defender_hands; "                                    \
  "ALTER TABLE match_seats DROP COLUMN defender_won; "                                      \
  "ALTER TABLE match_seats DROP COLUMN defender_score; "                                    \
  "ALTER TABLE match_seats DROP COLUMN decisions; "                                         \
  "ALTER TABLE match_seats DROP COLUMN decision_ms; "                                       \
  "ALTER TABLE match_seats DROP COLUMN fault_kinds; "

TEST_P(StoreTest, AVersionTwoDatabaseIsMigratedAndItsSeatsHaveNoStatistics) {
  Insert("OLD");
  MatchCommit c = Result("OLD");
  c.result.seats[0].declarer_hands = 2;
  ASSERT_TRUE(store_->CommitMatch("OLD", c.result, Rate).ok());
  store_.reset();
  RawExec(kDropVersion3 "DELETE FROM schema_version WHERE version > 2;");
  Open();
  EXPECT_EQ(store_->SchemaVersion(), Store::kSchemaVersion);
  std::vector<BotVariantStatsRow> stats = store_->BotStats(bots_[0]);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].matches, 1);
  EXPECT_EQ(stats[0].wins, 1);
  EXPECT_EQ(stats[0].sums.declarer_hands, 0);  // unknown before version 3
}

// Issue 29: the database itself keeps names unique whatever their case (two
// registrations racing past the scheduler's check), and a version 7
// database that already holds such a pair is migrated (the later one renamed).
TEST_P(StoreTest, BotNamesAreUniqueWhateverTheirCaseEvenOnAnOldDatabase) {
  BotRow row;
  row.name = "RND1";
  row.endpoint = "127.0.0.1:1";
  row.owner = "o";
  row.variants = {"slovenian-4p"};
  row.token_hash = "h";
  row.name = "Bot1";  // bots_[0] is "bot1"
  EXPECT_EQ(store_->AddBot(row).status().code(), absl::StatusCode::kAlreadyExists);
  row.name = "RND1";
  absl::StatusOr<BotRow> upper = store_->AddBot(row);
  ASSERT_TRUE(upper.ok()) << upper.status();
  store_.reset();
  RawExec(kDropVersion9 "DROP INDEX bots_name_folded; DELETE FROM schema_version WHERE version > 7; "
          "INSERT INTO bots (name, endpoint, owner, variants, token_hash) "
          "VALUES ('rnd1', '127.0.0.1:2', 'o', 'slovenian-4p', 'h2');");
  Open();
  EXPECT_EQ(store_->SchemaVersion(), Store::kSchemaVersion);
  std::vector<std::string> names;
  for (const BotRow& b : store_->ListBots(true)) names.push_back(b.name);
  EXPECT_EQ(std::count(names.begin(), names.end(), "RND1"), 1) << absl::StrJoin(names, " ");
  EXPECT_EQ(std::count_if(names.begin(), names.end(),
                          [](const std::string& n) { return n.rfind("rnd1~", 0) == 0; }),
            1)
      << absl::StrJoin(names, " ");
  row.name = "rNd1";
  EXPECT_EQ(store_->AddBot(row).status().code(), absl::StatusCode::kAlreadyExists);
}

// Events (schema version 9): slugs and entrant names unique (names whatever
// their case), a field entered and withdrawn, matches filtered by event.
TEST_P(StoreTest, EventsEntrantsAndTheirFieldAreKept) {
  EventRow e;
  e.slug = "class-a";
  e.status = "open";
  e.organiser_token_hash = "h";
  e.invite_code = "code";
  e.config = "{}";
  absl::StatusOr<int64_t> id = store_->InsertEvent(e);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(store_->InsertEvent(e).status().code(), absl::StatusCode::kAlreadyExists);
  e.id = *id;
  e.status = "frozen";
  e.frozen_at = "2026-11-26 12:00:00";
  e.final_tournament_id = 7;
  ASSERT_TRUE(store_->UpdateEvent(e).ok());
  absl::StatusOr<EventRow> read = store_->GetEvent("class-a");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->status, "frozen");
  EXPECT_EQ(read->final_tournament_id, 7);
  EXPECT_FALSE(read->created_at.empty());
  EXPECT_EQ(store_->EventById(*id)->slug, "class-a");
  EXPECT_EQ(store_->GetEvent("nope").status().code(), absl::StatusCode::kNotFound);

  EntrantRow ann{0, *id, "Ann", "t1", "", ""};
  absl::StatusOr<EntrantRow> added = store_->InsertEntrant(ann);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_GT(added->id, 0);
  EXPECT_FALSE(added->created_at.empty());
  ann.name = "ANN";
  EXPECT_EQ(store_->InsertEntrant(ann).status().code(), absl::StatusCode::kAlreadyExists);
  added->token_hash = "t2";
  ASSERT_TRUE(store_->UpdateEntrant(*added).ok());
  ASSERT_EQ(store_->ListEntrants(*id).size(), 1u);
  EXPECT_EQ(store_->ListEntrants(*id)[0].token_hash, "t2");

  ASSERT_TRUE(store_->EnterBot({*id, bots_[0], added->id, false, ""}).ok());
  ASSERT_TRUE(store_->EnterBot({*id, bots_[1], 0, false, ""}).ok());
  ASSERT_TRUE(store_->EnterBot({*id, bots_[0], added->id, true, ""}).ok());  // withdrawn
  std::vector<EventBotRow> field = store_->EventBots(*id);
  ASSERT_EQ(field.size(), 2u);
  EXPECT_TRUE(field[0].withdrawn);
  EXPECT_EQ(field[1].entrant_id, 0);
  EXPECT_EQ(store_->EventsOfBot(bots_[1]).size(), 1u);

  MatchRow m;
  m.id = "E1";
  m.variant = "slovenian-3p";
  m.kind = "ladder";
  m.spec = "{}";
  m.bot_ids = bots_;
  m.event_id = *id;
  ASSERT_TRUE(store_->InsertMatch(m).ok());
  Insert("OPEN");
  MatchFilter f;
  f.event_id = *id;
  int64_t total = 0;
  std::vector<MatchRow> page = store_->ListMatchesPage(f, 0, 10, &total);
  ASSERT_EQ(total, 1);
  EXPECT_EQ(page[0].id, "E1");
  EXPECT_EQ(page[0].event_id, *id);
  f.event_id = 0;
  page = store_->ListMatchesPage(f, 0, 10, &total);
  ASSERT_EQ(total, 1);
  EXPECT_EQ(page[0].id, "OPEN");
}

TEST_P(StoreTest, HostedVersionsKeepTheNewestAndSeatsNameThem) {
  VersionRow v;
  v.bot_id = bots_[0];
  v.kind = "python";
  v.entry = "bot.py";
  v.filename = "bot.py";
  v.sha256 = std::string(64, 'a');
  v.size = 12;
  v.content = "ZGVmIGRlY2lkZSgp";
  std::vector<int64_t> ids;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<int64_t> id = store_->AddVersion(v, 2);
    ASSERT_TRUE(id.ok()) << id.status();
    ids.push_back(*id);
  }
  std::vector<VersionRow> list = store_->ListVersions(bots_[0]);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].id, ids[2]);  // newest first
  EXPECT_EQ(list[0].status, "building");
  EXPECT_EQ(list[2].status, "removed");  // only the newest 2 keep their content
  EXPECT_EQ(store_->GetVersion(ids[0])->content, "");
  EXPECT_EQ(store_->GetVersion(ids[2])->content, v.content);
  EXPECT_EQ(store_->CountVersionsSince(bots_[0], 3600), 3);
  ASSERT_TRUE(store_->SetVersionStatus(ids[2], "ready", "built").ok());
  absl::StatusOr<VersionRow> ready = store_->GetVersion(ids[2]);
  EXPECT_EQ(ready->status, "ready");
  EXPECT_EQ(ready->build_log, "built");
  EXPECT_FALSE(ready->ready_at.empty());
  // Only a building version changes status.
  ASSERT_TRUE(store_->SetVersionStatus(ids[2], "failed", "again").ok());
  EXPECT_EQ(store_->GetVersion(ids[2])->status, "ready");
  // Hosts by the hash of their token; a name once.
  ASSERT_TRUE(store_->AddHost(HostRow{0, "h1", HashToken("t1")}).ok());
  EXPECT_EQ(store_->AddHost(HostRow{0, "h1", HashToken("t2")}).status().code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(store_->FindHostByTokenHash(HashToken("t1")).has_value());
  EXPECT_EQ(store_->FindHostByTokenHash(HashToken("t1"))->name, "h1");
  EXPECT_FALSE(store_->FindHostByTokenHash(HashToken("t2")).has_value());
  // A seat names the version that played it.
  Insert("H");
  MatchCommit c = Result("H");
  c.result.seats[0].version_id = ids[2];
  ASSERT_TRUE(store_->CommitMatch("H", c.result, Rate).ok());
  EXPECT_EQ(store_->SeatsOf("H")[0].version_id, ids[2]);
  EXPECT_EQ(store_->SeatsOf("H")[1].version_id, 0);
}

TEST_P(StoreTest, MatchPagesFilterCountAndPage) {
  // Each its own deal (seed): statistics count a match once its deal is public.
  for (int i = 0; i < 7; ++i) Insert(absl::StrCat("M", i), 100 + i);
  MatchCommit c = Result("M1");
  c.result.seats[1].fault_kinds = "timeout:2,illegal:1";
  c.result.seats[1].faults = 3;
  c.result.seats[1].declarer_hands = 1;
  c.result.seats[1].declarer_won = 1;
  c.result.seats[1].declarer_score = 40;
  ASSERT_TRUE(store_->CommitMatch("M1", c.result, Rate).ok());
  ASSERT_TRUE(store_->CommitMatch("M2", Result("M2").result, Rate).ok());
  ASSERT_TRUE(store_->MarkFailed("M3", "boom").ok());
  int64_t total = 0;
  std::vector<MatchRow> page = store_->ListMatchesPage({}, 0, 3, &total);
  EXPECT_EQ(total, 7);
  ASSERT_EQ(page.size(), 3u);
  EXPECT_EQ(page[0].id, "M6");  // newest first
  page = store_->ListMatchesPage({}, 6, 3, &total);
  ASSERT_EQ(page.size(), 1u);
  EXPECT_EQ(page[0].id, "M0");
  MatchFilter done;
  done.status = "done";
  page = store_->ListMatchesPage(done, 0, 50, &total);
  EXPECT_EQ(total, 2);
  EXPECT_FALSE(page[0].finished_at.empty());
  MatchFilter failed;
  failed.status = "failed";
  failed.variant = "slovenian-3p";
  failed.kind = "tournament";
  page = store_->ListMatchesPage(failed, 0, 50, &total);
  ASSERT_EQ(total, 1);
  EXPECT_EQ(page[0].id, "M3");
  MatchFilter by_bot;
  by_bot.bot_id = bots_[1];
  store_->ListMatchesPage(by_bot, 0, 50, &total);
  // Issue 30: every match that seats it, the done ones (by their stored seats)
  // and the pending and failed ones (by their spec's bots).
  EXPECT_EQ(total, 7);
  by_bot.status = "failed";
  page = store_->ListMatchesPage(by_bot, 0, 50, &total);
  ASSERT_EQ(total, 1);
  EXPECT_EQ(page[0].id, "M3");
  by_bot.status = "";
  by_bot.bot_id = 999999;  // a bot id that no match seats (nor one ending in it)
  store_->ListMatchesPage(by_bot, 0, 50, &total);
  EXPECT_EQ(total, 0);
  MatchFilter other;
  other.variant = "westfest";
  EXPECT_TRUE(store_->ListMatchesPage(other, 0, 50, &total).empty());
  EXPECT_EQ(total, 0);
  EXPECT_EQ(store_->CountDoneSince(300), 2);
  std::vector<BotVariantStatsRow> stats = store_->BotStats(bots_[1]);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].matches, 2);
  EXPECT_EQ(stats[0].sums.declarer_hands, 1);
  EXPECT_EQ(stats[0].sums.declarer_score, 40);
  EXPECT_EQ(stats[0].fault_kinds["timeout"], 2);
  EXPECT_EQ(stats[0].fault_kinds["illegal"], 1);
  std::vector<LeaderRow> board = store_->LeaderboardRows("slovenian-3p", 1);
  ASSERT_EQ(board.size(), 3u);
  for (const LeaderRow& r : board) {
    ASSERT_TRUE(r.earlier.has_value());  // 2 rated matches: the one before the last
    EXPECT_EQ(r.rating.matches, 2);
  }
  std::vector<TournamentSummaryRow> none = store_->ListTournaments(10);
  EXPECT_TRUE(none.empty());
  // A table whose deal another table still plays (same seed, pending) is not
  // counted until that one finishes (docs/security.md, "Secret deals").
  Insert("M7", 105);  // M5's deal, M5 still pending
  ASSERT_TRUE(store_->CommitMatch("M7", Result("M7").result, Rate).ok());
  stats = store_->BotStats(bots_[1]);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].matches, 2);
  ASSERT_TRUE(store_->CommitMatch("M5", Result("M5").result, Rate).ok());
  stats = store_->BotStats(bots_[1]);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].matches, 4);
}

// Issue 30: a bot's statistics count hand scores and the end-of-match
// settlement apart, leave unrated play matches out, and the tournament row
// has its creation time; a filter by several bots finds all of their matches.
TEST_P(StoreTest, BotStatsSplitTheSettlementAndLeaveOutPlayMatches) {
  Insert("R1");
  MatchCommit c = Result("R1");
  c.result.seats[0].total = 10 - 100;  // hands 7 + 3, one radl left
  ASSERT_TRUE(store_->CommitMatch("R1", c.result, Rate).ok());
  MatchRow play;
  play.id = "P1";
  play.variant = "slovenian-3p";
  play.kind = "play";
  play.spec = "{}";
  play.bot_ids = bots_;
  ASSERT_TRUE(store_->InsertMatch(play).ok());
  MatchCommit p = Result("P1");
  p.result.seats[0].total = 500;
  p.result.seats[0].hand_scores = std::vector<int64_t>{500, 0};
  ASSERT_TRUE(store_->CommitMatch("P1", p.result, Rate).ok());
  std::vector<BotVariantStatsRow> stats = store_->BotStats(bots_[0]);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].matches, 1);  // the play match is not counted
  EXPECT_EQ(stats[0].total, -90);
  EXPECT_EQ(stats[0].hand_total, 10);
  EXPECT_EQ(stats[0].scored_hands, 2);
  // Both matches seat bots 0 and 1: a filter naming either finds both.
  MatchFilter two;
  two.bot_ids = {bots_[0], bots_[1]};
  int64_t total = 0;
  store_->ListMatchesPage(two, 0, 50, &total);
  EXPECT_EQ(total, 2);
  Insert("R2");  // pending: found by its spec's bots
  store_->ListMatchesPage(two, 0, 50, &total);
  EXPECT_EQ(total, 3);
  TournamentRow t;
  t.name = "t";
  t.variant = "slovenian-3p";
  t.format = "round-robin";
  t.config = "{}";
  absl::StatusOr<int64_t> tid = store_->InsertTournament(t);
  ASSERT_TRUE(tid.ok());
  absl::StatusOr<TournamentRow> back = store_->GetTournament(*tid);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->created_at.size(), 19u) << back->created_at;  // YYYY-MM-DD HH:MM:SS
}

// A finished table whose twin still plays its deal counts nowhere in a bot's
// statistics, its hand scores included (the red team of 2026-11-29 read a
// sealed table's scores as the change of hand_total beside a public match).
TEST_P(StoreTest, BotStatsLeaveOutASealedTableHandScoresToo) {
  Insert("PUB");
  ASSERT_TRUE(store_->CommitMatch("PUB", Result("PUB").result, Rate).ok());
  const uint64_t deal = 777;
  Insert("T1", deal);
  Insert("T2", deal);  // the twin, still pending
  MatchCommit c = Result("T1");
  c.result.seats[0].hand_scores = std::vector<int64_t>{-9000, 0};
  ASSERT_TRUE(store_->CommitMatch("T1", c.result, Rate).ok());
  std::vector<BotVariantStatsRow> stats = store_->BotStats(bots_[0]);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].matches, 1);
  EXPECT_EQ(stats[0].hand_total, 10);  // PUB's 7 + 3 alone
  EXPECT_EQ(stats[0].scored_hands, 2);
  ASSERT_TRUE(store_->CommitMatch("T2", Result("T2").result, Rate).ok());
  stats = store_->BotStats(bots_[0]);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].matches, 3);  // the deal is public: both tables count
  EXPECT_EQ(stats[0].hand_total, 10 - 9000 + 10);
}

TEST_P(StoreTest, AVersionOneDatabaseIsMigratedAndKeepsItsResults) {
  Insert("OLD");
  ASSERT_TRUE(store_->CommitMatch("OLD", Result("OLD").result, Rate).ok());
  store_.reset();
  // Take the database back to schema version 1, as an arena of the previous
  // release left it.
  RawExec("ALTER TABLE match_seats DROP COLUMN hand_scores; " kDropVersion3
          "DELETE FROM schema_version WHERE version > 1;");
  Open();
  EXPECT_EQ(store_->SchemaVersion(), Store::kSchemaVersion);
  std::vector<SeatRow> seats = store_->SeatsOf("OLD");
  ASSERT_EQ(seats.size(), 3u);
  EXPECT_FALSE(seats[0].hand_scores.has_value());  // unknown: in the record only
  EXPECT_EQ(seats[0].total, 10);
  EXPECT_EQ(store_->GetRating(bots_[0], "slovenian-3p")->matches, 1);
  // New results get their scores again.
  Insert("NEW");
  ASSERT_TRUE(store_->CommitMatch("NEW", Result("NEW").result, Rate).ok());
  EXPECT_TRUE(store_->SeatsOf("NEW")[0].hand_scores.has_value());
}

TEST_P(StoreTest, ANewerDatabaseIsRefused) {
  store_.reset();
  RawExec("INSERT INTO schema_version VALUES (99);");
  absl::StatusOr<std::unique_ptr<Store>> s = OpenStore(url_);
  EXPECT_TRUE(absl::IsFailedPrecondition(s.status())) << s.status();
}

TEST_P(StoreTest, RecordsAndHandRecordsAreStored) {
  Insert("R");
  ASSERT_TRUE(store_->CommitMatch("R", Result("R").result, Rate).ok());
  absl::StatusOr<std::string> record = store_->RecordOf("R");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(*record, R"({"deals":[{"h":0},{"h":1}]})");
  EXPECT_TRUE(absl::IsNotFound(store_->RecordOf("nope").status()));
}

TEST_P(StoreTest, TestsKeepTheirStateUntilTheyEndAndFilterTheirMatches) {
  TestRow t;
  t.variant = "slovenian-3p";
  t.config = "{}";
  t.status = "running";
  t.state = "{\"blocks\":0}";
  absl::StatusOr<int64_t> id = store_->InsertTest(t);
  ASSERT_TRUE(id.ok()) << id.status();
  MatchRow m;
  m.id = "S1-0-0";
  m.variant = "slovenian-3p";
  m.kind = "test";
  m.test_id = *id;
  m.spec = "{}";
  m.bot_ids = bots_;
  ASSERT_TRUE(store_->InsertMatch(m).ok());
  Insert("OTHER");
  EXPECT_EQ(store_->GetMatch("S1-0-0")->test_id, *id);
  EXPECT_EQ(store_->CountTestMatches(*id, ""), 1);
  EXPECT_EQ(store_->CountTestMatches(*id, "done"), 0);
  ASSERT_TRUE(store_->CommitMatch("S1-0-0", Result("S1-0-0").result, Rate).ok());
  EXPECT_EQ(store_->CountTestMatches(*id, "done"), 1);
  MatchFilter f;
  f.test_id = *id;
  int64_t total = 0;
  std::vector<MatchRow> page = store_->ListMatchesPage(f, 0, 50, &total);
  EXPECT_EQ(total, 1);
  ASSERT_EQ(page.size(), 1u);
  EXPECT_EQ(page[0].id, "S1-0-0");
  EXPECT_EQ(store_->TestMatches(*id).size(), 1u);
  // Running: the state is written; once done, nothing changes it any more.
  EXPECT_TRUE(*store_->UpdateTest(*id, "{\"blocks\":1}", "running"));
  EXPECT_TRUE(store_->GetTest(*id)->finished_at.empty());
  EXPECT_TRUE(*store_->UpdateTest(*id, "{\"blocks\":2}", "done"));
  EXPECT_FALSE(*store_->UpdateTest(*id, "{\"blocks\":3}", "running"));
  absl::StatusOr<TestRow> got = store_->GetTest(*id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->state, "{\"blocks\":2}");
  EXPECT_EQ(got->status, "done");
  EXPECT_FALSE(got->finished_at.empty());
  EXPECT_EQ(store_->ListTests("running", 10).size(), 0u);
  ASSERT_EQ(store_->ListTests("", 10).size(), 1u);
  EXPECT_TRUE(absl::IsNotFound(store_->GetTest(*id + 1).status()));
}

TEST_P(StoreTest, LeasesHandEachMatchToOneArenaAndExpiredOnesToAnother) {
  for (const char* id : {"A", "B", "C"}) Insert(id);
  absl::StatusOr<std::vector<MatchRow>> first = store_->ClaimMatches("arena-1", 60, 2);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].id, "A");  // oldest first
  EXPECT_EQ((*first)[1].status, "running");
  absl::StatusOr<std::vector<MatchRow>> second = store_->ClaimMatches("arena-2", 60, 5);
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].id, "C");
  EXPECT_TRUE(store_->ClaimMatches("arena-2", 60, 5)->empty());  // all leased
  EXPECT_EQ(store_->GetMatch("A")->lease_owner, "arena-1");
  // arena-1 renews into the past (as if it had died long ago): its matches
  // go to the next claimant.
  ASSERT_TRUE(store_->RenewLeases("arena-1", -10).ok());
  absl::StatusOr<std::vector<MatchRow>> taken = store_->ClaimMatches("arena-2", 60, 5);
  ASSERT_TRUE(taken.ok());
  ASSERT_EQ(taken->size(), 2u);
  EXPECT_EQ(store_->GetMatch("B")->lease_owner, "arena-2");
  // The old holder's late result does not count; the holder's does, once.
  MatchResultRow late = Result("A").result;
  late.lease_owner = "arena-1";
  EXPECT_FALSE(*store_->CommitMatch("A", late, Rate));
  MatchResultRow holder = Result("A").result;
  holder.lease_owner = "arena-2";
  EXPECT_TRUE(*store_->CommitMatch("A", holder, Rate));
  EXPECT_FALSE(*store_->CommitMatch("A", holder, Rate));
  EXPECT_EQ(store_->GetRating(bots_[0], "slovenian-3p")->matches, 1);
  // A stopping arena gives its matches back at once.
  ASSERT_TRUE(store_->ReleaseLeases("arena-2").ok());
  EXPECT_EQ(store_->GetMatch("B")->status, "pending");
  EXPECT_EQ(store_->GetMatch("A")->status, "done");
  EXPECT_EQ(store_->ClaimMatches("arena-3", 60, 5)->size(), 2u);
}

TEST_P(StoreTest, ANamedLeaseHasOneHolderUntilItExpires) {
  EXPECT_TRUE(*store_->AcquireLease("dispatcher", "arena-1", 60));
  EXPECT_FALSE(*store_->AcquireLease("dispatcher", "arena-2", 60));
  EXPECT_TRUE(*store_->AcquireLease("dispatcher", "arena-1", 60));  // renewed
  EXPECT_TRUE(*store_->AcquireLease("other", "arena-2", 60));
  ASSERT_TRUE(*store_->AcquireLease("dispatcher", "arena-1", -10));  // lapsed
  EXPECT_TRUE(*store_->AcquireLease("dispatcher", "arena-2", 60));
  EXPECT_FALSE(*store_->AcquireLease("dispatcher", "arena-1", 60));
  ASSERT_TRUE(store_->ReleaseLeases("arena-2").ok());  // a clean stop: free at once
  EXPECT_TRUE(*store_->AcquireLease("dispatcher", "arena-1", 60));
}

TEST_P(StoreTest, RatingsRoundTripBitForBit) {
  // --verify_ratings compares stored ratings with rebuilt ones exactly.
  Insert("F");
  auto rate = [](const MatchRow& m, const MatchResultRow& result,
                 const std::vector<std::optional<RatingRow>>&) {
    std::vector<RatingRow> out;
    for (const SeatRow& seat : result.seats)
      out.push_back(RatingRow{seat.bot_id, m.variant, 25.0 / 3 + seat.seat * 1e-13,
                              0.1 + 0.2 + seat.seat, 1, 0});
    return out;
  };
  ASSERT_TRUE(store_->CommitMatch("F", Result("F").result, rate).ok());
  Open();
  for (int s = 0; s < 3; ++s) {
    std::optional<RatingRow> r = store_->GetRating(bots_[s], "slovenian-3p");
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->mu, 25.0 / 3 + s * 1e-13);
    EXPECT_EQ(r->sigma, 0.1 + 0.2 + s);
    EXPECT_EQ(store_->HistoryOfBot(bots_[s])[0].mu, r->mu);
  }
}

TEST_P(StoreTest, NamesSortByteWiseOnBothBackEnds) {
  for (const char* name : {"Zed", "alpha", "_under", "Beta"}) {
    BotRow row;
    row.name = name;
    row.endpoint = "127.0.0.1:1";
    row.owner = "me";
    row.token_hash = HashToken("t");
    ASSERT_TRUE(store_->AddBot(row).ok());
  }
  std::vector<std::string> names;
  for (const BotRow& b : store_->ListBots(false)) names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Beta", "Zed", "_under", "alpha", "bot0", "bot1",
                                             "bot2"}));
  EXPECT_TRUE(absl::IsAlreadyExists(store_->AddBot(store_->ListBots(false)[0]).status()));
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(OpenStoreTest, RefusesAnUnknownUrl) {
  EXPECT_TRUE(absl::IsInvalidArgument(OpenStore("mysql://x").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(OpenStore("/tmp/arena.db").status()));
}

// Issue 29: a failing random source is an error, never a token of zeros.
ssize_t FailingSource(void*, size_t) {
  errno = EMFILE;
  return -1;
}
ssize_t ZeroSource(void* buffer, size_t size) {
  std::memset(buffer, 0, size);
  return static_cast<ssize_t>(size);
}
ssize_t ShortSource(void* buffer, size_t size) {  // one byte per call
  static_cast<unsigned char*>(buffer)[0] = 0x5a;
  return size > 0 ? 1 : 0;
}

TEST(NewTokenTest, FailsClosedAndNeverReturnsZeros) {
  absl::StatusOr<std::string> fine = NewToken();
  ASSERT_TRUE(fine.ok()) << fine.status();
  EXPECT_EQ(fine->size(), 32u);
  EXPECT_NE(*fine, std::string(32, '0'));
  SetRandomSourceForTesting(FailingSource);
  absl::StatusOr<std::string> failed = NewToken();
  SetRandomSourceForTesting(ZeroSource);
  absl::StatusOr<std::string> zeros = NewToken();
  SetRandomSourceForTesting(ShortSource);
  absl::StatusOr<std::string> short_reads = NewToken();
  SetRandomSourceForTesting(nullptr);
  EXPECT_TRUE(absl::IsUnavailable(failed.status())) << failed.status();
  EXPECT_TRUE(absl::IsUnavailable(zeros.status())) << zeros.status();
  ASSERT_TRUE(short_reads.ok()) << short_reads.status();  // short reads are completed
  EXPECT_EQ(*short_reads, "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a");
}

#ifdef TAROCK_HAVE_POSTGRES
TEST(OpenStoreTest, ANonListeningServerIsUnavailable) {
  EXPECT_TRUE(absl::IsUnavailable(
      OpenStore("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2").status()));
}
#endif

#ifdef TAROCK_HAVE_POSTGRES
TEST(ToPostgresParametersTest, NumbersBareAndExplicitParametersAsSqliteDoes) {
  EXPECT_EQ(ToPostgresParameters("a = ? AND b = ? AND c = ?1"), "a = $1 AND b = $2 AND c = $1");
  EXPECT_EQ(ToPostgresParameters("OFFSET ?2) WHERE v = ?1 AND w = ?"),
            "OFFSET $2) WHERE v = $1 AND w = $3");
  EXPECT_EQ(ToPostgresParameters("x = '?' AND y = ?"), "x = '?' AND y = $1");
}
#endif

}  // namespace
}  // namespace tarock::arena
