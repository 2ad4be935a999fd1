// Starting and stopping helper processes (bots, referees) for the command-line
// tools and the process-level tests: fork/exec with the child tied to the
// parent's life (PR_SET_PDEATHSIG), so nothing outlives the tool even when it is
// killed; free loopback ports; waiting for a TCP port to accept.
//
// Thread-safety: a Subprocess is used from one thread. KillAllChildren is
// async-signal-safe (for SIGINT handlers).

#ifndef TAROCK_REFEREE_TOOLS_SUBPROCESS_H_
#define TAROCK_REFEREE_TOOLS_SUBPROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tarock {

class Subprocess {
 public:
  // Starts argv[0] (searched in PATH when it has no slash) with its standard
  // input from /dev/null, standard output to `stdout_path` ("" = /dev/null) and
  // standard error inherited.
  static absl::StatusOr<std::unique_ptr<Subprocess>> Start(const std::vector<std::string>& argv,
                                                           const std::string& stdout_path = "");
  ~Subprocess();  // Stop()s

  pid_t pid() const { return pid_; }
  // True while the process has not exited.
  bool Running();
  // SIGTERM, then SIGKILL after `grace`; reaps the process. Idempotent.
  void Stop(absl::Duration grace = absl::Seconds(2));

 private:
  explicit Subprocess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  bool reaped_ = false;
};

// Sends SIGTERM to every process started by Subprocess::Start that has not been
// stopped. Async-signal-safe.
void KillAllChildren();

// A TCP port on 127.0.0.1 that was free a moment ago.
absl::StatusOr<int> FreeLoopbackPort();

// Waits until HOST:PORT accepts a TCP connection or `deadline` passes.
bool WaitForPort(const std::string& host, int port, absl::Time deadline);

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_SUBPROCESS_H_
