// grpc.health.v1.Health (Check and Watch) for the servers strangers reach:
// the arena and the referee. libgrpc++'s DefaultHealthCheckService answers
// everyone without a limit and keeps a Watch stream open for ever, and an
// open stream keeps its connection from ever being idle, so a stranger could
// hold connections past the server's idle close at no cost (issue 44, the
// review of 2026-11-29). This one asks the caller's admission first on every
// call (the arena: the same per-address and per-network rate limits as every
// other unauthenticated call), bounds the open Watch streams per client
// network (/24 IPv4, /64 IPv6) and in total, and ends each Watch stream (with
// OK) after `max_watch`, so no Watch keeps a connection longer than that plus
// the server's idle close. Statuses: the overall one (service "") and each
// service named in SetServing; NOT_FOUND for any other service on Check, and
// SERVICE_UNKNOWN on Watch, as the protocol says.
//
// Thread-safety: thread-safe. The service must outlive the grpc::Server it
// is registered with (declare it first); call Shutdown() before the server's
// Shutdown, so that open Watch streams end at once instead of holding the
// server's shutdown to its deadline.

#ifndef TAROCK_REFEREE_SERVER_HEALTH_SERVICE_H_
#define TAROCK_REFEREE_SERVER_HEALTH_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace tarock {

struct HealthServiceOptions {
  // Open Watch streams per client network (/24 IPv4, /64 IPv6, one unix
  // socket path) and in all; past either a new Watch is refused with
  // RESOURCE_EXHAUSTED. 0: no Watch at all (UNIMPLEMENTED).
  int max_watches_per_network = 4;
  int max_watches = 128;
  // A Watch stream ends (status OK) this long after it began (within a
  // second after); a client that wants more asks again, which its admission
  // counts. The arena and the referee set it to their connection idle time.
  absl::Duration max_watch = absl::Seconds(120);
  // Asked first on every Check and Watch; a status that is not OK ends the
  // call with it (it may add trailing metadata, e.g. retry-after). Empty:
  // every call is admitted.
  std::function<grpc::Status(grpc::CallbackServerContext*)> admit;
};

class HealthService final : public grpc::health::v1::Health::CallbackService {
 public:
  explicit HealthService(HealthServiceOptions options = {});
  // Waits for its timer thread; the server must be shut down first.
  ~HealthService() override;

  // Sets the overall status ("") and that of each of `services` (full
  // service names, e.g. "tarock.v1.Arena"); open Watch streams of those
  // services get the new status.
  void SetServing(bool serving, std::initializer_list<const char*> services = {});

  // Every status NOT_SERVING, every open Watch stream ended (OK) at once, and
  // every later call answered NOT_SERVING (Watch: ended at once).
  void Shutdown();

  // Open Watch streams (for tests).
  int open_watches();

  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  grpc::health::v1::HealthCheckResponse* response) override;
  grpc::ServerWriteReactor<grpc::health::v1::HealthCheckResponse>* Watch(
      grpc::CallbackServerContext* context,
      const grpc::health::v1::HealthCheckRequest* request) override;

  class WatchReactor;  // one open Watch stream (health_service.cc)

 private:
  using Status = grpc::health::v1::HealthCheckResponse::ServingStatus;
  // The status of `service` now. Requires mu_.
  Status StatusOf(const std::string& service) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the streams past their time, within a second (the timer thread).
  void EndExpired();
  // A stream's OnDone: forgets it.
  void Forget(WatchReactor* watch);

  const HealthServiceOptions options_;
  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, bool> serving_ ABSL_GUARDED_BY(mu_);  // "" is the overall status
  // Open streams (alive until their OnDone, which takes them out first).
  std::set<WatchReactor*> watches_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> watches_of_network_ ABSL_GUARDED_BY(mu_);
  std::thread timer_;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_HEALTH_SERVICE_H_
