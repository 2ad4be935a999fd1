#include "arena/store/store.h"

#include <openssl/evp.h>
#include <sqlite3.h>

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace tarock::arena {
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
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == Store::kSchemaVersion);

// A prepared statement with positional binds. Statements come from the
// store's cache (compiling the SQL cost more than running it on the arena's
// hot path, a commit per match) and are reset, not finalised, on destruction;
// a statement whose cached copy is still in use (a query run while another
// with the same SQL is open) is compiled afresh and finalised.
class Stmt {
 public:
  Stmt(sqlite3* db, StatementCache* cache, const char* sql) {
    auto it = cache->find(std::string_view(sql));
    if (it == cache->end()) it = cache->emplace(sql, nullptr).first;
    sqlite3_stmt*& cached = it->second;
    if (cached != nullptr && !sqlite3_stmt_busy(cached)) {
      stmt_ = cached;
      borrowed_ = true;
      return;
    }
    if (sqlite3_prepare_v3(db, sql, -1, cached ? 0 : SQLITE_PREPARE_PERSISTENT, &stmt_,
                           nullptr) != SQLITE_OK) {
      error_ = sqlite3_errmsg(db);
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
      return;
    }
    if (cached == nullptr) {
      cached = stmt_;
      borrowed_ = true;
    }
  }
  Stmt(sqlite3* db, StatementCache* cache, const std::string& sql) : Stmt(db, cache, sql.c_str()) {}
  ~Stmt() {
    if (!borrowed_) {
      sqlite3_finalize(stmt_);
    } else {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
    }
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return stmt_ != nullptr; }
  const std::string& error() const { return error_; }

  Stmt& Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); return *this; }
  Stmt& Bind(int i, int v) { sqlite3_bind_int64(stmt_, i, v); return *this; }
  Stmt& Bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); return *this; }
  Stmt& Bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // Binds without a copy (records are kilobytes): `v` must outlive the Step()s.
  Stmt& BindUncopied(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return stmt_ ? sqlite3_step(stmt_) : SQLITE_ERROR; }

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? std::string(reinterpret_cast<const char*>(t), sqlite3_column_bytes(stmt_, col))
             : std::string();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  bool borrowed_ = false;  // owned by the cache
  std::string error_;
};

absl::Status SqlError(sqlite3* db, absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", sqlite3_errmsg(db)));
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
  return b;
}
constexpr char kBotColumns[] = "id, name, endpoint, owner, variants, token_hash, retired";

constexpr char kMatchColumns[] =
    "id, variant, kind, ladder_id, tournament_id, spec, status, attempts, referee, error, "
    "COALESCE(seq, 0), duration_s, hands, seed, bot_ids, COALESCE(finished_at, ''), test_id";
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

std::string HashToken(const std::string& token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(token.data(), token.size(), digest, &len, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) absl::StrAppend(&hex, absl::Hex(digest[i], absl::kZeroPad2));
  return hex;
}

std::string NewToken() {
  unsigned char bytes[16] = {};
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  urandom.read(reinterpret_cast<char*>(bytes), sizeof bytes);
  std::string hex;
  for (unsigned char b : bytes) absl::StrAppend(&hex, absl::Hex(b, absl::kZeroPad2));
  return hex;
}

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", msg));
  }
  sqlite3_busy_timeout(db, 5000);
  std::unique_ptr<Store> store(new Store(db));
  absl::MutexLock lock(&store->mu_);
  // WAL: readers never block the writer. synchronous=NORMAL: a commit survives
  // a killed process (SIGKILL at any moment), not an OS crash or power cut that
  // loses the last commits; such a match is still "running" on disk and simply
  // runs again at the next start (commits are idempotent), so no result is
  // lost or doubled. FULL would pay a disk flush per write (about 4 ms here).
  // temp_store=MEMORY: SQLite's temporary structures (sorts, sub-journals)
  // never go through temp files. mmap_size: reads map the file instead of
  // copying pages through SQLite's small page cache (2 MB): the web pages'
  // match counts and deep pages over 100,000 matches went from 30-70 ms to a
  // few (arena/bench/web_bench.cc).
  if (absl::Status s = store->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                                   "PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY; "
                                   "PRAGMA mmap_size=1073741824;");
      !s.ok())
    return s;
  if (absl::Status s = store->Migrate(); !s.ok()) return s;
  return store;
}

