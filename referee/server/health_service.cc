#include "referee/server/health_service.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "referee/net/rate_limiter.h"

namespace tarock {
namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// The client network of a gRPC peer, for the Watch bound: "ipv4:10.0.0.7:5"
// -> "10.0.0.0/24", "ipv6:[2001:db8::1]:5" -> "2001:db8:0:0::/64"; other
// peers (unix sockets) as they are.
std::string NetworkOf(absl::string_view peer) {
  std::string address;
  if (absl::ConsumePrefix(&peer, "ipv4:")) {
    const size_t colon = peer.rfind(':');
    address = std::string(colon == absl::string_view::npos ? peer : peer.substr(0, colon));
  } else if (absl::ConsumePrefix(&peer, "ipv6:")) {
    std::string decoded = absl::StrReplaceAll(peer, {{"%5B", "["}, {"%5D", "]"}, {"%25", "%"}});
    absl::string_view p = decoded;
    if (absl::ConsumePrefix(&p, "[")) p = p.substr(0, p.find(']'));
    address = std::string(p.substr(0, p.find('%')));
  } else {
    return std::string(peer);
  }
  std::string network = net::PrefixKey(address);
  return network.empty() ? address : network;
}

}  // namespace

// One Watch stream. It is in the service's set from its start to its OnDone
// (which takes it out under the service's lock before it deletes itself), so
// the service may call Send and End on any stream in the set while holding
// its lock: gRPC never runs a write reactor's OnDone inline in Finish.
class HealthService::WatchReactor final : public grpc::ServerWriteReactor<HealthCheckResponse> {
 public:
  WatchReactor(HealthService* owner, std::string service, std::string network, absl::Time deadline)
      : service(std::move(service)), network(std::move(network)), deadline(deadline), owner_(owner) {}

  // A reactor for a refused call: finishes at once with `status`.
  static WatchReactor* Refused(grpc::Status status) {
    auto* w = new WatchReactor(nullptr, "", "", absl::InfinitePast());
    w->End(std::move(status));
    return w;
  }

  // Sends `status`; while a write is under way only the newest waits.
  void Send(Status status) {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    pending_ = status;
    has_pending_ = true;
    if (!writing_) WriteNextLocked();
  }

  void End(grpc::Status status) {
    absl::MutexLock lock(&mu_);
    EndLocked(std::move(status));
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!ok) {
      EndLocked(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      return;
    }
    if (has_pending_ && !finished_) WriteNextLocked();
  }

  void OnCancel() override { End(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled")); }

  void OnDone() override {
    if (owner_ != nullptr) owner_->Forget(this);
    delete this;
  }

  const std::string service;
  const std::string network;
  const absl::Time deadline;

 private:
  void WriteNextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    response_.set_status(pending_);
    has_pending_ = false;
    writing_ = true;
    StartWrite(&response_);
  }
  void EndLocked(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    Finish(std::move(status));
  }

  HealthService* const owner_;  // null for a refused call
  absl::Mutex mu_;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool has_pending_ ABSL_GUARDED_BY(mu_) = false;
  Status pending_ ABSL_GUARDED_BY(mu_) = HealthCheckResponse::UNKNOWN;
  HealthCheckResponse response_ ABSL_GUARDED_BY(mu_);  // the write under way
};

HealthService::HealthService(HealthServiceOptions options) : options_(std::move(options)) {
  serving_[""] = true;
  timer_ = std::thread([this] { EndExpired(); });
}

HealthService::~HealthService() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  timer_.join();
}

void HealthService::SetServing(bool serving, std::initializer_list<const char*> services) {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return;
  serving_[""] = serving;
  for (const char* s : services) serving_[s] = serving;
  for (WatchReactor* w : watches_)
    if (serving_.count(w->service)) w->Send(StatusOf(w->service));
}

void HealthService::Shutdown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
  for (auto& [service, serving] : serving_) serving = false;
  for (WatchReactor* w : watches_) {
    w->Send(HealthCheckResponse::NOT_SERVING);
    w->End(grpc::Status::OK);
  }
}

int HealthService::open_watches() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(watches_.size());
}

HealthService::Status HealthService::StatusOf(const std::string& service) const {
  auto it = serving_.find(service);
  if (it == serving_.end()) return HealthCheckResponse::SERVICE_UNKNOWN;
  return it->second ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING;
}

grpc::ServerUnaryReactor* HealthService::Check(grpc::CallbackServerContext* context,
                                               const HealthCheckRequest* request,
                                               HealthCheckResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (options_.admit) {
    if (grpc::Status s = options_.admit(context); !s.ok()) {
      reactor->Finish(s);
      return reactor;
    }
  }
  Status status;
  {
    absl::MutexLock lock(&mu_);
    status = StatusOf(request->service());
  }
  if (status == HealthCheckResponse::SERVICE_UNKNOWN) {
    reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service"));
    return reactor;
  }
  response->set_status(status);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerWriteReactor<HealthCheckResponse>* HealthService::Watch(
    grpc::CallbackServerContext* context, const HealthCheckRequest* request) {
  if (options_.max_watches <= 0 || options_.max_watches_per_network <= 0)
    return WatchReactor::Refused(
        grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "Watch is not served here: use Check"));
  if (options_.admit) {
    if (grpc::Status s = options_.admit(context); !s.ok()) return WatchReactor::Refused(s);
  }
  const std::string network = NetworkOf(context->peer());
  absl::MutexLock lock(&mu_);
  if (shut_down_) {
    // As the protocol has it for a server going away: NOT_SERVING, then the end.
    auto* w = new WatchReactor(nullptr, request->service(), network, absl::InfinitePast());
    w->Send(HealthCheckResponse::NOT_SERVING);
    w->End(grpc::Status::OK);
    return w;
  }
  int& of_network = watches_of_network_[network];
  if (of_network >= options_.max_watches_per_network ||
      static_cast<int>(watches_.size()) >= options_.max_watches) {
    const bool mine = of_network >= options_.max_watches_per_network;
    if (of_network == 0) watches_of_network_.erase(network);
    return WatchReactor::Refused(grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        mine ? absl::StrCat(options_.max_watches_per_network,
                            " health Watch streams are open from your network (", network,
                            ", the limit): use Check")
             : absl::StrCat(options_.max_watches,
                            " health Watch streams are open (the limit): use Check")));
  }
  ++of_network;
  auto* w = new WatchReactor(this, request->service(), network, absl::Now() + options_.max_watch);
  watches_.insert(w);
  w->Send(StatusOf(request->service()));
  return w;
}

void HealthService::Forget(WatchReactor* watch) {
  absl::MutexLock lock(&mu_);
  if (watches_.erase(watch) == 0) return;
  auto it = watches_of_network_.find(watch->network);
  if (it != watches_of_network_.end() && --it->second <= 0) watches_of_network_.erase(it);
}

void HealthService::EndExpired() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    const absl::Time now = absl::Now();
    absl::Time next = now + absl::Seconds(1);
    for (WatchReactor* w : watches_) {
      if (w->deadline <= now) {
        w->End(grpc::Status::OK);  // its OnDone takes it out of the set
      } else {
        next = std::min(next, w->deadline);
      }
    }
    mu_.AwaitWithTimeout(absl::Condition(&stop_), std::max(next - now, absl::Milliseconds(10)));
  }
}

}  // namespace tarock
