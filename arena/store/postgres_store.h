// The PostgreSQL back end of the Store (libpqxx): the same schema versions,
// migrations and semantics as SQLite (the SQL is shared, sql_store.h), on a
// database several arena processes can use at once. Every write transaction
// takes one advisory lock first, so completion numbers (seq) and the ratings
// they carry follow one order whichever process commits, and CommitMatch stays
// idempotent across processes.
//
// Types: INTEGER columns are BIGINT, REAL ones DOUBLE PRECISION (ratings
// round-trip bit for bit, so --verify_ratings reproduces them), TEXT ones
// collate "C" (byte order, as SQLite sorts). Tables that SQLite orders by its
// implicit rowid (matches, rating_history) get an explicit `rowid` column.
//
// Thread-safety: the store it opens is thread-safe (one connection per store,
// every call under the store's mutex).

#ifndef TAROCK_ARENA_STORE_POSTGRES_STORE_H_
#define TAROCK_ARENA_STORE_POSTGRES_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "arena/store/store.h"

namespace tarock::arena {

class PostgresStore {
 public:
  // Connects to `url` (libpq's form, postgresql://USER@HOST:PORT/DATABASE,
  // ?sslmode=... and the other libpq parameters allowed) and migrates the
  // database. Errors: UNAVAILABLE (cannot connect), FAILED_PRECONDITION (newer
  // schema), INTERNAL (a failed migration).
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& url);
};

// The shared SQL text (`?`, `?N` parameters) in PostgreSQL's form ($N).
// Exposed for its test.
std::string ToPostgresParameters(const std::string& sql);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_STORE_POSTGRES_STORE_H_
