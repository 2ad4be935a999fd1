// The arena's storage: one SQLite file (WAL, synchronous=NORMAL) holding bots,
// ladders, tournaments, matches with their seats, match and hand records,
// ratings and the rating history, under a versioned schema with migrations
// (schema_version table; Open() applies every missing migration in order).
//
// Durability: a finished match is committed in one transaction (its seats,
// records, the rating updates and history, and status "done" with the next
// completion sequence number), so killing the process at any moment either
// keeps the whole result or none of it (an OS crash may lose the last commits:
// those matches run again). CommitMatch is idempotent on the match
// id: a match already done is never counted twice.
//
// Thread-safety: thread-safe; one connection, every call under one mutex.

#ifndef TAROCK_ARENA_STORE_STORE_H_
#define TAROCK_ARENA_STORE_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tarock::arena {

struct BotRow {
  int64_t id = 0;
  std::string name;
  std::string endpoint;
  std::string owner;
  std::vector<std::string> variants;
  std::string token_hash;
  bool retired = false;
};

struct RatingRow {
  int64_t bot_id = 0;
  std::string variant;
  double mu = 0;
  double sigma = 0;
  int matches = 0;
  int faults = 0;
};

struct HistoryRow {
  int64_t match_seq = 0;
  std::string match_id;
  std::string variant;
  double mu = 0;
  double sigma = 0;
};

struct SeatRow {
  int seat = 0;
  int64_t bot_id = 0;
  std::string bot;  // name (filled in on reads)
  int64_t total = 0;
  int faults = 0;
  bool forfeited = false;
  int rank = 0;
  // The seat's score in each played hand (void deals left out); nullopt on
  // results stored before schema version 2.
  std::optional<std::vector<int64_t>> hand_scores;
  // The seat's hands as declarer's side and as defender (schema version 3;
  // computed when the match is committed, see arena/scheduler/match_stats.h),
  // its decisions and their summed time, its faults by kind ("timeout:2,illegal:1").
  int declarer_hands = 0;
  int declarer_won = 0;
  int64_t declarer_score = 0;
  int defender_hands = 0;
  int defender_won = 0;
  int64_t defender_score = 0;
  int64_t decisions = 0;
  double decision_ms = 0;
  std::string fault_kinds;
};

struct MatchRow {
  std::string id;
  std::string variant;
  std::string kind;  // "ladder", "tournament", "play" or "test"
  int64_t ladder_id = 0;
  int64_t tournament_id = 0;
  std::string spec;  // the MatchSpec in protobuf JSON
  std::string status = "pending";  // pending, running, done, failed
  int attempts = 0;
  std::string referee;
  std::string error;
  int64_t seq = 0;  // completion order, 0 until done
  double duration_s = 0;
  int hands = 0;
  uint64_t seed = 0;
  std::vector<int64_t> bot_ids;  // by seat
  std::string finished_at;       // UTC "YYYY-MM-DD HH:MM:SS", "" until done or failed
  int64_t test_id = 0;           // kind "test" (schema version 4)
};

struct LadderRow {
  int64_t id = 0;
  std::string variant;
  std::string config;  // LadderConfig in protobuf JSON
  bool running = false;
};

// A test (`tarock compare` as an arena job, arena/scheduler/test_job.h).
struct TestRow {
  int64_t id = 0;
  std::string variant;
  std::string config;  // TestConfig in protobuf JSON
  std::string status;  // running, done
  std::string state;   // the test's progress and result (JSON, TestJob's)
  std::string created_at;
  std::string finished_at;  // "" while running
};

struct TournamentRow {
  int64_t id = 0;
  std::string name;
  std::string variant;
  std::string format;
  std::string config;  // the request in protobuf JSON
};

// Filters of a match list (empty / 0: any).
struct MatchFilter {
  std::string variant;
  int64_t bot_id = 0;
  std::string kind;
  int64_t ladder_id = 0;
  int64_t tournament_id = 0;
  std::string status;
  int64_t test_id = 0;
};

struct TournamentSummaryRow {
  TournamentRow tournament;
  std::string created_at;
  int matches = 0;
  int done = 0;
  int failed = 0;
};

