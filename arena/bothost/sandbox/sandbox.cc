#include "arena/bothost/sandbox/sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "arena/bothost/sandbox/cgroup_fs.h"

namespace tarock::bothost {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}


std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The kernel's cgroup files.
class RealCgroupFs : public CgroupFs {
 public:
  std::string Read(const std::string& path) const override { return ReadFile(path); }
  int Write(const std::string& path, const std::string& text) override {
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno != 0 ? errno : EIO;
    ssize_t n = write(fd, text.data(), text.size());
    const int write_errno = errno;
    close(fd);
    if (n == static_cast<ssize_t>(text.size())) return 0;
    return n < 0 && write_errno != 0 ? write_errno : EIO;
  }
  int Mkdir(const std::string& path) override {
    return mkdir(path.c_str(), 0755) == 0 ? 0 : errno;
  }
  int Rmdir(const std::string& path) override { return rmdir(path.c_str()) == 0 ? 0 : errno; }
  bool Exists(const std::string& path) const override { return tarock::bothost::Exists(path); }
  std::vector<std::string> ListDirs(const std::string& path) const override {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(path, ec))
      if (e.is_directory(ec)) names.push_back(e.path().filename().string());
    return names;
  }
};

// Turns on memory, pids and cpu for the children of the v2 cgroup `cgroup`,
// one controller a write (a write naming one the kernel cannot enable fails
// whole, and cpu may be missing where memory and pids are not). Returns 0 when
// memory and pids are on, else the errno of the memory write (EBUSY: the
// cgroup has processes of its own), or -1. Memory goes first, and alone when
// it fails: pids and cpu are threaded controllers, which the kernel enables
// beside processes, and that would make the cgroup a thread root whose
// children can hold no process (EOPNOTSUPP on the move to a leaf).
int EnableControllers(CgroupFs& fs, const std::string& cgroup) {
  if (const int memory_errno = fs.Write(cgroup + "/cgroup.subtree_control", "+memory");
      memory_errno != 0) {
    if (fs.Read(cgroup + "/cgroup.subtree_control").find("memory") == std::string::npos)
      return memory_errno;
  }
  for (const char* c : {"+pids", "+cpu"}) fs.Write(cgroup + "/cgroup.subtree_control", c);
  const std::string on = fs.Read(cgroup + "/cgroup.subtree_control");
  return on.find("memory") != std::string::npos && on.find("pids") != std::string::npos ? 0 : -1;
}

// Moves every process of the v2 cgroup `from` into the leaf cgroup `leaf`
// (made if missing). A process that forks meanwhile is caught by the next
// round; one that ends meanwhile (ESRCH) is skipped.
absl::Status MoveProcesses(CgroupFs& fs, const std::string& from, const std::string& leaf) {
  if (const int e = fs.Mkdir(leaf); e != 0 && e != EEXIST)
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create the cgroup ", leaf, ": ", std::strerror(e)));
  for (int round = 0; round < 10; ++round) {
    const std::string procs = fs.Read(from + "/cgroup.procs");
    if (procs.empty()) return absl::OkStatus();
    for (absl::string_view pid : absl::StrSplit(procs, '\n', absl::SkipEmpty())) {
      if (const int e = fs.Write(leaf + "/cgroup.procs", std::string(pid)); e != 0 && e != ESRCH)
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot move process ", pid, " from ", from, " to the leaf cgroup ", leaf, ": ",
            std::strerror(e)));
    }
  }
  return absl::FailedPreconditionError(
      absl::StrCat("cannot empty the cgroup ", from, ": its processes keep forking"));
}

// The process or thread IDs of a cgroup file that lists one a line
// (cgroup.procs, tasks, cgroup.threads); none when it cannot be read.
std::vector<pid_t> Ids(const CgroupFs& fs, const std::string& path) {
  std::vector<pid_t> ids;
  for (absl::string_view line : absl::StrSplit(fs.Read(path), '\n', absl::SkipEmpty())) {
    int id = 0;
    if (absl::SimpleAtoi(line, &id) && id > 0) ids.push_back(id);
  }
  return ids;
}

// The value of `key` in a "key value" per line file (memory.oom_control,
// pids.events, memory.events); 0 when absent.
int64_t KeyValue(const std::string& text, const std::string& key) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> kv = absl::StrSplit(line, ' ', absl::SkipEmpty());
    int64_t v = 0;
    if (kv.size() == 2 && kv[0] == key && absl::SimpleAtoi(kv[1], &v)) return v;
  }
  return 0;
}

std::string Mib(int64_t bytes) { return absl::StrCat(bytes >> 20, " MiB"); }

// Kernel objects two runs share through a file both see (the bot's /bot, bound
// from one folder into each of its runs; any file of /usr), by which they
// could pass bits to each other at once and without noise (the review of
// 2026-11-29: a whole byte in 8 slots of 200 ms, every bit right): advisory
// locks (flock, fcntl's POSIX and open-file-description locks), leases, and
// file events (inotify, dnotify, fanotify). Refused with ENOSYS, as a kernel
// without them (libraries fall back; Python's imports, numpy, cmake, ninja and
// the compilers take no lock); fanotify is killed, as fanotify_init was.
absl::Status AddFileChannelRules(scmp_filter_ctx ctx) {
  for (const char* name : {"flock", "inotify_init", "inotify_init1", "inotify_add_watch",
                           "inotify_rm_watch"}) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0)
      return absl::InternalError(absl::StrCat("seccomp rule for ", name, " failed"));
  }
  if (const int nr = seccomp_syscall_resolve_name("fanotify_mark"); nr != __NR_SCMP_ERROR)
    if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0) != 0)
      return absl::InternalError("seccomp rule for fanotify_mark failed");
  // fcntl's commands of locks, leases and dnotify; every other command is
  // allowed. The kernel reads the command as 32 bits: the rule compares only
  // those (a command with bits set above them is the same command).
  for (const char* name : {"fcntl", "fcntl64"}) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR || nr < 0) continue;  // fcntl64: 32-bit architectures only
    std::vector<uint64_t> cmds = {F_GETLK,     F_SETLK,     F_SETLKW,   F_OFD_GETLK, F_OFD_SETLK,
                                  F_OFD_SETLKW, F_SETLEASE, F_GETLEASE, F_NOTIFY};
    if (std::strcmp(name, "fcntl64") == 0) cmds.insert(cmds.end(), {12, 13, 14});  // F_*LK64
    for (uint64_t cmd : cmds)
      if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 1,
                           SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, cmd)) != 0)
        return absl::InternalError(absl::StrCat("seccomp rule for ", name, " ", cmd, " failed"));
  }
  return absl::OkStatus();
}