Store::~Store() {
  absl::MutexLock lock(&mu_);
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

absl::Status Store::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return absl::InternalError(absl::StrCat("sqlite: ", msg));
  }
  return absl::OkStatus();
}

absl::Status Store::Migrate() {
  if (absl::Status s = Exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);");
      !s.ok())
    return s;
  int version = 0;
  {
    Stmt s(db_, &statements_, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
    if (s.Step() == SQLITE_ROW) version = static_cast<int>(s.Int(0));
  }
  if (version > kSchemaVersion)
    return absl::FailedPreconditionError(absl::StrCat(
        "the database has schema version ", version, ", newer than this arena's ", kSchemaVersion));
  for (int v = version; v < kSchemaVersion; ++v) {
    if (absl::Status s = Exec(absl::StrCat("BEGIN IMMEDIATE;", kMigrations[v],
                                           "INSERT INTO schema_version VALUES (", v + 1,
                                           "); COMMIT;"));
        !s.ok()) {
      Exec("ROLLBACK;").IgnoreError();
      return absl::InternalError(absl::StrCat("migration to version ", v + 1, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

int Store::SchemaVersion() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
  return s.Step() == SQLITE_ROW ? static_cast<int>(s.Int(0)) : 0;
}

absl::StatusOr<BotRow> Store::AddBot(const BotRow& bot) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "INSERT INTO bots (name, endpoint, owner, variants, token_hash, retired) "
         "VALUES (?, ?, ?, ?, ?, 0)");
  s.Bind(1, bot.name).Bind(2, bot.endpoint).Bind(3, bot.owner)
      .Bind(4, absl::StrJoin(bot.variants, ",")).Bind(5, bot.token_hash);
  int rc = s.Step();
  if (rc == SQLITE_CONSTRAINT)
    return absl::AlreadyExistsError(absl::StrCat("a bot named '", bot.name, "' exists"));
  if (rc != SQLITE_DONE) return SqlError(db_, "add bot");
  BotRow out = bot;
  out.id = sqlite3_last_insert_rowid(db_);
  return out;
}

absl::Status Store::UpdateBot(const BotRow& bot) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "UPDATE bots SET endpoint = ?, variants = ?, retired = ? WHERE id = ?");
  s.Bind(1, bot.endpoint).Bind(2, absl::StrJoin(bot.variants, ",")).Bind(3, bot.retired ? 1 : 0)
      .Bind(4, bot.id);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "update bot");
  return absl::OkStatus();
}

absl::StatusOr<BotRow> Store::FindBot(const std::string& name) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kBotColumns, " FROM bots WHERE name = ?").c_str());
  s.Bind(1, name);
  if (s.Step() != SQLITE_ROW) return absl::NotFoundError(absl::StrCat("no bot named '", name, "'"));
  return ReadBot(s);
}

absl::StatusOr<BotRow> Store::BotById(int64_t id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kBotColumns, " FROM bots WHERE id = ?").c_str());
  s.Bind(1, id);
  if (s.Step() != SQLITE_ROW) return absl::NotFoundError(absl::StrCat("no bot with id ", id));
  return ReadBot(s);
}

std::vector<BotRow> Store::ListBots(bool include_retired) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kBotColumns, " FROM bots",
                           include_retired ? "" : " WHERE retired = 0", " ORDER BY name").c_str());
  std::vector<BotRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadBot(s));
  return out;
}

std::optional<RatingRow> Store::GetRating(int64_t bot_id, const std::string& variant) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kRatingColumns,
                           " FROM ratings WHERE bot_id = ? AND variant = ?").c_str());
  s.Bind(1, bot_id).Bind(2, variant);
  if (s.Step() != SQLITE_ROW) return std::nullopt;
  return ReadRating(s);
}

