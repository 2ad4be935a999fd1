// The SQLite back end of the Store (the default): one file, WAL,
// synchronous=NORMAL, one connection with its prepared statements cached.
// Everything but the connection is shared with PostgreSQL (sql_store.h).
//
// Durability: a commit survives a killed process (SIGKILL at any moment), not
// an OS crash or power cut that loses the last commits; such a match simply
// runs again at the next start (commits are idempotent).
//
// Thread-safety: the store it opens is thread-safe.

#ifndef TAROCK_ARENA_STORE_SQLITE_STORE_H_
#define TAROCK_ARENA_STORE_SQLITE_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "arena/store/store.h"

namespace tarock::arena {

class SqliteStore {
 public:
  // The file `sqlite:DIR` names (OpenStore): DIR/arena.db.
  static constexpr char kFileName[] = "arena.db";

  // Opens (creating if needed) the database file at `path` and migrates it.
  // Errors: UNAVAILABLE (cannot open), FAILED_PRECONDITION (newer schema),
  // INTERNAL (a failed migration).
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_STORE_SQLITE_STORE_H_
