// The arena's storage interface and its rows: bots, ladders, tournaments,
// matches with their seats, match and hand records, ratings and the rating
// history, tests and the audit log, under one versioned schema with migrations
// (schema_version table; opening a store applies every missing migration in
// order). Two back ends implement it with the same schema versions and the same
// semantics: SQLite (sqlite_store.h, the default, one file) and PostgreSQL
// (postgres_store.h); OpenStore() picks one by URL (docs/database.md).
//
// Durability: a finished match is committed in one transaction (its seats,
// records, the rating updates and history, and status "done" with the next
// completion sequence number), so killing the process at any moment either
// keeps the whole result or none of it. CommitMatch is idempotent on the match
// id: a match already done is never counted twice.
//
// Thread-safety: every implementation is thread-safe.

#ifndef TAROCK_ARENA_STORE_STORE_H_
#define TAROCK_ARENA_STORE_STORE_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "referee/net/secure_random.h"

namespace tarock::arena {

struct BotRow {
  int64_t id = 0;
  std::string name;
  std::string endpoint;
  std::string owner;
  std::vector<std::string> variants;
  std::string token_hash;
  bool retired = false;
  // The event whose entrant registered it (schema version 9); 0: registered
  // directly, a bot of the standing open event.
  int64_t event_id = 0;
  // The network (net::PrefixKey: /24 IPv4, /64 IPv6) it was registered from
  // (schema version 13; "" unknown), for the storage bounds (storage_quota.h).
  std::string client_net;
};

// What one owner or one network stores (Store::StoredByOwner/ByNetwork):
// its bots (retired ones too), their versions whose content is kept (not
// "removed"), and those versions' bytes.
struct StoredRow {
  int64_t bots = 0;
  int64_t versions = 0;
  int64_t bytes = 0;
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
  // The hosted version that played the seat (schema 10; 0: not hosted).
  int64_t version_id = 0;
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
  // The arena holding the match's lease while it runs, when several arenas
  // share the database (schema version 6; "" otherwise).
  std::string lease_owner;
  // The deal's sealed seed (arena/scheduler/deal_seal.h; schema version 7):
  // the salt, secret like the seed until the deal is public, and the
  // commitment, public from the start ('' on older rows).
  std::string seed_salt;
  std::string seed_commitment;
  int64_t event_id = 0;  // the event it belongs to (schema version 9; 0 the open event)
  // A table of a duplicate ladder set (schema version 11): how many tables
  // the set has (every table of it shares ladder_id and seed); 0 for a
  // match that is not part of a set.
  int set_tables = 0;
  // When its place rating was applied (schema version 13; docs/security.md,
  // "Secret deals"): 0 at its own commit (or never rated), -1 waiting for its
  // deal to become public (a twin table dealt from its seed was pending or
  // running when it was committed), and s > 0 in the commit of the match with
  // seq s, just before that match's own rating.
  int64_t rating_wait = 0;
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
  std::string created_at;  // UTC "YYYY-MM-DD HH:MM:SS" (filled in on reads)
};

// Filters of a match list (empty / 0: any).
struct MatchFilter {
  std::string variant;
  int64_t bot_id = 0;
  // Matches seating any of these bots (besides bot_id when that is set too).
  std::vector<int64_t> bot_ids;
  std::string kind;
  int64_t ladder_id = 0;
  int64_t tournament_id = 0;
  // As the public sees it (docs/security.md, "Secret deals"): "done" and
  // "failed" pass only matches whose deal is public (kDealPublicSql); the
  // others are shown as running until then (sealed_finished).
  std::string status;
  int64_t test_id = 0;
  int64_t event_id = -1;  // -1: any event; 0 the open event
  // Only finished (done or failed) matches whose deal is not public yet
  // (another table dealt from its seed is pending or running): the public
  // sees them as running. Set by the scheduler, with status empty.
  bool sealed_finished = false;
  // Matches left out by id (at most a few dozen: bound each): the scheduler's
  // in-flight tables, which the store has as pending while they run, so that
  // "pending" means not started (and does not move when a sealed table ends).
  std::vector<std::string> exclude_ids;
};

// An event (arena/scheduler/events.h; schema version 9).
struct EventRow {
  int64_t id = 0;
  std::string slug;
  std::string status;  // upcoming, open, frozen, final, finished, closed
  std::string organiser_token_hash;
  std::string invite_code;  // the organiser shows it to entrants
  std::string config;       // EventConfig in protobuf JSON
  std::string frozen_at;    // UTC "YYYY-MM-DD HH:MM:SS" when entries froze; "" before
  int64_t final_tournament_id = 0;
  std::string created_at;
};

struct EntrantRow {
  int64_t id = 0;
  int64_t event_id = 0;
  std::string name;
  std::string token_hash;
  std::string created_at;
  std::string updated_at;  // the entrant or their bots last changed
};

// A bot in an event's field: entered by an entrant (their own bot) or by the
// organiser (a house bot, entrant_id 0).
struct EventBotRow {
  int64_t event_id = 0;
  int64_t bot_id = 0;
  int64_t entrant_id = 0;
  bool withdrawn = false;
  std::string added_at;
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

// A version of a hosted bot (docs/hosting.md): an upload, its build status
// and its content (base64 of the upload as sent; "" once removed).
struct VersionRow {
  int64_t id = 0;
  int64_t bot_id = 0;
  std::string bot;          // name (filled in on reads)
  std::string kind;         // python, cpp, stdio
  std::string entry;
  std::string interpreter;
  std::string filename;
  std::string sha256;
  int64_t size = 0;
  std::string uploaded_at;  // UTC (set by the store)
  std::string status;       // building, ready, failed, removed
  std::string build_log;
  std::string ready_at;     // UTC, "" until ready
  std::string content;      // base64; filled only by GetVersion
};

// A bot host: its name and the SHA-256 of its token.
struct HostRow {
  int64_t id = 0;
  std::string name;
  std::string token_hash;
};

// A bot's margin rating in a rating pool (arena/rating/margin_rating.h;
// schema version 11): points a deal, the deals and sets it rests on, and the
// faults of its seats in those sets. Kept apart from the place ratings.
struct MarginRatingRow {
  int64_t bot_id = 0;
  std::string pool;
  double mu = 0;
  double sigma = 0;
  int64_t deals = 0;
  int sets = 0;
  int faults = 0;
};

// A pool's pooled residual noise (MarginNoise), stored beside its ratings.
struct MarginNoiseRow {
  double sum_sq = 0;
  double residuals = 0;
};

// A booked duplicate set: its booking order (seq, from 1), its ladder and
// seed (which name its tables) and pool.
struct MarginSetRow {
  int64_t seq = 0;
  int64_t ladder_id = 0;
  uint64_t seed = 0;
  std::string pool;
};

// One table of a set: the match row and its seats (none unless done).
struct SetTableRow {
  MatchRow match;
  std::vector<SeatRow> seats;
};

// A margin leaderboard line: the bot (active) and its rating.
struct MarginLeaderRow {
  std::string name;
  std::string owner;
  MarginRatingRow rating;
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
  // The sum of its hand scores and how many there were (void deals left out);
  // total - hand_total is the end-of-match settlement. Seats stored before
  // schema version 2 (no hand scores) count total and the match's hands.
  int64_t hand_total = 0;
  int scored_hands = 0;
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
  // Non-empty: commit only if this arena still holds the match's lease (see
  // Store::ClaimMatches); a match whose lease went to another arena is left
  // to that one (committed false).
  std::string lease_owner;
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
  // The ratings its commit wrote for earlier tables whose deal became public
  // (MatchRow::rating_wait), in the order written.
  std::vector<RatingRow> late_ratings;
};

class Store {
 public:
  static constexpr int kSchemaVersion = 13;