std::vector<RatingRow> Store::RatingsOfBot(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kRatingColumns,
                           " FROM ratings WHERE bot_id = ? ORDER BY variant").c_str());
  s.Bind(1, bot_id);
  std::vector<RatingRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadRating(s));
  return out;
}

std::vector<RatingRow> Store::RatingsOfVariant(const std::string& variant) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kRatingColumns,
                           " FROM ratings WHERE variant = ? ORDER BY bot_id").c_str());
  s.Bind(1, variant);
  std::vector<RatingRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadRating(s));
  return out;
}

std::vector<HistoryRow> Store::HistoryOfBot(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "SELECT match_seq, match_id, variant, mu, sigma FROM rating_history WHERE bot_id = ? "
         "ORDER BY match_seq");
  s.Bind(1, bot_id);
  std::vector<HistoryRow> out;
  while (s.Step() == SQLITE_ROW) {
    out.push_back({s.Int(0), s.Text(1), s.Text(2), s.Double(3), s.Double(4)});
  }
  return out;
}

absl::Status Store::InsertMatch(const MatchRow& m) { return InsertMatches({m}); }

absl::Status Store::InsertMatches(const std::vector<MatchRow>& matches) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = Exec("BEGIN IMMEDIATE;"); !s.ok()) return s;  // all or none
  for (const MatchRow& m : matches) {
    Stmt s(db_, &statements_,
           "INSERT INTO matches (id, variant, kind, ladder_id, tournament_id, spec, status, seed, "
           "bot_ids, test_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.Bind(1, m.id).Bind(2, m.variant).Bind(3, m.kind).Bind(4, m.ladder_id)
        .Bind(5, m.tournament_id).Bind(6, m.spec).Bind(7, m.status)
        .Bind(8, static_cast<int64_t>(m.seed)).Bind(9, JoinIds(m.bot_ids)).Bind(10, m.test_id);
    int rc = s.Step();
    if (rc != SQLITE_DONE) {
      absl::Status e = rc == SQLITE_CONSTRAINT
                           ? absl::AlreadyExistsError(absl::StrCat("match ", m.id, " exists"))
                           : SqlError(db_, "insert match");
      Exec("ROLLBACK;").IgnoreError();
      return e;
    }
  }
  return Exec("COMMIT;");
}

absl::Status Store::DeletePendingMatches(const std::vector<std::string>& ids) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = Exec("BEGIN IMMEDIATE;"); !s.ok()) return s;
  for (const std::string& id : ids) {
    Stmt s(db_, &statements_, "DELETE FROM matches WHERE id = ? AND status = 'pending'");
    s.Bind(1, id);
    if (s.Step() != SQLITE_DONE) {
      absl::Status e = SqlError(db_, "delete match");
      Exec("ROLLBACK;").IgnoreError();
      return e;
    }
  }
  return Exec("COMMIT;");
}

absl::Status Store::RecordAttempt(const std::string& id, const std::string& referee,
                                  int attempts) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "UPDATE matches SET referee = ?, attempts = ? WHERE id = ? AND "
         "status IN ('pending', 'running')");
  s.Bind(1, referee).Bind(2, attempts).Bind(3, id);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "record attempt");
  return absl::OkStatus();
}

absl::Status Store::MarkFailed(const std::string& id, const std::string& error) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "UPDATE matches SET status = 'failed', error = ?, finished_at = datetime('now') "
         "WHERE id = ? AND status != 'done'");
  s.Bind(1, error).Bind(2, id);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "mark failed");
  return absl::OkStatus();
}

absl::Status Store::MarkPending(const std::string& id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "UPDATE matches SET status = 'pending' WHERE id = ? AND status = 'running'");
  s.Bind(1, id);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "mark pending");
  return absl::OkStatus();
}

