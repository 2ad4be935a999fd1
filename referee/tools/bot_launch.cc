#include "referee/tools/bot_launch.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "referee/engine/status_macros.h"

namespace tarock {
namespace {

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool IsExecutableFile(const std::string& path) {
  return IsFile(path) && access(path.c_str(), X_OK) == 0;
}

// HOST:PORT with a numeric port and no slash.
bool LooksLikeEndpoint(const std::string& spec) {
  size_t colon = spec.rfind(':');
  int port;
  return colon != std::string::npos && colon > 0 && spec.find('/') == std::string::npos &&
         absl::SimpleAtoi(spec.substr(colon + 1), &port) && port > 0 && port < 65536;
}

// A bare program name (no '/') looked up in the directories of $PATH, as the
// shell does (an empty entry is the current directory; no $PATH: /bin:/usr/bin).
// "" when no directory holds an executable file of that name.
std::string FindOnPath(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return "";
  const char* env = std::getenv("PATH");
  const std::string path = env != nullptr ? env : "/bin:/usr/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (IsExecutableFile(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v ? std::string(v) : fallback;
}

// argv with its standard error appended to `log_path` (through the shell, so
// the whole process tree started from it writes there).
std::vector<std::string> WithLog(std::vector<std::string> argv, const std::string& log_path) {
  if (log_path.empty()) return argv;
  std::vector<std::string> out = {"/bin/sh", "-c", "exec \"$@\" 2>>\"$0\"", log_path};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

}  // namespace

std::string BotLogPath(const std::string& dir, const std::string& label) {
  std::string safe = label;
  for (char& c : safe)
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      c = '_';
  return absl::StrCat(dir, "/", safe, ".log");
}

absl::Status MakeDirectories(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    const std::string prefix = dir.substr(0, i);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return absl::UnavailableError(absl::StrCat("cannot create ", prefix, ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

std::string ToolDirectory() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string path(buf, n);
  return path.substr(0, path.rfind('/'));
}

absl::StatusOr<std::string> PythonSdkPath() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("TAROCK_PYTHONPATH"); env != nullptr && *env)
    candidates.emplace_back(env);
  const std::string dir = ToolDirectory();
  candidates.push_back(dir + "/../python");
  candidates.push_back(dir + "/../share/tarock/python");
  for (const std::string& c : candidates) {
    if (IsFile(c + "/tarock_bot/__init__.py") &&
        IsFile(c + "/tarock_bot/_generated/tarock_pb2.py")) {
      char real[PATH_MAX];
      return realpath(c.c_str(), real) != nullptr ? std::string(real) : c;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "the Python SDK is not built (looked for tarock_bot with _generated/tarock_pb2.py in ",
      candidates.front(), "; build the target tarock_python or set TAROCK_PYTHONPATH)"));
}

absl::StatusOr<LaunchedBot> LaunchBot(const std::string& spec, const LaunchOptions& options) {
  LaunchedBot out;
  out.spec = spec;
  std::vector<std::string> argv;
  auto listen = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(int port, FreeLoopbackPort());
    out.endpoint = absl::StrCat("127.0.0.1:", port);
    return absl::OkStatus();
  };
  absl::string_view rest = spec;
  if (absl::ConsumePrefix(&rest, "py:")) {
    const std::string path(rest);
    if (!IsFile(path))
      return absl::InvalidArgumentError(absl::StrCat("py:", path, ": no such Python file"));
    ASSIGN_OR_RETURN(std::string sdk, PythonSdkPath());
    RETURN_IF_ERROR(listen());
    std::string pythonpath = sdk;
    if (const char* env = std::getenv("PYTHONPATH"); env != nullptr && *env)
      absl::StrAppend(&pythonpath, ":", env);
    out.kind = "python";
    argv = {"/usr/bin/env", "PYTHONPATH=" + pythonpath, "PYTHONDONTWRITEBYTECODE=1",
            EnvOr("TAROCK_PYTHON", "/usr/bin/python3"), "-m", "tarock_bot", "serve", path,
            "--listen", out.endpoint};
  } else if (absl::ConsumePrefix(&rest, "stdio:")) {
    const std::string command(absl::StripAsciiWhitespace(rest));
    if (command.empty()) return absl::InvalidArgumentError("stdio: needs a COMMAND");
    const std::string bridge = ToolDirectory() + "/tarock-stdio-bridge";
    if (!IsExecutableFile(bridge))
      return absl::NotFoundError(absl::StrCat("stdio bots need ", bridge,
                                              " (build the target tarock-stdio-bridge)"));
    RETURN_IF_ERROR(listen());
    out.kind = "stdio";
    argv = {bridge, "--listen", out.endpoint};
    if (!options.name.empty()) {
      argv.push_back("--name");
      argv.push_back(options.name);
    }
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", command});
  } else if (IsExecutableFile(spec)) {
    RETURN_IF_ERROR(listen());
    out.kind = "executable";
    // A file in the current directory named without a slash is started as
    // ./NAME: started as NAME, execvp would look it up on PATH instead.
    argv = {spec.find('/') == std::string::npos ? "./" + spec : spec, "--listen", out.endpoint};
  } else if (LooksLikeEndpoint(spec)) {
    out.kind = "endpoint";
    out.endpoint = spec;
    return out;
  } else if (std::string found = FindOnPath(spec); !found.empty()) {
    RETURN_IF_ERROR(listen());
    out.kind = "executable";
    argv = {found, "--listen", out.endpoint};
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", spec,
        "' is neither an executable file, a program on PATH, py:PATH, stdio:COMMAND nor "
        "HOST:PORT of a running bot"));
  }
  ASSIGN_OR_RETURN(out.process, Subprocess::Start(WithLog(argv, options.log_path)));
  return out;
}

absl::Status WaitUntilListening(LaunchedBot& bot, absl::Time deadline) {
  if (!bot.process) return absl::OkStatus();
  const size_t colon = bot.endpoint.rfind(':');
  const std::string host = bot.endpoint.substr(0, colon);
  const int port = std::stoi(bot.endpoint.substr(colon + 1));
  while (true) {
    if (WaitForPort(host, port, std::min(deadline, absl::Now() + absl::Milliseconds(50))))
      return absl::OkStatus();
    if (!bot.process->Running())
      return absl::UnavailableError(absl::StrCat(bot.spec, ": the bot exited before it listened"));
    if (absl::Now() >= deadline)
      return absl::UnavailableError(
          absl::StrCat(bot.spec, ": the bot is not listening on ", bot.endpoint));
  }
}

}  // namespace tarock