  virtual ~Store() = default;

  virtual int SchemaVersion() = 0;

  // Bots. Names are unique. Errors: ALREADY_EXISTS, NOT_FOUND.
  virtual absl::StatusOr<BotRow> AddBot(const BotRow& bot) = 0;
  virtual absl::Status UpdateBot(const BotRow& bot) = 0;  // by id: endpoint, variants, retired
  virtual absl::StatusOr<BotRow> FindBot(const std::string& name) = 0;
  virtual absl::StatusOr<BotRow> BotById(int64_t id) = 0;
  virtual std::vector<BotRow> ListBots(bool include_retired) = 0;

  // Ratings and history.
  virtual std::optional<RatingRow> GetRating(int64_t bot_id, const std::string& variant) = 0;
  virtual std::vector<RatingRow> RatingsOfBot(int64_t bot_id) = 0;
  virtual std::vector<RatingRow> RatingsOfVariant(const std::string& variant) = 0;
  virtual std::vector<HistoryRow> HistoryOfBot(int64_t bot_id) = 0;
  // A fresh start (a hosted bot's new version uploaded with --reset_rating):
  // removes the bot's ratings in every pool, so its next rated match starts
  // from the prior, and records the reset after the newest committed match
  // (RatingResets) so that rebuilding the ratings from the results
  // (VerifyRatings) does the same. Its rating history stays.
  virtual absl::Status ResetRatings(int64_t bot_id) = 0;
  // (bot id, seq of the last match committed before the reset), oldest first.
  virtual std::vector<std::pair<int64_t, int64_t>> RatingResets() = 0;

