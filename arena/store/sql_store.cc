#include "arena/store/sql_store.h"
#include "arena/store/rating_pool.h"

#include <functional>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace tarock::arena::sql {
namespace {

// The schema, one entry per version: migration i takes the database from
// version i to i + 1. Never edit a released entry; append a new one.
const char* const kMigrations[] = {
    // 0 -> 1
    R"sql(
CREATE TABLE bots (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  endpoint TEXT NOT NULL,
  owner TEXT NOT NULL,
  variants TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  retired INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE ladders (
  id INTEGER PRIMARY KEY,
  variant TEXT NOT NULL,
  config TEXT NOT NULL,
  running INTEGER NOT NULL
);
CREATE TABLE tournaments (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  variant TEXT NOT NULL,
  format TEXT NOT NULL,
  config TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE matches (
  id TEXT PRIMARY KEY,
  variant TEXT NOT NULL,
  kind TEXT NOT NULL,
  ladder_id INTEGER NOT NULL DEFAULT 0,
  tournament_id INTEGER NOT NULL DEFAULT 0,
  spec TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  referee TEXT NOT NULL DEFAULT '',
  error TEXT NOT NULL DEFAULT '',
  seq INTEGER UNIQUE,
  duration_s REAL NOT NULL DEFAULT 0,
  hands INTEGER NOT NULL DEFAULT 0,
  seed INTEGER NOT NULL DEFAULT 0,
  bot_ids TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  finished_at TEXT
);
CREATE INDEX matches_status ON matches(status);
CREATE INDEX matches_tournament ON matches(tournament_id);
CREATE TABLE match_seats (
  match_id TEXT NOT NULL REFERENCES matches(id),
  seat INTEGER NOT NULL,
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  total INTEGER NOT NULL,
  faults INTEGER NOT NULL,
  forfeited INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (match_id, seat)
);
CREATE INDEX match_seats_bot ON match_seats(bot_id);
CREATE TABLE match_records (
  match_id TEXT PRIMARY KEY REFERENCES matches(id),
  record TEXT NOT NULL
);
CREATE TABLE hand_records (
  match_id TEXT NOT NULL REFERENCES matches(id),
  idx INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (match_id, idx)
);
CREATE TABLE ratings (
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  variant TEXT NOT NULL,
  mu REAL NOT NULL,
  sigma REAL NOT NULL,
  matches INTEGER NOT NULL,
  faults INTEGER NOT NULL,
  PRIMARY KEY (bot_id, variant)
);
CREATE TABLE rating_history (
  match_seq INTEGER NOT NULL,
  match_id TEXT NOT NULL,
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  variant TEXT NOT NULL,
  mu REAL NOT NULL,
  sigma REAL NOT NULL,
  PRIMARY KEY (match_seq, bot_id)
);
)sql",
    // 1 -> 2: each seat's score in every played hand, so tournament standings
    // need not parse the records. '' on rows from version 1 (unknown).
    R"sql(
ALTER TABLE match_seats ADD COLUMN hand_scores TEXT NOT NULL DEFAULT '';
)sql",
    // 2 -> 3: what the web pages read. Each seat's hands as declarer's side and
    // as defender, decisions and faults by kind (0 / '' on older rows), and
    // indexes for the match list filters, a bot's rating history and the
    // matches per minute.
    R"sql(
ALTER TABLE match_seats ADD COLUMN declarer_hands INTEGER NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN declarer_won INTEGER NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN declarer_score INTEGER NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN defender_hands INTEGER NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN defender_won INTEGER NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN defender_score INTEGER NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN decisions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN decision_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN fault_kinds TEXT NOT NULL DEFAULT '';
CREATE INDEX matches_variant ON matches(variant);
CREATE INDEX matches_kind ON matches(kind);
CREATE INDEX matches_ladder ON matches(ladder_id);
CREATE INDEX matches_finished ON matches(finished_at, status);
CREATE INDEX rating_history_bot ON rating_history(bot_id, variant, match_seq);
)sql",
    // 3 -> 4: tests (`tarock compare` as an arena job): the config, the state
    // of the sequential test (JSON, see arena/scheduler/test_job.h), and the
    // test each match belongs to (0: none).
    R"sql(
CREATE TABLE tests (
  id INTEGER PRIMARY KEY,
  variant TEXT NOT NULL,
  config TEXT NOT NULL,
  status TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  finished_at TEXT NOT NULL DEFAULT ''
);
ALTER TABLE matches ADD COLUMN test_id INTEGER NOT NULL DEFAULT 0;
CREATE INDEX matches_test ON matches(test_id);
)sql",
    // 4 -> 5: the audit log of every change made through the API (who, from
    // where, what, when, and whether it was refused). Append-only.
    R"sql(
CREATE TABLE audit (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  actor TEXT NOT NULL,
  client TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  outcome TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_target ON audit(target);
)sql",
    // 5 -> 6: leases, so several arenas share one database (Store::ClaimMatches):
    // who runs a match and until when (UTC text, as datetime('now') gives it;
    // '' never leased), and named leases (the arena that makes ladder matches).
    R"sql(
ALTER TABLE matches ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN lease_expires TEXT NOT NULL DEFAULT '';
CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires TEXT NOT NULL
);
)sql",
    // 6 -> 7: sealed deal seeds (arena/scheduler/deal_seal.h): the salt and
    // the commitment published when the match is scheduled, and an index for
    // "is every table of this deal finished?".
    R"sql(
ALTER TABLE matches ADD COLUMN seed_salt TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN seed_commitment TEXT NOT NULL DEFAULT '';
CREATE INDEX matches_seed ON matches(seed, status);
)sql",
    // 7 -> 8: bot names unique whatever their case in the database itself, so
    // two registrations racing ("RND1", "rnd1") cannot both land (names are
    // ASCII: bot_rules.h). A database from before the check may hold such a
    // pair: every later one is renamed NAME~ID first (the audit log keeps
    // the old name), so the migration cannot fail on it.
    R"sql(
UPDATE bots SET name = name || '~' || id
  WHERE id NOT IN (SELECT MIN(id) FROM bots GROUP BY lower(name));
CREATE UNIQUE INDEX bots_name_folded ON bots(lower(name));
)sql",
    // 8 -> 9: events (arena/scheduler/events.h, docs/events.md): classes and
    // competitions with their entrants, their field (event_bots: bots
    // entered by an entrant, or house bots entered by the organiser, entrant
    // 0) and the event of each match. Event 0 is the standing open event (no
    // row): the bots registered directly (bots.event_id 0) and every match
    // stored before this version.
    R"sql(
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL,
  organiser_token_hash TEXT NOT NULL,
  invite_code TEXT NOT NULL,
  config TEXT NOT NULL,
  frozen_at TEXT NOT NULL DEFAULT '',
  final_tournament_id INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE entrants (
  id INTEGER PRIMARY KEY,
  event_id INTEGER NOT NULL REFERENCES events(id),
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE UNIQUE INDEX entrants_name ON entrants(event_id, lower(name));
CREATE TABLE event_bots (
  event_id INTEGER NOT NULL REFERENCES events(id),
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  entrant_id INTEGER NOT NULL DEFAULT 0,
  withdrawn INTEGER NOT NULL DEFAULT 0,
  added_at TEXT NOT NULL DEFAULT (datetime('now')),
  PRIMARY KEY (event_id, bot_id)
);
ALTER TABLE bots ADD COLUMN event_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN event_id INTEGER NOT NULL DEFAULT 0;
CREATE INDEX matches_event ON matches(event_id);
)sql",
    // 9 -> 10: hosted bots (docs/hosting.md): each upload is a version with
    // its hash, size, build status and log, and content (base64, '' once
    // removed); bot hosts with their token's hash; the version that played
    // each seat (0: not hosted).
    R"sql(
CREATE TABLE bot_versions (
  id INTEGER PRIMARY KEY,
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  kind TEXT NOT NULL,
  entry TEXT NOT NULL,
  interpreter TEXT NOT NULL DEFAULT '',
  filename TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size INTEGER NOT NULL,
  uploaded_at TEXT NOT NULL DEFAULT (datetime('now')),
  status TEXT NOT NULL,
  build_log TEXT NOT NULL DEFAULT '',
  ready_at TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL
);
CREATE INDEX bot_versions_bot ON bot_versions(bot_id, id);
CREATE TABLE bot_hosts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  token_hash TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
ALTER TABLE match_seats ADD COLUMN version_id INTEGER NOT NULL DEFAULT 0;
)sql",
    // 10 -> 11: margin ratings (issue 33, docs/ratings.md): the tables of a
    // duplicate ladder set (matches sharing ladder_id and seed; set_tables
    // of them), each booked set in booking order, the margin ratings per bot
    // and pool (apart from the place ratings: both histories are kept), their
    // history per set, and each pool's pooled residual noise.
    R"sql(
ALTER TABLE matches ADD COLUMN set_tables INTEGER NOT NULL DEFAULT 0;
CREATE INDEX matches_ladder_seed ON matches(ladder_id, seed);
CREATE TABLE margin_sets (
  seq INTEGER NOT NULL PRIMARY KEY,
  ladder_id INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  pool TEXT NOT NULL,
  booked_at TEXT NOT NULL DEFAULT (datetime('now')),
  UNIQUE (ladder_id, seed)
);
CREATE TABLE margin_ratings (
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  pool TEXT NOT NULL,
  mu REAL NOT NULL,
  sigma REAL NOT NULL,
  deals INTEGER NOT NULL,
  sets INTEGER NOT NULL,
  faults INTEGER NOT NULL,
  PRIMARY KEY (bot_id, pool)
);
CREATE TABLE margin_history (
  set_seq INTEGER NOT NULL,
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  pool TEXT NOT NULL,
  mu REAL NOT NULL,
  sigma REAL NOT NULL,
  deals INTEGER NOT NULL,
  set_margin REAL NOT NULL,
  PRIMARY KEY (set_seq, bot_id)
);
CREATE TABLE margin_noise (
  pool TEXT NOT NULL PRIMARY KEY,
  sum_sq REAL NOT NULL,
  residuals REAL NOT NULL
);
)sql",
    // 11 -> 12: rating resets (a hosted bot's new version with
    // --reset_rating): the bot's ratings start again after match seq
    // after_seq; and each hosted seat's standard error (base64), for its owner.
    R"sql(