// One entry of the audit log: a change made through the API, or an attempt
// that was refused.
struct AuditRow {
  int64_t id = 0;
  std::string at;      // UTC, ISO 8601 with milliseconds (set by the store)
  std::string actor;   // "admin", "owner of BOT", "anyone" (no token needed), "unknown"
  std::string client;  // the caller's address
  std::string action;  // the API call, e.g. "AddBot"
  std::string target;  // what it changed, e.g. "bot:alpha", "ladder:3"
  std::string outcome;  // "ok", or the refusal's code, e.g. "PERMISSION_DENIED"
  std::string detail;   // what changed or why it was refused; never a secret
};

// A leaderboard line: the bot, its rating, and its rating 10 rated matches ago
// (nullopt when it has played fewer).
struct LeaderRow {
  std::string name;
  std::string owner;
  RatingRow rating;
  std::optional<std::pair<double, double>> earlier;  // mu, sigma
};

// A bot's done matches in one variant, summed over its seats.
struct BotVariantStatsRow {
  std::string variant;
  int matches = 0;
  int wins = 0;
  double rank_sum = 0;
  int64_t total = 0;
  int hands = 0;
  SeatRow sums;  // declarer_*, defender_*, decisions, decision_ms, faults summed
  std::map<std::string, int> fault_kinds;
};

// A finished match as the scheduler hands it to CommitMatch.
struct MatchResultRow {
  std::vector<SeatRow> seats;
  std::string record_json;
  std::vector<std::string> hand_records;  // one JSON per hand (void deals included)
  double duration_s = 0;
  int hands = 0;
  std::string referee;
  int attempts = 1;  // referees tried, this one included
};

// One match of a CommitMatches batch, and what became of it.
struct MatchCommit {
  std::string id;
  MatchResultRow result;
};
struct CommitOutcome {
  absl::Status status;             // not OK: nothing of this match was written
  bool committed = false;          // OK and false: it was already done, nothing changed
  std::vector<RatingRow> ratings;  // the ratings it wrote
};

// Prepared statements by their SQL text.
using StatementCache = std::map<std::string, sqlite3_stmt*, std::less<>>;

class Store {
 public:
  static constexpr int kSchemaVersion = 5;

