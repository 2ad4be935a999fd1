#include "arena/bothost/sandbox/self_check.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tarock::bothost {
namespace {

// Runs `argv` in the sandbox under `limits`; `out` gets its standard output.
SandboxOutcome RunProbe(const Sandbox& sandbox, std::vector<std::string> argv, SandboxLimits limits,
                        std::string* out = nullptr) {
  SandboxSpec spec;
  spec.argv = std::move(argv);
  spec.limits = limits;
  absl::StatusOr<SandboxOutcome> o = sandbox.Run(spec, absl::Seconds(30), out);
  if (!o.ok()) {
    SandboxOutcome failed;
    failed.cause = SandboxCause::kExited;
    failed.code = -1;
    failed.text = absl::StrCat("the sandbox failed to run it: ", o.status().message());
    return failed;
  }
  return *o;
}

}  // namespace

std::vector<SelfCheckLine> CheckSandbox(const Sandbox& sandbox) {
  std::vector<SelfCheckLine> lines;
  {
    const absl::Time began = absl::Now();
    SandboxOutcome o = RunProbe(sandbox, {"/bin/sh", "-c", "exit 0"}, {});
    lines.push_back({o.cause == SandboxCause::kExited && o.code == 0,
                     absl::StrCat("a program starts and ends in the sandbox: ", o.text, " (",
                                  absl::ToInt64Milliseconds(absl::Now() - began), " ms)")});
  }
  {
    SandboxLimits l;
    l.memory_bytes = int64_t{32} << 20;
    SandboxOutcome o = RunProbe(sandbox, {"/usr/bin/awk", "BEGIN { s = \"x\"; while (1) s = s s }"}, l);
    lines.push_back({o.cause == SandboxCause::kOutOfMemory,
                     absl::StrCat("a program past its memory (32 MiB) is stopped: ", o.text)});
  }
  {
    SandboxLimits l;
    l.pids = 8;
    SandboxOutcome o = RunProbe(
        sandbox, {"/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do sleep 20 & done; wait"},
        l);
    lines.push_back({o.cause == SandboxCause::kTooManyProcesses,
                     absl::StrCat("a program past its processes (8) is stopped: ", o.text)});
  }
  {
    std::string out;
    SandboxOutcome o = RunProbe(
        sandbox,
        {"/bin/sh", "-c",
         "for f in /etc/shadow /root /home /var/lib /proc/1/root/etc/shadow; do "
         "if head -c 1 \"$f\" >/dev/null 2>&1 || ls \"$f\" >/dev/null 2>&1; then echo \"SEEN $f\"; fi; "
         "done; echo done"},
        {}, &out);
    const bool ok = o.cause == SandboxCause::kExited && out.find("done") != std::string::npos &&
                    out.find("SEEN") == std::string::npos;
    lines.push_back({ok, absl::StrCat("/etc/shadow, /root, /home, /var/lib and the host's root are "
                                      "out of a program's sight: ",
                                      ok ? "none seen" : out.empty() ? o.text : out)});
    if (!lines.back().text.empty() && lines.back().text.back() == '\n') lines.back().text.pop_back();
  }
  {
    // Nothing of the host's process (issue 44): the program is PID 1, no
    // process holds a TAROCK_ variable (the host token), /dev/shm is
    // read-only, /proc/meminfo is the sandbox's neutral one.
    std::string out;
    SandboxOutcome o = RunProbe(
        sandbox,
        {"/bin/sh", "-c",
         "[ \"$$\" = 1 ] || echo NOT-PID-1; for p in /proc/[0-9]*; do "
         "tr '\\0' '\\n' < \"$p/environ\" 2>/dev/null | grep -q '^TAROCK_' && echo \"TOKEN-IN $p\"; "
         "done; (echo x > /dev/shm/x) 2>/dev/null && echo SHM-WRITABLE; "
         "grep -q '^Shmem: *0 kB' /proc/meminfo || echo HOST-MEMINFO; echo done"},
        {}, &out);
    const bool ok = o.cause == SandboxCause::kExited && out == "done\n";
    lines.push_back({ok, absl::StrCat("the host's process, environment and counters are out of a "
                                      "program's sight: ",
                                      ok ? "it is PID 1, sees no token, /dev/shm read-only, "
                                           "/proc/meminfo neutral"
                                         : out.empty() ? o.text : out)});
    if (!lines.back().text.empty() && lines.back().text.back() == '\n') lines.back().text.pop_back();
  }
  // The CPU and network probes run bash, for its clock and /dev/tcp.
  const bool have_bash = std::filesystem::exists("/bin/bash");
  if (have_bash) {
    // bash's own clock and `times`: 2 s of wall spinning, the CPU it got.
    SandboxLimits l;
    l.cpus = 0.25;
    std::string out;
    SandboxOutcome o = RunProbe(
        sandbox,
        {"/bin/bash", "-c",
         "end=$(( ${EPOCHREALTIME/./} + 2000000 )); while (( ${EPOCHREALTIME/./} < end )); do :; done; times"},
        l, &out);
    // "0m0.501s 0m0.002s\n...": the shell's user and system time.
    double used = -1;
    int um = 0, sm = 0;
    double us = 0, ss = 0;
    if (o.cause == SandboxCause::kExited && std::sscanf(out.c_str(), "%dm%lfs %dm%lfs", &um, &us, &sm, &ss) == 4)
      used = um * 60 + us + sm * 60 + ss;
    // A quota of 0.25 gives 0.5 s, plus what the kernel lets a period overrun
    // before it throttles (up to a tick, more on a slow or loaded machine:
    // 0.82 s in user-mode Linux beside a busy test); none gives up to 2 s.
    // The bound is half a core, between the two.
    const bool ok = used >= 0 && used <= 1.0;
    lines.push_back({ok, used < 0 ? absl::StrCat("a program spinning 2 s at a CPU share of 0.25: ", o.text)
                                  : absl::StrCat("a program spinning 2 s at a CPU share of 0.25 got ",
                                                 absl::SixDigits(used), " s of CPU")});
  } else {
    lines.push_back({true, "the CPU probe needs /bin/bash (for its clock): not run"});
  }
  if (have_bash) {
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        listen(listener, 8) != 0 || getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      lines.push_back({false, "cannot listen on 127.0.0.1 for the network probe"});
    } else {
      const int port = ntohs(addr.sin_port);
      std::string out;
      SandboxOutcome o = RunProbe(
          sandbox,
          {"/bin/bash", "-c",
           absl::StrCat("if echo x > /dev/tcp/127.0.0.1/", port, "; then echo CONNECTED; fi 2>/dev/null")},
          {}, &out);
      const int accepted = accept(listener, nullptr, nullptr);
      const bool ok = accepted < 0 && out.find("CONNECTED") == std::string::npos;
      lines.push_back({ok, absl::StrCat("a TCP connect to 127.0.0.1:", port, " (a listener of the host) ",
                                        ok ? "never arrives" : "ARRIVED")});
      if (accepted >= 0) close(accepted);
    }
    if (listener >= 0) close(listener);
  } else {
    lines.push_back({true, "the network probe needs /bin/bash (for /dev/tcp): not run"});
  }
  return lines;
}

}  // namespace tarock::bothost
