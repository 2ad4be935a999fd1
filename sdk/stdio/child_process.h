// A child program talked to through pipes, one line at a time, where every
// wait has a deadline: the stdio bridge's link to a bot program. The child gets
// its own process group (so a shell and everything it started are stopped
// together), standard input and output as pipes, and standard error appended to
// a log file (or inherited).
//
// Thread-safety: a ChildProcess is used from one thread.

#ifndef TAROCK_SDK_STDIO_CHILD_PROCESS_H_
#define TAROCK_SDK_STDIO_CHILD_PROCESS_H_

#include <sched.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tarock::stdio {

// How a sandbox (arena/bothost/sandbox) changes a child: a step run in the
// child between fork and exec, an inherited descriptor, and its own words for
// how the child ended. Everything is optional.
struct ChildSetup {
  // Runs in the child after its descriptors are set up, before exec. Only
  // async-signal-safe calls (the parent may be threaded). Returns false with
  // errno set to fail the start.
  std::function<bool()> in_child;
  // Descriptors the child inherits, as (descriptor here, its number in the
  // child); every other descriptor but 0, 1 and 2 is closed, whatever its
  // number. The numbers in the child must be above 2 and distinct; they may
  // be above the soft limit of open files, not above the hard one (Start
  // fails, naming the descriptor).
  std::vector<std::pair<int, int>> pass_fds;
  // The child's whole environment ("NAME=VALUE"); unset, it inherits this
  // process's. A sandbox gives an empty one, so that nothing of the parent's
  // environment (a token) reaches the sandbox's own processes.
  std::optional<std::vector<std::string>> env;
  // Replaces ExitDescription's wording once the child is reaped (wait status).
  std::function<std::string(int status)> describe_exit;
  // Runs once, on the thread that reaps the child, right after it is reaped
  // (by Stop, exited or ExitDescription): the sandbox copies the run's
  // standard error into its log there.
  std::function<void()> on_reaped;
  // Every thread of the child and of whatever it started (the sandbox lists
  // its run's cgroup), for BeginTurn; unset, BeginTurn does nothing. Called
  // from the thread that talks to the child, never in the child.
  std::function<std::vector<pid_t>()> threads;
};

class ChildProcess {
 public:
  // Starts argv[0] (searched in PATH when it has no slash). `stderr_path` ""
  // leaves standard error inherited; otherwise the child's standard error is
  // appended to that file. Fails when the program cannot be run.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(const std::vector<std::string>& argv,
                                                             const std::string& stderr_path,
                                                             ChildSetup setup = {});
  ~ChildProcess();  // Stop(absl::ZeroDuration())

  enum class Io { kOk, kTimeout, kClosed };

  // Writes `line` and a newline before `deadline`. kClosed when the child no
  // longer reads its standard input (it exited or closed it).
  Io WriteLine(const std::string& line, absl::Time deadline);
  // Reads one line (without the newline; a trailing CR is dropped) before
  // `deadline`. A line longer than `max_bytes` is cut there (the rest of it is
  // read and dropped). kClosed at end of file.
  Io ReadLine(absl::Time deadline, size_t max_bytes, std::string* line);

  // One request and its answer on one CPU. BeginTurn pins the child's
  // threads (ChildSetup::threads) to the CPU the calling thread runs on, so
  // that the request's write wakes the child there, where the caller is about
  // to sleep, and not on another CPU: left to itself the kernel wakes a
  // process onto an idle CPU, which costs tens of microseconds on a virtual
  // machine, and a quick bot's decision paid that twice (docs/benchmarks.md,
  // "Hosted bots"). After a quick turn the child stays pinned (asleep, as a
  // rule) and the next turn re-pins it only when the caller's CPU changed:
  // the thread list is read and the threads pinned on a change only. Once a
  // turn has waited `kTurnPinned` for its answer, ReadLine frees the child to
  // every CPU the caller may use, so a bot that thinks for long can move to
  // an idle CPU as any program can. (A bot that answers at once and thinks on
  // afterwards stays on its CPU until one of its turns takes longer.) Without
  // ChildSetup::threads, or when the kernel refuses (no right to set the
  // child's CPUs), both do nothing. EndTurn ends the turn (call it when the
  // answer was read or given up).
  static constexpr absl::Duration kTurnPinned = absl::Milliseconds(1);
  void BeginTurn();
  void EndTurn();

  // Closes the child's standard input (it reads end of file).
  void CloseInput();
  // Closes the child's standard input, waits up to `grace` for it to exit,
  // then kills its process group. Idempotent.
  void Stop(absl::Duration grace);
  // "exited with status 1", "killed by signal 11 (Segmentation fault)", or
  // "is still running". Reaps the child if it has exited.
  std::string ExitDescription();
  pid_t pid() const { return pid_; }

  // Kills the process groups of every child still running (the bridge calls it
  // when it is told to stop, so no program outlives it).
  static void KillAll();
  // The wait status once reaped (Reap must have succeeded), for callers that
  // classify it themselves.
  bool exited() { return Reap(false); }
  int wait_status() const { return status_; }

 private:
  ChildProcess(pid_t pid, int in, int out) : pid_(pid), in_(in), out_(out) {}
  bool Reap(bool wait);
  // Pins the turn's threads to `cpus`: how many were pinned, -1 when the
  // kernel refused (no right to).
  int PinChild(const cpu_set_t& cpus);
  // Lets the child use every CPU the caller may use.
  void Unpin();

  pid_t pid_;
  int in_;   // the child's standard input (write end), -1 once closed
  int out_;  // the child's standard output (read end)
  std::string buffer_;  // read but not yet returned
  bool discarding_ = false;  // dropping the rest of an overlong line
  bool reaped_ = false;
  bool stopped_ = false;
  int status_ = 0;
  std::function<std::string(int status)> describe_exit_;
  std::function<void()> on_reaped_;
  std::function<std::vector<pid_t>()> threads_;
  // BeginTurn's state: the child's threads when they were last pinned, the
  // CPU they are pinned to, whether a turn is on, and since when.
  std::vector<pid_t> turn_threads_;
  int child_cpu_ = -1;  // the CPU the child is pinned to; -1: free
  bool in_turn_ = false;
  bool pin_refused_ = false;  // the kernel said no once: no more tries
  absl::Time turn_began_;
};

}  // namespace tarock::stdio

#endif  // TAROCK_SDK_STDIO_CHILD_PROCESS_H_