CREATE TABLE rating_resets (
  id INTEGER PRIMARY KEY,
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  after_seq INTEGER NOT NULL
);
CREATE TABLE seat_logs (
  match_id TEXT NOT NULL,
  seat INTEGER NOT NULL,
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  log TEXT NOT NULL,
  PRIMARY KEY (match_id, seat)
);
)sql",
    // 12 -> 13: a place rating waits for its deal (docs/security.md, "Secret
    // deals"): 0 rated at its commit, -1 waiting, s rated in the commit of seq s;
    // and the network each bot was registered from (storage bounds).
    R"sql(
ALTER TABLE matches ADD COLUMN rating_wait INTEGER NOT NULL DEFAULT 0;
CREATE INDEX matches_rating_wait ON matches(rating_wait);
ALTER TABLE bots ADD COLUMN client_net TEXT NOT NULL DEFAULT '';
CREATE INDEX bots_owner ON bots(owner);
CREATE INDEX bots_client_net ON bots(client_net);
)sql",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == Store::kSchemaVersion);

}  // namespace

std::string SqliteMigration(int v) { return kMigrations[v]; }

namespace {

// A statement of the store's connection, by value (see sql::Statement).
class Stmt {
 public:
  Stmt(Connection* db, const std::string& sql) : impl_(db->Prepare(sql)) {}
  Stmt& Bind(int i, int64_t v) { impl_->Bind(i, v); return *this; }
  Stmt& Bind(int i, int v) { impl_->Bind(i, static_cast<int64_t>(v)); return *this; }
  Stmt& Bind(int i, double v) { impl_->Bind(i, v); return *this; }
  Stmt& Bind(int i, const std::string& v) { impl_->Bind(i, v); return *this; }
  // Binds without a copy (records are kilobytes): `v` must outlive the Step()s.
  Stmt& BindUncopied(int i, const std::string& v) { impl_->BindUncopied(i, v); return *this; }
  // kRow, kDone, kConstraint or kError.
  int Step() { return impl_->Step(); }
  int64_t Int(int col) const { return impl_->Int(col); }
  double Double(int col) const { return impl_->Double(col); }
  std::string Text(int col) const { return impl_->Text(col); }

 private:
  std::unique_ptr<Statement> impl_;
};

absl::Status SqlError(Connection* db, absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", db->LastError()));
}

std::string JoinIds(const std::vector<int64_t>& ids) { return absl::StrJoin(ids, ","); }
std::vector<int64_t> SplitIds(const std::string& s) {
  std::vector<int64_t> out;
  for (absl::string_view p : absl::StrSplit(s, ',', absl::SkipEmpty())) {
    out.push_back(std::stoll(std::string(p)));
  }
  return out;
}

// "[3,-1,0]" -> {3, -1, 0}; "" (a row from schema version 1) -> nullopt.
std::optional<std::vector<int64_t>> ParseScores(const std::string& text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  std::vector<int64_t> out;
  for (absl::string_view p :
       absl::StrSplit(absl::string_view(text).substr(1, text.size() - 2), ',', absl::SkipEmpty())) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(p, &v)) return std::nullopt;
    out.push_back(v);
  }
  return out;
}

BotRow ReadBot(const Stmt& s) {
  BotRow b;
  b.id = s.Int(0);
  b.name = s.Text(1);
  b.endpoint = s.Text(2);
  b.owner = s.Text(3);
  b.variants = absl::StrSplit(s.Text(4), ',', absl::SkipEmpty());
  b.token_hash = s.Text(5);
  b.retired = s.Int(6) != 0;
  b.event_id = s.Int(7);
  b.client_net = s.Text(8);
  return b;
}
constexpr char kBotColumns[] =
    "id, name, endpoint, owner, variants, token_hash, retired, event_id, client_net";

constexpr char kMatchColumns[] =
    "id, variant, kind, ladder_id, tournament_id, spec, status, attempts, referee, error, "
    "COALESCE(seq, 0), duration_s, hands, seed, bot_ids, COALESCE(finished_at, ''), test_id, "
    "lease_owner, seed_salt, seed_commitment, event_id, set_tables, rating_wait";
MatchRow ReadMatch(const Stmt& s) {
  MatchRow m;
  m.id = s.Text(0);
  m.variant = s.Text(1);
  m.kind = s.Text(2);
  m.ladder_id = s.Int(3);
  m.tournament_id = s.Int(4);
  m.spec = s.Text(5);
  m.status = s.Text(6);
  m.attempts = static_cast<int>(s.Int(7));
  m.referee = s.Text(8);
  m.error = s.Text(9);
  m.seq = s.Int(10);
  m.duration_s = s.Double(11);
  m.hands = static_cast<int>(s.Int(12));
  m.seed = static_cast<uint64_t>(s.Int(13));
  m.bot_ids = SplitIds(s.Text(14));
  m.finished_at = s.Text(15);
  m.test_id = s.Int(16);
  m.lease_owner = s.Text(17);
  m.seed_salt = s.Text(18);
  m.seed_commitment = s.Text(19);
  m.event_id = s.Int(20);
  m.set_tables = static_cast<int>(s.Int(21));
  m.rating_wait = s.Int(22);
  return m;
}

RatingRow ReadRating(const Stmt& s) {
  RatingRow r;
  r.bot_id = s.Int(0);
  r.variant = s.Text(1);
  r.mu = s.Double(2);
  r.sigma = s.Double(3);
  r.matches = static_cast<int>(s.Int(4));
  r.faults = static_cast<int>(s.Int(5));
  return r;
}
constexpr char kRatingColumns[] = "bot_id, variant, mu, sigma, matches, faults";

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> SqlStore::Create(std::unique_ptr<Connection> db,
                                                       Dialect dialect) {
  std::unique_ptr<SqlStore> store(new SqlStore(std::move(db), std::move(dialect)));
  absl::MutexLock lock(&store->mu_);
  if (absl::Status s = store->Migrate(); !s.ok()) return s;
  return store;
}

SqlStore::~SqlStore() {
  absl::MutexLock lock(&mu_);
  db_.reset();
}

absl::Status SqlStore::Exec(const std::string& sql) { return db_->Exec(sql); }

absl::Status SqlStore::BeginWrite() { return db_->Exec(dialect_.begin_write); }

absl::Status SqlStore::Migrate() {
  // One migration per transaction, each reading the version under the write
  // lock: arenas starting together on one database (PostgreSQL) migrate it
  // once, the others wait and find it done.
  for (;;) {
    if (absl::Status s = BeginWrite(); !s.ok()) return s;
    auto abort = [&](absl::Status s) {
      Exec("ROLLBACK;").IgnoreError();
      return s;
    };
    if (absl::Status s =
            Exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);");
        !s.ok())
      return abort(s);
    int version = 0;
    {
      Stmt s(db_.get(), "SELECT COALESCE(MAX(version), 0) FROM schema_version");
      if (s.Step() == kRow) version = static_cast<int>(s.Int(0));
    }
    if (version > kSchemaVersion)
      return abort(absl::FailedPreconditionError(
          absl::StrCat("the database has schema version ", version, ", newer than this arena's ",
                       kSchemaVersion)));
    if (version == kSchemaVersion) return Exec("COMMIT;");
    if (absl::Status s = Exec(absl::StrCat(dialect_.migration(version),
                                           "INSERT INTO schema_version VALUES (", version + 1,
                                           "); COMMIT;"));
        !s.ok())
      return abort(absl::InternalError(
          absl::StrCat("migration to version ", version + 1, ": ", s.message())));
  }
}

int SqlStore::SchemaVersion() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT COALESCE(MAX(version), 0) FROM schema_version");
  return s.Step() == kRow ? static_cast<int>(s.Int(0)) : 0;
}

StoredRow SqlStore::StoredByOwner(const std::string& owner) { return StoredBy("owner", owner); }

StoredRow SqlStore::StoredByNetwork(const std::string& client_net) {
  return StoredBy("client_net", client_net);
}

StoredRow SqlStore::StoredInAll() { return StoredBy(nullptr, ""); }

StoredRow SqlStore::StoredBy(const char* column, const std::string& value) {
  absl::MutexLock lock(&mu_);
  StoredRow out;
  // No column: every bot.
  const std::string where = column == nullptr ? std::string("1 = 1") : absl::StrCat("b.", column, " = ?");
  {
    Stmt s(db_.get(), absl::StrCat("SELECT COUNT(*) FROM bots b WHERE ", where));
    if (column != nullptr) s.Bind(1, value);
    if (s.Step() == kRow) out.bots = s.Int(0);
  }
  Stmt s(db_.get(), absl::StrCat("SELECT COUNT(*), COALESCE(SUM(v.size), 0) FROM bot_versions v "
                                 "JOIN bots b ON b.id = v.bot_id WHERE ",
                                 where, " AND v.status != 'removed'"));
  if (column != nullptr) s.Bind(1, value);
  if (s.Step() == kRow) {
    out.versions = s.Int(0);
    out.bytes = s.Int(1);
  }
  return out;
}

absl::StatusOr<BotRow> SqlStore::AddBot(const BotRow& bot) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "INSERT INTO bots (name, endpoint, owner, variants, token_hash, retired, event_id, "
         "client_net) VALUES (?, ?, ?, ?, ?, 0, ?, ?)");
  s.Bind(1, bot.name).Bind(2, bot.endpoint).Bind(3, bot.owner)
      .Bind(4, absl::StrJoin(bot.variants, ",")).Bind(5, bot.token_hash).Bind(6, bot.event_id)
      .Bind(7, bot.client_net);
  int rc = s.Step();
  if (rc == kConstraint)
    return absl::AlreadyExistsError(absl::StrCat("a bot named '", bot.name, "' exists"));
  if (rc != kDone) return SqlError(db_.get(), "add bot");
  BotRow out = bot;
  out.id = db_->LastInsertId();
  return out;
}

absl::Status SqlStore::UpdateBot(const BotRow& bot) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "UPDATE bots SET endpoint = ?, variants = ?, retired = ? WHERE id = ?");
  s.Bind(1, bot.endpoint).Bind(2, absl::StrJoin(bot.variants, ",")).Bind(3, bot.retired ? 1 : 0)
      .Bind(4, bot.id);
  if (s.Step() != kDone) return SqlError(db_.get(), "update bot");
  return absl::OkStatus();
}

absl::StatusOr<BotRow> SqlStore::FindBot(const std::string& name) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kBotColumns, " FROM bots WHERE name = ?"));
  s.Bind(1, name);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no bot named '", name, "'"));
  return ReadBot(s);
}

