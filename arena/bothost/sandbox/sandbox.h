// The sandbox of tarock-bothost: every build and every bot process of a hosted
// bot runs in one (docs/hosting.md). Made of Debian's well-kept parts, not a
// home-made jail: bubblewrap (`bwrap`) for the namespaces and the file system,
// a seccomp filter built with libseccomp and handed to bwrap (`--seccomp FD`),
// cgroups for memory, processes and CPU, rlimits for open files and bytes
// written.
//
// What a process started here is guaranteed NOT to have:
//  - any network: a new network namespace with nothing in it (its loopback
//    down: made by the host when it is root, since bwrap brings up the
//    loopback of the namespaces it makes); sockets other than AF_UNIX fail
//    with EACCES and io_uring with ENOSYS, so it can talk to its host only
//    over the pipes it was given (stdin, stdout);
//  - anything of the host's process: bwrap starts with an empty environment
//    (the program's is PATH, HOME, LANG and the spec's), the program is PID 1
//    of its PID namespace (no bwrap process, whose environ and cmdline are
//    the host's, is visible), and no descriptor but 0, 1 and 2 is inherited
//    (2 is a memfd copied to the log at the end: no path of the host);
//  - any of the host's files but the read-only system (/usr and the /bin,
//    /lib... links, /etc/ld.so.cache, /etc/alternatives; /usr/local is an
//    empty folder), the read-only binds the spec names, a private /proc and a
//    read-only minimal /dev; its only writable place is a private tmpfs at
//    /tmp of `tmpfs_bytes` (plus the read-write binds the spec names, for a
//    build's output);
//  - the machine-wide counters one sandbox could signal another through:
//    /proc/meminfo, /proc/stat, /proc/loadavg are neutral and the same in
//    every run, /proc/vmstat, diskstats, ... empty, /proc/pressure and
//    /proc/sys empty folders; sysinfo, statfs, fstatfs, ustat fail with ENOSYS
//    (what remains, CPU timing and the page cache: docs/security.md);
//  - the kernel's locks and file events on a file two runs both see (its
//    /bot, any file of /usr): flock, fcntl's lock, lease and dnotify commands
//    (F_GETLK, F_SETLK(W), F_OFD_*, F_SETLEASE, F_GETLEASE, F_NOTIFY; every
//    other command works) and inotify fail with ENOSYS; fanotify is killed;
//  - privileges: it is `uid`/`gid` (default 65534, nobody) inside, and outside
//    a uid and gid of its own that no other live run has (`uid_base` +
//    0..`uid_count`-1: the host drops to it before bwrap, so files the host's
//    root owns stay closed), no capabilities, no new privileges
//    (PR_SET_NO_NEW_PRIVS), its own user, PID, IPC, UTS, cgroup and mount
//    namespaces, a new session (no terminal to push input into);
//  - the kernel's counts per user (struct user_struct) of another run: its
//    uid is its own, so its pipe buffers (pipe-user-pages-soft), processes,
//    message queues, epoll watches, ... are counted apart from every other
//    run's (one run that used up its pipe pages shrank every other run's new
//    pipes to 8 KiB: a channel; the red team of 2026-11-29);
//  - the system calls of the filter: ptrace, process_vm_*, mount and
//    pivot_root, unshare/setns and namespace flags on clone, kernel modules,
//    kexec, bpf, perf_event_open, keyrings, userfaultfd, reboot, swap, clocks,
//    quotactl, open_by_handle_at, ...: the process is killed (SIGSYS) and the
//    cause reads "killed by the filter";
//  - more than its limits: memory (cgroup; killed by the kernel's OOM killer
//    inside its own cgroup only: "out of memory"), processes (pids.max: fork
//    fails, "too many processes" once it hit the limit), CPU (a CFS quota of
//    `cpus` cores, so its thinking cannot slow another bot; in v1 its cpu
//    cgroup is at the hierarchy's root, weighing one ordinary process), open files
//    (RLIMIT_NOFILE), bytes per file written, its standard error log included
//    (RLIMIT_FSIZE, with SIGXFSZ ignored: writes beyond fail), and the wall time
//    of Run (then "timed out").
// Every process of one run is stopped together: the program is PID 1 of the
// run's PID namespace, so when it ends (or its bwrap is killed: the program
// gets SIGKILL, --die-with-parent) the kernel kills every child it left; the
// run's cgroups are then emptied and removed.
//
// Needs: bwrap, unprivileged user namespaces, root for the pool of uids
// (uid_count 0 without: all runs then share the host's user), and cgroups the
// host may create (root, or a delegated subtree): cgroup v1 (memory, pids,
// cpu) where those are mounted, else v2 (memory.max, pids.max, cpu.max). Create() fails when one is
// missing, and says which. On v2, when the cgroup the runs' parent is made in
// holds processes (a delegated subtree: a systemd service, a container's
// private cgroup namespace), Create() moves them all, the calling process
// included, to the leaf `cgroup_name/host`, since v2 enables controllers only
// in a cgroup without processes of its own.
//
// Thread-safety: a Sandbox is immutable after Create but for its pool of
// uids, which is thread-safe (a mutex): Start, StartHeld and Run may be called
// from any number of threads at once; a run takes the lowest free uid of the
// pool as it starts and gives it back once its processes are all gone (when
// it is reaped, or when its child is destroyed), from whichever thread that is.

