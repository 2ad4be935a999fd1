#include "arena/store/postgres_store.h"

#include <pqxx/pqxx>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "arena/store/sql_store.h"

namespace tarock::arena {
namespace {

// The advisory lock every write transaction holds (any constant; "TAROCK").
constexpr int64_t kWriteLock = 0x5441524f434b;

// SQLite's datetime('now'[, modifier]) as a function, so the shared SQL keeps
// one text: UTC "YYYY-MM-DD HH:MM:SS" at the statement's time, moved by an
// interval such as '-300 seconds' (only 'now' is ever asked for).
constexpr char kDatetimeFunction[] = R"sql(
CREATE OR REPLACE FUNCTION datetime(what TEXT, modifier TEXT DEFAULT '0 seconds') RETURNS TEXT
LANGUAGE sql STABLE AS
$$ SELECT to_char(statement_timestamp() AT TIME ZONE 'UTC' + modifier::interval,
                  'YYYY-MM-DD HH24:MI:SS') $$;
)sql";

// Migration v of the shared schema in PostgreSQL's types (see the header).
std::string PostgresMigration(int v) {
  std::string sql = sql::SqliteMigration(v);
  sql = absl::StrReplaceAll(sql, {{"INTEGER PRIMARY KEY", "BIGSERIAL PRIMARY KEY"}});
  sql = absl::StrReplaceAll(sql, {{"INTEGER", "BIGINT"},
                                  {" REAL ", " DOUBLE PRECISION "},
                                  {" TEXT", " TEXT COLLATE \"C\""},
                                  {"strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                                   "to_char(statement_timestamp() AT TIME ZONE 'UTC', "
                                   "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"},
                                  {"CREATE TABLE matches (\n",
                                   "CREATE TABLE matches (\n  rowid BIGSERIAL UNIQUE,\n"},
                                  {"CREATE TABLE rating_history (\n",
                                   "CREATE TABLE rating_history (\n  rowid BIGSERIAL UNIQUE,\n"}});
  if (v == 0) sql = absl::StrCat(kDatetimeFunction, sql);
  return sql;
}

class PgConnection;

// Parameters go as text (doubles with 17 significant digits: exact), the
// result is read whole on the first Step().
class PgStatement : public sql::Statement {
 public:
  PgStatement(PgConnection* db, std::string name) : db_(db), name_(std::move(name)) {}
  void Bind(int i, int64_t v) override { Param(i) = absl::StrCat(v); }
  void Bind(int i, double v) override { Param(i) = absl::StrFormat("%.17g", v); }
  void Bind(int i, const std::string& v) override { Param(i) = v; }
  int Step() override;
  int64_t Int(int col) const override {
    const pqxx::field f = result_[row_][col];
    if (f.is_null()) return 0;
    int64_t v = 0;
    if (absl::SimpleAtoi(f.c_str(), &v)) return v;
    double d = 0;  // a SUM of integers is numeric: "12" parses above, "12.0" here
    return absl::SimpleAtod(f.c_str(), &d) ? static_cast<int64_t>(d) : 0;
  }
  double Double(int col) const override {
    const pqxx::field f = result_[row_][col];
    double d = 0;
    return !f.is_null() && absl::SimpleAtod(f.c_str(), &d) ? d : 0;
  }
  std::string Text(int col) const override {
    const pqxx::field f = result_[row_][col];
    return f.is_null() ? std::string() : std::string(f.c_str(), f.size());
  }

 private:
  std::string& Param(int i) {
    if (params_.size() < static_cast<size_t>(i)) params_.resize(i);
    return params_[i - 1];
  }

  PgConnection* db_;
  std::string name_;
  std::vector<std::string> params_;
  bool executed_ = false;
  pqxx::result result_;
  pqxx::result::size_type row_ = 0;
  pqxx::result::size_type next_ = 0;
};

// One libpqxx connection used the way SQLite is: statements run in autocommit
// unless the store has sent BEGIN (which Exec passes through), so the shared
// code's BEGIN / COMMIT / ROLLBACK mean what they say. Statements are prepared
// once per SQL text.
class PgConnection : public sql::Connection {
 public:
  explicit PgConnection(std::unique_ptr<pqxx::connection> conn) : conn_(std::move(conn)) {}

  std::unique_ptr<sql::Statement> Prepare(const std::string& sql) override {
    auto it = names_.find(sql);
    if (it == names_.end()) {
      std::string name = absl::StrCat("s", names_.size());
      conn_->prepare(name, ToPostgresParameters(sql));
      it = names_.emplace(sql, std::move(name)).first;
    }
    return std::make_unique<PgStatement>(this, it->second);
  }

  absl::Status Exec(const std::string& script) override {
    try {
      pqxx::nontransaction t(*conn_);
      changes_ = t.exec(script).affected_rows();
      return absl::OkStatus();
    } catch (const std::exception& e) {
      last_error_ = std::string(absl::StripAsciiWhitespace(e.what()));
      return absl::InternalError(absl::StrCat("postgresql: ", last_error_));
    }
  }

  int64_t LastInsertId() override {
    try {
      pqxx::nontransaction t(*conn_);
      return t.exec("SELECT lastval()")[0][0].as<int64_t>();
    } catch (const std::exception& e) {
      last_error_ = e.what();
      return 0;
    }
  }
  int64_t Changes() override { return changes_; }
  std::string LastError() override { return last_error_; }

  // Runs a prepared statement: kDone with the result, or kConstraint / kError.
  int Run(const std::string& name, const std::vector<std::string>& params, pqxx::result* out) {
    try {
      pqxx::nontransaction t(*conn_);
      *out = t.exec_prepared(name, pqxx::prepare::make_dynamic_params(params));
      changes_ = out->affected_rows();
      return sql::kDone;
    } catch (const pqxx::integrity_constraint_violation& e) {
      last_error_ = std::string(absl::StripAsciiWhitespace(e.what()));
      return sql::kConstraint;
    } catch (const std::exception& e) {
      last_error_ = std::string(absl::StripAsciiWhitespace(e.what()));
      return sql::kError;
    }
  }

 private:
  std::unique_ptr<pqxx::connection> conn_;
  std::map<std::string, std::string, std::less<>> names_;  // SQL text -> statement name
  int64_t changes_ = 0;
  std::string last_error_;
};

int PgStatement::Step() {
  if (!executed_) {
    executed_ = true;
    if (int rc = db_->Run(name_, params_, &result_); rc != sql::kDone) return rc;
  }
  if (next_ >= result_.size()) return sql::kDone;
  row_ = next_++;
  return sql::kRow;
}

}  // namespace

std::string ToPostgresParameters(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int highest = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'') {  // a string literal: copied as it is
      size_t end = sql.find('\'', i + 1);
      if (end == std::string::npos) end = sql.size() - 1;
      out.append(sql, i, end - i + 1);
      i = end;
      continue;
    }
    if (c != '?') {
      out.push_back(c);
      continue;
    }
    // SQLite: ?N is parameter N; a bare ? is one above the highest so far.
    size_t j = i + 1;
    while (j < sql.size() && absl::ascii_isdigit(static_cast<unsigned char>(sql[j]))) ++j;
    int n = highest + 1;
    if (j > i + 1) n = std::stoi(sql.substr(i + 1, j - i - 1));
    highest = std::max(highest, n);
    absl::StrAppend(&out, "$", n);
    i = j - 1;
  }
  return out;
}

absl::StatusOr<std::unique_ptr<Store>> PostgresStore::Open(const std::string& url) {
  std::unique_ptr<pqxx::connection> conn;
  try {
    conn = std::make_unique<pqxx::connection>(url);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("cannot connect to PostgreSQL: ", absl::StripAsciiWhitespace(e.what())));
  }
  auto connection = std::make_unique<PgConnection>(std::move(conn));
  // No NOTICEs on standard error (CREATE ... IF NOT EXISTS sends them).
  if (absl::Status s = connection->Exec("SET client_min_messages TO warning;"); !s.ok()) return s;
  return sql::SqlStore::Create(
      std::move(connection),
      sql::Dialect{"postgresql", absl::StrCat("BEGIN; SELECT pg_advisory_xact_lock(", kWriteLock, ");"),
                   "string_agg", " FOR UPDATE SKIP LOCKED", &PostgresMigration});
}

}  // namespace tarock::arena
