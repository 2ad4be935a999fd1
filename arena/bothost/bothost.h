// tarock-bothost's work, without main(): it syncs with the arena (Hosting
// service, hosting.proto) using its host token, builds the versions it is
// assigned in the sandbox (arena/bothost/sandbox), and plays the seats of each
// bot it holds through the arena's gateway (BotGateway.Connect with the host
// token and `x-tarock-hosted-bot: NAME`), each seat by a fresh run of the
// bot's program in a fresh sandbox that talks to the host over its standard
// input and output only (the stdio bridge's JSON lines, sdk/stdio). A process
// that has seen a card never plays another match: one run per seat.
//
// A new ready version plays from the bot's next match: the host reconnects
// the bot with the new version's Hello once the bot holds no seat (at most
// `switch_wait` later). A version the arena no longer names for a bot this
// host holds (retired, replaced, or its bot gone) is deleted from the work
// dir with its seat logs. The Hello names the version ("hosted:vID sha256:...")
// and the arena records it on every seat.
//
// Thread-safety: Run() on one thread; each held bot plays on threads of its own.

#ifndef TAROCK_ARENA_BOTHOST_BOTHOST_H_
#define TAROCK_ARENA_BOTHOST_BOTHOST_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "arena/bothost/package.h"
#include "arena/bothost/sandbox/sandbox.h"
#include "arena/bothost/stall_clock.h"
#include "tarock/transport/transport.h"

namespace tarock::bothost {

struct BotHostOptions {
  std::string arena;          // HOST:PORT of the arena's --listen port
  std::string token;          // the host token (`tarock-arena-cli hosts add NAME`)
  std::string name;            // optional: the arena names a host by its token (`hosts add NAME`)
  std::string work_dir;       // versions unpacked and built, seat logs
  std::string python_sdk;     // a folder with tarock_bot (bound read-only at /sdk/python)
  std::string cpp_sdk;        // an installed C++ SDK prefix (bound at /sdk/cpp); "" = no C++ builds
  int capacity = 0;           // bots held at most (0: any)
  // What the host accepts of a fetched version (the arena's limits or more):
  // 32 MiB as uploaded, 64 MiB unpacked, 256 files.
  PackageLimits package;
  // Processes per held bot started ahead of time (none has seen a card), each
  // held at its program's exec (Sandbox::StartHeld): the sandbox is made
  // ahead, the uploaded program runs only once the process has a seat.
  int spares = 2;
  // Builds and checks at once (each waits for a slot): on this host, and of
  // one owner's bots (docs/hosting.md).
  int max_builds = 2;
  int max_builds_per_owner = 1;
  SandboxLimits bot_limits;   // per seat's process
  SandboxLimits build_limits; // per build
  absl::Duration build_timeout = absl::Minutes(5);   // a C++ build
  absl::Duration check_timeout = absl::Minutes(1);   // checking a Python bot or a script
  absl::Duration switch_wait = absl::Seconds(30);  // then a new version switches mid-match
  // Seats joined at the referee when the arena offers it (gateway.proto,
  // JoinReferee): no relay on the decision's path. false: all relayed.
  bool direct_route = true;
  // The end of each seat's standard error sent to the arena when the seat
  // ends (for the bot's owner; the arena keeps at most 64 KiB).
  size_t seat_log_bytes = 64 << 10;
  // Each decision's request and answer on the CPU of the host's thread that
  // asks (the bot's process pinned there; a decision that takes longer than
  // 1 ms frees it): two wake-ups onto another CPU fewer a decision
  // (stdio::ChildProcess::BeginTurn). Off by default: it helps only where the
  // host's CPUs are otherwise idle, and beside a CPU-bound process (another
  // bot thinking) the pinned bot waits for it (docs/benchmarks.md).
  bool one_cpu_turns = false;
  transport::TransportOptions transport;
};

class BotHost {
 public:
  BotHost(BotHostOptions options, std::unique_ptr<Sandbox> sandbox);
  ~BotHost();
  // Syncs and plays until `stop` is set (or SIGINT/SIGTERM). Errors: the
  // arena refused the host token (UNAUTHENTICATED) or cannot be reached at the start.
  absl::Status Run(const std::atomic<bool>& stop);

  class Player;  // one held bot (bothost.cc)

 private:
  BotHostOptions options_;
  std::unique_ptr<Sandbox> sandbox_;
  StallClock stall_clock_;  // the time this host was stopped (a seat's account)
  std::map<std::string, std::unique_ptr<Player>> players_;  // by bot name
};

}  // namespace tarock::bothost

#endif  // TAROCK_ARENA_BOTHOST_BOTHOST_H_