#ifndef TAROCK_ARENA_BOTHOST_SANDBOX_SANDBOX_H_
#define TAROCK_ARENA_BOTHOST_SANDBOX_SANDBOX_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arena/bothost/sandbox/cgroup_fs.h"
#include "sdk/stdio/child_process.h"

namespace tarock::bothost {

struct SandboxLimits {
  int64_t memory_bytes = int64_t{512} << 20;  // 512 MiB (a build: 2 GiB)
  int pids = 64;                              // processes and threads at once
  double cpus = 1.0;                          // CPU share in cores (CFS quota)
  int64_t tmpfs_bytes = int64_t{64} << 20;    // the private /tmp
  int open_files = 256;                       // RLIMIT_NOFILE
  int64_t file_bytes = int64_t{1} << 20;      // RLIMIT_FSIZE: any file, stderr log included
};

struct SandboxSpec {
  std::vector<std::string> argv;  // the program, as seen inside the sandbox
  // (host path, sandbox path) pairs bound read-only / read-write.
  std::vector<std::pair<std::string, std::string>> ro_binds;
  // A read-write bind's host path is the run's (chowned to its uid and gid)
  // while it runs; once its processes are all gone, the path and everything
  // below it are given back to the host's user (lchown; no link followed) and
  // made readable by every user and writable by the owner alone (folders and
  // executables 0755, other files 0644; no set-id bit), so that the runs that
  // read it later, each as a uid of its own, can.
  std::vector<std::pair<std::string, std::string>> rw_binds;
  std::vector<std::string> env;   // "NAME=VALUE"; PATH, HOME=/tmp and LANG are set
  std::string cwd = "/tmp";
  // The program's standard error: it writes a memfd of its own (so that
  // /proc/self/fd/2 names no path of the host), which is appended to this
  // file (created 0600) once the run is reaped (by Stop, at the latest) and
  // again when its last process is gone; "" = /dev/null.
  std::string stderr_path;
  SandboxLimits limits;
};

// How a run ended.
enum class SandboxCause {
  kExited,            // it exited by itself (code in Outcome::code)
  kOutOfMemory,
  kTooManyProcesses,
  kFilter,            // killed by the seccomp filter
  kOutputLimit,       // killed for writing past RLIMIT_FSIZE
  kCrashed,           // killed by another signal (Outcome::signal)
  kTimedOut,          // Run's wall time ran out
  kKilled,            // stopped by the host
};
const char* CauseName(SandboxCause cause);  // "out of memory", ...

struct SandboxOutcome {
  SandboxCause cause = SandboxCause::kExited;
  int code = 0;     // exit code for kExited
  int signal = 0;   // the signal for killed causes, where known
  std::string text; // one line: "out of memory (limit 512 MiB)", "exited with status 0"
};

struct SandboxOptions {
  std::string bwrap = "bwrap";              // the bubblewrap program
  uid_t uid = 65534;                        // the user and group a program sees inside
  gid_t gid = 65534;                        // (bwrap --uid/--gid)
  // Outside, each run is a user of its own while it lives: the lowest free uid
  // of [uid_base, uid_base + uid_count), and the gid of the same number, so
  // that no two runs share the kernel's counts per user. A range no account,
  // group or /etc/subuid, /etc/subgid range of the machine uses (Create
  // refuses one that overlaps); hosts of one machine with one range share it
  // through `uid_claim`, never a uid. uid_count bounds the runs at once: a start
  // beyond it fails (RESOURCE_EXHAUSTED), a uid is never shared. Switching
  // users needs root: a host that is not root needs uid_count 0.
  // uid_count 0: no pool; every run is `uid`/`gid` outside as well (a host
  // running as root drops to it), or the host's own user (not root): all runs
  // share one user's counts, a channel between them (docs/security.md).
  uid_t uid_base = 2000000000;  // above useradd's subordinate ranges, below 2^31
  int uid_count = 1024;
  // How the hosts of one machine tell each other which uids are taken: while
  // a run has its uid, the host holds the abstract unix socket named
  // `uid_claim` + the uid (bound in the host's network namespace; the kernel
  // frees it when the host dies), and a uid whose name another process holds
  // is skipped. No file: it works where /run is read-only. "" = none (the
  // pool is this process's alone).
  std::string uid_claim = "tarock-sandbox-uid-";
  std::string cgroup_name = "tarock-bothost";  // parent cgroup of the runs
  std::string cgroup_root = "/sys/fs/cgroup";  // where the hierarchies are mounted
  // cgroup v2 only: make `cgroup_name` under the host's own cgroup (from
  // /proc/self/cgroup), the subtree delegated to it (systemd's Delegate=yes),
  // instead of at the hierarchy's root. v1 ignores it.
  bool cgroup_own = false;
  // Where cgroup_own reads the host's own cgroup (its "0::" line): the
  // kernel's file, or the fake's (read through cgroup_fs).
  std::string self_cgroup = "/proc/self/cgroup";
  // The cgroup files every cgroup step reads and writes through: nullptr =
  // the kernel's (CgroupFs::Real()). Not owned; outlives the Sandbox and its
  // runs. A fake serves CreateCgroupsOnly, MakeRunCgroups and ClassifyRun
  // (the tests); a run's process joins its cgroups by the kernel's files.
  CgroupFs* cgroup_fs = nullptr;
  // The ceiling of all runs together, set on the runs' parent cgroup (v1: the
  // memory hierarchy's `cgroup_name` and a cpu parent `cgroup_name`; v2:
  // `cgroup_name`): whatever each run's own limits, the runs together get no
  // more memory (bytes; their OOM kills are inside the parent) and CPU
  // (cores, a CFS quota). 0 = no ceiling. Hosts on one machine with one
  // cgroup_name share it (the last one started sets it).
  int64_t runs_memory_bytes = 0;
  double runs_cpus = 0;
};

class Sandbox {
 public:
  // Checks bwrap, builds the filter, finds the cgroups, checks the pool of
  // uids (root, and no account, group or subordinate range of /etc/passwd,
  // /etc/group, /etc/subuid, /etc/subgid in it). Fails with a line that names
  // what is missing.
  static absl::StatusOr<std::unique_ptr<Sandbox>> Create(SandboxOptions options = {});
  // Create's cgroup steps alone, without bwrap or a probe run: the version
  // (v1, or v2 at the root or under `unified`), the runs' parent (v2: under
  // the host's own cgroup with cgroup_own, the host's processes moved to the
  // leaf NAME/host when that cgroup holds them), its controllers, the ceiling
  // of all runs, and the removal of runs a killed host left. For the tests
  // over a fake CgroupFs (sandbox_test's SandboxFakeV2Test): the result can
  // make and classify a run's cgroups, but not Start a run.
  static absl::StatusOr<std::unique_ptr<Sandbox>> CreateCgroupsOnly(SandboxOptions options);
  ~Sandbox();