absl::StatusOr<BotRow> SqlStore::BotById(int64_t id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kBotColumns, " FROM bots WHERE id = ?"));
  s.Bind(1, id);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no bot with id ", id));
  return ReadBot(s);
}

std::vector<BotRow> SqlStore::ListBots(bool include_retired) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kBotColumns, " FROM bots",
                           include_retired ? "" : " WHERE retired = 0", " ORDER BY name"));
  std::vector<BotRow> out;
  while (s.Step() == kRow) out.push_back(ReadBot(s));
  return out;
}

std::optional<RatingRow> SqlStore::GetRating(int64_t bot_id, const std::string& variant) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kRatingColumns,
                           " FROM ratings WHERE bot_id = ? AND variant = ?"));
  s.Bind(1, bot_id).Bind(2, variant);
  if (s.Step() != kRow) return std::nullopt;
  return ReadRating(s);
}

absl::Status SqlStore::ResetRatings(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = BeginWrite(); !s.ok()) return s;  // both or neither
  Stmt add(db_.get(),
           "INSERT INTO rating_resets (bot_id, after_seq) "
           "SELECT ?, COALESCE(MAX(seq), 0) FROM matches WHERE status = 'done'");
  add.Bind(1, bot_id);
  Stmt del(db_.get(), "DELETE FROM ratings WHERE bot_id = ?");
  del.Bind(1, bot_id);
  if (add.Step() != kDone || del.Step() != kDone) {
    absl::Status s = SqlError(db_.get(), "reset ratings");
    Exec("ROLLBACK;").IgnoreError();
    return s;
  }
  return Exec("COMMIT;");
}

absl::Status SqlStore::PutSeatLog(const std::string& match_id, int seat, int64_t bot_id,
                                  const std::string& log) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "INSERT INTO seat_logs (match_id, seat, bot_id, log) VALUES (?, ?, ?, ?) "
         "ON CONFLICT(match_id, seat) DO UPDATE SET bot_id = excluded.bot_id, log = excluded.log");
  s.Bind(1, match_id).Bind(2, seat).Bind(3, bot_id).Bind(4, absl::Base64Escape(log));
  if (s.Step() != kDone) return SqlError(db_.get(), "put seat log");
  return absl::OkStatus();
}

absl::StatusOr<std::string> SqlStore::SeatLog(const std::string& match_id, int seat) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT log FROM seat_logs WHERE match_id = ? AND seat = ?");
  s.Bind(1, match_id).Bind(2, seat);
  if (s.Step() != kRow) return absl::NotFoundError("no standard error was kept for this seat");
  std::string log;
  if (!absl::Base64Unescape(s.Text(0), &log)) return absl::DataLossError("a damaged seat log");
  return log;
}

std::vector<std::pair<int64_t, int64_t>> SqlStore::RatingResets() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT bot_id, after_seq FROM rating_resets ORDER BY id");
  std::vector<std::pair<int64_t, int64_t>> out;
  while (s.Step() == kRow) out.emplace_back(s.Int(0), s.Int(1));
  return out;
}

std::vector<RatingRow> SqlStore::RatingsOfBot(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kRatingColumns,
                           " FROM ratings WHERE bot_id = ? ORDER BY variant"));
  s.Bind(1, bot_id);
  std::vector<RatingRow> out;
  while (s.Step() == kRow) out.push_back(ReadRating(s));
  return out;
}

std::vector<RatingRow> SqlStore::RatingsOfVariant(const std::string& variant) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kRatingColumns,
                           " FROM ratings WHERE variant = ? ORDER BY bot_id"));
  s.Bind(1, variant);
  std::vector<RatingRow> out;
  while (s.Step() == kRow) out.push_back(ReadRating(s));
  return out;
}

std::vector<HistoryRow> SqlStore::HistoryOfBot(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "SELECT match_seq, match_id, variant, mu, sigma FROM rating_history WHERE bot_id = ? "
         "ORDER BY match_seq");
  s.Bind(1, bot_id);
  std::vector<HistoryRow> out;
  while (s.Step() == kRow) {
    out.push_back({s.Int(0), s.Text(1), s.Text(2), s.Double(3), s.Double(4)});
  }
  return out;
}

absl::Status SqlStore::InsertMatch(const MatchRow& m) { return InsertMatches({m}); }

absl::Status SqlStore::InsertMatches(const std::vector<MatchRow>& matches) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = BeginWrite(); !s.ok()) return s;  // all or none
  for (const MatchRow& m : matches) {
    Stmt s(db_.get(),
           "INSERT INTO matches (id, variant, kind, ladder_id, tournament_id, spec, status, seed, "
           "bot_ids, test_id, seed_salt, seed_commitment, event_id, set_tables) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.Bind(1, m.id).Bind(2, m.variant).Bind(3, m.kind).Bind(4, m.ladder_id)
        .Bind(5, m.tournament_id).Bind(6, m.spec).Bind(7, m.status)
        .Bind(8, static_cast<int64_t>(m.seed)).Bind(9, JoinIds(m.bot_ids)).Bind(10, m.test_id)
        .Bind(11, m.seed_salt).Bind(12, m.seed_commitment).Bind(13, m.event_id)
        .Bind(14, m.set_tables);
    int rc = s.Step();
    if (rc != kDone) {
      absl::Status e = rc == kConstraint
                           ? absl::AlreadyExistsError(absl::StrCat("match ", m.id, " exists"))
                           : SqlError(db_.get(), "insert match");
      Exec("ROLLBACK;").IgnoreError();
      return e;
    }
  }
  return Exec("COMMIT;");
}

absl::Status SqlStore::DeletePendingMatches(const std::vector<std::string>& ids) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = BeginWrite(); !s.ok()) return s;
  for (const std::string& id : ids) {
    Stmt s(db_.get(), "DELETE FROM matches WHERE id = ? AND status = 'pending'");
    s.Bind(1, id);
    if (s.Step() != kDone) {
      absl::Status e = SqlError(db_.get(), "delete match");
      Exec("ROLLBACK;").IgnoreError();
      return e;
    }
  }
  return Exec("COMMIT;");
}

absl::Status SqlStore::RecordAttempt(const std::string& id, const std::string& referee,
                                  int attempts) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "UPDATE matches SET referee = ?, attempts = ? WHERE id = ? AND "
         "status IN ('pending', 'running')");
  s.Bind(1, referee).Bind(2, attempts).Bind(3, id);
  if (s.Step() != kDone) return SqlError(db_.get(), "record attempt");
  return absl::OkStatus();
}

absl::Status SqlStore::Redeal(const std::string& id, uint64_t seed, const std::string& salt,
                              const std::string& commitment, const std::string& spec) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "UPDATE matches SET seed = ?, seed_salt = ?, seed_commitment = ?, spec = ? WHERE id = ? "
         "AND status IN ('pending', 'running')");
  s.Bind(1, static_cast<int64_t>(seed)).Bind(2, salt).Bind(3, commitment).Bind(4, spec).Bind(5, id);
  if (s.Step() != kDone) return SqlError(db_.get(), "redeal");
  if (db_->Changes() == 0)
    return absl::NotFoundError(absl::StrCat("match ", id, " is not pending or running"));
  return absl::OkStatus();
}

absl::Status SqlStore::MarkFailed(const std::string& id, const std::string& error) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "UPDATE matches SET status = 'failed', error = ?, finished_at = datetime('now') "
         "WHERE id = ? AND status != 'done'");
  s.Bind(1, error).Bind(2, id);
  if (s.Step() != kDone) return SqlError(db_.get(), "mark failed");
  return absl::OkStatus();
}

absl::Status SqlStore::MarkPending(const std::string& id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "UPDATE matches SET status = 'pending' WHERE id = ? AND status = 'running'");
  s.Bind(1, id);
  if (s.Step() != kDone) return SqlError(db_.get(), "mark pending");
  return absl::OkStatus();
}

absl::StatusOr<bool> SqlStore::CommitMatch(const std::string& id, const MatchResultRow& result,
                                        const RateFn& rate) {
  std::vector<CommitOutcome> out = CommitMatches({MatchCommit{id, result}}, rate);
  if (!out[0].status.ok()) return out[0].status;
  return out[0].committed;
}

std::vector<CommitOutcome> SqlStore::CommitMatches(const std::vector<MatchCommit>& batch,
                                                const RateFn& rate) {
  absl::MutexLock lock(&mu_);
  std::vector<CommitOutcome> out(batch.size());
  // The whole batch in one transaction. Savepoints would let one failing match
  // roll back alone, but they journal every page they touch to a temp file
  // (it doubled the writes); a failure is rare (a bug or a full disk), so the
  // batch is rolled back then and each match committed on its own.
  bool failed = !BeginWrite().ok();
  for (size_t i = 0; i < batch.size() && !failed; ++i) {
    out[i] = CommitLocked(batch[i], rate);
    failed = !out[i].status.ok();
  }
  if (!failed && Exec("COMMIT;").ok()) return out;
  Exec("ROLLBACK;").IgnoreError();
  for (size_t i = 0; i < batch.size(); ++i) {
    if (absl::Status s = BeginWrite(); !s.ok()) {
      out[i] = CommitOutcome{s, false, {}};
      continue;
    }
    out[i] = CommitLocked(batch[i], rate);
    if (!out[i].status.ok()) {
      Exec("ROLLBACK;").IgnoreError();
      continue;
    }
    if (absl::Status s = Exec("COMMIT;"); !s.ok()) {
      Exec("ROLLBACK;").IgnoreError();
      out[i] = CommitOutcome{s, false, {}};
    }
  }
  return out;
}

