// `tarock-bothost`: runs hosted bots for an arena (docs/hosting.md).
//
//   tarock-bothost --arena HOST:PORT --work_dir DIR [--name NAME] [--capacity N]
//                  [--python_sdk DIR] [--cpp_sdk PREFIX] [--bot_memory_mb 512] ...
//
// The host token comes from --host_token_file (systemd's LoadCredential:
// $CREDENTIALS_DIRECTORY/tarock-host-token by default), --host_token or
// TAROCK_HOST_TOKEN; whichever it was, the host erases it from its own
// environment and command line at start (their memory, which
// /proc/PID/environ and /proc/PID/cmdline show), before any thread or sandbox
// starts. SIGTERM or SIGINT ends it within 2 s. Needs bwrap, unprivileged user namespaces and cgroups it may
// create (root, or a delegated cgroup): it says what is missing and exits 1.
// `tarock-bothost --check` tries the sandbox and its limits where it runs.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "arena/bothost/bothost.h"
#include "arena/bothost/sandbox/self_check.h"
#include "referee/tools/program_usage.h"
#include "sdk/stdio/child_process.h"
#include "tarock/transport/transport.h"

ABSL_FLAG(std::string, arena, "127.0.0.1:7700", "HOST:PORT of the arena (its --listen port)");
ABSL_FLAG(std::string, host_token, "",
          "the host token from `tarock-arena-cli hosts add NAME` (default: --host_token_file, "
          "else $TAROCK_HOST_TOKEN); erased from the host's command line and environment at start");
ABSL_FLAG(std::string, host_token_file, "",
          "a file holding the host token (its first line; default: "
          "$CREDENTIALS_DIRECTORY/tarock-host-token when there, as systemd's LoadCredential "
          "puts it)");
ABSL_FLAG(std::string, name, "",
          "optional: a label this host sends with its syncs; the arena knows the host by the name "
          "given to `tarock-arena-cli hosts add NAME` for its token, and the log says that name");
ABSL_FLAG(std::string, work_dir, "bothost-data",
          "versions unpacked and built here, and each seat's standard error (logs/BOT/)");
ABSL_FLAG(std::string, python_sdk, "",
          "folder holding the Python SDK package tarock_bot (default: ../python beside this "
          "program, as built or installed)");
ABSL_FLAG(std::string, cpp_sdk, "",
          "an installed C++ SDK (PREFIX with include/, lib/ and link.txt) for C++ bots; "
          "\"\": this host builds no C++ bots");
ABSL_FLAG(int, capacity, 0, "bots this host holds at most (0: any)");
ABSL_FLAG(int64_t, max_upload_bytes, int64_t{32} << 20,
          "largest version this host fetches (bytes as uploaded; at least the arena's "
          "--max_upload_bytes)");
ABSL_FLAG(int64_t, max_unpacked_bytes, int64_t{64} << 20,
          "largest version this host unpacks (bytes; at least the arena's --max_unpacked_bytes)");
ABSL_FLAG(int, spares, 2,
          "sandboxes of each held bot made ahead of time, each held just before its program "
          "starts (no uploaded code runs before a seat); a seat releases one (each plays one "
          "seat only; 0: make each when its seat comes)");
ABSL_FLAG(int, bot_memory_mb, 512, "memory of one bot process (cgroup)");
ABSL_FLAG(double, bot_cpus, 1.0, "CPU of one bot process in cores (CFS quota)");
ABSL_FLAG(int, bot_pids, 64, "processes and threads of one bot process");
ABSL_FLAG(int, bot_tmpfs_mb, 64, "the private /tmp of one bot process");
ABSL_FLAG(int, bot_stderr_kb, 1024, "bytes a bot may write to one file, its standard error log included");
ABSL_FLAG(int, build_memory_mb, 2048, "memory of one build");
ABSL_FLAG(double, build_cpus, 1.0, "CPU of one build in cores");
ABSL_FLAG(int, build_pids, 256, "processes and threads of one build");
ABSL_FLAG(int, build_timeout_s, 300, "wall time of one C++ build");
ABSL_FLAG(int, check_timeout_s, 60, "wall time of checking one Python bot or script");
ABSL_FLAG(int, max_builds, 2,
          "builds and checks of uploads at once on this host; more wait in a queue");
ABSL_FLAG(int, max_builds_per_owner, 1,
          "builds and checks at once of one owner's bots on this host; more wait in a queue");
