#include "referee/server/referee_service.h"

#include "referee/server/grpc_status.h"
#include "referee/server/stream_write_queue.h"
#include "tarock/sdk/transport.h"

namespace tarock {

// One RunMatch call: starts the match and streams its events; finishes the
// call when the match has ended (never before, since the match writes here).
class RefereeService::MatchCall final : public grpc::ServerWriteReactor<v1::MatchEvent> {
 public:
  MatchCall(RefereeService* service, grpc::CallbackServerContext* context,
            const v1::MatchSpec* spec)
      : service_(service), writes_(this, Queue::OnClose::kDrain) {
    if (!sdk::HasBearerToken(*context, service->required_token_)) {
      writes_.Close(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                 "RunMatch needs this referee's token (authorization: Bearer ..., "
                                 "--referee_token of the client)"));
      return;
    }
    {
      absl::MutexLock lock(&service->mu_);
      ++service->active_;
    }
    const bool result_only = spec->result_only();
    // A client that went away, or a shutdown, cancels the match at its next decision.
    service->runner_->Start(
        *spec,
        [this, result_only](const v1::MatchEvent& event) {
          if (!result_only && !writes_.Send(event)) lost_client_.store(true);
        },
        [this] { return lost_client_.load() || service_->stopping_.load(); },
        [this](absl::StatusOr<v1::MatchFinished> finished) {
          // Closing may finish the call and delete this at once.
          RefereeService* service = service_;
          if (finished.ok()) {
            v1::MatchEvent last;
            *last.mutable_match_finished() = *std::move(finished);
            writes_.Send(last);
            writes_.Close(grpc::Status::OK);
          } else {
            writes_.Close(ToGrpcStatus(finished.status()));
          }
          service->MatchEnded();
        });
  }

  void OnWriteDone(bool ok) override { writes_.WriteDone(ok); }
  void OnCancel() override { lost_client_.store(true); }
  void OnDone() override {
    writes_.Done();
    delete this;
  }

 private:
  using Queue = StreamWriteQueue<void, v1::MatchEvent, grpc::ServerWriteReactor<v1::MatchEvent>>;
  RefereeService* const service_;
  std::atomic<bool> lost_client_{false};
  Queue writes_;
};

grpc::ServerWriteReactor<v1::MatchEvent>* RefereeService::RunMatch(
    grpc::CallbackServerContext* context, const v1::MatchSpec* spec) {
  return new MatchCall(this, context, spec);
}

void RefereeService::MatchEnded() {
  absl::MutexLock lock(&mu_);
  --active_;
}

int RefereeService::active() {
  absl::MutexLock lock(&mu_);
  return active_;
}

bool RefereeService::AwaitIdle(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return active_ == 0; };
  return mu_.AwaitWithDeadline(absl::Condition(&idle), deadline);
}

}  // namespace tarock