CommitOutcome SqlStore::CommitLocked(const MatchCommit& commit, const RateFn& rate) {
  const std::string& id = commit.id;
  const MatchResultRow& result = commit.result;
  CommitOutcome out;
  auto fail = [&](absl::Status s) {
    out.status = std::move(s);
    out.ratings.clear();
    return out;
  };
  MatchRow match;
  {
    Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns, " FROM matches WHERE id = ?"));
    s.Bind(1, id);
    if (s.Step() != kRow) return fail(absl::NotFoundError(absl::StrCat("no match ", id)));
    match = ReadMatch(s);
  }
  if (match.status == "done") return out;  // already counted
  // Another arena took the match over (this one's lease expired): its result
  // is the one that counts.
  if (!result.lease_owner.empty() && match.lease_owner != result.lease_owner) return out;
  int64_t seq = 1;
  {
    Stmt s(db_.get(), "SELECT COALESCE(MAX(seq), 0) + 1 FROM matches");
    if (s.Step() == kRow) seq = s.Int(0);
  }
  match.seq = seq;
  {
    Stmt s(db_.get(),
           "UPDATE matches SET status = 'done', seq = ?, duration_s = ?, hands = ?, referee = ?, "
           "attempts = ?, error = '', finished_at = datetime('now') WHERE id = ?");
    s.Bind(1, seq).Bind(2, result.duration_s).Bind(3, result.hands).Bind(4, result.referee)
        .Bind(5, result.attempts).Bind(6, id);
    if (s.Step() != kDone) return fail(SqlError(db_.get(), "commit match"));
  }
  for (const SeatRow& seat : result.seats) {
    Stmt s(db_.get(),
           "INSERT INTO match_seats (match_id, seat, bot_id, total, faults, forfeited, rank, "
           "hand_scores, declarer_hands, declarer_won, declarer_score, defender_hands, "
           "defender_won, defender_score, decisions, decision_ms, fault_kinds, version_id) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const std::string scores =
        seat.hand_scores ? absl::StrCat("[", absl::StrJoin(*seat.hand_scores, ","), "]") : "";
    s.Bind(1, id).Bind(2, seat.seat).Bind(3, seat.bot_id).Bind(4, seat.total)
        .Bind(5, seat.faults).Bind(6, seat.forfeited ? 1 : 0).Bind(7, seat.rank).Bind(8, scores)
        .Bind(9, seat.declarer_hands).Bind(10, seat.declarer_won).Bind(11, seat.declarer_score)
        .Bind(12, seat.defender_hands).Bind(13, seat.defender_won).Bind(14, seat.defender_score)
        .Bind(15, seat.decisions).Bind(16, seat.decision_ms).Bind(17, seat.fault_kinds)
        .Bind(18, seat.version_id);
    if (s.Step() != kDone) return fail(SqlError(db_.get(), "insert seat"));
  }
  {
    Stmt s(db_.get(), "INSERT INTO match_records (match_id, record) VALUES (?, ?)");
    s.Bind(1, id).BindUncopied(2, result.record_json);
    if (s.Step() != kDone) return fail(SqlError(db_.get(), "insert record"));
  }
  for (size_t i = 0; i < result.hand_records.size(); ++i) {
    Stmt s(db_.get(), "INSERT INTO hand_records (match_id, idx, record) VALUES (?, ?, ?)");
    s.Bind(1, id).Bind(2, static_cast<int64_t>(i)).BindUncopied(3, result.hand_records[i]);
    if (s.Step() != kDone) return fail(SqlError(db_.get(), "insert hand record"));
  }
  // Earlier tables whose deal is public now: rated first, in seq order.
  std::vector<std::string> ripe;
  {
    Stmt s(db_.get(),
           "SELECT id FROM matches m WHERE rating_wait = -1 AND NOT EXISTS (SELECT 1 FROM "
           "matches u WHERE u.seed = m.seed AND u.status IN ('pending', 'running')) ORDER BY seq");
    while (s.Step() == kRow) ripe.push_back(s.Text(0));
  }
  for (const std::string& late_id : ripe) {
    MatchRow late;
    {
      Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns, " FROM matches WHERE id = ?"));
      s.Bind(1, late_id);
      if (s.Step() != kRow) return fail(SqlError(db_.get(), "read a waiting match"));
      late = ReadMatch(s);
    }
    MatchResultRow late_result;
    late_result.seats = SeatsOfLocked(late_id);
    absl::StatusOr<std::vector<RatingRow>> rated = RateLocked(late, late_result, rate);
    if (!rated.ok()) return fail(rated.status());
    out.late_ratings.insert(out.late_ratings.end(), rated->begin(), rated->end());
    Stmt s(db_.get(), "UPDATE matches SET rating_wait = ? WHERE id = ?");
    s.Bind(1, seq).Bind(2, late_id);
    if (s.Step() != kDone) return fail(SqlError(db_.get(), "mark a waiting match rated"));
  }
  // This match: rated now when its deal is public, else it waits.
  int64_t twins_unfinished = 0;
  {
    Stmt s(db_.get(),
           "SELECT COUNT(*) FROM matches WHERE seed = ? AND status IN ('pending', 'running')");
    s.Bind(1, static_cast<int64_t>(match.seed));
    if (s.Step() == kRow) twins_unfinished = s.Int(0);
  }
  if (twins_unfinished > 0) {
    Stmt s(db_.get(), "UPDATE matches SET rating_wait = -1 WHERE id = ?");
    s.Bind(1, id);
    if (s.Step() != kDone) return fail(SqlError(db_.get(), "mark a match waiting"));
  } else {
    absl::StatusOr<std::vector<RatingRow>> rated = RateLocked(match, result, rate);
    if (!rated.ok()) return fail(rated.status());
    out.ratings = *std::move(rated);
  }
  out.committed = true;
  return out;
}

absl::StatusOr<std::vector<RatingRow>> SqlStore::RateLocked(const MatchRow& match,
                                                            const MatchResultRow& result,
                                                            const RateFn& rate) {
  std::vector<std::optional<RatingRow>> current;
  for (const SeatRow& seat : result.seats) {
    Stmt s(db_.get(),
           absl::StrCat("SELECT ", kRatingColumns, " FROM ratings WHERE bot_id = ? AND variant = ?"));
    s.Bind(1, seat.bot_id).Bind(2, RatingPool(match.variant, match.event_id));
    current.push_back(s.Step() == kRow ? std::optional<RatingRow>(ReadRating(s))
                                             : std::nullopt);
  }
  std::vector<RatingRow> ratings = rate(match, result, current);
  for (const RatingRow& r : ratings) {
    Stmt up(db_.get(),
            "INSERT INTO ratings (bot_id, variant, mu, sigma, matches, faults) VALUES "
            "(?, ?, ?, ?, ?, ?) ON CONFLICT(bot_id, variant) DO UPDATE SET mu = excluded.mu, "
            "sigma = excluded.sigma, matches = excluded.matches, faults = excluded.faults");
    up.Bind(1, r.bot_id).Bind(2, r.variant).Bind(3, r.mu).Bind(4, r.sigma).Bind(5, r.matches)
        .Bind(6, r.faults);
    if (up.Step() != kDone) return SqlError(db_.get(), "update rating");
    Stmt h(db_.get(),
           "INSERT INTO rating_history (match_seq, match_id, bot_id, variant, mu, sigma) "
           "VALUES (?, ?, ?, ?, ?, ?)");
    h.Bind(1, match.seq).Bind(2, match.id).Bind(3, r.bot_id).Bind(4, r.variant).Bind(5, r.mu).Bind(6, r.sigma);
    if (h.Step() != kDone) return SqlError(db_.get(), "insert history");
  }
  return ratings;
}

absl::StatusOr<MatchRow> SqlStore::GetMatch(const std::string& id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns, " FROM matches WHERE id = ?"));
  s.Bind(1, id);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no match '", id, "'"));
  return ReadMatch(s);
}

std::vector<SeatRow> SqlStore::SeatsOf(const std::string& id) {
  absl::MutexLock lock(&mu_);
  return SeatsOfLocked(id);
}

std::vector<SeatRow> SqlStore::SeatsOfLocked(const std::string& id) {
  Stmt s(db_.get(),
         "SELECT s.seat, s.bot_id, b.name, s.total, s.faults, s.forfeited, s.rank, "
         "s.hand_scores, s.version_id, s.fault_kinds FROM match_seats s JOIN bots b ON b.id = s.bot_id "
         "WHERE s.match_id = ? ORDER BY s.seat");
  s.Bind(1, id);
  std::vector<SeatRow> out;
  while (s.Step() == kRow) {
    SeatRow r;
    r.seat = static_cast<int>(s.Int(0));
    r.bot_id = s.Int(1);
    r.bot = s.Text(2);
    r.total = s.Int(3);
    r.faults = static_cast<int>(s.Int(4));
    r.forfeited = s.Int(5) != 0;
    r.rank = static_cast<int>(s.Int(6));
    r.hand_scores = ParseScores(s.Text(7));
    r.version_id = s.Int(8);
    r.fault_kinds = s.Text(9);  // the faults by kind (an event's final reads "disconnect")
    out.push_back(r);
  }
  return out;
}

absl::StatusOr<std::string> SqlStore::RecordOf(const std::string& id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT record FROM match_records WHERE match_id = ?");
  s.Bind(1, id);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no record of match '", id, "'"));
  return s.Text(0);
}

std::vector<MatchRow> SqlStore::ListMatches(const std::string& variant, int64_t bot_id, int limit) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns,
                           " FROM matches WHERE (? = '' OR variant = ?) AND (? = 0 OR id IN "
                           "(SELECT match_id FROM match_seats WHERE bot_id = ?)) "
                           "ORDER BY rowid DESC LIMIT ?")
                  );
  s.Bind(1, variant).Bind(2, variant).Bind(3, bot_id).Bind(4, bot_id).Bind(5, limit);
  std::vector<MatchRow> out;
  while (s.Step() == kRow) out.push_back(ReadMatch(s));
  return out;
}

std::vector<MatchRow> SqlStore::UnfinishedMatches() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns,
                           " FROM matches WHERE status IN ('pending', 'running') ORDER BY rowid")
                  );
  std::vector<MatchRow> out;
  while (s.Step() == kRow) out.push_back(ReadMatch(s));
  return out;
}

// Scheduler::DealPublic in SQL, for a finished match `m`: no table dealt from
// its seed is unfinished (its results are sealed with its cards until then).
constexpr char kDealPublicSql[] =
    "NOT EXISTS (SELECT 1 FROM matches u WHERE u.seed = m.seed AND u.status IN ('pending', 'running'))";

int64_t SqlStore::CountUnfinishedWithSeed(uint64_t seed) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "SELECT COUNT(*) FROM matches WHERE seed = ? AND status IN ('pending', 'running')");
  s.Bind(1, static_cast<int64_t>(seed));
  return s.Step() == kRow ? s.Int(0) : 0;
}

void SqlStore::ForEachDoneMatch(
    const std::function<void(const MatchRow&, const std::vector<SeatRow>&)>& fn) {
  std::vector<MatchRow> done;
  {
    absl::MutexLock lock(&mu_);
    Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns,
                             " FROM matches WHERE status = 'done' ORDER BY seq"));
    while (s.Step() == kRow) done.push_back(ReadMatch(s));
  }
  for (const MatchRow& m : done) fn(m, SeatsOf(m.id));
}