ABSL_FLAG(int, runs_memory_mb, 0,
          "memory of all sandboxed runs together, bots and builds (their parent cgroup); "
          "0: three quarters of this machine's memory");
ABSL_FLAG(double, runs_cpus, 0,
          "CPU of all sandboxed runs together in cores (their parent cgroup's quota); "
          "0: three quarters of this machine's CPUs, at least 1");
ABSL_FLAG(int, switch_wait_s, 30,
          "a new version waits for its bot to hold no seat at most this long, then switches");
ABSL_FLAG(int, seat_log_kb, 64,
          "the end of each seat's standard error sent to the arena when the seat ends, for "
          "the bot's owner (`tarock-arena-cli match stderr`); the arena keeps at most 64 KiB");
ABSL_FLAG(bool, direct_route, true,
          "join the referee for each seat when the arena offers it (its --dial_in_route; "
          "the decision then skips the arena's relay); false: every seat relayed by the arena");
ABSL_FLAG(bool, one_cpu_turns, false,
          "keep each decision's request and answer on one CPU: the bot's process is pinned to "
          "the CPU of the host's thread that asks it; a decision that takes longer than 1 ms "
          "frees it to every CPU. Faster on a host whose CPUs are otherwise idle, much slower "
          "beside CPU-bound processes (docs/hosting.md)");
ABSL_FLAG(std::string, bwrap, "bwrap", "the bubblewrap program");
ABSL_FLAG(std::string, cgroup_root, "/sys/fs/cgroup",
          "where the cgroup hierarchies are mounted: v1 (memory, pids, cpu) when those are "
          "there, else v2 (this folder, or its unified/)");
ABSL_FLAG(bool, cgroup_own, false,
          "cgroup v2: make the bots' cgroups under this host's own cgroup (a subtree delegated "
          "to it: systemd's Delegate=yes) instead of at the hierarchy's root; the host and "
          "whatever shares its cgroup move to the leaf tarock-bothost/host (docs/hosting.md)");
ABSL_FLAG(int64_t, sandbox_uid_base, 2000000000,
          "the first uid (and gid) of the sandbox's pool: each sandboxed run is a user of its "
          "own outside while it lives (inside it is 65534), so no two runs share the kernel's "
          "counts per user; no account, group or /etc/subuid, /etc/subgid range may be in the "
          "pool (hosts of one machine skip each other's uids)");
ABSL_FLAG(int, sandbox_uid_count, 1024,
          "uids in the sandbox's pool: the runs (bots, spares, builds) this host has at once at "
          "most; a start beyond fails. 0: no pool, every run is uid 65534 outside (or the "
          "host's own user when it is not root), all sharing one user's counts (docs/security.md)");
ABSL_FLAG(bool, check, false,
          "check the sandbox here and exit: start a sandboxed program, and one past each limit "
          "(memory, processes, files, CPU, network), print a line for each, exit 0 when all "
          "hold (needs no arena and no token)");

namespace {

std::atomic<bool> g_stop{false};

// Overwrites every occurrence of `secret` in the NUL-terminated `text` (in
// place: the process's original environment or argument block, which
// /proc/PID/environ and /proc/PID/cmdline read).
void Erase(char* text, const std::string& secret) {
  if (text == nullptr || secret.size() < 8) return;  // tokens are long; never mangle more
  for (char* at = std::strstr(text, secret.c_str()); at != nullptr;
       at = std::strstr(at + secret.size(), secret.c_str()))
    std::memset(at, 'x', secret.size());
}

// The host token, from --host_token, --host_token_file (or the systemd
// credential) or $TAROCK_HOST_TOKEN, in that order. Then no trace of it is
// left in the environment or the command line: TAROCK_HOST_TOKEN is unset and
// its value, and the token wherever it stands in the original argument and
// environment blocks, overwritten. "" with `*error` set when a file named
// cannot be read.
std::string TakeHostToken(int argc, char** argv, std::string* error) {
  std::string token = absl::GetFlag(FLAGS_host_token);
  std::string file = absl::GetFlag(FLAGS_host_token_file);
  if (file.empty()) {
    const char* creds = std::getenv("CREDENTIALS_DIRECTORY");
    if (creds != nullptr && std::filesystem::exists(absl::StrCat(creds, "/tarock-host-token")))
      file = absl::StrCat(creds, "/tarock-host-token");
  }
  if (token.empty() && !file.empty()) {
    std::ifstream in(file);
    if (!in) {
      *error = absl::StrCat("cannot read the host token file ", file);
      return "";
    }
    std::getline(in, token);
    while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  }
  if (token.empty()) token = tarock::transport::SecretFromFlagOrEnv("", "TAROCK_HOST_TOKEN");
  for (const char* name : {"TAROCK_HOST_TOKEN"}) {
    if (char* value = std::getenv(name); value != nullptr) std::memset(value, 'x', std::strlen(value));
    unsetenv(name);
  }
  for (int i = 0; i < argc; ++i) Erase(argv[i], token);
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) Erase(*e, token);
  return token;
}