  // Matches.
  virtual absl::Status InsertMatch(const MatchRow& match) = 0;
  // Several matches in one transaction (all or none).
  virtual absl::Status InsertMatches(const std::vector<MatchRow>& matches) = 0;
  // Deletes the given matches that never ran (status pending; others are
  // left alone), in one transaction: the spare matches of a stopped ladder.
  virtual absl::Status DeletePendingMatches(const std::vector<std::string>& ids) = 0;
  // Records an attempt as it starts (and again when the referee fails): the
  // match stays pending, with the referee it last tried and the attempts so far
  // (so retries are bounded across restarts, and a restart knows the match may
  // have been dealt: Scheduler::Redeal).
  virtual absl::Status RecordAttempt(const std::string& id, const std::string& referee, int attempts) = 0;
  // Deals an unfinished match afresh before it is tried again: its seed, the
  // seed's salt and commitment, and its spec (which carries the seed) are
  // replaced (docs/security.md, "Secret deals": the bots of an attempt that
  // failed may have seen the old deal). NOT_FOUND when the match is not
  // pending or running.
  virtual absl::Status Redeal(const std::string& id, uint64_t seed, const std::string& salt,
                              const std::string& commitment, const std::string& spec) = 0;
  virtual absl::Status MarkFailed(const std::string& id, const std::string& error) = 0;
  // Puts a running match back to pending (databases of arenas that marked
  // matches "running" on disk; the current one keeps that state in memory).
  virtual absl::Status MarkPending(const std::string& id) = 0;
  // Commits a finished match and its rating updates in one transaction:
  // status "done" with the next completion sequence number, the seats, the
  // match and hand records, the referee and attempts, the ratings and history.
  // `rate` gets the match, its result and the current ratings of the seats'
  // bots (nullopt: never rated in this variant) and returns the new ones, one
  // per distinct bot; it runs inside the transaction so ratings update in
  // completion order, and may run more than once for a match (see
  // CommitMatches), so it must have no side effects.
  // A match's rating waits for its deal (docs/security.md, "Secret deals"):
  // when another match dealt from its seed is pending or running, `rate` is
  // not asked and the match waits (rating_wait -1). Each commit first rates
  // every waiting match whose deal is public now (no match of its seed
  // pending or running), in seq order, with `rate` (rating_wait becomes the
  // commit's seq), then its own match: so a duplicate table is rated once its
  // last twin finishes, or, when that one failed, with the next commit. Returns false (and
  // changes nothing) when the match is already done.
  using RateFn = std::function<std::vector<RatingRow>(
      const MatchRow& match, const MatchResultRow& result,
      const std::vector<std::optional<RatingRow>>& current)>;
  virtual absl::StatusOr<bool> CommitMatch(const std::string& id, const MatchResultRow& result,
                                   const RateFn& rate) = 0;
  // Commits several finished matches, in order, in one transaction (one disk
  // write of the pages they share): each exactly as CommitMatch would, each
  // all or nothing on its own (when one fails, the batch is rolled back and
  // committed match by match). One outcome per match, in order.
  virtual std::vector<CommitOutcome> CommitMatches(const std::vector<MatchCommit>& batch,
                                           const RateFn& rate) = 0;
  virtual absl::StatusOr<MatchRow> GetMatch(const std::string& id) = 0;
  virtual std::vector<SeatRow> SeatsOf(const std::string& id) = 0;
  virtual absl::StatusOr<std::string> RecordOf(const std::string& id) = 0;
  // Newest first; empty filters match all.
  virtual std::vector<MatchRow> ListMatches(const std::string& variant, int64_t bot_id, int limit) = 0;
  // Matches with status pending or running, oldest first.
  virtual std::vector<MatchRow> UnfinishedMatches() = 0;
  // How many matches dealt from `seed` are pending or running: a deal is
  // public only when none is (every table of a duplicate set finished it).
  virtual int64_t CountUnfinishedWithSeed(uint64_t seed) = 0;
  // Done matches in completion order, with their seats.
  virtual void ForEachDoneMatch(const std::function<void(const MatchRow&, const std::vector<SeatRow>&)>& fn) = 0;
  virtual int64_t CountMatches(const std::string& status) = 0;
  virtual int64_t CountLadderMatches(int64_t ladder_id, const std::string& status) = 0;
  // As the public sees them (a finished match whose deal is not public is
  // shown as running, docs/security.md "Secret deals"): matches of `status`
  // ("done" or "failed") whose deal is public, of `ladder_id` (0: any).
  virtual int64_t CountPublicFinished(const std::string& status, int64_t ladder_id) = 0;
  virtual std::vector<MatchRow> TournamentMatches(int64_t tournament_id) = 0;
  // A page of matches, newest first, and how many pass the filters.
  virtual std::vector<MatchRow> ListMatchesPage(const MatchFilter& filter, int offset, int limit,
                                        int64_t* total) = 0;
  // Matches done within the last `seconds` whose deal is public.
  virtual int64_t CountDoneSince(int seconds) = 0;
  // Tournaments, newest first; their done and failed counts only tables whose
  // deal is public (the others are shown as running).
  virtual std::vector<TournamentSummaryRow> ListTournaments(int limit) = 0;
  // The active bots rated in `variant`, with their ratings 10 matches ago.
  virtual std::vector<LeaderRow> LeaderboardRows(const std::string& variant, int trend_matches) = 0;
  // A bot's done matches per variant (by variant name); unrated play matches
  // are left out.
  virtual std::vector<BotVariantStatsRow> BotStats(int64_t bot_id) = 0;

