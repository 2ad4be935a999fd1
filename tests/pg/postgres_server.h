// A private PostgreSQL server for tests and benchmarks: initdb and pg_ctl in a
// fresh temporary directory, on a free loopback port with its unix socket in
// that directory, trust authentication, locale C; stopped and removed when the
// object goes. Run as root, the server runs as the `postgres` user (initdb
// refuses root) through runuser.
//
// Thread-safety: not thread-safe; one owner.

#ifndef TAROCK_TESTS_PG_POSTGRES_SERVER_H_
#define TAROCK_TESTS_PG_POSTGRES_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace tarock::testing {

class PostgresServer {
 public:
  // The directory of initdb and pg_ctl ($TAROCK_PG_BINDIR, the PATH, or the
  // newest /usr/lib/postgresql/N/bin), or "" when PostgreSQL is not installed.
  static std::string FindBinDir();

  // Starts a server. `durable` false turns fsync off (tests: faster, and a
  // test server never outlives a crash). Errors: NOT_FOUND without the
  // binaries, INTERNAL when initdb or pg_ctl fails (with its log).
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start(bool durable = false);
  ~PostgresServer();

  // Creates database `name` and returns its URL (postgresql://...).
  absl::StatusOr<std::string> CreateDatabase(const std::string& name);
  // The URL of database `name` (it may not exist).
  std::string Url(const std::string& name) const;
  int port() const { return port_; }

 private:
  PostgresServer() = default;
  // Runs a command line as the server's user; returns its exit status.
  int Run(const std::string& command) const;

  std::string bin_dir_;
  std::string dir_;   // the temporary directory: data/, log, the socket
  std::string user_;  // "postgres" when run as root, else ""
  int port_ = 0;
  bool started_ = false;
};

}  // namespace tarock::testing

#endif  // TAROCK_TESTS_PG_POSTGRES_SERVER_H_