  // Starts the program with its standard input and output as pipes (for
  // StdioBot). ChildProcess::ExitDescription of the result gives the
  // classified cause ("out of memory (limit 512 MiB)", ...). Stopping the
  // child stops every process of the run and removes its cgroups. Errors:
  // RESOURCE_EXHAUSTED when every uid of the pool is a live run's (as for
  // StartHeld and Run); UNAVAILABLE when its cgroups cannot be made.
  absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> Start(const SandboxSpec& spec) const;

  // A run started up to its program's exec and held there (bubblewrap's
  // --block-fd): its namespaces, mounts and cgroups are made, and nothing of
  // the program has run (no CPU, no memory of its own) until Release().
  // Destroyed unreleased, the run is stopped without the program running.
  class HeldRun {
   public:
    HeldRun(std::unique_ptr<stdio::ChildProcess> child, int release_fd)
        : release_fd_(release_fd), child_(std::move(child)) {}
    HeldRun(HeldRun&& other) noexcept
        : release_fd_(std::exchange(other.release_fd_, -1)), child_(std::move(other.child_)) {}
    HeldRun& operator=(HeldRun&&) = delete;
    ~HeldRun();
    // Lets the program start; the child is then the caller's. Errors:
    // UNAVAILABLE when the run had ended meanwhile.
    absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> Release();
    stdio::ChildProcess& child() { return *child_; }