absl::StatusOr<bool> Store::CommitMatch(const std::string& id, const MatchResultRow& result,
                                        const RateFn& rate) {
  std::vector<CommitOutcome> out = CommitMatches({MatchCommit{id, result}}, rate);
  if (!out[0].status.ok()) return out[0].status;
  return out[0].committed;
}

std::vector<CommitOutcome> Store::CommitMatches(const std::vector<MatchCommit>& batch,
                                                const RateFn& rate) {
  absl::MutexLock lock(&mu_);
  std::vector<CommitOutcome> out(batch.size());
  // The whole batch in one transaction. Savepoints would let one failing match
  // roll back alone, but they journal every page they touch to a temp file
  // (it doubled the writes); a failure is rare (a bug or a full disk), so the
  // batch is rolled back then and each match committed on its own.
  bool failed = !Exec("BEGIN IMMEDIATE;").ok();
  for (size_t i = 0; i < batch.size() && !failed; ++i) {
    out[i] = CommitLocked(batch[i], rate);
    failed = !out[i].status.ok();
  }
  if (!failed && Exec("COMMIT;").ok()) return out;
  Exec("ROLLBACK;").IgnoreError();
  for (size_t i = 0; i < batch.size(); ++i) {
    if (absl::Status s = Exec("BEGIN IMMEDIATE;"); !s.ok()) {
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

CommitOutcome Store::CommitLocked(const MatchCommit& commit, const RateFn& rate) {
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
    Stmt s(db_, &statements_, absl::StrCat("SELECT ", kMatchColumns, " FROM matches WHERE id = ?"));
    s.Bind(1, id);
    if (s.Step() != SQLITE_ROW) return fail(absl::NotFoundError(absl::StrCat("no match ", id)));
    match = ReadMatch(s);
  }
  if (match.status == "done") return out;  // already counted
  int64_t seq = 1;
  {
    Stmt s(db_, &statements_, "SELECT COALESCE(MAX(seq), 0) + 1 FROM matches");
    if (s.Step() == SQLITE_ROW) seq = s.Int(0);
  }
  match.seq = seq;
  {
    Stmt s(db_, &statements_,
           "UPDATE matches SET status = 'done', seq = ?, duration_s = ?, hands = ?, referee = ?, "
           "attempts = ?, error = '', finished_at = datetime('now') WHERE id = ?");
    s.Bind(1, seq).Bind(2, result.duration_s).Bind(3, result.hands).Bind(4, result.referee)
        .Bind(5, result.attempts).Bind(6, id);
    if (s.Step() != SQLITE_DONE) return fail(SqlError(db_, "commit match"));
  }
  for (const SeatRow& seat : result.seats) {
    Stmt s(db_, &statements_,
           "INSERT INTO match_seats (match_id, seat, bot_id, total, faults, forfeited, rank, "
           "hand_scores, declarer_hands, declarer_won, declarer_score, defender_hands, "
           "defender_won, defender_score, decisions, decision_ms, fault_kinds) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const std::string scores =
        seat.hand_scores ? absl::StrCat("[", absl::StrJoin(*seat.hand_scores, ","), "]") : "";
    s.Bind(1, id).Bind(2, seat.seat).Bind(3, seat.bot_id).Bind(4, seat.total)
        .Bind(5, seat.faults).Bind(6, seat.forfeited ? 1 : 0).Bind(7, seat.rank).Bind(8, scores)
        .Bind(9, seat.declarer_hands).Bind(10, seat.declarer_won).Bind(11, seat.declarer_score)
        .Bind(12, seat.defender_hands).Bind(13, seat.defender_won).Bind(14, seat.defender_score)
        .Bind(15, seat.decisions).Bind(16, seat.decision_ms).Bind(17, seat.fault_kinds);
    if (s.Step() != SQLITE_DONE) return fail(SqlError(db_, "insert seat"));
  }
  {
    Stmt s(db_, &statements_, "INSERT INTO match_records (match_id, record) VALUES (?, ?)");
    s.Bind(1, id).BindUncopied(2, result.record_json);
    if (s.Step() != SQLITE_DONE) return fail(SqlError(db_, "insert record"));
  }
  for (size_t i = 0; i < result.hand_records.size(); ++i) {
    Stmt s(db_, &statements_, "INSERT INTO hand_records (match_id, idx, record) VALUES (?, ?, ?)");
    s.Bind(1, id).Bind(2, static_cast<int64_t>(i)).BindUncopied(3, result.hand_records[i]);
    if (s.Step() != SQLITE_DONE) return fail(SqlError(db_, "insert hand record"));
  }
  std::vector<std::optional<RatingRow>> current;
  for (const SeatRow& seat : result.seats) {
    Stmt s(db_, &statements_,
           absl::StrCat("SELECT ", kRatingColumns, " FROM ratings WHERE bot_id = ? AND variant = ?"));
    s.Bind(1, seat.bot_id).Bind(2, match.variant);
    current.push_back(s.Step() == SQLITE_ROW ? std::optional<RatingRow>(ReadRating(s))
                                             : std::nullopt);
  }
  out.ratings = rate(match, result, current);
  for (const RatingRow& r : out.ratings) {
    Stmt up(db_, &statements_,
            "INSERT INTO ratings (bot_id, variant, mu, sigma, matches, faults) VALUES "
            "(?, ?, ?, ?, ?, ?) ON CONFLICT(bot_id, variant) DO UPDATE SET mu = excluded.mu, "
            "sigma = excluded.sigma, matches = excluded.matches, faults = excluded.faults");
    up.Bind(1, r.bot_id).Bind(2, r.variant).Bind(3, r.mu).Bind(4, r.sigma).Bind(5, r.matches)
        .Bind(6, r.faults);
    if (up.Step() != SQLITE_DONE) return fail(SqlError(db_, "update rating"));
    Stmt h(db_, &statements_,
           "INSERT INTO rating_history (match_seq, match_id, bot_id, variant, mu, sigma) "
           "VALUES (?, ?, ?, ?, ?, ?)");
    h.Bind(1, seq).Bind(2, id).Bind(3, r.bot_id).Bind(4, r.variant).Bind(5, r.mu).Bind(6, r.sigma);
    if (h.Step() != SQLITE_DONE) return fail(SqlError(db_, "insert history"));
  }
  out.committed = true;
  return out;
}

absl::StatusOr<MatchRow> Store::GetMatch(const std::string& id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kMatchColumns, " FROM matches WHERE id = ?").c_str());
  s.Bind(1, id);
  if (s.Step() != SQLITE_ROW) return absl::NotFoundError(absl::StrCat("no match '", id, "'"));
  return ReadMatch(s);
}

std::vector<SeatRow> Store::SeatsOf(const std::string& id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "SELECT s.seat, s.bot_id, b.name, s.total, s.faults, s.forfeited, s.rank, "
         "s.hand_scores FROM match_seats s JOIN bots b ON b.id = s.bot_id WHERE s.match_id = ? "
         "ORDER BY s.seat");
  s.Bind(1, id);
  std::vector<SeatRow> out;
  while (s.Step() == SQLITE_ROW) {
    SeatRow r;
    r.seat = static_cast<int>(s.Int(0));
    r.bot_id = s.Int(1);
    r.bot = s.Text(2);
    r.total = s.Int(3);
    r.faults = static_cast<int>(s.Int(4));
    r.forfeited = s.Int(5) != 0;
    r.rank = static_cast<int>(s.Int(6));
    r.hand_scores = ParseScores(s.Text(7));
    out.push_back(r);
  }
  return out;
}