// The filter: everything is allowed but what a bot never needs and a jail
// breaker wants. Built once; bwrap loads it just before exec.
absl::StatusOr<std::string> BuildFilter() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return absl::InternalError("seccomp_init failed");
  struct Closer {
    scmp_filter_ctx c;
    ~Closer() { seccomp_release(c); }
  } closer{ctx};
  const char* killed[] = {
      "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root",
      "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load", "init_module",
      "finit_module", "delete_module", "bpf", "perf_event_open", "keyctl", "add_key",
      "request_key", "unshare", "setns", "userfaultfd", "acct", "settimeofday",
      "clock_settime", "clock_adjtime", "adjtimex", "iopl", "ioperm", "open_by_handle_at",
      "name_to_handle_at", "quotactl", "syslog", "vhangup", "fanotify_init", "lookup_dcookie",
      "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
      "chroot", "personality", "uselib", "nfsservctl", "kcmp"};
  for (const char* name : killed) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0) != 0)
      return absl::InternalError(absl::StrCat("seccomp rule for ", name, " failed"));
  }
  // New namespaces by clone: killed. clone3 passes its flags in memory the
  // filter cannot read: it fails with ENOSYS and the C library falls back to clone.
  const uint64_t ns_flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID |
                            CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
  if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                       SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags, ns_flags)) != 0)
    return absl::InternalError("seccomp rule for clone failed");
  for (uint64_t flag : {uint64_t{CLONE_NEWUSER}, uint64_t{CLONE_NEWNS}, uint64_t{CLONE_NEWNET},
                        uint64_t{CLONE_NEWPID}, uint64_t{CLONE_NEWIPC}, uint64_t{CLONE_NEWUTS},
                        uint64_t{CLONE_NEWCGROUP}})
    seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                     SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
  seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // Sockets: only AF_UNIX (the network namespace is empty anyway).
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                       SCMP_A0(SCMP_CMP_NE, AF_UNIX)) != 0)
    return absl::InternalError("seccomp rule for socket failed");
  seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socketpair), 1,
                   SCMP_A0(SCMP_CMP_NE, AF_UNIX));
  // Refused with ENOSYS (as a kernel without them; libraries fall back):
  //  - io_uring: its operations (a socket, a connect) bypass the socket rule above;
  //  - sysinfo, ustat, statfs, fstatfs: machine-wide counters (free and shared
  //    memory, load, processes, free blocks of the host's disks) that every
  //    sandbox of the machine sees change: a channel between two of them.
  for (const char* name : {"io_uring_setup", "io_uring_enter", "io_uring_register", "sysinfo",
                           "ustat", "statfs", "fstatfs"}) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0)
      return absl::InternalError(absl::StrCat("seccomp rule for ", name, " failed"));
  }
  if (absl::Status s = AddFileChannelRules(ctx); !s.ok()) return s;
  int fd = memfd_create("tarock-seccomp", MFD_CLOEXEC);
  if (fd < 0) return absl::InternalError("memfd_create failed");
  if (seccomp_export_bpf(ctx, fd) != 0) {
    close(fd);
    return absl::InternalError("seccomp_export_bpf failed");
  }
  std::string bpf;
  lseek(fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) bpf.append(buf, n);
  close(fd);
  if (bpf.empty()) return absl::InternalError("empty seccomp program");
  return bpf;
}

std::atomic<int64_t> g_run_counter{0};

// A run's standard error. The program writes it to a memfd of its own, whose
// /proc/self/fd/2 names nothing of the host ("/memfd:stderr (deleted)"; the
// log file's path named the work dir, the bot, the host's start and PID and
// how many runs it had made: issue 44), and the host appends what was written
// to the log file once the run is reaped, and again when its cgroups are
// removed (what a dying child wrote last). Up to `limit` bytes are copied (the
// program's writes stop there anyway: RLIMIT_FSIZE holds for a memfd too).
// Thread-safe.
class StderrLog {
 public:
  // The log file `path` (created 0600, appended to) and a new memfd; fails
  // when either cannot be made.
  static absl::StatusOr<std::shared_ptr<StderrLog>> Open(const std::string& path, int64_t limit) {
    int file = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (file < 0)
      return absl::UnavailableError(
          absl::StrCat("cannot open the log ", path, ": ", std::strerror(errno)));
    // The log is the host's alone: the program cannot reach the file anyway.
    fchmod(file, 0600);
    int memfd = memfd_create("stderr", MFD_CLOEXEC);
    // The program's end: write-only and appending, and the memfd mode 0200,
    // so the program cannot open it again (/proc/self/fd/2) to read.
    int child = -1;
    if (memfd >= 0) {
      fchmod(memfd, 0200);
      child = open(absl::StrCat("/proc/self/fd/", memfd).c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    }
    if (child < 0) {
      const int e = errno;
      if (memfd >= 0) close(memfd);
      close(file);
      return absl::InternalError(absl::StrCat("cannot make the run's stderr: ", std::strerror(e)));
    }
    return std::shared_ptr<StderrLog>(new StderrLog(file, memfd, child, limit));
  }
  ~StderrLog() { Finish(); }

  int child_fd() const {  // for the child to dup to 2
    absl::MutexLock lock(&mu_);
    return child_;
  }
  void CloseChildEnd() {  // once the child has its own copy
    absl::MutexLock lock(&mu_);
    if (child_ >= 0) close(std::exchange(child_, -1));
  }
  // Appends what was written since the last Flush to the log file.
  void Flush() {
    absl::MutexLock lock(&mu_);
    FlushLocked();
  }
  // Flushes, then closes the memfd and the file.
  void Finish() {
    absl::MutexLock lock(&mu_);
    FlushLocked();
    for (int* fd : {&memfd_, &file_, &child_})
      if (*fd >= 0) close(std::exchange(*fd, -1));
  }

 private:
  StderrLog(int file, int memfd, int child, int64_t limit)
      : file_(file), memfd_(memfd), child_(child), limit_(limit) {}
  void FlushLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (memfd_ < 0 || file_ < 0) return;
    struct stat st;
    if (fstat(memfd_, &st) != 0) return;
    const int64_t end = std::min<int64_t>(st.st_size, limit_);
    char buf[65536];
    while (copied_ < end) {
      const ssize_t n =
          pread(memfd_, buf, std::min<int64_t>(sizeof buf, end - copied_), copied_);
      if (n <= 0) break;
      if (write(file_, buf, n) != n) break;
      copied_ += n;
    }
  }

  mutable absl::Mutex mu_;
  int file_ ABSL_GUARDED_BY(mu_);   // the log file, appended to
  int memfd_ ABSL_GUARDED_BY(mu_);  // what the program wrote (read here)
  int child_ ABSL_GUARDED_BY(mu_);  // the program's end until it is started
  const int64_t limit_;
  int64_t copied_ ABSL_GUARDED_BY(mu_) = 0;
};