   private:
    int release_fd_;  // our end of the socket pair bwrap blocks on
    std::unique_ptr<stdio::ChildProcess> child_;
  };
  absl::StatusOr<HeldRun> StartHeld(const SandboxSpec& spec) const;

  // Runs the program to its end, or kills it after `wall_time`; standard input
  // is empty; up to `max_output` bytes of its standard output go to `output`
  // (the rest is read and dropped).
  absl::StatusOr<SandboxOutcome> Run(const SandboxSpec& spec, absl::Duration wall_time,
                                     std::string* output = nullptr,
                                     size_t max_output = 64 << 10) const;

  // Which cgroup version the runs use: "v1" or "v2".
  const std::string& cgroup_version() const { return cgroup_version_; }
  // The folder the runs' cgroups are made in (v1: the memory hierarchy's; each
  // run's cpu cgroup is at the cpu hierarchy's root).
  std::string runs_parent() const;

  // The cgroup steps of one run, as Start takes them, without a process (the
  // tests over a fake CgroupFs). MakeRunCgroups makes the run's cgroups
  // (run-PID-N; v1: memory, pids, cpu) with `limits` written, and returns
  // their folders, the caller's to remove; errors: UNAVAILABLE when one
  // cannot be made or limited (those made are removed when a limit fails).
  // ClassifyRun classifies
  // a run of those folders that ended with wait status `status`, as a run's
  // exit is (the OOM kills and the refused forks its cgroups counted first).
  absl::StatusOr<std::vector<std::string>> MakeRunCgroups(const SandboxLimits& limits) const;
  SandboxOutcome ClassifyRun(std::vector<std::string> dirs, const SandboxLimits& limits,
                             int status, bool timed_out) const;

  class RunState;  // a run's cgroups and its classification (sandbox.cc)
  class UidPool;   // the uids of the live runs (sandbox.cc)

 private:
  explicit Sandbox(SandboxOptions options) : options_(std::move(options)) {}
  CgroupFs& cgroup_fs() const {
    return options_.cgroup_fs != nullptr ? *options_.cgroup_fs : CgroupFs::Real();
  }
  absl::Status SetUpCgroups();  // Create's cgroup steps
  absl::StatusOr<std::shared_ptr<RunState>> MakeRunState(const SandboxLimits& limits) const;
  absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> StartRun(
      const SandboxSpec& spec, std::shared_ptr<RunState>* state, int* release_fd = nullptr) const;

  SandboxOptions options_;
  std::string filter_;                // the BPF program for bwrap --seccomp
  std::string cgroup_version_;        // "v1" or "v2"
  std::vector<std::string> system_args_;  // the read-only system view
  bool own_netns_ = false;  // each run's network namespace made by the host (root), not bwrap
  int cpus_ = 1;            // the host's CPUs, as the neutral /proc/stat lists them
  std::shared_ptr<UidPool> uids_;  // null: no pool (uid_count 0, or CreateCgroupsOnly)
};

}  // namespace tarock::bothost

#endif  // TAROCK_ARENA_BOTHOST_SANDBOX_SANDBOX_H_
