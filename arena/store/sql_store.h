// The Store on SQL, shared by both back ends: every query, the schema and its
// migrations, row decoding, the commit and its rating updates are written once
// here against a small connection interface (sql::Connection), which SQLite
// (sqlite_store.h) and PostgreSQL (postgres_store.h) implement. What differs
// between the two is a sql::Dialect: the schema's types, how a write
// transaction starts, and two function names.
//
// SQL text is written SQLite's way, with `?` and `?N` parameters; a
// connection that needs another form (PostgreSQL's `$N`) rewrites it once when
// it prepares the statement.
//
// Thread-safety: SqlStore is thread-safe (every call under one mutex, one
// connection). sql::Connection and sql::Statement are not: SqlStore uses them
// under its mutex only.

#ifndef TAROCK_ARENA_STORE_SQL_STORE_H_
#define TAROCK_ARENA_STORE_SQL_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "arena/store/store.h"

namespace tarock::arena::sql {

// What Statement::Step() returns (SQLite's codes, which the store grew up on).
inline constexpr int kRow = 100;         // a row is ready
inline constexpr int kDone = 101;        // the statement finished
inline constexpr int kConstraint = 19;   // a unique or foreign key constraint refused it
inline constexpr int kError = 1;         // anything else (Connection::LastError says what)

// One prepared statement with positional parameters (1-based) and, after
// Step() returned kRow, the current row's columns (0-based; NULL reads as 0
// or ""). Bind before the first Step().
class Statement {
 public:
  virtual ~Statement() = default;
  virtual void Bind(int i, int64_t v) = 0;
  virtual void Bind(int i, double v) = 0;
  virtual void Bind(int i, const std::string& v) = 0;
  // Binds without a copy where the back end can: `v` must outlive the Step()s.
  virtual void BindUncopied(int i, const std::string& v) { Bind(i, v); }
  virtual int Step() = 0;
  virtual int64_t Int(int col) const = 0;
  virtual double Double(int col) const = 0;
  virtual std::string Text(int col) const = 0;
};

// One database connection.
class Connection {
 public:
  virtual ~Connection() = default;
  // Never null; a statement that fails to compile fails in its Step().
  virtual std::unique_ptr<Statement> Prepare(const std::string& sql) = 0;
  // Runs statements without parameters or results (a script).
  virtual absl::Status Exec(const std::string& script) = 0;
  // The id the last INSERT into a table with an id column generated.
  virtual int64_t LastInsertId() = 0;
  // Rows the last INSERT, UPDATE or DELETE changed.
  virtual int64_t Changes() = 0;
  // The message of the last error.
  virtual std::string LastError() = 0;
};

// How a back end's SQL differs from the shared text.
struct Dialect {
  std::string name;  // "sqlite", "postgresql"
  // Starts a transaction that writes, excluding every other writer until it
  // ends (so completion numbers and ratings follow one order, whichever
  // process commits).
  std::string begin_write;
  // The aggregate joining text with a separator: group_concat / string_agg.
  std::string group_concat;
  // Appended to a SELECT that claims rows (PostgreSQL: FOR UPDATE SKIP LOCKED).
  std::string skip_locked;
  // The schema's migration `v` (0-based, to version v + 1) in this dialect.
  std::string (*migration)(int v);
};

// The shared migrations, SQLite's text (see SqliteMigration / PostgresMigration).
std::string SqliteMigration(int v);

class SqlStore : public Store {
 public:
  // Migrates the database to kSchemaVersion. Errors: FAILED_PRECONDITION for
  // a database with a newer schema, INTERNAL for a failed migration.
  static absl::StatusOr<std::unique_ptr<Store>> Create(std::unique_ptr<Connection> db,
                                                       Dialect dialect);
  ~SqlStore() override;