  // Margin ratings (schema 11), booked per duplicate set. BookSet books the
  // set of `ladder_id` dealt from `seed` (the matches with that ladder and
  // seed, set_tables > 0; a stopped ladder deletes those that never started)
  // once every one of its tables is finished (done or failed), in one
  // transaction: `rate` gets the set's tables (the done
  // ones with their seats), the current margin ratings in `pool` of their
  // bots (missing: never rated) and the pool's noise, and returns the new
  // ratings and noise; they are written with one history row per bot and
  // the set with the next booking number. Returns true when booked now,
  // false (changing nothing) when a table is still unfinished or the set is
  // already booked (a set is booked once, whichever arena asks). An error of
  // `rate` books nothing and is returned. `rate` must have no side effects.
  struct SetRating {
    std::vector<MarginRatingRow> ratings;
    MarginNoiseRow noise;
    std::map<int64_t, double> set_margin;  // per bot, for its history row
  };
  using SetRateFn = std::function<absl::StatusOr<SetRating>(
      const std::vector<SetTableRow>& tables, const std::map<int64_t, MarginRatingRow>& current,
      const MarginNoiseRow& noise)>;
  virtual absl::StatusOr<bool> BookSet(int64_t ladder_id, uint64_t seed, const std::string& pool,
                                       const SetRateFn& rate) = 0;
  // Every table of a set, in insertion order, with the seats of done ones.
  virtual std::vector<SetTableRow> SetTables(int64_t ladder_id, uint64_t seed) = 0;
  // The booked sets in booking order.
  virtual std::vector<MarginSetRow> BookedSets() = 0;
  // Sets of which every table is finished but that are not booked (an arena
  // stopped between a table's commit and the booking): {ladder_id, seed}.
  virtual std::vector<std::pair<int64_t, uint64_t>> UnbookedFinishedSets() = 0;
  virtual std::vector<MarginRatingRow> MarginRatingsOfBot(int64_t bot_id) = 0;
  virtual MarginNoiseRow MarginNoiseOf(const std::string& pool) = 0;
  // Every pool's noise (for --verify_ratings).
  virtual std::map<std::string, MarginNoiseRow> MarginNoises() = 0;
  // The active bots rated by margin in `pool`.
  virtual std::vector<MarginLeaderRow> MarginLeaderboardRows(const std::string& pool) = 0;

