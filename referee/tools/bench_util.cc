#include "referee/tools/bench_util.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace tarock {

absl::StatusOr<Server> StartServer(const std::vector<std::string>& argv,
                                   const std::string& listen_flag,
                                   const std::string& stdout_path) {
  std::string last_error = "no attempt";
  for (int attempt = 0; attempt < 4; ++attempt) {
    absl::StatusOr<int> port = FreeLoopbackPort();
    if (!port.ok()) return port.status();
    std::vector<std::string> args = argv;
    args.push_back(absl::StrCat(listen_flag, "=127.0.0.1:", *port));
    absl::StatusOr<std::unique_ptr<Subprocess>> p = Subprocess::Start(args, stdout_path);
    if (!p.ok()) return p.status();
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    bool listening = false;
    while (!listening && (*p)->Running() && absl::Now() < deadline)
      listening = WaitForPort("127.0.0.1", *port, absl::Now() + absl::Milliseconds(200));
    if (listening && (*p)->Running()) {
      return Server{std::move(*p), absl::StrCat("127.0.0.1:", *port)};
    }
    const bool exited = !(*p)->Running();
    (*p)->Stop();
    last_error = absl::StrCat(argv[0], exited ? " exited before listening on port "
                                              : " did not listen on port ", *port);
    if (exited && attempt > 0) break;  // twice: not a port race
  }
  return absl::UnavailableError(last_error);
}

namespace {
void StopEverything(int sig) {
  KillAllChildren();
  _exit(128 + sig);
}
}  // namespace

void GuardBenchmark(const char* program, int watchdog_s) {
  std::signal(SIGINT, StopEverything);
  std::signal(SIGTERM, StopEverything);
  std::signal(SIGPIPE, SIG_IGN);
  if (watchdog_s <= 0) return;
  std::thread([program, watchdog_s] {
    std::this_thread::sleep_for(std::chrono::seconds(watchdog_s));
    std::fprintf(stderr, "%s: still running after %d s (--watchdog_s): giving up\n", program,
                 watchdog_s);
    KillAllChildren();
    _exit(3);
  }).detach();
}

std::string SelfDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

double SelfCpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

int64_t SelfContextSwitches() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<int64_t>(u.ru_nvcsw + u.ru_nivcsw);
}

double ProcessCpuSeconds(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(in, line)) return 0;
  size_t paren = line.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream rest(line.substr(paren + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // Fields after the command: state(3) ... utime(14) stime(15).
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string LoadAverage() {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) != 3) return "?";
  return absl::StrFormat("%.2f %.2f %.2f", l[0], l[1], l[2]);
}

}  // namespace tarock