int64_t SqlStore::CountMatches(const std::string& status) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT COUNT(*) FROM matches WHERE status = ?");
  s.Bind(1, status);
  return s.Step() == kRow ? s.Int(0) : 0;
}

int64_t SqlStore::CountLadderMatches(int64_t ladder_id, const std::string& status) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT COUNT(*) FROM matches WHERE ladder_id = ? AND status = ?");
  s.Bind(1, ladder_id).Bind(2, status);
  return s.Step() == kRow ? s.Int(0) : 0;
}

int64_t SqlStore::CountPublicFinished(const std::string& status, int64_t ladder_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT COUNT(*) FROM matches m WHERE m.status = ?1 AND "
                                 "(?2 = 0 OR m.ladder_id = ?2) AND ",
                                 kDealPublicSql));
  s.Bind(1, status).Bind(2, ladder_id);
  return s.Step() == kRow ? s.Int(0) : 0;
}

std::vector<MatchRow> SqlStore::TournamentMatches(int64_t tournament_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns,
                           " FROM matches WHERE tournament_id = ? ORDER BY rowid"));
  s.Bind(1, tournament_id);
  std::vector<MatchRow> out;
  while (s.Step() == kRow) out.push_back(ReadMatch(s));
  return out;
}

std::vector<MatchRow> SqlStore::ListMatchesPage(const MatchFilter& f, int offset, int limit,
                                            int64_t* total) {
  // One SQL text per combination of filters, so each uses its index (a
  // "? = '' OR" form would defeat the planner); values are always bound.
  std::string where = "1 = 1";
  std::vector<std::function<void(Stmt&, int)>> binds;
  auto add = [&](absl::string_view condition, auto value) {
    binds.push_back([value](Stmt& s, int i) { s.Bind(i, value); });
    absl::StrAppend(&where, " AND ", condition, " ?", binds.size());
  };
  if (!f.variant.empty()) add("variant =", f.variant);
  if (!f.kind.empty()) add("kind =", f.kind);
  if (f.ladder_id) add("ladder_id =", f.ladder_id);
  if (f.tournament_id) add("tournament_id =", f.tournament_id);
  if (!f.status.empty()) add("status =", f.status);
  // A finished match is shown as running until its deal is public.
  if (f.status == "done" || f.status == "failed") absl::StrAppend(&where, " AND ", kDealPublicSql);
  if (f.sealed_finished)
    absl::StrAppend(&where, " AND status IN ('done', 'failed') AND NOT ", kDealPublicSql);
  std::vector<int64_t> bot_ids = f.bot_ids;
  if (f.bot_id) bot_ids.push_back(f.bot_id);
  if (!bot_ids.empty()) {
    // Done matches by their seats (indexed); the others (pending, running,
    // failed: no seats stored) by the bot ids of their spec.
    std::string in;
    std::string like;
    for (int64_t id : bot_ids) {
      binds.push_back([id](Stmt& st, int i) { st.Bind(i, id); });
      absl::StrAppend(&in, in.empty() ? "" : ", ", "?", binds.size());
    }
    for (int64_t id : bot_ids) {
      const std::string pattern = absl::StrCat("%,", id, ",%");
      binds.push_back([pattern](Stmt& st, int i) { st.Bind(i, pattern); });
      absl::StrAppend(&like, like.empty() ? "" : " OR ", "',' || bot_ids || ',' LIKE ?",
                      binds.size());
    }
    absl::StrAppend(&where, " AND (id IN (SELECT match_id FROM match_seats WHERE bot_id IN (", in,
                    ")) OR (status <> 'done' AND (", like, ")))");
  }
  if (f.test_id) add("test_id =", f.test_id);
  if (f.event_id >= 0) add("event_id =", f.event_id);
  if (!f.exclude_ids.empty()) {
    std::string in;
    for (const std::string& id : f.exclude_ids) {
      binds.push_back([id](Stmt& st, int i) { st.Bind(i, id); });
      absl::StrAppend(&in, in.empty() ? "" : ", ", "?", binds.size());
    }
    absl::StrAppend(&where, " AND id NOT IN (", in, ")");
  }
  auto bind = [&](Stmt& s) {
    for (size_t i = 0; i < binds.size(); ++i) binds[i](s, static_cast<int>(i + 1));
  };
  absl::MutexLock lock(&mu_);
  if (total != nullptr) {
    Stmt s(db_.get(), absl::StrCat("SELECT COUNT(*) FROM matches m WHERE ", where));
    bind(s);
    *total = s.Step() == kRow ? s.Int(0) : 0;
  }
  Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns, " FROM matches m WHERE ", where,
                                         " ORDER BY rowid DESC LIMIT ?", binds.size() + 1,
                                         " OFFSET ?", binds.size() + 2));
  bind(s);
  s.Bind(static_cast<int>(binds.size() + 1), limit).Bind(static_cast<int>(binds.size() + 2), offset);
  std::vector<MatchRow> out;
  while (s.Step() == kRow) out.push_back(ReadMatch(s));
  return out;
}

int64_t SqlStore::CountDoneSince(int seconds) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         absl::StrCat("SELECT COUNT(*) FROM matches m WHERE m.finished_at >= datetime('now', ?) AND "
                      "m.status = 'done' AND ",
                      kDealPublicSql));
  s.Bind(1, absl::StrCat("-", seconds, " seconds"));
  return s.Step() == kRow ? s.Int(0) : 0;
}

std::vector<TournamentSummaryRow> SqlStore::ListTournaments(int limit) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         absl::StrCat("SELECT t.id, t.name, t.variant, t.format, t.config, t.created_at, "
                      "(SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id), "
                      "(SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id AND "
                      "m.status = 'done' AND ", kDealPublicSql, "), "
                      "(SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id AND "
                      "m.status = 'failed' AND ", kDealPublicSql, ") "
                      "FROM tournaments t ORDER BY t.id DESC LIMIT ?"));
  s.Bind(1, limit);
  std::vector<TournamentSummaryRow> out;
  while (s.Step() == kRow) {
    TournamentSummaryRow r;
    r.tournament = TournamentRow{s.Int(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4)};
    r.created_at = s.Text(5);
    r.matches = static_cast<int>(s.Int(6));
    r.done = static_cast<int>(s.Int(7));
    r.failed = static_cast<int>(s.Int(8));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<LeaderRow> SqlStore::LeaderboardRows(const std::string& variant, int trend_matches) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "SELECT b.name, b.owner, r.bot_id, r.variant, r.mu, r.sigma, r.matches, r.faults, "
         "h.mu, h.sigma FROM ratings r JOIN bots b ON b.id = r.bot_id "
         "LEFT JOIN rating_history h ON h.rowid = (SELECT rowid FROM rating_history "
         "WHERE bot_id = r.bot_id AND variant = r.variant ORDER BY match_seq DESC "
         "LIMIT 1 OFFSET ?2) WHERE r.variant = ?1 AND b.retired = 0");
  s.Bind(1, variant).Bind(2, trend_matches);
  std::vector<LeaderRow> out;
  while (s.Step() == kRow) {
    LeaderRow r;
    r.name = s.Text(0);
    r.owner = s.Text(1);
    r.rating = RatingRow{s.Int(2), s.Text(3), s.Double(4), s.Double(5),
                         static_cast<int>(s.Int(6)), static_cast<int>(s.Int(7))};
    if (!s.Text(8).empty()) r.earlier = std::make_pair(s.Double(8), s.Double(9));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<BotVariantStatsRow> SqlStore::BotStats(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         absl::StrCat(
         "SELECT m.variant, COUNT(*), SUM(CASE WHEN s.rank = 0 THEN 1 ELSE 0 END), SUM(s.rank), "
         "SUM(s.total), "
         "SUM(m.hands), SUM(s.declarer_hands), SUM(s.declarer_won), SUM(s.declarer_score), "
         "SUM(s.defender_hands), SUM(s.defender_won), SUM(s.defender_score), SUM(s.decisions), "
         "SUM(s.decision_ms), SUM(s.faults), ", dialect_.group_concat, "(s.fault_kinds, ',') "
         "FROM match_seats s JOIN matches m ON m.id = s.match_id "
         "WHERE s.bot_id = ? AND m.status = 'done' AND m.kind <> 'play' AND ", kDealPublicSql,
         " GROUP BY m.variant ORDER BY m.variant"));
  s.Bind(1, bot_id);
  std::vector<BotVariantStatsRow> out;
  while (s.Step() == kRow) {
    BotVariantStatsRow r;
    r.variant = s.Text(0);
    r.matches = static_cast<int>(s.Int(1));
    r.wins = static_cast<int>(s.Int(2));
    r.rank_sum = s.Double(3);
    r.total = s.Int(4);
    r.hands = static_cast<int>(s.Int(5));
    r.sums.declarer_hands = static_cast<int>(s.Int(6));
    r.sums.declarer_won = static_cast<int>(s.Int(7));
    r.sums.declarer_score = s.Int(8);
    r.sums.defender_hands = static_cast<int>(s.Int(9));
    r.sums.defender_won = static_cast<int>(s.Int(10));
    r.sums.defender_score = s.Int(11);
    r.sums.decisions = s.Int(12);
    r.sums.decision_ms = s.Double(13);
    r.sums.faults = static_cast<int>(s.Int(14));
    for (absl::string_view kv : absl::StrSplit(s.Text(15), ',', absl::SkipEmpty())) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits(':', 1));
      int n = 0;
      if (absl::SimpleAtoi(p.second, &n)) r.fault_kinds[p.first] += n;
    }
    r.hand_total = r.total;
    r.scored_hands = r.hands;
    out.push_back(std::move(r));
  }
  // The hand scores (a JSON array per seat), summed here: what "per hand"
  // means on every page, the end-of-match settlement left out.
  // Sealed like the sums above (a sealed table's hand scores are its cards'
  // outcome: the red team of 2026-11-29 read them here while the twin played).
  Stmt h(db_.get(),
         absl::StrCat("SELECT m.variant, s.total, m.hands, s.hand_scores FROM match_seats s "
                      "JOIN matches m ON m.id = s.match_id "
                      "WHERE s.bot_id = ? AND m.status = 'done' AND m.kind <> 'play' AND ",
                      kDealPublicSql));
  h.Bind(1, bot_id);
  std::map<std::string, std::pair<int64_t, int>> sums;
  while (h.Step() == kRow) {
    std::pair<int64_t, int>& x = sums[h.Text(0)];
    std::optional<std::vector<int64_t>> scores = ParseScores(h.Text(3));
    if (scores) {
      for (int64_t v : *scores) x.first += v;
      x.second += static_cast<int>(scores->size());
    } else {
      x.first += h.Int(1);
      x.second += static_cast<int>(h.Int(2));
    }
  }
  for (BotVariantStatsRow& r : out) {
    auto it = sums.find(r.variant);
    if (it == sums.end()) continue;
    r.hand_total = it->second.first;
    r.scored_hands = it->second.second;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Margin ratings (schema 11).

std::vector<SetTableRow> SqlStore::SetTablesLocked(int64_t ladder_id, uint64_t seed) {
  std::vector<SetTableRow> out;
  {
    Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns,
                                   " FROM matches WHERE ladder_id = ? AND seed = ? ORDER BY id"));
    s.Bind(1, ladder_id).Bind(2, static_cast<int64_t>(seed));
    while (s.Step() == kRow) out.push_back({ReadMatch(s), {}});
  }
  for (SetTableRow& t : out)
    if (t.match.status == "done") t.seats = SeatsOfLocked(t.match.id);
  return out;
}