  // Ladders and tournaments.
  virtual absl::StatusOr<int64_t> InsertLadder(const LadderRow& ladder) = 0;
  virtual absl::Status SetLadderRunning(int64_t id, bool running) = 0;
  virtual std::vector<LadderRow> ListLadders() = 0;
  virtual absl::StatusOr<int64_t> InsertTournament(const TournamentRow& tournament) = 0;
  virtual absl::StatusOr<TournamentRow> GetTournament(int64_t id) = 0;

  // Tests. UpdateTest writes the state and status of a running test and
  // returns false (changing nothing) when it is not running any more;
  // finished_at is set when the status is not "running".
  // Events. InsertEvent: ALREADY_EXISTS for a slug in use. UpdateEvent
  // writes status, organiser_token_hash, config, frozen_at and
  // final_tournament_id by id. InsertEntrant: ALREADY_EXISTS for a name
  // the event has whatever its case. UpdateEntrant writes token_hash and
  // sets updated_at to now. EnterBot inserts or replaces (event, bot).
  virtual absl::StatusOr<int64_t> InsertEvent(const EventRow& event) = 0;
  virtual absl::Status UpdateEvent(const EventRow& event) = 0;
  virtual absl::StatusOr<EventRow> GetEvent(const std::string& slug) = 0;
  virtual absl::StatusOr<EventRow> EventById(int64_t id) = 0;
  virtual std::vector<EventRow> ListEvents() = 0;  // by id
  virtual absl::StatusOr<EntrantRow> InsertEntrant(const EntrantRow& entrant) = 0;
  virtual absl::Status UpdateEntrant(const EntrantRow& entrant) = 0;
  virtual std::vector<EntrantRow> ListEntrants(int64_t event_id) = 0;  // by id
  virtual absl::Status EnterBot(const EventBotRow& entry) = 0;
  virtual std::vector<EventBotRow> EventBots(int64_t event_id) = 0;  // by bot id
  virtual std::vector<EventBotRow> EventsOfBot(int64_t bot_id) = 0;

  virtual absl::StatusOr<int64_t> InsertTest(const TestRow& test) = 0;
  virtual absl::StatusOr<bool> UpdateTest(int64_t id, const std::string& state, const std::string& status) = 0;
  virtual absl::StatusOr<TestRow> GetTest(int64_t id) = 0;
  virtual std::vector<TestRow> ListTests(const std::string& status, int limit) = 0;  // newest first; "" any
  virtual std::vector<MatchRow> TestMatches(int64_t test_id) = 0;  // in insertion order
  // "" any; a status only of matches whose deal is public (CountPublicFinished).
  virtual int64_t CountTestMatches(int64_t test_id, const std::string& status) = 0;

  // Leases: several arenas on one database share its matches (docs/database.md,
  // "Several arenas"). A lease has an owner (an arena process) and an expiry
  // in the database's clock; an owner renews its leases while it lives, so the
  // leases of an arena that died expire and other arenas take its work over.
  //
  // ClaimMatches claims up to `limit` matches for `owner`, oldest first:
  // pending ones, and running ones whose lease expired; never play matches
  // (a person's seat lives in one process). Each becomes "running" with
  // owner's lease for `lease_seconds`. Claims are atomic across processes: a
  // match is claimed by one owner at a time.
  virtual absl::StatusOr<std::vector<MatchRow>> ClaimMatches(const std::string& owner,
                                                             int lease_seconds, int limit) = 0;
  // Extends every lease `owner` holds on a running match to `lease_seconds`
  // from now.
  virtual absl::Status RenewLeases(const std::string& owner, int lease_seconds) = 0;
  // Gives back the running matches `owner` holds (pending again, claimable at
  // once) and its named leases.
  virtual absl::Status ReleaseLeases(const std::string& owner) = 0;
  // Takes or renews the named lease (one holder at a time, e.g. the arena that
  // makes ladder matches) for `owner`: true when `owner` holds it now, for
  // `lease_seconds`; false while another owner's lease runs.
  virtual absl::StatusOr<bool> AcquireLease(const std::string& name, const std::string& owner,
                                            int lease_seconds) = 0;