absl::StatusOr<std::string> Store::RecordOf(const std::string& id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "SELECT record FROM match_records WHERE match_id = ?");
  s.Bind(1, id);
  if (s.Step() != SQLITE_ROW) return absl::NotFoundError(absl::StrCat("no record of match '", id, "'"));
  return s.Text(0);
}

std::vector<MatchRow> Store::ListMatches(const std::string& variant, int64_t bot_id, int limit) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kMatchColumns,
                           " FROM matches WHERE (? = '' OR variant = ?) AND (? = 0 OR id IN "
                           "(SELECT match_id FROM match_seats WHERE bot_id = ?)) "
                           "ORDER BY rowid DESC LIMIT ?")
                  .c_str());
  s.Bind(1, variant).Bind(2, variant).Bind(3, bot_id).Bind(4, bot_id).Bind(5, limit);
  std::vector<MatchRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadMatch(s));
  return out;
}

std::vector<MatchRow> Store::UnfinishedMatches() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kMatchColumns,
                           " FROM matches WHERE status IN ('pending', 'running') ORDER BY rowid")
                  .c_str());
  std::vector<MatchRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadMatch(s));
  return out;
}

void Store::ForEachDoneMatch(
    const std::function<void(const MatchRow&, const std::vector<SeatRow>&)>& fn) {
  std::vector<MatchRow> done;
  {
    absl::MutexLock lock(&mu_);
    Stmt s(db_, &statements_, absl::StrCat("SELECT ", kMatchColumns,
                             " FROM matches WHERE status = 'done' ORDER BY seq").c_str());
    while (s.Step() == SQLITE_ROW) done.push_back(ReadMatch(s));
  }
  for (const MatchRow& m : done) fn(m, SeatsOf(m.id));
}

