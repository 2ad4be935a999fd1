#include "tests/pg/postgres_server.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tarock::testing {
namespace {

namespace fs = std::filesystem;

bool HasInitdb(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "initdb", ec) && fs::exists(dir / "pg_ctl", ec);
}

// The directory initdb really is in (a PATH entry may hold only symbolic
// links to some of the programs; createdb is then beside the target).
std::string RealBinDir(const fs::path& dir) {
  std::error_code ec;
  fs::path initdb = fs::canonical(dir / "initdb", ec);
  return ec ? dir.string() : initdb.parent_path().string();
}

// A port nobody listens on now (the kernel's pick; the server binds it a
// moment later, which is as good as tests get without a race-free hand-over).
int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string PostgresServer::FindBinDir() {
  if (const char* env = std::getenv("TAROCK_PG_BINDIR"); env && HasInitdb(env))
    return RealBinDir(env);
  if (const char* path = std::getenv("PATH")) {
    for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty()))
      if (HasInitdb(fs::path(std::string(dir)))) return RealBinDir(std::string(dir));
  }
  std::string best;
  int best_version = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    int version = std::atoi(entry.path().filename().c_str());
    if (version > best_version && HasInitdb(entry.path() / "bin")) {
      best_version = version;
      best = (entry.path() / "bin").string();
    }
  }
  return best;
}

int PostgresServer::Run(const std::string& command) const {
  const std::string line =
      user_.empty() ? command : absl::StrCat("runuser -u ", user_, " -- ", command);
  int rc = std::system(line.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start(bool durable) {
  std::unique_ptr<PostgresServer> server(new PostgresServer());
  server->bin_dir_ = FindBinDir();
  if (server->bin_dir_.empty())
    return absl::NotFoundError(
        "PostgreSQL is not installed (no initdb and pg_ctl on the PATH or in "
        "/usr/lib/postgresql/N/bin; Debian: apt-get install postgresql)");
  std::string tmpl = (fs::temp_directory_path() / "tarock-pg-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return absl::InternalError("mkdtemp failed");
  server->dir_ = tmpl;
  if (::geteuid() == 0) {
    // initdb refuses root: the server runs as the package's user.
    passwd* pw = ::getpwnam("postgres");
    if (pw == nullptr) return absl::NotFoundError("running as root and there is no postgres user");
    server->user_ = "postgres";
    if (::chown(tmpl.c_str(), pw->pw_uid, pw->pw_gid) != 0)
      return absl::InternalError(absl::StrCat("cannot chown ", tmpl));
  }
  server->port_ = FreePort();
  const std::string data = server->dir_ + "/data";
  // Two logs: the shell that redirects initdb's output is ours (root's), the
  // server's log is written by the server's user.
  const std::string log = server->dir_ + "/initdb.log";
  const std::string server_log = server->dir_ + "/server.log";
  if (server->Run(absl::StrCat(Quote(server->bin_dir_ + "/initdb"), " -D ", Quote(data),
                               " -A trust -U postgres -E UTF8 --locale=C --no-sync > ",
                               Quote(log), " 2>&1")) != 0)
    return absl::InternalError(absl::StrCat("initdb failed:\n", ReadFile(log)));
  std::string options = absl::StrCat("-p ", server->port_, " -k ", server->dir_,
                                     " -c listen_addresses=127.0.0.1 -c max_connections=50");
  if (!durable) absl::StrAppend(&options, " -c fsync=off -c synchronous_commit=off");
  if (server->Run(absl::StrCat(Quote(server->bin_dir_ + "/pg_ctl"), " -D ", Quote(data), " -o ",
                               Quote(options), " -l ", Quote(server_log), " -w -t 60 start > /dev/null")) != 0)
    return absl::InternalError(absl::StrCat("pg_ctl start failed:\n", ReadFile(server_log)));
  server->started_ = true;
  return server;
}

PostgresServer::~PostgresServer() {
  if (started_)
    Run(absl::StrCat(Quote(bin_dir_ + "/pg_ctl"), " -D ", Quote(dir_ + "/data"),
                     " -m immediate -w stop > /dev/null 2>&1"));
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string PostgresServer::Url(const std::string& name) const {
  return absl::StrCat("postgresql://postgres@127.0.0.1:", port_, "/", name);
}

absl::StatusOr<std::string> PostgresServer::CreateDatabase(const std::string& name) {
  if (Run(absl::StrCat(Quote(bin_dir_ + "/createdb"), " -h 127.0.0.1 -p ", port_,
                       " -U postgres ", Quote(name))) != 0)
    return absl::InternalError(absl::StrCat("createdb ", name, " failed"));
  return Url(name);
}

}  // namespace tarock::testing