  // The audit log. AppendAudit returns the entry's id. ListAudit: newest
  // first, entries about `target` ("" any) with ids below `before_id` (0: from
  // the newest), at most `limit`.
  virtual absl::StatusOr<int64_t> AppendAudit(const AuditRow& entry) = 0;
  virtual std::vector<AuditRow> ListAudit(const std::string& target, int64_t before_id, int limit) = 0;

  // Hosted bots' versions (schema 10). AddVersion stores a new version as
  // "building" and keeps the content of at most `keep` versions of the bot
  // (older ones become "removed", their rows stay for the seats that name
  // them); returns its id. ListVersions: newest first, without content.
  // CountVersionsSince: uploads of the bot in the last `seconds`.
  // SetVersionStatus: "ready" also sets ready_at; "failed" keeps the log.
  virtual absl::StatusOr<int64_t> AddVersion(const VersionRow& version, int keep) = 0;
  virtual std::vector<VersionRow> ListVersions(int64_t bot_id) = 0;
  // A hosted seat's standard error (schema 11), one per (match, seat);
  // a second report replaces the first. SeatLog: NOT_FOUND when none.
  virtual absl::Status PutSeatLog(const std::string& match_id, int seat, int64_t bot_id,
                                  const std::string& log) = 0;
  virtual absl::StatusOr<std::string> SeatLog(const std::string& match_id, int seat) = 0;
  virtual absl::StatusOr<VersionRow> GetVersion(int64_t id) = 0;
  // GetVersionInfo: the row without its content. GetVersionContentSlice:
  // `length` characters of the stored (base64) content from character
  // `offset` (0-based), without reading the rest into the row; "" past its
  // end. Both NOT_FOUND for no such version.
  virtual absl::StatusOr<VersionRow> GetVersionInfo(int64_t id) = 0;
  virtual absl::StatusOr<std::string> GetVersionContentSlice(int64_t id, int64_t offset,
                                                             int64_t length) = 0;
  virtual absl::Status SetVersionStatus(int64_t id, const std::string& status,
                                        const std::string& build_log) = 0;
  virtual int64_t CountVersionsSince(int64_t bot_id, int seconds) = 0;
  // What the bots of `owner` (compared exactly), or the bots registered from
  // network `client_net`, or all bots together, store (StoredRow).
  virtual StoredRow StoredByOwner(const std::string& owner) = 0;
  virtual StoredRow StoredByNetwork(const std::string& client_net) = 0;
  virtual StoredRow StoredInAll() = 0;
  // Bot hosts. AddHost: ALREADY_EXISTS for a taken name.
  virtual absl::StatusOr<int64_t> AddHost(const HostRow& host) = 0;
  virtual std::optional<HostRow> FindHostByTokenHash(const std::string& token_hash) = 0;
};

// Opens (creating if needed) and migrates the store a URL names:
//   sqlite:DIR               the SQLite file DIR/arena.db (DIR is created if missing)
//   postgresql://... or postgres://...   a PostgreSQL database (libpq's URL form)
// Errors: INVALID_ARGUMENT for another URL, UNAVAILABLE when the database
// cannot be opened or reached, FAILED_PRECONDITION for a newer schema.
absl::StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& url);

// Hex SHA-256 of a token (tokens are never stored in clear).
std::string HashToken(const std::string& token);
// Random bytes fail closed (referee/net/secure_random.h): UNAVAILABLE when the
// source fails or returns only zeros.
inline absl::Status FillRandom(void* buffer, size_t size) {
  return net::SecureRandomBytes(buffer, size);
}
using net::RandomSource;
using net::SetRandomSourceForTesting;
// A fresh random token (32 hex characters). UNAVAILABLE when there are no
// random bytes: callers refuse their request, never use zeros.
absl::StatusOr<std::string> NewToken();

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_STORE_STORE_H_