int64_t Store::CountMatches(const std::string& status) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "SELECT COUNT(*) FROM matches WHERE status = ?");
  s.Bind(1, status);
  return s.Step() == SQLITE_ROW ? s.Int(0) : 0;
}

int64_t Store::CountLadderMatches(int64_t ladder_id, const std::string& status) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "SELECT COUNT(*) FROM matches WHERE ladder_id = ? AND status = ?");
  s.Bind(1, ladder_id).Bind(2, status);
  return s.Step() == SQLITE_ROW ? s.Int(0) : 0;
}

std::vector<MatchRow> Store::TournamentMatches(int64_t tournament_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kMatchColumns,
                           " FROM matches WHERE tournament_id = ? ORDER BY rowid").c_str());
  s.Bind(1, tournament_id);
  std::vector<MatchRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadMatch(s));
  return out;
}

std::vector<MatchRow> Store::ListMatchesPage(const MatchFilter& f, int offset, int limit,
                                            int64_t* total) {
  // One SQL text per combination of filters, so each uses its index (a
  // "? = '' OR" form would defeat the planner); values are always bound.
  std::string where = "1";
  if (!f.variant.empty()) absl::StrAppend(&where, " AND variant = ?1");
  if (!f.kind.empty()) absl::StrAppend(&where, " AND kind = ?2");
  if (f.ladder_id) absl::StrAppend(&where, " AND ladder_id = ?3");
  if (f.tournament_id) absl::StrAppend(&where, " AND tournament_id = ?4");
  if (!f.status.empty()) absl::StrAppend(&where, " AND status = ?5");
  if (f.bot_id)
    absl::StrAppend(&where, " AND id IN (SELECT match_id FROM match_seats WHERE bot_id = ?6)");
  if (f.test_id) absl::StrAppend(&where, " AND test_id = ?9");
  auto bind = [&](Stmt& s) {
    if (!f.variant.empty()) s.Bind(1, f.variant);
    if (!f.kind.empty()) s.Bind(2, f.kind);
    if (f.ladder_id) s.Bind(3, f.ladder_id);
    if (f.tournament_id) s.Bind(4, f.tournament_id);
    if (!f.status.empty()) s.Bind(5, f.status);
    if (f.bot_id) s.Bind(6, f.bot_id);
    if (f.test_id) s.Bind(9, f.test_id);
  };
  absl::MutexLock lock(&mu_);
  if (total != nullptr) {
    Stmt s(db_, &statements_, absl::StrCat("SELECT COUNT(*) FROM matches WHERE ", where));
    bind(s);
    *total = s.Step() == SQLITE_ROW ? s.Int(0) : 0;
  }
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kMatchColumns, " FROM matches WHERE ", where,
                                         " ORDER BY rowid DESC LIMIT ?7 OFFSET ?8"));
  bind(s);
  s.Bind(7, limit).Bind(8, offset);
  std::vector<MatchRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadMatch(s));
  return out;
}

