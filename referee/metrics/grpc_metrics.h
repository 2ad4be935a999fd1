// gRPC request counts and latencies, measured by gRPC interceptors on the
// servers and channels of a process, in a prometheus-cpp registry. The names
// and labels are those of go-grpc-prometheus, so its dashboards and alerts
// apply:
//   grpc_server_started_total{grpc_type,grpc_service,grpc_method}
//   grpc_server_handled_total{grpc_type,grpc_service,grpc_method,grpc_code}
//   grpc_server_handling_seconds{grpc_type,grpc_service,grpc_method}   histogram
//   grpc_client_started_total, grpc_client_handled_total and
//   grpc_client_handling_seconds, the same for the calls this process makes.
// grpc_type is unary, client_stream, server_stream or bidi_stream; grpc_code
// is the status code as go-grpc-prometheus spells it (OK, Canceled,
// Unavailable, ...). The time runs from the start of the call to its status:
// a streaming call counts the whole stream.
//
// Held calls: a client call whose context was given to HoldClientCall before
// it started is counted as started with its status and time, which are kept
// under a key instead of recorded (a server call given to HoldServerCall
// before its status: its status and time), until ReleaseHeld(key) records them (the arena holds a duplicate
// table's RunMatch, and the relayed seats' Bot.Play streams, until its deal
// is public: their time is the table's duration, docs/security.md "Secret
// deals"). A call held under a key released already (the last kRecentReleases
// keys) is recorded as it ends.
//
// Thread-safety: thread-safe. The GrpcMetrics must outlive every server and
// channel built with its interceptors.

#ifndef TAROCK_REFEREE_METRICS_GRPC_METRICS_H_
#define TAROCK_REFEREE_METRICS_GRPC_METRICS_H_

#include <grpcpp/support/client_interceptor.h>
#include <grpcpp/support/server_interceptor.h>
#include <grpcpp/support/status.h>

#include <deque>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace tarock::metrics {

class GrpcMetrics {
 public:
  // Adds the six families to `registry`, which must outlive this object.
  explicit GrpcMetrics(prometheus::Registry* registry);
  GrpcMetrics(const GrpcMetrics&) = delete;
  GrpcMetrics& operator=(const GrpcMetrics&) = delete;

  // Interceptor factories that record every call of a server, for
  // grpc::ServerBuilder::experimental().SetInterceptorCreators().
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
  ServerInterceptors();
  // Interceptor factories that record every call made on a channel, for
  // grpc::experimental::CreateCustomChannelWithInterceptors().
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
  ClientInterceptors();

  // The call made with `context` (not started yet) is held under `key`;
  // ForgetClientCall(context) before the context dies (a call that never
  // reached its status is dropped then).
  void HoldClientCall(const grpc::ClientContext* context, const std::string& key);
  void ForgetClientCall(const grpc::ClientContext* context);
  // The same for a server call, from its handler (before its status is
  // sent); ForgetServerCall once the call is done.
  void HoldServerCall(const grpc::ServerContextBase* context, const std::string& key);
  void ForgetServerCall(const grpc::ServerContextBase* context);
  static constexpr size_t kRecentReleases = 4096;
  // Server calls of `method` (its short name, e.g. "ReportSeatLog") are
  // counted as started together with their status (and held with it), not
  // when they start: for a call whose start tells what a held one would (a
  // bot host reports a seat's log when its table has ended). Call before a
  // server is built with the interceptors.
  void DeferServerStart(const std::string& method);
  // Records every call held under `key` (their codes and times) now.
  void ReleaseHeld(const std::string& key);

  // One side (server or client) of the metrics.
  struct Side {
    prometheus::Family<prometheus::Counter>& started;
    prometheus::Family<prometheus::Counter>& handled;
    prometheus::Family<prometheus::Histogram>& seconds;
    GrpcMetrics* owner = nullptr;  // for the held calls
  };
  // A finished call: its labels (without grpc_code), code and seconds.
  struct Observation {
    prometheus::Labels labels;
    std::string code;
    double seconds = 0;
    bool started = false;  // count it as started too when recorded (DeferServerStart)
    Side* side = nullptr;  // set by Finish
  };
  // Whether calls of `method` on `side` count as started with their status.
  bool DefersStart(const Side* side, const std::string& method) const;
  // Whether the call of `context` is held now (HoldClientCall): it then
  // counts as started with its status, when that is recorded.
  bool Held(const void* context);
  // Records `o` on `side`, or keeps it when `context` is held (interceptors).
  void Finish(Side* side, const void* context, Observation o);

 private:
  Side server_;
  Side client_;
  absl::Mutex mu_;
  std::map<const void*, std::string> holds_ ABSL_GUARDED_BY(mu_);  // context -> key
  std::map<std::string, std::vector<Observation>> held_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> released_ ABSL_GUARDED_BY(mu_);  // the recent releases
  std::deque<std::string> released_order_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> deferred_start_;  // server methods; set before any call
  void Hold(const void* context, const std::string& key);
  void Forget(const void* context);
};

// The status code as go-grpc-prometheus' grpc_code label spells it
// (grpc::StatusCode::CANCELLED -> "Canceled"); "Code(N)" for an unknown one.
std::string GrpcCodeName(grpc::StatusCode code);

// "/pkg.Service/Method" -> {"pkg.Service", "Method"}; {"unknown", full name}
// when the name has another shape.
std::pair<std::string, std::string> SplitGrpcMethod(const std::string& full_name);

}  // namespace tarock::metrics

#endif  // TAROCK_REFEREE_METRICS_GRPC_METRICS_H_