  int SchemaVersion() override;
  absl::StatusOr<BotRow> AddBot(const BotRow& bot) override;
  absl::Status UpdateBot(const BotRow& bot) override;
  absl::StatusOr<BotRow> FindBot(const std::string& name) override;
  absl::StatusOr<BotRow> BotById(int64_t id) override;
  std::vector<BotRow> ListBots(bool include_retired) override;
  std::optional<RatingRow> GetRating(int64_t bot_id, const std::string& variant) override;
  std::vector<RatingRow> RatingsOfBot(int64_t bot_id) override;
  absl::Status ResetRatings(int64_t bot_id) override;
  std::vector<std::pair<int64_t, int64_t>> RatingResets() override;
  std::vector<RatingRow> RatingsOfVariant(const std::string& variant) override;
  std::vector<HistoryRow> HistoryOfBot(int64_t bot_id) override;
  absl::Status InsertMatch(const MatchRow& match) override;
  absl::Status InsertMatches(const std::vector<MatchRow>& matches) override;
  absl::Status DeletePendingMatches(const std::vector<std::string>& ids) override;
  absl::Status RecordAttempt(const std::string& id, const std::string& referee,
                             int attempts) override;
  absl::Status Redeal(const std::string& id, uint64_t seed, const std::string& salt,
                      const std::string& commitment, const std::string& spec) override;
  absl::Status MarkFailed(const std::string& id, const std::string& error) override;
  absl::Status MarkPending(const std::string& id) override;
  absl::StatusOr<bool> CommitMatch(const std::string& id, const MatchResultRow& result,
                                   const RateFn& rate) override;
  std::vector<CommitOutcome> CommitMatches(const std::vector<MatchCommit>& batch,
                                           const RateFn& rate) override;
  absl::StatusOr<MatchRow> GetMatch(const std::string& id) override;
  std::vector<SeatRow> SeatsOf(const std::string& id) override;
  absl::StatusOr<std::string> RecordOf(const std::string& id) override;
  std::vector<MatchRow> ListMatches(const std::string& variant, int64_t bot_id,
                                    int limit) override;
  std::vector<MatchRow> UnfinishedMatches() override;
  int64_t CountUnfinishedWithSeed(uint64_t seed) override;
  void ForEachDoneMatch(
      const std::function<void(const MatchRow&, const std::vector<SeatRow>&)>& fn) override;
  int64_t CountMatches(const std::string& status) override;
  int64_t CountLadderMatches(int64_t ladder_id, const std::string& status) override;
  int64_t CountPublicFinished(const std::string& status, int64_t ladder_id) override;
  std::vector<MatchRow> TournamentMatches(int64_t tournament_id) override;
  std::vector<MatchRow> ListMatchesPage(const MatchFilter& filter, int offset, int limit,
                                        int64_t* total) override;
  int64_t CountDoneSince(int seconds) override;
  std::vector<TournamentSummaryRow> ListTournaments(int limit) override;
  std::vector<LeaderRow> LeaderboardRows(const std::string& variant, int trend_matches) override;
  std::vector<BotVariantStatsRow> BotStats(int64_t bot_id) override;
  absl::StatusOr<bool> BookSet(int64_t ladder_id, uint64_t seed, const std::string& pool,
                               const SetRateFn& rate) override;
  std::vector<SetTableRow> SetTables(int64_t ladder_id, uint64_t seed) override;
  std::vector<MarginSetRow> BookedSets() override;
  std::vector<std::pair<int64_t, uint64_t>> UnbookedFinishedSets() override;
  std::vector<MarginRatingRow> MarginRatingsOfBot(int64_t bot_id) override;
  MarginNoiseRow MarginNoiseOf(const std::string& pool) override;
  std::map<std::string, MarginNoiseRow> MarginNoises() override;
  std::vector<MarginLeaderRow> MarginLeaderboardRows(const std::string& pool) override;
  absl::StatusOr<int64_t> InsertLadder(const LadderRow& ladder) override;
  absl::Status SetLadderRunning(int64_t id, bool running) override;
  std::vector<LadderRow> ListLadders() override;
  absl::StatusOr<int64_t> InsertTournament(const TournamentRow& tournament) override;
  absl::StatusOr<TournamentRow> GetTournament(int64_t id) override;
  absl::StatusOr<int64_t> InsertEvent(const EventRow& event) override;
  absl::Status UpdateEvent(const EventRow& event) override;
  absl::StatusOr<EventRow> GetEvent(const std::string& slug) override;
  absl::StatusOr<EventRow> EventById(int64_t id) override;
  std::vector<EventRow> ListEvents() override;
  absl::StatusOr<EntrantRow> InsertEntrant(const EntrantRow& entrant) override;
  absl::Status UpdateEntrant(const EntrantRow& entrant) override;
  std::vector<EntrantRow> ListEntrants(int64_t event_id) override;
  absl::Status EnterBot(const EventBotRow& entry) override;
  std::vector<EventBotRow> EventBots(int64_t event_id) override;
  std::vector<EventBotRow> EventsOfBot(int64_t bot_id) override;
  absl::StatusOr<int64_t> InsertTest(const TestRow& test) override;
  absl::StatusOr<bool> UpdateTest(int64_t id, const std::string& state,
                                  const std::string& status) override;
  absl::StatusOr<TestRow> GetTest(int64_t id) override;
  std::vector<TestRow> ListTests(const std::string& status, int limit) override;
  std::vector<MatchRow> TestMatches(int64_t test_id) override;
  int64_t CountTestMatches(int64_t test_id, const std::string& status) override;
  absl::StatusOr<std::vector<MatchRow>> ClaimMatches(const std::string& owner, int lease_seconds,
                                                     int limit) override;
  absl::Status RenewLeases(const std::string& owner, int lease_seconds) override;
  absl::Status ReleaseLeases(const std::string& owner) override;
  absl::StatusOr<bool> AcquireLease(const std::string& name, const std::string& owner,
                                    int lease_seconds) override;
  absl::StatusOr<int64_t> AppendAudit(const AuditRow& entry) override;
  std::vector<AuditRow> ListAudit(const std::string& target, int64_t before_id,
                                  int limit) override;
  absl::StatusOr<int64_t> AddVersion(const VersionRow& version, int keep) override;
  std::vector<VersionRow> ListVersions(int64_t bot_id) override;
  absl::Status PutSeatLog(const std::string& match_id, int seat, int64_t bot_id,
                          const std::string& log) override;
  absl::StatusOr<std::string> SeatLog(const std::string& match_id, int seat) override;
  absl::StatusOr<VersionRow> GetVersion(int64_t id) override;
  absl::StatusOr<VersionRow> GetVersionInfo(int64_t id) override;
  absl::StatusOr<std::string> GetVersionContentSlice(int64_t id, int64_t offset,
                                                     int64_t length) override;
  absl::Status SetVersionStatus(int64_t id, const std::string& status,
                                const std::string& build_log) override;
  int64_t CountVersionsSince(int64_t bot_id, int seconds) override;
  StoredRow StoredByOwner(const std::string& owner) override;
  StoredRow StoredByNetwork(const std::string& client_net) override;
  StoredRow StoredInAll() override;
  absl::StatusOr<int64_t> AddHost(const HostRow& host) override;
  std::optional<HostRow> FindHostByTokenHash(const std::string& token_hash) override;

 private:
  SqlStore(std::unique_ptr<Connection> db, Dialect dialect)
      : db_(std::move(db)), dialect_(std::move(dialect)) {}
  absl::Status Migrate() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Exec(const std::string& sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status BeginWrite() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One match of a commit, inside the caller's transaction.
  // Rates one done match with `rate` (its seats' current ratings read) and
  // writes the ratings and their history rows (under the match's seq).
  absl::StatusOr<std::vector<RatingRow>> RateLocked(const MatchRow& match,
                                                    const MatchResultRow& result,
                                                    const RateFn& rate)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  CommitOutcome CommitLocked(const MatchCommit& commit, const RateFn& rate)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<SeatRow> SeatsOfLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // StoredByOwner/ByNetwork: the bots whose `column` is `value`; StoredInAll:
  // every bot (`column` null).
  StoredRow StoredBy(const char* column, const std::string& value);
  std::vector<SetTableRow> SetTablesLocked(int64_t ladder_id, uint64_t seed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::unique_ptr<Connection> db_ ABSL_GUARDED_BY(mu_);
  const Dialect dialect_;
};

}  // namespace tarock::arena::sql

#endif  // TAROCK_ARENA_STORE_SQL_STORE_H_