// A sealed memfd holding `text`, read from its start (for bwrap --ro-bind-data,
// which reads it to the end); -1 on failure.
int DataFd(const std::string& text) {
  int fd = memfd_create("tarock-sandbox-data", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (!text.empty() && write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    close(fd);
    return -1;
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

// The machine-wide counters of /proc a sandboxed process reads instead of the
// host's, as (path, neutral content): each is the same in every run (of the
// same limits), so one run cannot signal another through them. /proc/meminfo
// shows the run's memory limit as all there is and all free; /proc/stat the
// host's CPUs, all idle and never used.
std::vector<std::pair<std::string, std::string>> NeutralProc(const SandboxLimits& l, int cpus) {
  const int64_t kb = l.memory_bytes >> 10;
  std::string meminfo;
  for (const char* key : {"MemTotal", "MemFree", "MemAvailable"})
    absl::StrAppend(&meminfo, key, ":", std::string(16 - std::strlen(key), ' '), kb, " kB\n");
  for (const char* key : {"Buffers", "Cached", "SwapCached", "Active", "Inactive", "SwapTotal",
                          "SwapFree", "Dirty", "Writeback", "AnonPages", "Mapped", "Shmem",
                          "Slab", "SReclaimable", "SUnreclaim", "KernelStack", "PageTables",
                          "CommitLimit", "Committed_AS"})
    absl::StrAppend(&meminfo, key, ":", std::string(16 - std::strlen(key), ' '), 0, " kB\n");
  std::string stat = "cpu  0 0 0 0 0 0 0 0 0 0\n";
  for (int i = 0; i < cpus; ++i) absl::StrAppend(&stat, "cpu", i, " 0 0 0 0 0 0 0 0 0 0\n");
  absl::StrAppend(&stat, "intr 0\nctxt 0\nbtime 0\nprocesses 1\nprocs_running 1\n"
                         "procs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n");
  std::vector<std::pair<std::string, std::string>> files = {
      {"/proc/meminfo", meminfo},
      {"/proc/stat", stat},
      {"/proc/loadavg", "0.00 0.00 0.00 1/1 1\n"},
  };
  // Counters of the whole machine with no neutral form a program needs: empty.
  for (const char* path :
       {"/proc/vmstat", "/proc/zoneinfo", "/proc/buddyinfo", "/proc/pagetypeinfo",
        "/proc/slabinfo", "/proc/diskstats", "/proc/partitions", "/proc/interrupts",
        "/proc/softirqs", "/proc/schedstat", "/proc/sched_debug", "/proc/timer_list",
        "/proc/swaps", "/proc/locks", "/proc/key-users", "/proc/keys", "/proc/kallsyms",
        "/proc/modules", "/proc/mounts_stat", "/proc/allocinfo", "/proc/kpageflags",
        "/proc/kpagecount", "/proc/kpagecgroup", "/proc/latency_stats", "/proc/cmdline",
        "/proc/consoles", "/proc/uptime", "/proc/vmallocinfo", "/proc/iomem", "/proc/ioports",
        "/proc/dma", "/proc/mtrr", "/proc/cgroups"})
    if (Exists(path)) files.push_back({path, ""});
  return files;
}

// Refuses a pool of uids [base, base + count) that is not free for the runs:
// one that wraps or holds 0 or -1, or holds an account or group of
// /etc/passwd or /etc/group, or meets a subordinate range of /etc/subuid or
// /etc/subgid (a rootless container's users: same uid, same counts, and
// signals between them).
absl::Status CheckUidPool(uid_t base, int count) {
  const uint64_t end = uint64_t{base} + static_cast<uint64_t>(count);  // exclusive
  const std::string range = absl::StrCat(base, "..", end - 1);
  if (base == 0 || end > uint64_t{0xffffffffu})
    return absl::InvalidArgumentError(absl::StrCat(
        "the sandbox's pool of uids ", range, " must hold neither 0 nor 4294967295"));
  for (const char* file : {"/etc/passwd", "/etc/group"}) {
    for (absl::string_view line : absl::StrSplit(ReadFile(file), '\n', absl::SkipEmpty())) {
      std::vector<absl::string_view> f = absl::StrSplit(line, ':');
      uint64_t id = 0;
      if (f.size() < 3 || !absl::SimpleAtoi(f[2], &id) || id < base || id >= end) continue;
      return absl::FailedPreconditionError(absl::StrCat(
          "the sandbox's pool of uids ", range, " holds ", f[0], " (", id, ") of ", file,
          ": each run must be a user of its own (choose another --sandbox_uid_base)"));
    }
  }
  for (const char* file : {"/etc/subuid", "/etc/subgid"}) {
    for (absl::string_view line : absl::StrSplit(ReadFile(file), '\n', absl::SkipEmpty())) {
      std::vector<absl::string_view> f = absl::StrSplit(line, ':');
      uint64_t first = 0, n = 0;
      if (f.size() != 3 || !absl::SimpleAtoi(f[1], &first) || !absl::SimpleAtoi(f[2], &n) ||
          first >= end || first + n <= base)
        continue;
      return absl::FailedPreconditionError(absl::StrCat(
          "the sandbox's pool of uids ", range, " meets ", f[0], "'s subordinate ids ", first,
          "..", first + n - 1, " of ", file, " (choose another --sandbox_uid_base)"));
    }
  }
  return absl::OkStatus();
}

// Gives `path` and everything below it to (uid, gid), without following a
// link, and makes each readable by all and writable by its owner alone:
// folders and files with an execute bit 0755, other files 0644, links as they
// are. For a read-write bind once its run is over: nothing of the run is left
// to race with.
void GiveTree(const std::string& path, uid_t uid, gid_t gid) {
  auto give = [uid, gid](const std::filesystem::path& p) {
    struct stat st;
    if (lstat(p.c_str(), &st) != 0) return;
    lchown(p.c_str(), uid, gid);
    if (S_ISLNK(st.st_mode)) return;
    chmod(p.c_str(), S_ISDIR(st.st_mode) || (st.st_mode & 0111) != 0 ? 0755 : 0644);
  };
  give(path);
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    give(it->path());
}

}  // namespace

// The pool of uids of SandboxOptions (uid_base, uid_count): which are a live
// run's. Thread-safe.
class Sandbox::UidPool {
 public:
  // `claim`: SandboxOptions::uid_claim ("" = none).
  UidPool(uid_t base, int count, std::string claim)
      : base_(base), claim_(std::move(claim)), taken_(count, kFree) {}
  ~UidPool() {
    for (int fd : taken_)
      if (fd >= 0) close(fd);
  }
  // The lowest uid no run of this process nor (by its claim) of another has,
  // now taken; RESOURCE_EXHAUSTED when none is.
  absl::StatusOr<uid_t> Take() {
    absl::MutexLock lock(&mu_);
    int elsewhere = 0;  // claimed by another process
    for (size_t i = 0; i < taken_.size(); ++i) {
      if (taken_[i] != kFree) continue;
      const uid_t uid = static_cast<uid_t>(base_ + i);
      int fd = -1;
      if (!claim_.empty()) {
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
          return absl::UnavailableError(
              absl::StrCat("cannot claim uid ", uid, ": socket: ", std::strerror(errno)));
        sockaddr_un addr = {};
        addr.sun_family = AF_UNIX;
        const std::string name = absl::StrCat(claim_, uid);  // abstract: after a NUL
        const size_t n = std::min(name.size(), sizeof addr.sun_path - 1);
        std::memcpy(addr.sun_path + 1, name.data(), n);
        if (bind(fd, reinterpret_cast<sockaddr*>(&addr),
                 static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n)) != 0) {
          const int e = errno;
          close(fd);
          if (e != EADDRINUSE)
            return absl::UnavailableError(
                absl::StrCat("cannot claim uid ", uid, ": bind: ", std::strerror(e)));
          ++elsewhere;
          continue;
        }
      }
      taken_[i] = fd;
      return uid;
    }
    return absl::ResourceExhaustedError(absl::StrCat(
        "no uid free for another sandboxed run: all ", taken_.size(), " of the pool ", base_,
        "..", base_ + taken_.size() - 1, " are live runs' (", elsewhere,
        " of another process on this machine; more runs at once than tarock-bothost "
        "--sandbox_uid_count)"));
  }
  // Gives back a uid Take returned.
  void Give(uid_t uid) {
    absl::MutexLock lock(&mu_);
    if (uid < base_ || uid - base_ >= taken_.size()) return;
    int& fd = taken_[uid - base_];
    if (fd >= 0) close(fd);  // the claim goes with it
    fd = kFree;
  }

 private:
  static constexpr int kFree = -2;
  absl::Mutex mu_;
  const uid_t base_;
  const std::string claim_;
  // Per uid of the pool: kFree, else taken (its claim's socket, or -1
  // without claims).
  std::vector<int> taken_ ABSL_GUARDED_BY(mu_);
};

const char* CauseName(SandboxCause cause) {
  switch (cause) {
    case SandboxCause::kExited: return "exited";
    case SandboxCause::kOutOfMemory: return "out of memory";
    case SandboxCause::kTooManyProcesses: return "too many processes";
    case SandboxCause::kFilter: return "killed by the filter";
    case SandboxCause::kOutputLimit: return "output limit";
    case SandboxCause::kCrashed: return "crashed";
    case SandboxCause::kTimedOut: return "timed out";
    case SandboxCause::kKilled: return "killed";
  }
  return "ended";
}

// One run's cgroups (one directory per controller in v1, one in v2): made
// before the start, emptied and removed when the run is over.
class Sandbox::RunState {
 public:
  RunState(CgroupFs& fs, std::vector<std::string> dirs, bool v2, SandboxLimits limits)
      : fs_(fs), dirs_(std::move(dirs)), v2_(v2), limits_(limits) {}
  ~RunState() { Remove(); }

  const std::vector<std::string>& dirs() const { return dirs_; }
  // The run's standard error, finished (copied to its file) by Remove.
  void set_log(std::shared_ptr<StderrLog> log) { log_ = std::move(log); }
  // Hands the folders over: not removed by this one any more.
  std::vector<std::string> Release() { return std::exchange(dirs_, {}); }

  // The run's user outside: its uid of `pool` (null: none to give back), and
  // the host paths of its read-write binds, given back to the host's user by
  // GiveBackUser when `give_binds`.
  void set_user(std::shared_ptr<UidPool> pool, uid_t uid, std::vector<std::string> rw_paths,
                bool give_binds) {
    absl::MutexLock lock(&user_mu_);
    pool_ = std::move(pool);
    uid_ = uid;
    rw_paths_ = std::move(rw_paths);
    give_binds_ = give_binds;
  }
  // Once no process of the run is left (its cgroups are empty): gives its
  // read-write binds back to the host's user and its uid back to the pool;
  // does nothing while one is left, or the second time. Thread-safe.
  void GiveBackUser() {
    absl::MutexLock lock(&user_mu_);
    if (pool_ == nullptr && rw_paths_.empty()) return;
    for (const std::string& dir : dirs_)
      if (!Ids(fs_, dir + "/cgroup.procs").empty()) return;
    if (give_binds_)
      for (const std::string& path : rw_paths_) GiveTree(path, geteuid(), getegid());
    rw_paths_.clear();
    if (pool_ != nullptr) std::exchange(pool_, nullptr)->Give(uid_);
  }

  // Kills whatever is left in the cgroups, gives the run's user back and
  // removes the cgroups.
  void Remove() {
    for (int round = 0; round < 50; ++round) {
      bool any = false;
      for (const std::string& dir : dirs_) {
        for (pid_t pid : Ids(fs_, dir + "/cgroup.procs")) {
          kill(pid, SIGKILL);
          any = true;
        }
      }
      if (!any) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (log_ != nullptr) log_->Finish();
    GiveBackUser();  // before the cgroups go: they tell that no process is left
    for (const std::string& dir : dirs_) fs_.Rmdir(dir);
  }

  SandboxOutcome Classify(int status, bool timed_out) const {
    SandboxOutcome o;
    int sig = 0;
    if (WIFSIGNALED(status)) {
      sig = WTERMSIG(status);  // bwrap itself was killed: by the host
    } else if (WIFEXITED(status)) {
      o.code = WEXITSTATUS(status);
      if (o.code > 128 && o.code < 128 + 65) sig = o.code - 128;  // bwrap: 128 + signal
    }
    o.signal = sig;
    int64_t ooms = 0, pid_max = 0;
    for (const std::string& dir : dirs_) {
      if (v2_) {
        ooms += KeyValue(fs_.Read(dir + "/memory.events"), "oom_kill");
        pid_max += KeyValue(fs_.Read(dir + "/pids.events"), "max");
      } else {
        ooms += KeyValue(fs_.Read(dir + "/memory.oom_control"), "oom_kill");
        pid_max += KeyValue(fs_.Read(dir + "/pids.events"), "max");
      }
    }
    if (timed_out) {
      o.cause = SandboxCause::kTimedOut;
      o.text = "timed out";
    } else if (ooms > 0) {
      o.cause = SandboxCause::kOutOfMemory;
      o.text = absl::StrCat("out of memory (limit ", Mib(limits_.memory_bytes), ")");
    } else if (pid_max > 0) {
      o.cause = SandboxCause::kTooManyProcesses;
      o.text = absl::StrCat("too many processes (limit ", limits_.pids, ")");
    } else if (sig == SIGSYS) {
      o.cause = SandboxCause::kFilter;
      o.text = "killed by the filter (a forbidden system call)";
    } else if (sig == SIGXFSZ) {
      o.cause = SandboxCause::kOutputLimit;
      o.text = absl::StrCat("output limit (", limits_.file_bytes, " bytes per file)");
    } else if (WIFSIGNALED(status)) {
      o.cause = SandboxCause::kKilled;
      o.text = "killed by the host";
    } else if (sig != 0) {
      o.cause = SandboxCause::kCrashed;
      o.text = absl::StrCat("crashed (signal ", sig, ", ", strsignal(sig), ")");
    } else {
      o.cause = SandboxCause::kExited;
      o.text = absl::StrCat("exited with status ", o.code);
    }
    return o;
  }

 private:
  CgroupFs& fs_;
  std::vector<std::string> dirs_;
  bool v2_;
  SandboxLimits limits_;
  std::shared_ptr<StderrLog> log_;
  absl::Mutex user_mu_;
  std::shared_ptr<UidPool> pool_ ABSL_GUARDED_BY(user_mu_);
  uid_t uid_ ABSL_GUARDED_BY(user_mu_) = 0;
  std::vector<std::string> rw_paths_ ABSL_GUARDED_BY(user_mu_);
  bool give_binds_ ABSL_GUARDED_BY(user_mu_) = false;
};

CgroupFs& CgroupFs::Real() {
  static RealCgroupFs* const real = new RealCgroupFs();
  return *real;
}

std::string Sandbox::runs_parent() const {
  return cgroup_version_ == "v2" ? absl::StrCat(options_.cgroup_root, "/", options_.cgroup_name)
                                 : absl::StrCat(options_.cgroup_root, "/memory/", options_.cgroup_name);
}

absl::StatusOr<std::unique_ptr<Sandbox>> Sandbox::CreateCgroupsOnly(SandboxOptions options) {
  auto sandbox = std::unique_ptr<Sandbox>(new Sandbox(std::move(options)));
  if (absl::Status cgroups = sandbox->SetUpCgroups(); !cgroups.ok()) return cgroups;
  return sandbox;
}

absl::Status Sandbox::SetUpCgroups() {
  Sandbox* sandbox = this;
  const SandboxOptions& o = options_;
  CgroupFs& fs = cgroup_fs();
  const std::string root = o.cgroup_root;
  if (fs.Exists(root + "/memory/memory.limit_in_bytes") && fs.Exists(root + "/pids/cgroup.procs") &&
      fs.Exists(root + "/cpu/cpu.cfs_quota_us")) {
    sandbox->cgroup_version_ = "v1";
    for (const char* c : {"memory", "pids", "cpu"}) {
      std::string dir = absl::StrCat(root, "/", c, "/", o.cgroup_name);
      if (const int e = fs.Mkdir(dir); e != 0 && e != EEXIST)
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot create the cgroup ", dir, ": ", std::strerror(e),
            " (the host needs root or a delegated cgroup)"));
    }
  } else {
    std::string v2 = fs.Exists(root + "/cgroup.controllers") ? root : root + "/unified";
    if (o.cgroup_own) {
      // "0::/system.slice/tarock-bothost.service": the v2 line of /proc/self/cgroup.
      std::string own;
      for (absl::string_view line : absl::StrSplit(fs.Read(o.self_cgroup), '\n'))
        if (absl::ConsumePrefix(&line, "0::")) own = std::string(line);
      if (own.empty() || own[0] != '/')
        return absl::FailedPreconditionError(
            "cannot find the host's own cgroup v2 (no \"0::\" line in /proc/self/cgroup)");
      // Started from the leaf an earlier host moved to (a supervisor that
      // moved with it restarts it): the delegated cgroup is the leaf's
      // grandparent, as before.
      const std::string leaf = absl::StrCat("/", o.cgroup_name, "/host");
      if (absl::EndsWith(own, leaf)) own.resize(own.size() - leaf.size());
      if (!own.empty() && own != "/") v2 += own;
    }
    std::string controllers = fs.Read(v2 + "/cgroup.controllers");
    if (controllers.find("memory") == std::string::npos ||
        controllers.find("pids") == std::string::npos)
      return absl::FailedPreconditionError(
          absl::StrCat("no cgroup with memory and pids controllers under ", root,
                       " (v1: memory, pids, cpu mounted; v2: controllers enabled)"));
    sandbox->cgroup_version_ = "v2";
    std::string dir = absl::StrCat(v2, "/", o.cgroup_name);
    if (const int e = fs.Mkdir(dir); e != 0 && e != EEXIST)
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create the cgroup ", dir, ": ", std::strerror(e)));
    if (EnableControllers(fs, v2) == EBUSY) {
      // v2 enables controllers only in a cgroup without processes of its own
      // (the root excepted). A delegated cgroup (a systemd service, a
      // container's private cgroup namespace) holds the host itself, and
      // what started it: all move to the leaf `NAME/host`, as container
      // runtimes do, and the controllers go on.
      if (absl::Status moved = MoveProcesses(fs, v2, dir + "/host"); !moved.ok()) return moved;
      EnableControllers(fs, v2);
    }
    if (EnableControllers(fs, dir) != 0)
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot enable the memory and pids controllers for the runs under ", dir,
          " (cgroup v2 enables them only in a cgroup without processes of its own: run the "
          "host as root in the root cgroup, or give it a delegated subtree)"));
    sandbox->options_.cgroup_root = v2;
  }
  // The ceiling of all runs together, on the runs' parent.
  {
    const bool v2 = sandbox->cgroup_version_ == "v2";
    const std::string parent = v2 ? absl::StrCat(sandbox->options_.cgroup_root, "/", o.cgroup_name)
                                  : absl::StrCat(root, "/memory/", o.cgroup_name);
    const std::string cpu_parent = v2 ? parent : absl::StrCat(root, "/cpu/", o.cgroup_name);
    const std::string memory = o.runs_memory_bytes > 0 ? absl::StrCat(o.runs_memory_bytes)
                                                       : (v2 ? "max" : "-1");
    const int64_t quota = static_cast<int64_t>(o.runs_cpus * 100000);
    // The errno of the last write that failed, for the message.
    int failed = 0;
    auto write = [&](const std::string& path, const std::string& text) {
      const int e = fs.Write(path, text);
      if (e != 0) failed = e;
      return e == 0;
    };
    bool ok = write(parent + (v2 ? "/memory.max" : "/memory.limit_in_bytes"), memory);
    if (v2) {
      ok &= write(cpu_parent + "/cpu.max", quota > 0 ? absl::StrCat(quota, " 100000") : "max 100000") ||
            o.runs_cpus <= 0;
    } else {
      write(cpu_parent + "/cpu.cfs_period_us", "100000");
      ok &= write(cpu_parent + "/cpu.cfs_quota_us", quota > 0 ? absl::StrCat(quota) : "-1");
      // The runs together weigh as many ordinary processes as the cores they
      // may use (one cgroup at the root weighs one process: cpu.shares 1024).
      const int cores = o.runs_cpus > 0 ? static_cast<int>(std::ceil(o.runs_cpus))
                                        : static_cast<int>(std::thread::hardware_concurrency());
      write(cpu_parent + "/cpu.shares", absl::StrCat(1024 * std::max(1, cores)));
    }
    if (!ok)
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot set the ceiling of all runs (memory ", memory, ", CPU ", o.runs_cpus,
          " cores) on ", parent, ": ", std::strerror(failed)));
  }
  // Runs left by a host that was killed (SIGKILL leaves no time to clean up):
  // their processes died with their bwrap; their cgroups are removed here.
  {
    // (folder, prefix of a run's name in it)
    std::vector<std::pair<std::string, std::string>> parents;
    if (sandbox->cgroup_version_ == "v1") {
      for (const char* c : {"memory", "pids", "cpu"})  // cpu: as hosts before 2026-11-27 made them
        parents.push_back({absl::StrCat(root, "/", c, "/", o.cgroup_name), ""});
      parents.push_back({absl::StrCat(root, "/cpu"), o.cgroup_name + "-"});
    } else {
      parents.push_back({absl::StrCat(sandbox->options_.cgroup_root, "/", o.cgroup_name), ""});
    }
    for (const auto& [parent, prefix] : parents) {
      for (std::string name : fs.ListDirs(parent)) {
        const std::string path = absl::StrCat(parent, "/", name);
        if (name.rfind(prefix, 0) != 0) continue;
        name = name.substr(prefix.size());
        std::vector<std::string> parts = absl::StrSplit(name, '-');
        int pid = 0;
        if (parts.size() != 3 || parts[0] != "run" || !absl::SimpleAtoi(parts[1], &pid)) continue;
        if (pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH) continue;
        RunState(fs, {path}, sandbox->cgroup_version_ == "v2", {}).Remove();
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Sandbox>> Sandbox::Create(SandboxOptions options) {
  auto sandbox = std::unique_ptr<Sandbox>(new Sandbox(std::move(options)));
  // bwrap must run (and unprivileged user namespaces must work for `uid`):
  // checked by running `true` in a sandbox of its own below.
  // The pool of uids: each live run a user of its own outside.
  if (sandbox->options_.uid_count < 0)
    return absl::InvalidArgumentError("the sandbox's uid_count must be 0 or more");
  if (sandbox->options_.uid_count > 0) {
    if (geteuid() != 0)
      return absl::FailedPreconditionError(
          "the sandbox's pool of uids needs root (to run each run as a user of its own); "
          "without root, uid_count 0 (--sandbox_uid_count=0) runs every run as the host's own "
          "user, all sharing its counts per user (docs/security.md)");
    if (absl::Status free = CheckUidPool(sandbox->options_.uid_base, sandbox->options_.uid_count);
        !free.ok())
      return free;
    sandbox->uids_ = std::make_shared<UidPool>(
        sandbox->options_.uid_base, sandbox->options_.uid_count, sandbox->options_.uid_claim);
  }
  absl::StatusOr<std::string> filter = BuildFilter();
  if (!filter.ok()) return filter.status();
  sandbox->filter_ = *std::move(filter);
  if (absl::Status cgroups = sandbox->SetUpCgroups(); !cgroups.ok()) return cgroups;
  const SandboxOptions& o = sandbox->options_;
  // A host running as root makes each run's network namespace itself (in the
  // child, before bwrap): its loopback stays down, since bwrap brings up the
  // loopback of the namespaces it makes. Without root, bwrap's (loopback up,
  // reachable only by io_uring and AF_INET sockets, which the filter refuses).
  sandbox->own_netns_ = geteuid() == 0;
  sandbox->cpus_ = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  // The read-only system view: /usr but /usr/local (the host's own programs,
  // this one's install included: an empty folder instead).
  std::vector<std::string>& a = sandbox->system_args_;
  a = {"--ro-bind", "/usr", "/usr"};
  if (Exists("/usr/local")) a.insert(a.end(), {"--size", "4096", "--tmpfs", "/usr/local"});
  for (const char* link : {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
    char target[4096];
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 0) {
      a.insert(a.end(), {"--symlink", std::string(target, n), link});
    } else if (Exists(link)) {
      a.insert(a.end(), {"--ro-bind", link, link});
    }
  }
  for (const char* etc : {"/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime"})
    if (Exists(etc)) a.insert(a.end(), {"--ro-bind", etc, etc});
  // Try it once: the host learns now, not at its first match, that it cannot.
  SandboxSpec probe;
  probe.argv = {"/bin/true"};
  probe.limits.pids = 8;
  char log[] = "/tmp/tarock-sandbox-probe.XXXXXX";
  int log_fd = mkstemp(log);
  if (log_fd >= 0) {
    close(log_fd);
    chmod(log, 0644);
    probe.stderr_path = log;
  }
  absl::StatusOr<SandboxOutcome> tried = sandbox->Run(probe, absl::Seconds(20));
  std::string said;
  if (log_fd >= 0) {
    said = std::string(absl::StripAsciiWhitespace(ReadFile(log)));
    unlink(log);
  }
  if (!tried.ok()) return tried.status();
  if (tried->cause != SandboxCause::kExited || tried->code != 0)
    return absl::FailedPreconditionError(absl::StrCat(
        "the sandbox does not work here (", o.bwrap, " running /bin/true: ", tried->text,
        said.empty() ? "" : ": ", said.substr(0, 300),
        "): bwrap and unprivileged user namespaces are needed"));
  return sandbox;
}

Sandbox::~Sandbox() = default;

absl::StatusOr<std::shared_ptr<Sandbox::RunState>> Sandbox::MakeRunState(
    const SandboxLimits& l) const {
  // The run's cgroups.
  const std::string run = absl::StrCat("run-", getpid(), "-", ++g_run_counter);
  std::vector<std::string> dirs;
  const bool v2 = cgroup_version_ == "v2";
  if (v2) {
    dirs.push_back(absl::StrCat(options_.cgroup_root, "/", options_.cgroup_name, "/", run));
  } else {
    for (const char* c : {"memory", "pids"})
      dirs.push_back(absl::StrCat(options_.cgroup_root, "/", c, "/", options_.cgroup_name, "/", run));
    // The cpu cgroup under the runs' cpu parent, whose quota is the ceiling
    // of all runs together and whose weight is that of as many ordinary
    // processes as it has cores (Create). Under a parent of default weight
    // every hosted bot of the machine together weighed one process, and a
    // woken bot waited behind the referee's and the host's threads
    // (docs/benchmarks.md, "Hosted bots").
    dirs.push_back(absl::StrCat(options_.cgroup_root, "/cpu/", options_.cgroup_name, "/", run));
  }
  for (const std::string& dir : dirs)
    if (const int e = cgroup_fs().Mkdir(dir); e != 0)
      return absl::UnavailableError(absl::StrCat("cannot create the cgroup ", dir, ": ",
                                                 std::strerror(e)));
  auto state = std::make_shared<RunState>(cgroup_fs(), dirs, v2, l);
  // No run's quota above the ceiling of all runs (v1 refuses a child's quota
  // above its parent's).
  const double cpus = options_.runs_cpus > 0 && (l.cpus <= 0 || l.cpus > options_.runs_cpus)
                          ? options_.runs_cpus
                          : l.cpus;
  const int64_t quota = static_cast<int64_t>(cpus * 100000);
  auto write = [&fs = cgroup_fs()](const std::string& path, const std::string& text) {
    return fs.Write(path, text) == 0;
  };
  bool ok = true;
  if (v2) {
    ok &= write(dirs[0] + "/memory.max", absl::StrCat(l.memory_bytes));
    write(dirs[0] + "/memory.swap.max", "0");
    ok &= write(dirs[0] + "/pids.max", absl::StrCat(l.pids));
    write(dirs[0] + "/cpu.max", quota > 0 ? absl::StrCat(quota, " 100000") : "max 100000");
  } else {
    ok &= write(dirs[0] + "/memory.limit_in_bytes", absl::StrCat(l.memory_bytes));
    write(dirs[0] + "/memory.memsw.limit_in_bytes", absl::StrCat(l.memory_bytes));
    ok &= write(dirs[1] + "/pids.max", absl::StrCat(l.pids));
    write(dirs[2] + "/cpu.cfs_period_us", "100000");
    ok &= write(dirs[2] + "/cpu.cfs_quota_us", quota > 0 ? absl::StrCat(quota) : "-1");
  }
  if (!ok) return absl::UnavailableError("cannot set the cgroup limits of a run");
  return state;
}

absl::StatusOr<std::vector<std::string>> Sandbox::MakeRunCgroups(const SandboxLimits& limits) const {
  absl::StatusOr<std::shared_ptr<RunState>> state = MakeRunState(limits);
  if (!state.ok()) return state.status();
  return (*state)->Release();
}

SandboxOutcome Sandbox::ClassifyRun(std::vector<std::string> dirs, const SandboxLimits& limits,
                                    int status, bool timed_out) const {
  RunState state(cgroup_fs(), std::move(dirs), cgroup_version_ == "v2", limits);
  SandboxOutcome outcome = state.Classify(status, timed_out);
  state.Release();  // the caller's still
  return outcome;
}

absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> Sandbox::StartRun(
    const SandboxSpec& spec, std::shared_ptr<RunState>* state_out, int* release_fd) const {
  if (spec.argv.empty()) return absl::InvalidArgumentError("no command to run");
  const SandboxLimits& l = spec.limits;
  // The run's cgroups, with its limits.
  absl::StatusOr<std::shared_ptr<RunState>> made = MakeRunState(l);
  if (!made.ok()) return made.status();
  std::shared_ptr<RunState> state = *std::move(made);
  const std::vector<std::string>& dirs = state->dirs();
  // Its user outside: a uid of the pool of its own (and the gid of the same
  // number), else `uid`/`gid` (root) or the host's own user. Given back by
  // the state once the run's processes are all gone (on failure below, as the
  // state is destroyed).
  const bool root = geteuid() == 0;
  uid_t uid = root ? options_.uid : getuid();
  gid_t gid = root ? options_.gid : getgid();
  if (uids_ != nullptr) {
    absl::StatusOr<uid_t> taken = uids_->Take();
    if (!taken.ok()) return taken.status();
    uid = *taken;
    gid = static_cast<gid_t>(*taken);
  }
  {
    std::vector<std::string> rw_paths;
    for (const auto& [from, to] : spec.rw_binds) rw_paths.push_back(from);
    state->set_user(uids_, uid, rw_paths, root);
  }
  // A read-write bind is the run's to write while it runs.
  if (root) {
    for (const auto& [from, to] : spec.rw_binds)
      if (chown(from.c_str(), uid, gid) != 0)
        return absl::UnavailableError(absl::StrCat("cannot give ", from, " to the run's user ",
                                                   uid, ": ", std::strerror(errno)));
  }
  // Its standard error: a memfd of its own, copied to the log at its end.
  std::shared_ptr<StderrLog> log;
  if (!spec.stderr_path.empty()) {
    absl::StatusOr<std::shared_ptr<StderrLog>> opened = StderrLog::Open(spec.stderr_path, l.file_bytes);
    if (!opened.ok()) return opened.status();
    log = *std::move(opened);
    state->set_log(log);
  }
  const bool v2 = cgroup_version_ == "v2";

  // bwrap's command line.
  std::vector<std::string> argv = {options_.bwrap,
                                   "--unshare-ipc", "--unshare-pid", "--unshare-uts",
                                   "--unshare-cgroup-try",
                                   "--unshare-user",
                                   // The program is PID 1 of its PID namespace:
                                   // no bwrap process (whose /proc/PID/environ
                                   // and cmdline are the host's) is visible in it.
                                   "--as-pid-1",
                                   "--die-with-parent",
                                   "--new-session",
                                   "--disable-userns",
                                   "--cap-drop", "ALL",
                                   "--uid", absl::StrCat(options_.uid),
                                   "--gid", absl::StrCat(options_.gid),
                                   "--hostname", "sandbox",
                                   "--clearenv"};
  if (!own_netns_) argv.push_back("--unshare-net");
  argv.insert(argv.end(), system_args_.begin(), system_args_.end());
  argv.insert(argv.end(), {"--proc", "/proc", "--dev", "/dev", "--size",
                           absl::StrCat(l.tmpfs_bytes), "--tmpfs", "/tmp"});
  // The machine-wide counters of /proc: neutral copies (each a memfd passed
  // as a descriptor of its own, from 1001 on), and /proc/pressure,
  // /proc/sys (file-nr, inode-nr, dentry-state, ...) and the folders below
  // empty.
  std::vector<std::pair<int, int>> data_fds;  // (memfd here, number in bwrap)
  auto close_data = [&data_fds] {
    for (const auto& [fd, as] : data_fds) close(fd);
  };
  for (const auto& [path, text] : NeutralProc(l, cpus_)) {
    int fd = DataFd(text);
    if (fd < 0) {
      close_data();
      return absl::InternalError("cannot make the sandbox's /proc files");
    }
    const int as = 1001 + static_cast<int>(data_fds.size());
    data_fds.push_back({fd, as});
    argv.insert(argv.end(), {"--ro-bind-data", absl::StrCat(as), path});
  }
  // /proc/irq (each interrupt's count), /proc/fs (ext4's free blocks per
  // group), /proc/driver, /proc/acpi, /proc/bus, /proc/tty, /proc/scsi: the
  // machine's, none a program needs.
  for (const char* dir : {"/proc/pressure", "/proc/sys", "/proc/irq", "/proc/fs", "/proc/driver",
                          "/proc/acpi", "/proc/bus", "/proc/tty", "/proc/scsi"})
    if (Exists(dir)) argv.insert(argv.end(), {"--size", "4096", "--tmpfs", dir, "--remount-ro", dir});
  for (const auto& [from, to] : spec.ro_binds) argv.insert(argv.end(), {"--ro-bind", from, to});
  for (const auto& [from, to] : spec.rw_binds) argv.insert(argv.end(), {"--bind", from, to});
  argv.insert(argv.end(), {"--remount-ro", "/"});  // bwrap's own root is a tmpfs
  // /dev (and /dev/shm in it) read-only: /tmp is the one writable place
  // (with the spec's read-write binds), bounded by its size.
  argv.insert(argv.end(), {"--remount-ro", "/dev"});
  if (Exists("/usr/local")) argv.insert(argv.end(), {"--remount-ro", "/usr/local"});
  argv.insert(argv.end(), {"--setenv", "PATH", "/usr/bin:/bin", "--setenv",
                           "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8"});
  for (const std::string& e : spec.env) {
    size_t eq = e.find('=');
    if (eq == std::string::npos) continue;
    argv.insert(argv.end(), {"--setenv", e.substr(0, eq), e.substr(eq + 1)});
  }
  argv.insert(argv.end(), {"--chdir", spec.cwd, "--seccomp", "1000"});
  // Held: bwrap waits on fd 999 just before it runs the program (1000 is the
  // filter, 1001 on the data files above).
  int hold[2] = {-1, -1};
  if (release_fd != nullptr) {
    // A socket pair, not a pipe: Release's send cannot raise SIGPIPE.
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, hold) != 0) {
      close_data();
      return absl::InternalError("socketpair failed");
    }
    argv.insert(argv.end(), {"--block-fd", "999"});
  }
  argv.push_back("--");
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());

  // The filter travels in a memfd of its own (bwrap reads it to the end).
  int filter_fd = memfd_create("tarock-seccomp", MFD_CLOEXEC);
  auto close_hold = [&hold] {
    for (int& f : hold)
      if (f >= 0) close(std::exchange(f, -1));
  };
  if (filter_fd < 0) {
    close_data();
    close_hold();
    return absl::InternalError("memfd_create failed");
  }
  if (write(filter_fd, filter_.data(), filter_.size()) != static_cast<ssize_t>(filter_.size())) {
    close(filter_fd);
    close_data();
    close_hold();
    return absl::InternalError("cannot write the seccomp program");
  }
  lseek(filter_fd, 0, SEEK_SET);

  // What the child does between fork and exec, prepared here.
  std::vector<int> procs_fds;
  for (const std::string& dir : dirs) {
    int fd = open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      for (int f : procs_fds) close(f);
      close(filter_fd);
      close_data();
      close_hold();
      return absl::UnavailableError(absl::StrCat("cannot open ", dir, "/cgroup.procs"));
    }
    procs_fds.push_back(fd);
  }
  const rlim_t nofile = l.open_files;
  const rlim_t fsize = l.file_bytes;
  stdio::ChildSetup setup;
  setup.pass_fds = data_fds;
  setup.pass_fds.push_back({filter_fd, 1000});
  if (hold[0] >= 0) setup.pass_fds.push_back({hold[0], 999});
  constexpr int kStderrAs = 998;  // the log's memfd, moved to 2 in the child
  if (log != nullptr) setup.pass_fds.push_back({log->child_fd(), kStderrAs});
  const int stderr_as = log != nullptr ? kStderrAs : -1;
  // bwrap starts with an empty environment: the host's (a token, whatever the
  // operator exported) reaches no process of the run, bwrap's own included.
  setup.env.emplace();
  const bool own_netns = own_netns_;
  setup.in_child = [procs_fds, uid, gid, nofile, fsize, own_netns, stderr_as]() -> bool {
    if (stderr_as >= 0) {
      if (dup2(stderr_as, 2) < 0) return false;
      close(stderr_as);
    }
    // Join the run's cgroups (as root, before dropping to the user).
    char pid[24];
    int len = 0;
    {
      long v = static_cast<long>(getpid());
      char rev[24];
      int r = 0;
      do {
        rev[r++] = static_cast<char>('0' + v % 10);
        v /= 10;
      } while (v > 0);
      while (r > 0) pid[len++] = rev[--r];
    }
    for (int fd : procs_fds)
      if (write(fd, pid, len) != len) return false;
    struct rlimit nf = {nofile, nofile};
    struct rlimit fs = {fsize, fsize};
    struct rlimit core = {0, 0};
    if (setrlimit(RLIMIT_NOFILE, &nf) != 0) return false;
    if (setrlimit(RLIMIT_FSIZE, &fs) != 0) return false;
    setrlimit(RLIMIT_CORE, &core);
    signal(SIGXFSZ, SIG_IGN);  // writes past the limit fail instead of killing
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // the host may block some
    // The run's network namespace, made as root: nothing in it, its
    // loopback down, and no capability over it inside (bwrap's user
    // namespace is a child of the host's).
    if (own_netns && unshare(CLONE_NEWNET) != 0) return false;
    if (getuid() == 0 || geteuid() == 0) {
      if (setgroups(0, nullptr) != 0) return false;
      if (setgid(gid) != 0) return false;
      if (setuid(uid) != 0) return false;
    }
    if (getuid() != uid && getuid() == 0) return false;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
    return true;
  };
  auto shared = state;
  // As ChildProcess words it ("it exited with status 1"): "it was stopped:
  // out of memory (limit 512 MiB)".
  setup.describe_exit = [shared](int status) {
    SandboxOutcome o = shared->Classify(status, false);
    return o.cause == SandboxCause::kExited ? o.text : "was stopped: " + o.text;
  };
  // Every thread of the run, bwrap's included, for ChildProcess::BeginTurn.
  setup.threads = [list = v2 ? dirs[0] + "/cgroup.threads" : dirs[2] + "/tasks",
                   &fs = cgroup_fs()]() {
    return Ids(fs, list);
  };
  // The run's log is copied from its memfd once bwrap is reaped (Stop, at
  // the latest), so a caller that stopped the run reads it whole.
  // Its uid goes back to the pool then too, when no process of the run is
  // left (else when the state is removed, its stragglers killed).
  setup.on_reaped = [log, shared] {
    if (log != nullptr) log->Flush();
    shared->GiveBackUser();
  };
  absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> child =
      stdio::ChildProcess::Start(argv, "/dev/null", std::move(setup));
  if (log != nullptr) log->CloseChildEnd();
  for (int f : procs_fds) close(f);
  close(filter_fd);
  close_data();
  if (hold[0] >= 0) close(std::exchange(hold[0], -1));
  if (!child.ok()) {
    close_hold();
    return child.status();
  }
  if (state_out != nullptr) *state_out = state;
  if (release_fd != nullptr) *release_fd = std::exchange(hold[1], -1);
  return child;
}