std::vector<SetTableRow> SqlStore::SetTables(int64_t ladder_id, uint64_t seed) {
  absl::MutexLock lock(&mu_);
  return SetTablesLocked(ladder_id, seed);
}

absl::StatusOr<bool> SqlStore::BookSet(int64_t ladder_id, uint64_t seed, const std::string& pool,
                                       const SetRateFn& rate) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = BeginWrite(); !s.ok()) return s;
  auto abort = [&](absl::Status s) -> absl::StatusOr<bool> {
    Exec("ROLLBACK;").IgnoreError();
    return s;
  };
  auto nothing = [&]() -> absl::StatusOr<bool> {
    if (absl::Status s = Exec("COMMIT;"); !s.ok()) return abort(s);
    return false;
  };
  {
    Stmt s(db_.get(), "SELECT COUNT(*) FROM margin_sets WHERE ladder_id = ? AND seed = ?");
    s.Bind(1, ladder_id).Bind(2, static_cast<int64_t>(seed));
    if (s.Step() == kRow && s.Int(0) > 0) return nothing();  // booked already
  }
  const std::vector<SetTableRow> tables = SetTablesLocked(ladder_id, seed);
  if (tables.empty()) return nothing();
  // Every table that exists (a stopped ladder deletes its tables that never
  // started) must be finished.
  if (tables[0].match.set_tables <= 0) return nothing();
  for (const SetTableRow& t : tables)
    if (t.match.status != "done" && t.match.status != "failed") return nothing();
  std::map<int64_t, MarginRatingRow> current;
  for (const SetTableRow& t : tables)
    for (const SeatRow& seat : t.seats) {
      if (current.count(seat.bot_id)) continue;
      Stmt s(db_.get(),
             "SELECT mu, sigma, deals, sets, faults FROM margin_ratings WHERE bot_id = ? AND pool = ?");
      s.Bind(1, seat.bot_id).Bind(2, pool);
      if (s.Step() == kRow)
        current[seat.bot_id] = MarginRatingRow{seat.bot_id, pool, s.Double(0), s.Double(1), s.Int(2),
                                               static_cast<int>(s.Int(3)),
                                               static_cast<int>(s.Int(4))};
    }
  MarginNoiseRow noise;
  {
    Stmt s(db_.get(), "SELECT sum_sq, residuals FROM margin_noise WHERE pool = ?");
    s.Bind(1, pool);
    if (s.Step() == kRow) noise = MarginNoiseRow{s.Double(0), s.Double(1)};
  }
  absl::StatusOr<SetRating> rated = rate(tables, current, noise);
  if (!rated.ok()) return abort(rated.status());
  int64_t seq = 1;
  {
    Stmt s(db_.get(), "SELECT COALESCE(MAX(seq), 0) + 1 FROM margin_sets");
    if (s.Step() == kRow) seq = s.Int(0);
  }
  {
    Stmt s(db_.get(), "INSERT INTO margin_sets (seq, ladder_id, seed, pool) VALUES (?, ?, ?, ?)");
    s.Bind(1, seq).Bind(2, ladder_id).Bind(3, static_cast<int64_t>(seed)).Bind(4, pool);
    const int rc = s.Step();
    if (rc == kConstraint) return abort(absl::AbortedError("the set was booked meanwhile"));
    if (rc != kDone) return abort(SqlError(db_.get(), "book set"));
  }
  for (const MarginRatingRow& r : rated->ratings) {
    Stmt up(db_.get(),
            "INSERT INTO margin_ratings (bot_id, pool, mu, sigma, deals, sets, faults) VALUES "
            "(?, ?, ?, ?, ?, ?, ?) ON CONFLICT(bot_id, pool) DO UPDATE SET mu = excluded.mu, "
            "sigma = excluded.sigma, deals = excluded.deals, sets = excluded.sets, "
            "faults = excluded.faults");
    up.Bind(1, r.bot_id).Bind(2, pool).Bind(3, r.mu).Bind(4, r.sigma).Bind(5, r.deals)
        .Bind(6, r.sets).Bind(7, r.faults);
    if (up.Step() != kDone) return abort(SqlError(db_.get(), "update margin rating"));
    auto m = rated->set_margin.find(r.bot_id);
    Stmt h(db_.get(),
           "INSERT INTO margin_history (set_seq, bot_id, pool, mu, sigma, deals, set_margin) "
           "VALUES (?, ?, ?, ?, ?, ?, ?)");
    h.Bind(1, seq).Bind(2, r.bot_id).Bind(3, pool).Bind(4, r.mu).Bind(5, r.sigma).Bind(6, r.deals)
        .Bind(7, m == rated->set_margin.end() ? 0.0 : m->second);
    if (h.Step() != kDone) return abort(SqlError(db_.get(), "insert margin history"));
  }
  {
    Stmt s(db_.get(),
           "INSERT INTO margin_noise (pool, sum_sq, residuals) VALUES (?, ?, ?) "
           "ON CONFLICT(pool) DO UPDATE SET sum_sq = excluded.sum_sq, residuals = excluded.residuals");
    s.Bind(1, pool).Bind(2, rated->noise.sum_sq).Bind(3, rated->noise.residuals);
    if (s.Step() != kDone) return abort(SqlError(db_.get(), "update margin noise"));
  }
  if (absl::Status s = Exec("COMMIT;"); !s.ok()) return abort(s);
  return true;
}

std::vector<MarginSetRow> SqlStore::BookedSets() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT seq, ladder_id, seed, pool FROM margin_sets ORDER BY seq");
  std::vector<MarginSetRow> out;
  while (s.Step() == kRow)
    out.push_back({s.Int(0), s.Int(1), static_cast<uint64_t>(s.Int(2)), s.Text(3)});
  return out;
}

std::vector<std::pair<int64_t, uint64_t>> SqlStore::UnbookedFinishedSets() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "SELECT m.ladder_id, m.seed FROM matches m WHERE m.set_tables > 0 AND NOT EXISTS "
         "(SELECT 1 FROM margin_sets x WHERE x.ladder_id = m.ladder_id AND x.seed = m.seed) "
         "GROUP BY m.ladder_id, m.seed HAVING "
         "SUM(CASE WHEN m.status IN ('done', 'failed') THEN 1 ELSE 0 END) = COUNT(*)");
  std::vector<std::pair<int64_t, uint64_t>> out;
  while (s.Step() == kRow) out.push_back({s.Int(0), static_cast<uint64_t>(s.Int(1))});
  return out;
}

std::vector<MarginRatingRow> SqlStore::MarginRatingsOfBot(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "SELECT bot_id, pool, mu, sigma, deals, sets, faults FROM margin_ratings WHERE bot_id = ? "
         "ORDER BY pool");
  s.Bind(1, bot_id);
  std::vector<MarginRatingRow> out;
  while (s.Step() == kRow)
    out.push_back({s.Int(0), s.Text(1), s.Double(2), s.Double(3), s.Int(4),
                   static_cast<int>(s.Int(5)), static_cast<int>(s.Int(6))});
  return out;
}

MarginNoiseRow SqlStore::MarginNoiseOf(const std::string& pool) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT sum_sq, residuals FROM margin_noise WHERE pool = ?");
  s.Bind(1, pool);
  if (s.Step() != kRow) return {};
  return {s.Double(0), s.Double(1)};
}

std::map<std::string, MarginNoiseRow> SqlStore::MarginNoises() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT pool, sum_sq, residuals FROM margin_noise ORDER BY pool");
  std::map<std::string, MarginNoiseRow> out;
  while (s.Step() == kRow) out[s.Text(0)] = {s.Double(1), s.Double(2)};
  return out;
}

std::vector<MarginLeaderRow> SqlStore::MarginLeaderboardRows(const std::string& pool) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "SELECT b.name, b.owner, r.bot_id, r.pool, r.mu, r.sigma, r.deals, r.sets, r.faults "
         "FROM margin_ratings r JOIN bots b ON b.id = r.bot_id WHERE r.pool = ? AND b.retired = 0");
  s.Bind(1, pool);
  std::vector<MarginLeaderRow> out;
  while (s.Step() == kRow) {
    MarginLeaderRow r;
    r.name = s.Text(0);
    r.owner = s.Text(1);
    r.rating = {s.Int(2), s.Text(3), s.Double(4), s.Double(5), s.Int(6),
                static_cast<int>(s.Int(7)), static_cast<int>(s.Int(8))};
    out.push_back(std::move(r));
  }
  return out;
}

absl::StatusOr<int64_t> SqlStore::InsertLadder(const LadderRow& ladder) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "INSERT INTO ladders (variant, config, running) VALUES (?, ?, ?)");
  s.Bind(1, ladder.variant).Bind(2, ladder.config).Bind(3, ladder.running ? 1 : 0);
  if (s.Step() != kDone) return SqlError(db_.get(), "insert ladder");
  return db_->LastInsertId();
}

absl::Status SqlStore::SetLadderRunning(int64_t id, bool running) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "UPDATE ladders SET running = ? WHERE id = ?");
  s.Bind(1, running ? 1 : 0).Bind(2, id);
  if (s.Step() != kDone) return SqlError(db_.get(), "update ladder");
  return absl::OkStatus();
}

std::vector<LadderRow> SqlStore::ListLadders() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT id, variant, config, running FROM ladders ORDER BY id");
  std::vector<LadderRow> out;
  while (s.Step() == kRow) out.push_back({s.Int(0), s.Text(1), s.Text(2), s.Int(3) != 0});
  return out;
}

