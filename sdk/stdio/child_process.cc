#include "sdk/stdio/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"

namespace tarock::stdio {
namespace {

// What a child that could not start writes to its parent before it exits.
struct StartError {
  int err;  // errno
  int fd;   // the descriptor it could not give the program; -1: another step
};

constexpr unsigned kCloseRangeCloexec = 1u << 2;  // CLOSE_RANGE_CLOEXEC (linux/close_range.h)

// The process groups of live children, for KillAll.
constexpr int kMaxChildren = 4096;
std::atomic<pid_t> g_groups[kMaxChildren];

void Track(pid_t pid) {
  for (auto& slot : g_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return;
  }
}

void Untrack(pid_t pid) {
  for (auto& slot : g_groups) {
    pid_t expected = pid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

// poll() of one descriptor until `until`, to the microsecond (ppoll).
int PollUntil(pollfd* p, absl::Time until) {
  absl::Duration left = until - absl::Now();
  if (left < absl::ZeroDuration()) left = absl::ZeroDuration();
  if (left > absl::Hours(24)) left = absl::Hours(24);
  const timespec ts = absl::ToTimespec(left);
  return ppoll(p, 1, &ts, nullptr);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    const std::vector<std::string>& argv, const std::string& stderr_path, ChildSetup setup) {
  if (argv.empty()) return absl::InvalidArgumentError("no command to run");
  // Everything the child needs is prepared before fork (a threaded parent's
  // child may only make async-signal-safe calls).
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  if (setup.env) {
    for (const std::string& e : *setup.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
  rlim_t fd_top = 65536;
  if (struct rlimit nofile; getrlimit(RLIMIT_NOFILE, &nofile) == 0) fd_top = nofile.rlim_max;
  if (fd_top == RLIM_INFINITY || fd_top > (rlim_t{1} << 20)) fd_top = rlim_t{1} << 20;
  int highest_pass = 2;
  for (const auto& [fd, as] : setup.pass_fds) highest_pass = std::max(highest_pass, as);
  // The passed descriptors' copies above every target number, and the soft
  // and hard limits of open files (see below), prepared here.
  std::vector<int> high(setup.pass_fds.size(), -1);
  struct rlimit files = {0, 0};
  const bool raise_files = !setup.pass_fds.empty() && getrlimit(RLIMIT_NOFILE, &files) == 0 &&
                           files.rlim_cur < files.rlim_max;
  int err_fd = -1;
  if (!stderr_path.empty()) {
    err_fd = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (err_fd < 0)
      return absl::UnavailableError(
          absl::StrCat("cannot open the log ", stderr_path, ": ", std::strerror(errno)));
  }
  int to_child[2], from_child[2], exec_err[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  if (pipe2(from_child, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  if (pipe2(exec_err, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork failed: ", std::strerror(errno)));
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    if (err_fd >= 0) dup2(err_fd, 2);
    // A failed start is told to the parent through `report`: errno, and the
    // number of the descriptor that could not be given (-1: another step).
    int report = exec_err[1];
    auto fail = [&report](int fd) {
      const StartError e = {errno, fd};
      (void)!write(report, &e, sizeof e);
      _exit(127);
    };
    // The numbers in the child may be above the soft limit of open files,
    // where dup2 fails (the sandbox's go up to 1034; the kernel's default
    // soft limit, init's and so a user-mode Linux guest's, is 1024, and so is
    // systemd's): it is raised to the hard limit while the descriptors are
    // placed, then put back (a descriptor above the soft limit stays open).
    if (raise_files) {
      const struct rlimit up = {files.rlim_max, files.rlim_max};
      setrlimit(RLIMIT_NOFILE, &up);
    }
    // Every passed descriptor, and `report`, first goes above every target
    // number, then each passed one to its own: one at a time, a descriptor
    // whose number here is another's target would be overwritten by that
    // one's dup2 before it was moved.
    if (!setup.pass_fds.empty()) {
      const int moved = fcntl(exec_err[1], F_DUPFD_CLOEXEC, highest_pass + 1);
      if (moved < 0) fail(highest_pass);  // no room above the highest number
      report = moved;
    }
    for (size_t i = 0; i < setup.pass_fds.size(); ++i) {
      high[i] = fcntl(setup.pass_fds[i].first, F_DUPFD_CLOEXEC, highest_pass + 1);
      if (high[i] < 0) fail(setup.pass_fds[i].second);
    }
    for (size_t i = 0; i < setup.pass_fds.size(); ++i)
      if (dup2(high[i], setup.pass_fds[i].second) < 0) fail(setup.pass_fds[i].second);
    if (raise_files) setrlimit(RLIMIT_NOFILE, &files);
    if (setup.in_child && !setup.in_child()) fail(-1);
    // Leave nothing else of the parent open in the child (gRPC sockets, log
    // files), whatever its number: every descriptor above 2 is marked
    // close-on-exec (`report` already is, and must stay open until exec),
    // then the passed ones are unmarked.
    if (syscall(SYS_close_range, 3u, ~0u, kCloseRangeCloexec) != 0) {
      // Kernels before 5.11: one by one, up to the highest number there may
      // be (the limit as it was before `in_child` could lower it).
      for (rlim_t fd = 3; fd < fd_top; ++fd)
        if (static_cast<int>(fd) != report) fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    }
    for (const auto& [fd, as] : setup.pass_fds) fcntl(as, F_SETFD, 0);
    signal(SIGPIPE, SIG_DFL);
    if (setup.env) {
      execvpe(args[0], args.data(), envp.data());
    } else {
      execvp(args[0], args.data());
    }
    fail(-1);
  }
  close(to_child[0]);
  close(from_child[1]);
  close(exec_err[1]);
  if (err_fd >= 0) close(err_fd);
  StartError e = {0, -1};
  ssize_t got;
  do {
    got = read(exec_err[0], &e, sizeof e);
  } while (got < 0 && errno == EINTR);
  close(exec_err[0]);
  if (got == sizeof e) {
    waitpid(pid, nullptr, 0);
    close(to_child[1]);
    close(from_child[0]);
    // EBADF (dup2), EINVAL (F_DUPFD): the number is past the limit; EMFILE:
    // no free number left above the targets.
    if (e.fd >= 0 && (e.err == EBADF || e.err == EINVAL || e.err == EMFILE))
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot run ", argv[0], ": cannot give it descriptor ", e.fd,
          ": the hard limit of open files here (", files.rlim_max, ") is too low"));
    if (e.fd >= 0)
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot run ", argv[0], ": cannot give it descriptor ", e.fd, ": ", std::strerror(e.err)));
    return absl::NotFoundError(absl::StrCat("cannot run ", argv[0], ": ", std::strerror(e.err)));
  }
  Track(pid);
  fcntl(to_child[1], F_SETFL, fcntl(to_child[1], F_GETFL) | O_NONBLOCK);
  fcntl(from_child[0], F_SETFL, fcntl(from_child[0], F_GETFL) | O_NONBLOCK);
  auto child = std::unique_ptr<ChildProcess>(new ChildProcess(pid, to_child[1], from_child[0]));
  child->describe_exit_ = std::move(setup.describe_exit);
  child->on_reaped_ = std::move(setup.on_reaped);
  child->threads_ = std::move(setup.threads);
  return child;
}

ChildProcess::~ChildProcess() {
  Stop(absl::ZeroDuration());
  if (out_ >= 0) close(out_);
}

ChildProcess::Io ChildProcess::WriteLine(const std::string& line, absl::Time deadline) {
  if (in_ < 0) return Io::kClosed;
  std::string data = line + "\n";
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(in_, data.data() + done, data.size() - done);
    if (n > 0) {
      done += n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{in_, POLLOUT, 0};
      int r = PollUntil(&p, deadline);
      if (r == 0 && absl::Now() >= deadline) return Io::kTimeout;
      if (r > 0 && (p.revents & (POLLERR | POLLHUP)) && !(p.revents & POLLOUT)) return Io::kClosed;
      continue;
    }
    return Io::kClosed;  // EPIPE: nobody reads
  }
  return Io::kOk;
}

ChildProcess::Io ChildProcess::ReadLine(absl::Time deadline, size_t max_bytes, std::string* line) {
  while (true) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      if (discarding_) {
        buffer_.erase(0, nl + 1);
        discarding_ = false;
        // The cut line was already returned; go on with the next.
        continue;
      }
      *line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return Io::kOk;
    }
    if (!discarding_ && buffer_.size() > max_bytes) {
      *line = buffer_.substr(0, max_bytes);
      buffer_.clear();
      discarding_ = true;
      return Io::kOk;
    }
    if (discarding_) buffer_.clear();
    char chunk[4096];
    ssize_t n = read(out_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, n);
      continue;
    }
    if (n == 0) return Io::kClosed;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Io::kClosed;
    pollfd p{out_, POLLIN, 0};
    // A turn's pin lasts kTurnPinned; then the child may think anywhere.
    const bool pinned = in_turn_ && child_cpu_ >= 0;
    const absl::Time until = pinned ? std::min(deadline, turn_began_ + kTurnPinned) : deadline;
    int r = PollUntil(&p, until);
    if (r == 0 && pinned && absl::Now() >= until) Unpin();
    if (r == 0 && absl::Now() >= deadline) return Io::kTimeout;
  }
}

void ChildProcess::BeginTurn() {
  if (!threads_ || pin_refused_ || reaped_) return;
  const int cpu = sched_getcpu();
  if (cpu < 0) return;
  turn_began_ = absl::Now();
  if (cpu == child_cpu_) {
    in_turn_ = true;
    return;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  turn_threads_ = threads_();
  const int pinned = PinChild(one);
  if (pinned < 0) pin_refused_ = true;
  if (pinned <= 0) return;
  child_cpu_ = cpu;
  in_turn_ = true;
}

void ChildProcess::EndTurn() { in_turn_ = false; }

void ChildProcess::Unpin() {
  in_turn_ = false;
  if (child_cpu_ < 0) return;
  child_cpu_ = -1;
  cpu_set_t all;
  if (sched_getaffinity(0, sizeof all, &all) == 0) {
    turn_threads_ = threads_();
    PinChild(all);
  }
}

int ChildProcess::PinChild(const cpu_set_t& cpus) {
  int pinned = 0;
  for (pid_t tid : turn_threads_) {
    if (sched_setaffinity(tid, sizeof cpus, &cpus) == 0) {
      ++pinned;
    } else if (errno == EPERM) {
      return -1;
    }  // else ESRCH: that thread has just ended
  }
  return pinned;
}

bool ChildProcess::Reap(bool wait) {
  if (reaped_) return true;
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, wait ? 0 : WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) {
    reaped_ = true;
    status_ = status;
    if (on_reaped_) on_reaped_();
  }
  return reaped_;
}

void ChildProcess::CloseInput() {
  if (in_ >= 0) {
    close(in_);
    in_ = -1;
  }
}

void ChildProcess::Stop(absl::Duration grace) {
  if (in_ >= 0) {
    close(in_);
    in_ = -1;
  }
  if (stopped_) return;
  stopped_ = true;
  const absl::Time deadline = absl::Now() + grace;
  while (!Reap(false) && absl::Now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // The whole group: a shell's children too.
  kill(-pid_, SIGKILL);
  if (!reaped_) {
    kill(pid_, SIGKILL);
    Reap(true);
  }
  Untrack(pid_);
}

void ChildProcess::KillAll() {
  for (auto& slot : g_groups) {
    pid_t pid = slot.load();
    if (pid > 0) kill(-pid, SIGKILL);
  }
}

std::string ChildProcess::ExitDescription() {
  if (!Reap(false)) {
    // It may be exiting right now (its output just closed): give it a moment.
    for (int i = 0; i < 20 && !Reap(false); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!reaped_) return "is still running";
  }
  if (describe_exit_) return describe_exit_(status_);
  if (WIFEXITED(status_)) return absl::StrCat("exited with status ", WEXITSTATUS(status_));
  if (WIFSIGNALED(status_))
    return absl::StrCat("was killed by signal ", WTERMSIG(status_), " (",
                        strsignal(WTERMSIG(status_)), ")");
  return "ended";
}

}  // namespace tarock::stdio