// --check: the sandbox's self-check (arena/bothost/sandbox/self_check.h).
int CheckSandbox(const tarock::bothost::SandboxOptions& options) {
  absl::StatusOr<std::unique_ptr<tarock::bothost::Sandbox>> sandbox =
      tarock::bothost::Sandbox::Create(options);
  if (!sandbox.ok()) {
    std::printf("FAIL the sandbox: %s\n", std::string(sandbox.status().message()).c_str());
    return 1;
  }
  std::printf("ok   the sandbox: bwrap, seccomp, cgroup %s; bots' cgroups under %s\n",
              (*sandbox)->cgroup_version().c_str(), (*sandbox)->runs_parent().c_str());
  std::fflush(stdout);
  int failed = 0;
  for (const tarock::bothost::SelfCheckLine& line : tarock::bothost::CheckSandbox(**sandbox)) {
    std::printf("%s %s\n", line.ok ? "ok  " : "FAIL", line.text.c_str());
    std::fflush(stdout);
    failed += line.ok ? 0 : 1;
  }
  std::printf(failed == 0 ? "the sandbox holds here\n" : "%d checks failed\n", failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "tarock-bothost --arena HOST:PORT [--host_token T] [--work_dir DIR] [FLAGS]\n"
      "       tarock-bothost --check [--cgroup_own]\n"
      "Builds and runs an arena's hosted bots in a sandbox (docs/hosting.md); --check tries "
      "the sandbox and its limits here and exits.");
  tarock::ParseCommandLine(argc, argv);
  // The token first, before any thread starts (setenv and the environment
  // are not thread-safe) and before any sandbox could look.
  std::string token_error;
  const std::string token = TakeHostToken(argc, argv, &token_error);
  // SIGINT/SIGTERM are taken by one thread (every other thread blocks them;
  // the sandboxed programs get them unblocked).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  std::thread([signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    g_stop.store(true);
    // The host ends within 2 s of the signal: it stops its players and
    // builders in order when it can; a build or a run that holds it longer
    // is killed with every process of its sandbox (their bwrap dies, and the
    // sandbox with it; the next start removes the runs' cgroups).
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    tarock::stdio::ChildProcess::KillAll();
    std::fprintf(stderr, "tarock-bothost: stopped (signal %d; its runs killed)\n", sig);
    std::fflush(stderr);
    _exit(0);
  }).detach();

  tarock::bothost::SandboxOptions sandbox_options;
  sandbox_options.bwrap = absl::GetFlag(FLAGS_bwrap);
  sandbox_options.cgroup_root = absl::GetFlag(FLAGS_cgroup_root);
  sandbox_options.cgroup_own = absl::GetFlag(FLAGS_cgroup_own);
  {
    const int64_t base = absl::GetFlag(FLAGS_sandbox_uid_base);
    if (base <= 0 || base >= int64_t{0xffffffff}) {
      std::fprintf(stderr, "tarock-bothost: --sandbox_uid_base must be 1..4294967294\n");
      return 2;
    }
    sandbox_options.uid_base = static_cast<uid_t>(base);
    sandbox_options.uid_count = absl::GetFlag(FLAGS_sandbox_uid_count);
  }
  sandbox_options.runs_memory_bytes = int64_t{absl::GetFlag(FLAGS_runs_memory_mb)} << 20;
  if (sandbox_options.runs_memory_bytes <= 0)
    sandbox_options.runs_memory_bytes =
        static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) / 4 * 3;
  sandbox_options.runs_cpus = absl::GetFlag(FLAGS_runs_cpus);
  if (sandbox_options.runs_cpus <= 0)
    sandbox_options.runs_cpus = std::max(1.0, 0.75 * std::thread::hardware_concurrency());
  if (absl::GetFlag(FLAGS_check)) return CheckSandbox(sandbox_options);

  tarock::bothost::BotHostOptions o;
  o.arena = absl::GetFlag(FLAGS_arena);
  o.token = token;
  if (!token_error.empty()) {
    std::fprintf(stderr, "tarock-bothost: %s\n", token_error.c_str());
    return 2;
  }
  if (o.token.empty()) {
    std::fprintf(stderr, "tarock-bothost: no host token: give --host_token_file, --host_token or "
                         "set TAROCK_HOST_TOKEN (from `tarock-arena-cli hosts add NAME`)\n");
    return 2;
  }
  o.name = absl::GetFlag(FLAGS_name);
  o.work_dir = std::filesystem::absolute(absl::GetFlag(FLAGS_work_dir)).string();
  o.python_sdk = absl::GetFlag(FLAGS_python_sdk);
  if (o.python_sdk.empty()) {
    std::error_code ec;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    for (const char* rel : {"../python", "../share/tarock/python"}) {
      std::filesystem::path p = self.parent_path() / rel;
      if (std::filesystem::exists(p / "tarock_bot")) {
        o.python_sdk = std::filesystem::canonical(p).string();
        break;
      }
    }
  }
  o.cpp_sdk = absl::GetFlag(FLAGS_cpp_sdk);
  o.capacity = absl::GetFlag(FLAGS_capacity);
  o.package.max_upload_bytes = std::max<int64_t>(1, absl::GetFlag(FLAGS_max_upload_bytes));
  o.package.max_unpacked_bytes = std::max<int64_t>(1, absl::GetFlag(FLAGS_max_unpacked_bytes));
  o.spares = std::max(0, absl::GetFlag(FLAGS_spares));
  o.max_builds = std::max(1, absl::GetFlag(FLAGS_max_builds));
  o.max_builds_per_owner = std::max(1, absl::GetFlag(FLAGS_max_builds_per_owner));
  o.bot_limits.memory_bytes = int64_t{absl::GetFlag(FLAGS_bot_memory_mb)} << 20;
  o.bot_limits.cpus = absl::GetFlag(FLAGS_bot_cpus);
  o.bot_limits.pids = absl::GetFlag(FLAGS_bot_pids);
  o.bot_limits.tmpfs_bytes = int64_t{absl::GetFlag(FLAGS_bot_tmpfs_mb)} << 20;
  o.bot_limits.file_bytes = int64_t{absl::GetFlag(FLAGS_bot_stderr_kb)} << 10;
  o.build_limits.memory_bytes = int64_t{absl::GetFlag(FLAGS_build_memory_mb)} << 20;
  o.build_limits.cpus = absl::GetFlag(FLAGS_build_cpus);
  o.build_limits.pids = absl::GetFlag(FLAGS_build_pids);
  o.build_limits.tmpfs_bytes = int64_t{512} << 20;
  o.build_limits.file_bytes = int64_t{256} << 20;
  o.build_timeout = absl::Seconds(absl::GetFlag(FLAGS_build_timeout_s));
  o.check_timeout = absl::Seconds(absl::GetFlag(FLAGS_check_timeout_s));
  o.switch_wait = absl::Seconds(absl::GetFlag(FLAGS_switch_wait_s));
  o.direct_route = absl::GetFlag(FLAGS_direct_route);
  o.one_cpu_turns = absl::GetFlag(FLAGS_one_cpu_turns);
  o.seat_log_bytes = static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_seat_log_kb))) << 10;
  o.transport = tarock::transport::TransportOptionsFromFlags();

  absl::StatusOr<std::unique_ptr<tarock::bothost::Sandbox>> sandbox =
      tarock::bothost::Sandbox::Create(sandbox_options);
  if (!sandbox.ok()) {
    std::fprintf(stderr, "tarock-bothost: %s\n", std::string(sandbox.status().message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "tarock-bothost: sandbox ready (bwrap, seccomp, cgroup %s under %s); python SDK %s\n",
               (*sandbox)->cgroup_version().c_str(), (*sandbox)->runs_parent().c_str(),
               o.python_sdk.empty() ? "(none)" : o.python_sdk.c_str());
  tarock::bothost::BotHost host(o, *std::move(sandbox));
  absl::Status s = host.Run(g_stop);
  if (!s.ok()) {
    std::fprintf(stderr, "tarock-bothost: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
