#include "arena/store/sqlite_store.h"

#include <sqlite3.h>

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "arena/store/sql_store.h"

namespace tarock::arena {
namespace {

// Prepared statements by their SQL text.
using StatementCache = std::map<std::string, sqlite3_stmt*, std::less<>>;

// A prepared statement with positional binds. Statements come from the
// store's cache (compiling the SQL cost more than running it on the arena's
// hot path, a commit per match) and are reset, not finalised, on destruction;
// a statement whose cached copy is still in use (a query run while another
// with the same SQL is open) is compiled afresh and finalised.
class SqliteStatement : public sql::Statement {
 public:
  SqliteStatement(sqlite3* db, StatementCache* cache, const std::string& sql) : db_(db) {
    auto it = cache->find(sql);
    if (it == cache->end()) it = cache->emplace(sql, nullptr).first;
    sqlite3_stmt*& cached = it->second;
    if (cached != nullptr && !sqlite3_stmt_busy(cached)) {
      stmt_ = cached;
      borrowed_ = true;
      return;
    }
    if (sqlite3_prepare_v3(db, sql.c_str(), -1, cached ? 0 : SQLITE_PREPARE_PERSISTENT, &stmt_,
                           nullptr) != SQLITE_OK) {
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
      return;
    }
    if (cached == nullptr) {
      cached = stmt_;
      borrowed_ = true;
    }
  }
  ~SqliteStatement() override {
    if (!borrowed_) {
      sqlite3_finalize(stmt_);
    } else {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
    }
  }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void Bind(int i, int64_t v) override { sqlite3_bind_int64(stmt_, i, v); }
  void Bind(int i, double v) override { sqlite3_bind_double(stmt_, i, v); }
  void Bind(int i, const std::string& v) override {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void BindUncopied(int i, const std::string& v) override {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  // SQLite's result codes are sql::Statement's (kRow, kDone, kConstraint);
  // other errors become kError, their message in the connection.
  int Step() override {
    if (stmt_ == nullptr) return sql::kError;
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return sql::kRow;
    if (rc == SQLITE_DONE) return sql::kDone;
    if ((rc & 0xff) == SQLITE_CONSTRAINT) return sql::kConstraint;
    return sql::kError;
  }

  int64_t Int(int col) const override { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const override { return sqlite3_column_double(stmt_, col); }
  std::string Text(int col) const override {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? std::string(reinterpret_cast<const char*>(t), sqlite3_column_bytes(stmt_, col))
             : std::string();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  bool borrowed_ = false;  // owned by the cache
};

class SqliteConnection : public sql::Connection {
 public:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  ~SqliteConnection() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close(db_);
  }
  std::unique_ptr<sql::Statement> Prepare(const std::string& sql) override {
    return std::make_unique<SqliteStatement>(db_, &statements_, sql);
  }
  absl::Status Exec(const std::string& script) override {
    char* err = nullptr;
    if (sqlite3_exec(db_, script.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      return absl::InternalError(absl::StrCat("sqlite: ", msg));
    }
    return absl::OkStatus();
  }
  int64_t LastInsertId() override { return sqlite3_last_insert_rowid(db_); }
  int64_t Changes() override { return sqlite3_changes(db_); }
  std::string LastError() override { return sqlite3_errmsg(db_); }

 private:
  sqlite3* db_;
  // Compiled once, reused for the connection's life (see SqliteStatement).
  StatementCache statements_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> SqliteStore::Open(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", msg));
  }
  sqlite3_busy_timeout(db, 5000);
  auto connection = std::make_unique<SqliteConnection>(db);
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
  if (absl::Status s = connection->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                                        "PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY; "
                                        "PRAGMA mmap_size=1073741824;");
      !s.ok())
    return s;
  // BEGIN IMMEDIATE: a write transaction takes the write lock at once, so two
  // processes on one file never both read and then fail to upgrade.
  return sql::SqlStore::Create(
      std::move(connection),
      sql::Dialect{"sqlite", "BEGIN IMMEDIATE;", "group_concat", "", &sql::SqliteMigration});
}

}  // namespace tarock::arena
