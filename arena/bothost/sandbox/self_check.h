// The sandbox's self-check (`tarock-bothost --check`): proves, on the machine
// and in the container the host runs in, that the sandbox starts a program
// and that its limits hold, by running real sandboxed programs past each of
// them. An operator runs it once where a host is deployed (systemd, Compose,
// Kubernetes: docs/hosting.md), since what the kernel and the runtime allow
// differs between them.
//
// Thread-safety: as Sandbox::Run (any thread; runs at once are independent).

#ifndef TAROCK_ARENA_BOTHOST_SANDBOX_SELF_CHECK_H_
#define TAROCK_ARENA_BOTHOST_SANDBOX_SELF_CHECK_H_

#include <string>
#include <vector>

#include "arena/bothost/sandbox/sandbox.h"

namespace tarock::bothost {

// One probe's result: `text` is one line saying what was tried and what came
// of it ("a program past its memory (32 MiB) is stopped: out of memory ...").
struct SelfCheckLine {
  bool ok = false;
  std::string text;
};

// Runs the probes, one sandboxed program each, in this order: a program
// starts and ends; one past its memory is stopped as out of memory; one past
// its processes as too many processes; one reading /etc/shadow and the host's
// own files gets nothing; one spinning for 2 s at a CPU share of 0.25 gets
// at most 1 s of CPU (half a core); a TCP connect to a listener of this process on
// 127.0.0.1 never arrives (the last two need /bin/bash, for its clock and
// /dev/tcp; without it a line says so and counts as passed). Takes about
// 3 s; each probe is bounded by a wall time of 30 s.
std::vector<SelfCheckLine> CheckSandbox(const Sandbox& sandbox);

}  // namespace tarock::bothost

#endif  // TAROCK_ARENA_BOTHOST_SANDBOX_SELF_CHECK_H_
