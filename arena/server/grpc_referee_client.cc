#include "arena/server/grpc_referee_client.h"

#include <grpcpp/grpcpp.h>

#include <optional>

#include "absl/strings/str_cat.h"
#include "referee/metrics/grpc_metrics.h"
#include "referee/server/grpc_status.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock::arena {

absl::StatusOr<std::shared_ptr<grpc::Channel>> GrpcRefereeClient::ChannelTo(
    const std::string& address) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<grpc::Channel>& c = channels_[address];
  if (!c) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(256 << 20);  // match records of long matches
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    // Notice a referee that died without closing its connections.
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 2000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 2000);
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    // e.g. plaintext to a remote referee is refused here
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        transport_.ChannelCredentials(address, &args);
    if (!credentials.ok()) return credentials.status();
    c = grpc_metrics_ == nullptr
            ? grpc::CreateCustomChannel(address, *credentials, args)
            : grpc::experimental::CreateCustomChannelWithInterceptors(
                  address, *credentials, args, grpc_metrics_->ClientInterceptors());
  }
  return c;
}

void GrpcRefereeClient::CancelAll() {
  // Under mu_: a call unregisters (under mu_) before its context dies.
  absl::MutexLock lock(&mu_);
  for (auto& [context, cancel] : calls_)
    if (cancel->load()) context->TryCancel();
}

absl::StatusOr<v1::MatchFinished> GrpcRefereeClient::RunMatch(const std::string& address,
                                                              const v1::MatchSpec& spec,
                                                              const std::atomic<bool>* cancel) {
  return RunMatchWithEvents(address, spec, cancel, nullptr);
}

absl::StatusOr<v1::MatchFinished> GrpcRefereeClient::RunMatchWithEvents(
    const std::string& address, const v1::MatchSpec& spec, const std::atomic<bool>* cancel,
    const EventCallback& on_event) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = ChannelTo(address);
  if (!channel.ok()) return channel.status();
  auto stub = v1::Referee::NewStub(*channel);
  grpc::ClientContext context;
  transport::AddBearerToken(&context, token_);
  // How long a duplicate table's call took, and how it ended, is public only
  // once its deal is (ReleaseHeldMetrics).
  struct Hold {
    metrics::GrpcMetrics* metrics;
    const grpc::ClientContext* context;
    ~Hold() {
      if (metrics != nullptr) metrics->ForgetClientCall(context);
    }
  } hold{spec.withhold_hand_records() ? grpc_metrics_ : nullptr, &context};
  if (hold.metrics != nullptr) hold.metrics->HoldClientCall(&context, spec.match_id());
  // A dead referee shows at once instead of after a long reconnect wait.
  context.set_wait_for_ready(false);
  auto reader = stub->RunMatch(&context, spec);
  if (cancel != nullptr) {
    // Registered once the call has started (TryCancel needs a started call);
    // a flag set before that means CancelAll has come and gone.
    absl::MutexLock lock(&mu_);
    if (cancel->load()) context.TryCancel();
    calls_[&context] = cancel;
  }
  v1::MatchEvent event;
  std::optional<v1::MatchFinished> finished;
  while (reader->Read(&event)) {
    if (event.has_match_finished()) {
      finished = std::move(*event.mutable_match_finished());
    } else if (on_event) {
      on_event(event);
    }
  }
  grpc::Status status = reader->Finish();
  if (cancel != nullptr) {
    absl::MutexLock lock(&mu_);
    calls_.erase(&context);
  }
  if (!status.ok()) return FromGrpcStatus(status);
  if (!finished)
    return absl::UnavailableError(absl::StrCat("referee ", address, " ended without a result"));
  return *finished;
}

void GrpcRefereeClient::ReleaseHeldMetrics(const std::string& match_id) {
  if (grpc_metrics_ != nullptr) grpc_metrics_->ReleaseHeld(match_id);
}

}  // namespace tarock::arena
