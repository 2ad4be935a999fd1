// Starting a bot from its command-line spec, for `tarock match` and
// `tarock check-bot`:
//
//   HOST:PORT       a bot that is already running; nothing is started
//   PATH            an executable, started as `PATH --listen 127.0.0.1:PORT`;
//                   a name without '/' is an executable file of the current
//                   directory, else a program looked up on $PATH as the shell
//                   does (`tarock-bot-heuristic` with build/bin on PATH)
//   py:PATH         a Python bot file (sdk/python), started as
//                   `/usr/bin/python3 -m tarock_bot serve PATH --listen 127.0.0.1:PORT`
//                   with PYTHONPATH set to the directory of the Python SDK (tarock_bot,
//                   with its generated messages in tarock_bot/_generated)
//   stdio:COMMAND   a program that reads JSON lines and writes action lines
//                   (sdk/stdio), started as `tarock-stdio-bridge --listen
//                   127.0.0.1:PORT -- /bin/sh -c COMMAND`
//
// Where the helpers are found: the Python SDK directory is $TAROCK_PYTHONPATH,
// else `../python` beside the directory of the running `tarock` (the build
// tree: build/bin/tarock and build/python), else `../share/tarock/python` (an
// installed prefix); the interpreter is $TAROCK_PYTHON, else /usr/bin/python3
// (Debian's, with python3-grpcio and python3-protobuf). The bridge is
// `tarock-stdio-bridge` beside `tarock`.
//
// Thread-safety: call from one thread (it starts processes).

#ifndef TAROCK_REFEREE_TOOLS_BOT_LAUNCH_H_
#define TAROCK_REFEREE_TOOLS_BOT_LAUNCH_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "referee/tools/subprocess.h"

namespace tarock {

struct LaunchOptions {
  // The bot's standard error (and that of everything it starts) is appended to
  // this file; "" leaves it on the tool's standard error.
  std::string log_path;
  // The name a stdio bot gives in Hello ("" = the bridge's default).
  std::string name;
};

struct LaunchedBot {
  std::string spec;
  std::string kind;      // "endpoint", "executable", "python" or "stdio"
  std::string endpoint;  // HOST:PORT to dial
  std::unique_ptr<Subprocess> process;  // null for a running bot (kind "endpoint")
};

// Starts the bot of `spec` on a free loopback port (or takes HOST:PORT as it
// is). Errors say what the spec should have been.
absl::StatusOr<LaunchedBot> LaunchBot(const std::string& spec, const LaunchOptions& options);

// Waits until a started bot accepts connections. Fails at once when its
// process exits first (a Python bot with a syntax error, a missing program),
// and at `deadline`.
absl::Status WaitUntilListening(LaunchedBot& bot, absl::Time deadline);

// DIR/LABEL.log with LABEL's characters other than [A-Za-z0-9._-] replaced by
// '_': where --bot_logs puts a started bot's standard error.
std::string BotLogPath(const std::string& dir, const std::string& label);
// Creates `dir` and its missing parents (mkdir -p).
absl::Status MakeDirectories(const std::string& dir);

// The directory to put on PYTHONPATH for py:PATH bots (see the file comment).
absl::StatusOr<std::string> PythonSdkPath();
// The directory the running tool's executable lives in.
std::string ToolDirectory();

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_BOT_LAUNCH_H_