  // Opens (creating if needed) the database at `path` and migrates it.
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);
  ~Store();

  int SchemaVersion();

  // Bots. Names are unique. Errors: ALREADY_EXISTS, NOT_FOUND.
  absl::StatusOr<BotRow> AddBot(const BotRow& bot);
  absl::Status UpdateBot(const BotRow& bot);  // by id: endpoint, variants, retired
  absl::StatusOr<BotRow> FindBot(const std::string& name);
  absl::StatusOr<BotRow> BotById(int64_t id);
  std::vector<BotRow> ListBots(bool include_retired);

  // Ratings and history.
  std::optional<RatingRow> GetRating(int64_t bot_id, const std::string& variant);
  std::vector<RatingRow> RatingsOfBot(int64_t bot_id);
  std::vector<RatingRow> RatingsOfVariant(const std::string& variant);
  std::vector<HistoryRow> HistoryOfBot(int64_t bot_id);

  // Matches.
  absl::Status InsertMatch(const MatchRow& match);
  // Several matches in one transaction (all or none).
  absl::Status InsertMatches(const std::vector<MatchRow>& matches);
  // Deletes the given matches that never ran (status pending; others are
  // left alone), in one transaction: the spare matches of a stopped ladder.
  absl::Status DeletePendingMatches(const std::vector<std::string>& ids);
  // Records a referee failure: the match stays pending, with the referee it
  // last tried and the attempts so far (so retries are bounded across restarts).
  absl::Status RecordAttempt(const std::string& id, const std::string& referee, int attempts);
  absl::Status MarkFailed(const std::string& id, const std::string& error);
  // Puts a running match back to pending (databases of arenas that marked
  // matches "running" on disk; the current one keeps that state in memory).
  absl::Status MarkPending(const std::string& id);
  // Commits a finished match and its rating updates in one transaction:
  // status "done" with the next completion sequence number, the seats, the
  // match and hand records, the referee and attempts, the ratings and history.
  // `rate` gets the match, its result and the current ratings of the seats'
  // bots (nullopt: never rated in this variant) and returns the new ones, one
  // per distinct bot; it runs inside the transaction so ratings update in
  // completion order, and may run more than once for a match (see
  // CommitMatches), so it must have no side effects. Returns false (and
  // changes nothing) when the match is already done.
  using RateFn = std::function<std::vector<RatingRow>(
      const MatchRow& match, const MatchResultRow& result,
      const std::vector<std::optional<RatingRow>>& current)>;
  absl::StatusOr<bool> CommitMatch(const std::string& id, const MatchResultRow& result,
                                   const RateFn& rate);
  // Commits several finished matches, in order, in one transaction (one disk
  // write of the pages they share): each exactly as CommitMatch would, each
  // all or nothing on its own (when one fails, the batch is rolled back and
  // committed match by match). One outcome per match, in order.
  std::vector<CommitOutcome> CommitMatches(const std::vector<MatchCommit>& batch,
                                           const RateFn& rate);
  absl::StatusOr<MatchRow> GetMatch(const std::string& id);
  std::vector<SeatRow> SeatsOf(const std::string& id);
  absl::StatusOr<std::string> RecordOf(const std::string& id);
  // Newest first; empty filters match all.
  std::vector<MatchRow> ListMatches(const std::string& variant, int64_t bot_id, int limit);
  // Matches with status pending or running, oldest first.
  std::vector<MatchRow> UnfinishedMatches();
  // Done matches in completion order, with their seats.
  void ForEachDoneMatch(const std::function<void(const MatchRow&, const std::vector<SeatRow>&)>& fn);
  int64_t CountMatches(const std::string& status);
  int64_t CountLadderMatches(int64_t ladder_id, const std::string& status);
  std::vector<MatchRow> TournamentMatches(int64_t tournament_id);
  // A page of matches, newest first, and how many pass the filters.
  std::vector<MatchRow> ListMatchesPage(const MatchFilter& filter, int offset, int limit,
                                        int64_t* total);
  // Matches done within the last `seconds`.
  int64_t CountDoneSince(int seconds);
  std::vector<TournamentSummaryRow> ListTournaments(int limit);
  // The active bots rated in `variant`, with their ratings 10 matches ago.
  std::vector<LeaderRow> LeaderboardRows(const std::string& variant, int trend_matches);
  // A bot's done matches per variant (by variant name).
  std::vector<BotVariantStatsRow> BotStats(int64_t bot_id);

  // Ladders and tournaments.
  absl::StatusOr<int64_t> InsertLadder(const LadderRow& ladder);
  absl::Status SetLadderRunning(int64_t id, bool running);
  std::vector<LadderRow> ListLadders();
  absl::StatusOr<int64_t> InsertTournament(const TournamentRow& tournament);
  absl::StatusOr<TournamentRow> GetTournament(int64_t id);

  // Tests. UpdateTest writes the state and status of a running test and
  // returns false (changing nothing) when it is not running any more;
  // finished_at is set when the status is not "running".
  absl::StatusOr<int64_t> InsertTest(const TestRow& test);
  absl::StatusOr<bool> UpdateTest(int64_t id, const std::string& state, const std::string& status);
  absl::StatusOr<TestRow> GetTest(int64_t id);
  std::vector<TestRow> ListTests(const std::string& status, int limit);  // newest first; "" any
  std::vector<MatchRow> TestMatches(int64_t test_id);  // in insertion order
  int64_t CountTestMatches(int64_t test_id, const std::string& status);  // "" any

  // The audit log. AppendAudit returns the entry's id. ListAudit: newest
  // first, entries about `target` ("" any) with ids below `before_id` (0: from
  // the newest), at most `limit`.
  absl::StatusOr<int64_t> AppendAudit(const AuditRow& entry);
  std::vector<AuditRow> ListAudit(const std::string& target, int64_t before_id, int limit);

 private:
  explicit Store(sqlite3* db) : db_(db) {}
  absl::Status Migrate() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Exec(const std::string& sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One match of a commit, inside the caller's transaction.
  CommitOutcome CommitLocked(const MatchCommit& commit, const RateFn& rate)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  sqlite3* db_ ABSL_GUARDED_BY(mu_);
  // Compiled once, reused for the connection's life (see Stmt in store.cc).
  StatementCache statements_ ABSL_GUARDED_BY(mu_);
};

// Hex SHA-256 of a token (tokens are never stored in clear).
std::string HashToken(const std::string& token);
// A fresh random token (32 hex characters from /dev/urandom).
std::string NewToken();

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_STORE_STORE_H_