int64_t Store::CountDoneSince(int seconds) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "SELECT COUNT(*) FROM matches WHERE finished_at >= datetime('now', ?) AND status = 'done'");
  s.Bind(1, absl::StrCat("-", seconds, " seconds"));
  return s.Step() == SQLITE_ROW ? s.Int(0) : 0;
}

std::vector<TournamentSummaryRow> Store::ListTournaments(int limit) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "SELECT t.id, t.name, t.variant, t.format, t.config, t.created_at, "
         "(SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id), "
         "(SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id AND m.status = 'done'), "
         "(SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id AND m.status = 'failed') "
         "FROM tournaments t ORDER BY t.id DESC LIMIT ?");
  s.Bind(1, limit);
  std::vector<TournamentSummaryRow> out;
  while (s.Step() == SQLITE_ROW) {
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

std::vector<LeaderRow> Store::LeaderboardRows(const std::string& variant, int trend_matches) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "SELECT b.name, b.owner, r.bot_id, r.variant, r.mu, r.sigma, r.matches, r.faults, "
         "h.mu, h.sigma FROM ratings r JOIN bots b ON b.id = r.bot_id "
         "LEFT JOIN rating_history h ON h.rowid = (SELECT rowid FROM rating_history "
         "WHERE bot_id = r.bot_id AND variant = r.variant ORDER BY match_seq DESC "
         "LIMIT 1 OFFSET ?2) WHERE r.variant = ?1 AND b.retired = 0");
  s.Bind(1, variant).Bind(2, trend_matches);
  std::vector<LeaderRow> out;
  while (s.Step() == SQLITE_ROW) {
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

std::vector<BotVariantStatsRow> Store::BotStats(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "SELECT m.variant, COUNT(*), SUM(s.rank = 0), SUM(s.rank), SUM(s.total), "
         "SUM(m.hands), SUM(s.declarer_hands), SUM(s.declarer_won), SUM(s.declarer_score), "
         "SUM(s.defender_hands), SUM(s.defender_won), SUM(s.defender_score), SUM(s.decisions), "
         "SUM(s.decision_ms), SUM(s.faults), group_concat(s.fault_kinds, ',') "
         "FROM match_seats s JOIN matches m ON m.id = s.match_id "
         "WHERE s.bot_id = ? AND m.status = 'done' GROUP BY m.variant ORDER BY m.variant");
  s.Bind(1, bot_id);
  std::vector<BotVariantStatsRow> out;
  while (s.Step() == SQLITE_ROW) {
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
    out.push_back(std::move(r));
  }
  return out;
}

absl::StatusOr<int64_t> Store::InsertLadder(const LadderRow& ladder) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "INSERT INTO ladders (variant, config, running) VALUES (?, ?, ?)");
  s.Bind(1, ladder.variant).Bind(2, ladder.config).Bind(3, ladder.running ? 1 : 0);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "insert ladder");
  return sqlite3_last_insert_rowid(db_);
}

absl::Status Store::SetLadderRunning(int64_t id, bool running) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "UPDATE ladders SET running = ? WHERE id = ?");
  s.Bind(1, running ? 1 : 0).Bind(2, id);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "update ladder");
  return absl::OkStatus();
}

std::vector<LadderRow> Store::ListLadders() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "SELECT id, variant, config, running FROM ladders ORDER BY id");
  std::vector<LadderRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back({s.Int(0), s.Text(1), s.Text(2), s.Int(3) != 0});
  return out;
}

absl::StatusOr<int64_t> Store::InsertTournament(const TournamentRow& t) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "INSERT INTO tournaments (name, variant, format, config) VALUES (?, ?, ?, ?)");
  s.Bind(1, t.name).Bind(2, t.variant).Bind(3, t.format).Bind(4, t.config);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "insert tournament");
  return sqlite3_last_insert_rowid(db_);
}