absl::StatusOr<int64_t> SqlStore::InsertTournament(const TournamentRow& t) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "INSERT INTO tournaments (name, variant, format, config) VALUES (?, ?, ?, ?)");
  s.Bind(1, t.name).Bind(2, t.variant).Bind(3, t.format).Bind(4, t.config);
  if (s.Step() != kDone) return SqlError(db_.get(), "insert tournament");
  return db_->LastInsertId();
}

absl::StatusOr<TournamentRow> SqlStore::GetTournament(int64_t id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "SELECT id, name, variant, format, config, created_at FROM tournaments WHERE id = ?");
  s.Bind(1, id);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no tournament ", id));
  return TournamentRow{s.Int(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5)};
}

// ---------------------------------------------------------------------------
// Events.

namespace {
constexpr char kEventColumns[] =
    "id, slug, status, organiser_token_hash, invite_code, config, frozen_at, final_tournament_id, "
    "created_at";
EventRow ReadEvent(const Stmt& s) {
  return EventRow{s.Int(0),  s.Text(1), s.Text(2), s.Text(3), s.Text(4),
                  s.Text(5), s.Text(6), s.Int(7),  s.Text(8)};
}
constexpr char kEntrantColumns[] = "id, event_id, name, token_hash, created_at, updated_at";
EntrantRow ReadEntrant(const Stmt& s) {
  return EntrantRow{s.Int(0), s.Int(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5)};
}
constexpr char kEventBotColumns[] = "event_id, bot_id, entrant_id, withdrawn, added_at";
EventBotRow ReadEventBot(const Stmt& s) {
  return EventBotRow{s.Int(0), s.Int(1), s.Int(2), s.Int(3) != 0, s.Text(4)};
}
}  // namespace

absl::StatusOr<int64_t> SqlStore::InsertEvent(const EventRow& e) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "INSERT INTO events (slug, status, organiser_token_hash, invite_code, config) "
         "VALUES (?, ?, ?, ?, ?)");
  s.Bind(1, e.slug).Bind(2, e.status).Bind(3, e.organiser_token_hash).Bind(4, e.invite_code)
      .Bind(5, e.config);
  const int rc = s.Step();
  if (rc == kConstraint)
    return absl::AlreadyExistsError(absl::StrCat("an event '", e.slug, "' exists"));
  if (rc != kDone) return SqlError(db_.get(), "insert event");
  return db_->LastInsertId();
}

absl::Status SqlStore::UpdateEvent(const EventRow& e) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "UPDATE events SET status = ?, organiser_token_hash = ?, config = ?, frozen_at = ?, "
         "final_tournament_id = ? WHERE id = ?");
  s.Bind(1, e.status).Bind(2, e.organiser_token_hash).Bind(3, e.config).Bind(4, e.frozen_at)
      .Bind(5, e.final_tournament_id).Bind(6, e.id);
  if (s.Step() != kDone) return SqlError(db_.get(), "update event");
  return absl::OkStatus();
}

absl::StatusOr<EventRow> SqlStore::GetEvent(const std::string& slug) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kEventColumns, " FROM events WHERE slug = ?"));
  s.Bind(1, slug);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no event '", slug, "'"));
  return ReadEvent(s);
}

absl::StatusOr<EventRow> SqlStore::EventById(int64_t id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kEventColumns, " FROM events WHERE id = ?"));
  s.Bind(1, id);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no event ", id));
  return ReadEvent(s);
}

std::vector<EventRow> SqlStore::ListEvents() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kEventColumns, " FROM events ORDER BY id"));
  std::vector<EventRow> out;
  while (s.Step() == kRow) out.push_back(ReadEvent(s));
  return out;
}

absl::StatusOr<EntrantRow> SqlStore::InsertEntrant(const EntrantRow& e) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "INSERT INTO entrants (event_id, name, token_hash) VALUES (?, ?, ?)");
  s.Bind(1, e.event_id).Bind(2, e.name).Bind(3, e.token_hash);
  const int rc = s.Step();
  if (rc == kConstraint)
    return absl::AlreadyExistsError(absl::StrCat("an entrant named '", e.name, "' has joined"));
  if (rc != kDone) return SqlError(db_.get(), "insert entrant");
  const int64_t id = db_->LastInsertId();
  Stmt r(db_.get(), absl::StrCat("SELECT ", kEntrantColumns, " FROM entrants WHERE id = ?"));
  r.Bind(1, id);
  if (r.Step() != kRow) return SqlError(db_.get(), "read entrant");
  return ReadEntrant(r);
}

absl::Status SqlStore::UpdateEntrant(const EntrantRow& e) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "UPDATE entrants SET token_hash = ?, updated_at = datetime('now') WHERE id = ?");
  s.Bind(1, e.token_hash).Bind(2, e.id);
  if (s.Step() != kDone) return SqlError(db_.get(), "update entrant");
  return absl::OkStatus();
}

std::vector<EntrantRow> SqlStore::ListEntrants(int64_t event_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         absl::StrCat("SELECT ", kEntrantColumns, " FROM entrants WHERE event_id = ? ORDER BY id"));
  s.Bind(1, event_id);
  std::vector<EntrantRow> out;
  while (s.Step() == kRow) out.push_back(ReadEntrant(s));
  return out;
}

absl::Status SqlStore::EnterBot(const EventBotRow& e) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "INSERT INTO event_bots (event_id, bot_id, entrant_id, withdrawn) VALUES (?, ?, ?, ?) "
         "ON CONFLICT (event_id, bot_id) DO UPDATE SET entrant_id = excluded.entrant_id, "
         "withdrawn = excluded.withdrawn");
  s.Bind(1, e.event_id).Bind(2, e.bot_id).Bind(3, e.entrant_id).Bind(4, e.withdrawn ? 1 : 0);
  if (s.Step() != kDone) return SqlError(db_.get(), "enter bot");
  return absl::OkStatus();
}

std::vector<EventBotRow> SqlStore::EventBots(int64_t event_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kEventBotColumns,
                                 " FROM event_bots WHERE event_id = ? ORDER BY bot_id"));
  s.Bind(1, event_id);
  std::vector<EventBotRow> out;
  while (s.Step() == kRow) out.push_back(ReadEventBot(s));
  return out;
}

std::vector<EventBotRow> SqlStore::EventsOfBot(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kEventBotColumns,
                                 " FROM event_bots WHERE bot_id = ? ORDER BY event_id"));
  s.Bind(1, bot_id);
  std::vector<EventBotRow> out;
  while (s.Step() == kRow) out.push_back(ReadEventBot(s));
  return out;
}

// ---------------------------------------------------------------------------
// Tests.

namespace {
constexpr char kTestColumns[] = "id, variant, config, status, state, created_at, finished_at";
TestRow ReadTest(const Stmt& s) {
  return TestRow{s.Int(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5), s.Text(6)};
}
}  // namespace

absl::StatusOr<int64_t> SqlStore::InsertTest(const TestRow& t) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "INSERT INTO tests (variant, config, status, state) VALUES (?, ?, ?, ?)");
  s.Bind(1, t.variant).Bind(2, t.config).Bind(3, t.status).Bind(4, t.state);
  if (s.Step() != kDone) return SqlError(db_.get(), "insert test");
  return db_->LastInsertId();
}

absl::StatusOr<bool> SqlStore::UpdateTest(int64_t id, const std::string& state,
                                       const std::string& status) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "UPDATE tests SET state = ?, status = ?, finished_at = CASE WHEN ? = 'running' THEN '' "
         "ELSE datetime('now') END WHERE id = ? AND status = 'running'");
  s.Bind(1, state).Bind(2, status).Bind(3, status).Bind(4, id);
  if (s.Step() != kDone) return SqlError(db_.get(), "update test");
  return db_->Changes() > 0;
}

absl::StatusOr<TestRow> SqlStore::GetTest(int64_t id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kTestColumns, " FROM tests WHERE id = ?"));
  s.Bind(1, id);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no test ", id));
  return ReadTest(s);
}

std::vector<TestRow> SqlStore::ListTests(const std::string& status, int limit) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kTestColumns,
                                         " FROM tests WHERE (?1 = '' OR status = ?1) "
                                         "ORDER BY id DESC LIMIT ?2"));
  s.Bind(1, status).Bind(2, limit);
  std::vector<TestRow> out;
  while (s.Step() == kRow) out.push_back(ReadTest(s));
  return out;
}

int64_t SqlStore::CountTestMatches(int64_t test_id, const std::string& status) {
  absl::MutexLock lock(&mu_);
  // A finished table counts by its status once its deal is public (shown as
  // running until then: docs/security.md, "Secret deals").
  Stmt s(db_.get(), absl::StrCat("SELECT COUNT(*) FROM matches m WHERE m.test_id = ?1 AND "
                                 "(?2 = '' OR (m.status = ?2 AND ",
                                 kDealPublicSql, "))"));
  s.Bind(1, test_id).Bind(2, status);
  return s.Step() == kRow ? s.Int(0) : 0;
}

std::vector<MatchRow> SqlStore::TestMatches(int64_t test_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns,
                                         " FROM matches WHERE test_id = ? ORDER BY rowid"));
  s.Bind(1, test_id);
  std::vector<MatchRow> out;
  while (s.Step() == kRow) out.push_back(ReadMatch(s));
  return out;
}

// ---------------------------------------------------------------------------
// Leases. Every change runs in a write transaction (BeginWrite excludes the
// other writers, whichever process), and the claim's SELECT also locks its
// rows where the dialect can (FOR UPDATE SKIP LOCKED).

namespace {
// datetime()'s modifier for `lease_seconds` from now (negative: already past).
std::string LeaseModifier(int lease_seconds) {
  return absl::StrCat(lease_seconds >= 0 ? "+" : "", lease_seconds, " seconds");
}
}  // namespace

