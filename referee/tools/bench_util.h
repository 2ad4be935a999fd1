// Helpers of the benchmark programs (referee_bench, arena_bench): helper
// server processes on free loopback ports, where this binary lives, and the
// CPU time of this and other processes.
//
// Thread-safety: functions are thread-safe; a Server is used from one thread.

#ifndef TAROCK_REFEREE_TOOLS_BENCH_UTIL_H_
#define TAROCK_REFEREE_TOOLS_BENCH_UTIL_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/tools/subprocess.h"

namespace tarock {

// A helper process listening on a loopback port.
struct Server {
  std::unique_ptr<Subprocess> process;
  std::string endpoint;  // 127.0.0.1:PORT
};

// Starts `argv` plus `listen_flag`=127.0.0.1:PORT on a free port (standard
// output to `stdout_path`, "" = /dev/null) and waits up to 30 s for the port to
// accept, giving up at once when the process exits; retries on another port
// when it exits (a port taken in between), but not twice. UNAVAILABLE when it
// never listened.
absl::StatusOr<Server> StartServer(const std::vector<std::string>& argv,
                                   const std::string& listen_flag,
                                   const std::string& stdout_path = "");

// What every benchmark program does first: SIGINT and SIGTERM stop every
// process it started (KillAllChildren) and exit with 128 + the signal;
// SIGPIPE is ignored; with `watchdog_s` > 0 a watchdog says so on stderr as
// `program`, stops every process and exits with status 3 after that long.
void GuardBenchmark(const char* program, int watchdog_s);

// The directory of the running executable ("." when unknown).
std::string SelfDir();

// CPU seconds (user + system) of this process, every thread.
double SelfCpuSeconds();

// Context switches (voluntary + involuntary) of this process, every thread.
int64_t SelfContextSwitches();

// CPU seconds (user + system) of another process, from /proc; 0 when unknown.
double ProcessCpuSeconds(pid_t pid);

// "1.00 0.50 0.25", or "?".
std::string LoadAverage();

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_BENCH_UTIL_H_
