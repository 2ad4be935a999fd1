// Keeping a server's listening port alive when the libraries cannot: Debian's
// gRPC 1.51 stops accepting for good once accept4 has failed for want of
// descriptors (EMFILE; grpc/grpc#20418), and nothing in gRPC notices.
//
//  - RaiseOpenFileLimit(): the soft RLIMIT_NOFILE up to the hard limit, at
//    start (the units and manifests set the hard limit: LimitNOFILE=65536).
//  - ProbeListener(): connects to a port over loopback and waits until the
//    program has accepted the connection: the kernel completes connections
//    a listener never accepts, but the server's side of one still queued
//    belongs to no file (inode 0 in /proc/net/tcp). Nothing is sent: to the
//    server it is a load balancer's TCP check. Needs no credentials, so it
//    works for TLS listeners and those requiring client certificates.
//  - ListenerWatchdog: probes every `interval`; after `failures_to_act`
//    probes in a row found the listener dead, logs an error and calls
//    `on_dead` (the programs exit non-zero there, so that systemd or
//    Kubernetes restarts them: a rebuilt server would face the same
//    exhausted process). A probe that cannot even make its socket (the
//    process is out of descriptors right now) counts as neither.
//
// Thread-safety: ProbeListener and RaiseOpenFileLimit are thread-safe; a
// ListenerWatchdog runs its own thread; Stop() (or the destructor) joins it.

#ifndef TAROCK_REFEREE_NET_LISTENER_WATCHDOG_H_
#define TAROCK_REFEREE_NET_LISTENER_WATCHDOG_H_

#include <functional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tarock::net {

// Sets the soft limit on open descriptors to the hard limit. Returns the
// soft limit now in force (0 when it cannot be read).
long RaiseOpenFileLimit();

// OK: the listener at `host`:`port` answered within `timeout`. UNAVAILABLE:
// it did not (connection refused, timed out, or left unanswered).
// RESOURCE_EXHAUSTED: no socket could be made (says nothing of the
// listener). `host` is numeric: an address the server listens on.
absl::Status ProbeListener(const std::string& host, int port, absl::Duration timeout);

// The loopback address to probe a server listening at `listen_host` ("",
// "0.0.0.0", "[::]", "::", a loopback or a specific address) on.
std::string ProbeHostFor(const std::string& listen_host);

struct ListenerWatchdogOptions {
  absl::Duration interval = absl::Seconds(10);  // between probes
  absl::Duration timeout = absl::Seconds(5);    // one probe's wait for an answer
  int failures_to_act = 3;                      // dead probes in a row before on_dead
};

class ListenerWatchdog {
 public:
  // Probes `host`:`port` as `name` (for the log) from a thread of its own.
  ListenerWatchdog(std::string name, std::string host, int port, ListenerWatchdogOptions options,
                   std::function<void()> on_dead);
  ~ListenerWatchdog();
  ListenerWatchdog(const ListenerWatchdog&) = delete;
  ListenerWatchdog& operator=(const ListenerWatchdog&) = delete;

  void Stop();

 private:
  void Run();

  const std::string name_;
  const std::string host_;
  const int port_;
  const ListenerWatchdogOptions options_;
  const std::function<void()> on_dead_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace tarock::net

#endif  // TAROCK_REFEREE_NET_LISTENER_WATCHDOG_H_