absl::StatusOr<std::vector<MatchRow>> SqlStore::ClaimMatches(const std::string& owner,
                                                            int lease_seconds, int limit) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = BeginWrite(); !s.ok()) return s;
  std::vector<MatchRow> out;
  {
    Stmt s(db_.get(), absl::StrCat("SELECT ", kMatchColumns,
                                   " FROM matches WHERE kind != 'play' AND (status = 'pending' OR "
                                   "(status = 'running' AND lease_expires < datetime('now'))) "
                                   "ORDER BY rowid LIMIT ?",
                                   dialect_.skip_locked));
    s.Bind(1, limit);
    int rc;
    while ((rc = s.Step()) == kRow) out.push_back(ReadMatch(s));
    if (rc != kDone) {
      absl::Status e = SqlError(db_.get(), "claim matches");
      Exec("ROLLBACK;").IgnoreError();
      return e;
    }
  }
  for (MatchRow& m : out) {
    Stmt s(db_.get(),
           "UPDATE matches SET status = 'running', lease_owner = ?, "
           "lease_expires = datetime('now', ?) WHERE id = ?");
    s.Bind(1, owner).Bind(2, LeaseModifier(lease_seconds)).Bind(3, m.id);
    if (s.Step() != kDone) {
      absl::Status e = SqlError(db_.get(), "claim match");
      Exec("ROLLBACK;").IgnoreError();
      return e;
    }
    m.status = "running";
    m.lease_owner = owner;
  }
  if (absl::Status s = Exec("COMMIT;"); !s.ok()) {
    Exec("ROLLBACK;").IgnoreError();
    return s;
  }
  return out;
}

absl::Status SqlStore::RenewLeases(const std::string& owner, int lease_seconds) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "UPDATE matches SET lease_expires = datetime('now', ?) WHERE lease_owner = ? AND "
         "status = 'running'");
  s.Bind(1, LeaseModifier(lease_seconds)).Bind(2, owner);
  if (s.Step() != kDone) return SqlError(db_.get(), "renew leases");
  return absl::OkStatus();
}

absl::Status SqlStore::ReleaseLeases(const std::string& owner) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "UPDATE matches SET status = 'pending', lease_expires = '' WHERE lease_owner = ? AND "
         "status = 'running'");
  s.Bind(1, owner);
  if (s.Step() != kDone) return SqlError(db_.get(), "release leases");
  Stmt named(db_.get(), "DELETE FROM leases WHERE owner = ?");
  named.Bind(1, owner);
  if (named.Step() != kDone) return SqlError(db_.get(), "release named leases");
  return absl::OkStatus();
}

absl::StatusOr<bool> SqlStore::AcquireLease(const std::string& name, const std::string& owner,
                                            int lease_seconds) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = BeginWrite(); !s.ok()) return s;
  auto abort = [&](absl::string_view what) {
    absl::Status e = SqlError(db_.get(), what);
    Exec("ROLLBACK;").IgnoreError();
    return e;
  };
  bool free = true;
  {
    Stmt s(db_.get(),
           "SELECT CASE WHEN owner = ? OR expires < datetime('now') THEN 1 ELSE 0 END "
           "FROM leases WHERE name = ?");
    s.Bind(1, owner).Bind(2, name);
    int rc = s.Step();
    if (rc == kRow) free = s.Int(0) != 0;
    else if (rc != kDone) return abort("read lease");
  }
  if (!free) {
    if (absl::Status s = Exec("COMMIT;"); !s.ok()) return s;
    return false;
  }
  {
    Stmt s(db_.get(),
           "INSERT INTO leases (name, owner, expires) VALUES (?, ?, datetime('now', ?)) "
           "ON CONFLICT(name) DO UPDATE SET owner = excluded.owner, expires = excluded.expires");
    s.Bind(1, name).Bind(2, owner).Bind(3, LeaseModifier(lease_seconds));
    if (s.Step() != kDone) return abort("take lease");
  }
  if (absl::Status s = Exec("COMMIT;"); !s.ok()) {
    Exec("ROLLBACK;").IgnoreError();
    return s;
  }
  return true;
}

absl::StatusOr<int64_t> SqlStore::AppendAudit(const AuditRow& a) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "INSERT INTO audit (actor, client, action, target, outcome, detail) "
         "VALUES (?, ?, ?, ?, ?, ?)");
  s.Bind(1, a.actor).Bind(2, a.client).Bind(3, a.action).Bind(4, a.target).Bind(5, a.outcome)
      .Bind(6, a.detail);
  if (s.Step() != kDone) return SqlError(db_.get(), "append audit");
  return db_->LastInsertId();
}

std::vector<AuditRow> SqlStore::ListAudit(const std::string& target, int64_t before_id, int limit) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "SELECT id, at, actor, client, action, target, outcome, detail FROM audit "
         "WHERE (?1 = '' OR target = ?1) AND (?2 = 0 OR id < ?2) ORDER BY id DESC LIMIT ?3");
  s.Bind(1, target).Bind(2, before_id).Bind(3, limit);
  std::vector<AuditRow> out;
  while (s.Step() == kRow)
    out.push_back(AuditRow{s.Int(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5),
                           s.Text(6), s.Text(7)});
  return out;
}

namespace {
constexpr char kVersionColumns[] =
    "v.id, v.bot_id, b.name, v.kind, v.entry, v.interpreter, v.filename, v.sha256, v.size, "
    "v.uploaded_at, v.status, v.build_log, v.ready_at";
}  // namespace

absl::StatusOr<int64_t> SqlStore::AddVersion(const VersionRow& v, int keep) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = Exec(dialect_.begin_write); !s.ok()) return s;
  Stmt s(db_.get(),
         "INSERT INTO bot_versions (bot_id, kind, entry, interpreter, filename, sha256, size, "
         "status, content) VALUES (?, ?, ?, ?, ?, ?, ?, 'building', ?)");
  s.Bind(1, v.bot_id).Bind(2, v.kind).Bind(3, v.entry).Bind(4, v.interpreter).Bind(5, v.filename)
      .Bind(6, v.sha256).Bind(7, v.size).BindUncopied(8, v.content);
  if (s.Step() != kDone) {
    absl::Status e = SqlError(db_.get(), "add version");
    Exec("ROLLBACK;").IgnoreError();
    return e;
  }
  const int64_t id = db_->LastInsertId();
  // Keep the content of the newest `keep` versions only.
  Stmt old(db_.get(),
           "UPDATE bot_versions SET content = '', status = 'removed' WHERE bot_id = ?1 AND id NOT IN "
           "(SELECT id FROM bot_versions WHERE bot_id = ?1 ORDER BY id DESC LIMIT ?2) "
           "AND status <> 'removed'");
  old.Bind(1, v.bot_id).Bind(2, static_cast<int64_t>(std::max(1, keep)));
  if (old.Step() != kDone) {
    absl::Status e = SqlError(db_.get(), "remove old versions");
    Exec("ROLLBACK;").IgnoreError();
    return e;
  }
  if (absl::Status c = Exec("COMMIT;"); !c.ok()) {
    Exec("ROLLBACK;").IgnoreError();
    return c;
  }
  return id;
}

std::vector<VersionRow> SqlStore::ListVersions(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kVersionColumns,
                                 " FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
                                 "WHERE (?1 = 0 OR v.bot_id = ?1) ORDER BY v.id DESC"));
  s.Bind(1, bot_id);
  std::vector<VersionRow> out;
  while (s.Step() == kRow)
    out.push_back(VersionRow{s.Int(0), s.Int(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5),
                             s.Text(6), s.Text(7), s.Int(8), s.Text(9), s.Text(10), s.Text(11),
                             s.Text(12), ""});
  return out;
}

absl::StatusOr<VersionRow> SqlStore::GetVersion(int64_t id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kVersionColumns,
                                 ", v.content FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
                                 "WHERE v.id = ?"));
  s.Bind(1, id);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no version ", id));
  return VersionRow{s.Int(0), s.Int(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5),
                    s.Text(6), s.Text(7), s.Int(8), s.Text(9), s.Text(10), s.Text(11),
                    s.Text(12), s.Text(13)};
}

absl::StatusOr<VersionRow> SqlStore::GetVersionInfo(int64_t id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), absl::StrCat("SELECT ", kVersionColumns,
                                 " FROM bot_versions v JOIN bots b ON b.id = v.bot_id WHERE v.id = ?"));
  s.Bind(1, id);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no version ", id));
  return VersionRow{s.Int(0), s.Int(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5),
                    s.Text(6), s.Text(7), s.Int(8), s.Text(9), s.Text(10), s.Text(11),
                    s.Text(12), ""};
}

absl::StatusOr<std::string> SqlStore::GetVersionContentSlice(int64_t id, int64_t offset,
                                                             int64_t length) {
  absl::MutexLock lock(&mu_);
  // The content is ASCII (base64): characters are bytes in both dialects.
  Stmt s(db_.get(),
         "SELECT substr(content, CAST(? AS INTEGER), CAST(? AS INTEGER)) FROM bot_versions "
         "WHERE id = ?");
  s.Bind(1, std::max<int64_t>(0, offset) + 1).Bind(2, std::max<int64_t>(0, length)).Bind(3, id);
  if (s.Step() != kRow) return absl::NotFoundError(absl::StrCat("no version ", id));
  return s.Text(0);
}

absl::Status SqlStore::SetVersionStatus(int64_t id, const std::string& status,
                                        const std::string& build_log) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "UPDATE bot_versions SET status = ?1, build_log = ?2, "
         "ready_at = CASE WHEN ?1 = 'ready' THEN datetime('now') ELSE ready_at END "
         "WHERE id = ?3 AND status = 'building'");
  s.Bind(1, status).Bind(2, build_log).Bind(3, id);
  if (s.Step() != kDone) return SqlError(db_.get(), "set version status");
  return absl::OkStatus();
}

int64_t SqlStore::CountVersionsSince(int64_t bot_id, int seconds) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(),
         "SELECT COUNT(*) FROM bot_versions WHERE bot_id = ? AND uploaded_at >= datetime('now', ?)");
  s.Bind(1, bot_id).Bind(2, absl::StrCat("-", seconds, " seconds"));
  return s.Step() == kRow ? s.Int(0) : 0;
}

absl::StatusOr<int64_t> SqlStore::AddHost(const HostRow& host) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "INSERT INTO bot_hosts (name, token_hash) VALUES (?, ?)");
  s.Bind(1, host.name).Bind(2, host.token_hash);
  int rc = s.Step();
  if (rc == kConstraint)
    return absl::AlreadyExistsError(absl::StrCat("a host named '", host.name, "' exists"));
  if (rc != kDone) return SqlError(db_.get(), "add host");
  return db_->LastInsertId();
}

std::optional<HostRow> SqlStore::FindHostByTokenHash(const std::string& token_hash) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_.get(), "SELECT id, name, token_hash FROM bot_hosts WHERE token_hash = ?");
  s.Bind(1, token_hash);
  if (s.Step() != kRow) return std::nullopt;
  return HostRow{s.Int(0), s.Text(1), s.Text(2)};
}

}  // namespace tarock::arena::sql
