#include "referee/metrics/grpc_metrics.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tarock::metrics {
namespace {

using grpc::experimental::InterceptionHookPoints;
using grpc::experimental::InterceptorBatchMethods;

// From 1 ms to 10 min: one API call to a long match streamed whole.
const prometheus::Histogram::BucketBoundaries& HandlingBuckets() {
  static const auto* b = new prometheus::Histogram::BucketBoundaries{
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
      2.5,   5,      10,    25,   50,    100,  250, 600};
  return *b;
}

GrpcMetrics::Side MakeSide(prometheus::Registry* r, const std::string& side) {
  return GrpcMetrics::Side{
      prometheus::BuildCounter()
          .Name(absl::StrCat("grpc_", side, "_started_total"))
          .Help(absl::StrCat("RPCs started on the ", side, "."))
          .Register(*r),
      prometheus::BuildCounter()
          .Name(absl::StrCat("grpc_", side, "_handled_total"))
          .Help(absl::StrCat("RPCs completed on the ", side, ", by status code."))
          .Register(*r),
      prometheus::BuildHistogram()
          .Name(absl::StrCat("grpc_", side, "_handling_seconds"))
          .Help(absl::StrCat("Seconds from the start of an RPC to its status, on the ", side,
                             " (a stream counts whole)."))
          .Register(*r)};
}

// Records one call: started at construction, handled with its code once
// (or held: GrpcMetrics::HoldClientCall).
class CallRecorder {
 public:
  CallRecorder(GrpcMetrics::Side* side, const char* method, const char* type,
               const void* context = nullptr)
      : side_(side), context_(context), start_(std::chrono::steady_clock::now()) {
    auto [service, name] = SplitGrpcMethod(method == nullptr ? "" : method);
    labels_ = {{"grpc_type", type}, {"grpc_service", service}, {"grpc_method", name}};
    // A held client call (HoldClientCall before it starts) counts as started
    // with its status too: a start counted at once and a status held would
    // tell, by the started calls whose end is missing, how many held calls
    // had ended (an arena restart runs only the unfinished tables again).
    defer_start_ = side_->owner->DefersStart(side_, name) ||
                   (context_ != nullptr && side_->owner->Held(context_));
    if (!defer_start_) side_->started.Add(labels_).Increment();
  }
  void Finish(grpc::StatusCode code) {
    if (finished_) return;
    finished_ = true;
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start_;
    side_->owner->Finish(side_, context_, {labels_, GrpcCodeName(code), took.count(), defer_start_});
  }

 private:
  GrpcMetrics::Side* side_;
  const void* context_;  // the client call's context (held calls), or null
  std::chrono::steady_clock::time_point start_;
  prometheus::Labels labels_;
  bool defer_start_ = false;  // started counted with the status (DeferServerStart)
  bool finished_ = false;
};

template <typename Type>
const char* TypeName(Type t) {
  switch (t) {
    case Type::UNARY: return "unary";
    case Type::CLIENT_STREAMING: return "client_stream";
    case Type::SERVER_STREAMING: return "server_stream";
    case Type::BIDI_STREAMING: return "bidi_stream";
    default: return "unknown";
  }
}

class ServerInterceptor : public grpc::experimental::Interceptor {
 public:
  ServerInterceptor(GrpcMetrics::Side* side, grpc::experimental::ServerRpcInfo* info)
      : call_(side, info->method(), TypeName(info->type()),
              static_cast<const grpc::ServerContextBase*>(info->server_context())) {}
  void Intercept(InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS))
      call_.Finish(methods->GetSendStatus().error_code());
    methods->Proceed();
  }

 private:
  CallRecorder call_;
};

class ClientInterceptor : public grpc::experimental::Interceptor {
 public:
  ClientInterceptor(GrpcMetrics::Side* side, grpc::experimental::ClientRpcInfo* info)
      : call_(side, info->method(), TypeName(info->type()),
              static_cast<const grpc::ClientContext*>(info->client_context())) {}
  void Intercept(InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_STATUS)) {
      grpc::Status* status = methods->GetRecvStatus();
      call_.Finish(status == nullptr ? grpc::StatusCode::UNKNOWN : status->error_code());
    }
    methods->Proceed();
  }

 private:
  CallRecorder call_;
};

class ServerFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit ServerFactory(GrpcMetrics::Side* side) : side_(side) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new ServerInterceptor(side_, info);
  }

 private:
  GrpcMetrics::Side* side_;
};

class ClientFactory : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit ClientFactory(GrpcMetrics::Side* side) : side_(side) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* info) override {
    return new ClientInterceptor(side_, info);
  }

 private:
  GrpcMetrics::Side* side_;
};

}  // namespace