absl::StatusOr<TournamentRow> Store::GetTournament(int64_t id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "SELECT id, name, variant, format, config FROM tournaments WHERE id = ?");
  s.Bind(1, id);
  if (s.Step() != SQLITE_ROW) return absl::NotFoundError(absl::StrCat("no tournament ", id));
  return TournamentRow{s.Int(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4)};
}

// ---------------------------------------------------------------------------
// Tests.

namespace {
constexpr char kTestColumns[] = "id, variant, config, status, state, created_at, finished_at";
TestRow ReadTest(const Stmt& s) {
  return TestRow{s.Int(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5), s.Text(6)};
}
}  // namespace

absl::StatusOr<int64_t> Store::InsertTest(const TestRow& t) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, "INSERT INTO tests (variant, config, status, state) VALUES (?, ?, ?, ?)");
  s.Bind(1, t.variant).Bind(2, t.config).Bind(3, t.status).Bind(4, t.state);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "insert test");
  return sqlite3_last_insert_rowid(db_);
}

absl::StatusOr<bool> Store::UpdateTest(int64_t id, const std::string& state,
                                       const std::string& status) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "UPDATE tests SET state = ?, status = ?, finished_at = CASE WHEN ? = 'running' THEN '' "
         "ELSE datetime('now') END WHERE id = ? AND status = 'running'");
  s.Bind(1, state).Bind(2, status).Bind(3, status).Bind(4, id);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "update test");
  return sqlite3_changes(db_) > 0;
}

absl::StatusOr<TestRow> Store::GetTest(int64_t id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kTestColumns, " FROM tests WHERE id = ?"));
  s.Bind(1, id);
  if (s.Step() != SQLITE_ROW) return absl::NotFoundError(absl::StrCat("no test ", id));
  return ReadTest(s);
}

std::vector<TestRow> Store::ListTests(const std::string& status, int limit) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kTestColumns,
                                         " FROM tests WHERE (?1 = '' OR status = ?1) "
                                         "ORDER BY id DESC LIMIT ?2"));
  s.Bind(1, status).Bind(2, limit);
  std::vector<TestRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadTest(s));
  return out;
}

int64_t Store::CountTestMatches(int64_t test_id, const std::string& status) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "SELECT COUNT(*) FROM matches WHERE test_id = ?1 AND (?2 = '' OR status = ?2)");
  s.Bind(1, test_id).Bind(2, status);
  return s.Step() == SQLITE_ROW ? s.Int(0) : 0;
}

std::vector<MatchRow> Store::TestMatches(int64_t test_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_, absl::StrCat("SELECT ", kMatchColumns,
                                         " FROM matches WHERE test_id = ? ORDER BY rowid"));
  s.Bind(1, test_id);
  std::vector<MatchRow> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadMatch(s));
  return out;
}

absl::StatusOr<int64_t> Store::AppendAudit(const AuditRow& a) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "INSERT INTO audit (actor, client, action, target, outcome, detail) "
         "VALUES (?, ?, ?, ?, ?, ?)");
  s.Bind(1, a.actor).Bind(2, a.client).Bind(3, a.action).Bind(4, a.target).Bind(5, a.outcome)
      .Bind(6, a.detail);
  if (s.Step() != SQLITE_DONE) return SqlError(db_, "append audit");
  return sqlite3_last_insert_rowid(db_);
}

std::vector<AuditRow> Store::ListAudit(const std::string& target, int64_t before_id, int limit) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, &statements_,
         "SELECT id, at, actor, client, action, target, outcome, detail FROM audit "
         "WHERE (?1 = '' OR target = ?1) AND (?2 = 0 OR id < ?2) ORDER BY id DESC LIMIT ?3");
  s.Bind(1, target).Bind(2, before_id).Bind(3, limit);
  std::vector<AuditRow> out;
  while (s.Step() == SQLITE_ROW)
    out.push_back(AuditRow{s.Int(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5),
                           s.Text(6), s.Text(7)});
  return out;
}

}  // namespace tarock::arena