absl::StatusOr<Sandbox::HeldRun> Sandbox::StartHeld(const SandboxSpec& spec) const {
  int release_fd = -1;
  absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> child = StartRun(spec, nullptr, &release_fd);
  if (!child.ok()) return child.status();
  return HeldRun(*std::move(child), release_fd);
}

Sandbox::HeldRun::~HeldRun() {
  child_.reset();  // stopped first: the program never runs
  if (release_fd_ >= 0) close(release_fd_);
}

absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> Sandbox::HeldRun::Release() {
  if (child_ == nullptr) return absl::FailedPreconditionError("released twice");
  const char go = 'g';
  const bool sent = release_fd_ >= 0 && send(release_fd_, &go, 1, MSG_NOSIGNAL) == 1;
  if (release_fd_ >= 0) close(std::exchange(release_fd_, -1));
  if (!sent || child_->exited())
    return absl::UnavailableError("the run held ahead ended before it was released");
  return std::move(child_);
}

absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> Sandbox::Start(const SandboxSpec& spec) const {
  return StartRun(spec, nullptr);
}

absl::StatusOr<SandboxOutcome> Sandbox::Run(const SandboxSpec& spec, absl::Duration wall_time,
                                            std::string* output, size_t max_output) const {
  std::shared_ptr<RunState> state;
  absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> child = StartRun(spec, &state);
  if (!child.ok()) return child.status();
  stdio::ChildProcess& c = **child;
  c.CloseInput();
  const absl::Time deadline = absl::Now() + wall_time;
  bool timed_out = false;
  std::string line;
  while (true) {
    stdio::ChildProcess::Io io = c.ReadLine(deadline, 64 << 10, &line);
    if (io == stdio::ChildProcess::Io::kClosed) break;
    if (io == stdio::ChildProcess::Io::kTimeout) {
      timed_out = true;
      break;
    }
    if (output != nullptr && output->size() < max_output) {
      output->append(line.substr(0, max_output - output->size()));
      if (output->size() < max_output) output->push_back('\n');
    }
  }
  // Its output closed: give it until the deadline to exit.
  while (!timed_out && !c.exited()) {
    if (absl::Now() >= deadline) {
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  c.Stop(absl::ZeroDuration());
  SandboxOutcome outcome = state->Classify(c.wait_status(), timed_out);
  child->reset();
  state->Remove();
  return outcome;
}

}  // namespace tarock::bothost