GrpcMetrics::GrpcMetrics(prometheus::Registry* registry)
    : server_(MakeSide(registry, "server")), client_(MakeSide(registry, "client")) {
  server_.owner = this;
  client_.owner = this;
}

void GrpcMetrics::HoldClientCall(const grpc::ClientContext* context, const std::string& key) {
  Hold(context, key);
}

void GrpcMetrics::ForgetClientCall(const grpc::ClientContext* context) { Forget(context); }

void GrpcMetrics::HoldServerCall(const grpc::ServerContextBase* context, const std::string& key) {
  Hold(context, key);
}

void GrpcMetrics::ForgetServerCall(const grpc::ServerContextBase* context) { Forget(context); }

void GrpcMetrics::DeferServerStart(const std::string& method) { deferred_start_.insert(method); }

bool GrpcMetrics::DefersStart(const Side* side, const std::string& method) const {
  return side == &server_ && deferred_start_.count(method) > 0;
}

void GrpcMetrics::Hold(const void* context, const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (released_.count(key)) return;  // public already
  holds_[context] = key;
}

bool GrpcMetrics::Held(const void* context) {
  absl::MutexLock lock(&mu_);
  return holds_.count(context) > 0;
}

void GrpcMetrics::Forget(const void* context) {
  absl::MutexLock lock(&mu_);
  holds_.erase(context);
}

void GrpcMetrics::Finish(Side* side, const void* context, Observation o) {
  o.side = side;
  if (context != nullptr) {
    absl::MutexLock lock(&mu_);
    if (auto it = holds_.find(context); it != holds_.end()) {
      const std::string key = it->second;
      holds_.erase(it);
      if (!released_.count(key)) {
        held_[key].push_back(std::move(o));
        return;
      }
    }
  }
  if (o.started) side->started.Add(o.labels).Increment();
  side->seconds.Add(o.labels, HandlingBuckets()).Observe(o.seconds);
  o.labels["grpc_code"] = o.code;
  side->handled.Add(o.labels).Increment();
}

void GrpcMetrics::ReleaseHeld(const std::string& key) {
  std::vector<Observation> calls;
  {
    absl::MutexLock lock(&mu_);
    if (released_.insert(key).second) {
      released_order_.push_back(key);
      if (released_order_.size() > kRecentReleases) {
        released_.erase(released_order_.front());
        released_order_.pop_front();
      }
    }
    auto it = held_.find(key);
    if (it == held_.end()) return;
    calls = std::move(it->second);
    held_.erase(it);
  }
  for (Observation& o : calls) Finish(o.side, nullptr, std::move(o));
}

std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
GrpcMetrics::ServerInterceptors() {
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> out;
  out.push_back(std::make_unique<ServerFactory>(&server_));
  return out;
}

std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
GrpcMetrics::ClientInterceptors() {
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> out;
  out.push_back(std::make_unique<ClientFactory>(&client_));
  return out;
}

std::string GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "Canceled";
    case grpc::StatusCode::UNKNOWN: return "Unknown";
    case grpc::StatusCode::INVALID_ARGUMENT: return "InvalidArgument";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DeadlineExceeded";
    case grpc::StatusCode::NOT_FOUND: return "NotFound";
    case grpc::StatusCode::ALREADY_EXISTS: return "AlreadyExists";
    case grpc::StatusCode::PERMISSION_DENIED: return "PermissionDenied";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "ResourceExhausted";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FailedPrecondition";
    case grpc::StatusCode::ABORTED: return "Aborted";
    case grpc::StatusCode::OUT_OF_RANGE: return "OutOfRange";
    case grpc::StatusCode::UNIMPLEMENTED: return "Unimplemented";
    case grpc::StatusCode::INTERNAL: return "Internal";
    case grpc::StatusCode::UNAVAILABLE: return "Unavailable";
    case grpc::StatusCode::DATA_LOSS: return "DataLoss";
    case grpc::StatusCode::UNAUTHENTICATED: return "Unauthenticated";
    default: return absl::StrCat("Code(", static_cast<int>(code), ")");
  }
}

std::pair<std::string, std::string> SplitGrpcMethod(const std::string& full_name) {
  size_t slash = full_name.rfind('/');
  if (full_name.size() < 4 || full_name[0] != '/' || slash == 0 || slash + 1 >= full_name.size())
    return {"unknown", full_name};
  return {full_name.substr(1, slash - 1), full_name.substr(slash + 1)};
}

}  // namespace tarock::metrics
