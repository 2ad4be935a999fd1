#include "referee/server/referee_service.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "referee/core/timer_queue.h"
#include "referee/server/grpc_status.h"
#include "referee/server/stream_write_queue.h"
#include "tarock/transport/transport.h"

namespace tarock {

// One RunMatch call: starts the match and streams its events; finishes the
// call when the match has ended (never before, since the match writes here).
class RefereeService::MatchCall final : public grpc::ServerWriteReactor<v1::MatchEvent> {
 public:
  MatchCall(RefereeService* service, grpc::CallbackServerContext* context,
            const v1::MatchSpec* spec)
      : service_(service), writes_(this, Queue::OnClose::kDrain),
        interrupt_(std::make_shared<MatchInterrupt>()) {
    if (!transport::HasBearerToken(*context, service->options_.required_token)) {
      writes_.Close(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                 "RunMatch needs this referee's token (authorization: Bearer ..., "
                                 "--referee_token of the client)"));
      return;
    }
    if (absl::Status s = service->Begin(interrupt_); !s.ok()) {
      writes_.Close(ToGrpcStatus(s));
      return;
    }
    const bool result_only = spec->result_only();
    // With result_only, a caller that asked for public_events still gets
    // those (PublicAction, HandFinished), and nothing else before the result.
    const bool public_events = spec->public_events();
    uint64_t timer = 0;
    if (const absl::Duration bound = service->options_.max_match_time; bound > absl::ZeroDuration()) {
      std::weak_ptr<MatchInterrupt> weak = interrupt_;
      timer = TimerQueue::Default().Schedule(absl::Now() + bound, [weak, bound] {
        if (std::shared_ptr<MatchInterrupt> i = weak.lock())
          i->Interrupt(absl::StrCat("the match ran longer than this referee's limit of ",
                                    absl::FormatDuration(bound), " (--max_match_ms)"));
      });
    }
    // A client that went away, a time bound or a shutdown interrupts the match.
    service->runner_->Start(
        *spec,
        [this, result_only, public_events](const v1::MatchEvent& event) {
          const bool wanted =
              !result_only ||
              (public_events && (event.has_public_action() || event.has_hand_finished()));
          if (wanted && !writes_.Send(event))
            interrupt_->Interrupt("the RunMatch caller went away");
        },
        [this] { return interrupt_->interrupted(); },
        [this, timer](absl::StatusOr<v1::MatchFinished> finished) {
          if (timer != 0) TimerQueue::Default().Cancel(timer);
          // Closing may finish the call and delete this at once.
          RefereeService* service = service_;
          std::shared_ptr<MatchInterrupt> interrupt = interrupt_;
          if (finished.ok()) {
            v1::MatchEvent last;
            *last.mutable_match_finished() = *std::move(finished);
            writes_.Send(last);
            writes_.Close(grpc::Status::OK);
          } else if (absl::IsCancelled(finished.status()) && interrupt->interrupted()) {
            const std::string why = interrupt->why();
            writes_.Close(grpc::Status(absl::StrContains(why, "--max_match_ms")
                                           ? grpc::StatusCode::DEADLINE_EXCEEDED
                                           : grpc::StatusCode::CANCELLED,
                                       why));
          } else {
            writes_.Close(ToGrpcStatus(finished.status()));
          }
          service->MatchEnded(interrupt);
        },
        interrupt_);
  }

  void OnWriteDone(bool ok) override { writes_.WriteDone(ok); }
  void OnCancel() override { interrupt_->Interrupt("the RunMatch caller went away"); }
  void OnDone() override {
    writes_.Done();
    delete this;
  }

 private:
  using Queue = StreamWriteQueue<void, v1::MatchEvent, grpc::ServerWriteReactor<v1::MatchEvent>>;
  RefereeService* const service_;
  Queue writes_;
  const std::shared_ptr<MatchInterrupt> interrupt_;
};

grpc::ServerWriteReactor<v1::MatchEvent>* RefereeService::RunMatch(
    grpc::CallbackServerContext* context, const v1::MatchSpec* spec) {
  return new MatchCall(this, context, spec);
}

absl::Status RefereeService::Begin(const std::shared_ptr<MatchInterrupt>& interrupt) {
  absl::MutexLock lock(&mu_);
  if (stopping_.load())
    return absl::UnavailableError("this referee is shutting down; try another");
  if (options_.max_concurrent_matches > 0 && active_ >= options_.max_concurrent_matches)
    return absl::ResourceExhaustedError(absl::StrCat(
        active_, " matches are running on this referee (its limit, --max_matches); try later "
        "or another referee"));
  ++active_;
  running_.insert(interrupt);
  return absl::OkStatus();
}

void RefereeService::MatchEnded(const std::shared_ptr<MatchInterrupt>& interrupt) {
  absl::MutexLock lock(&mu_);
  --active_;
  running_.erase(interrupt);
}

void RefereeService::CancelAll() {
  std::vector<std::shared_ptr<MatchInterrupt>> running;
  {
    absl::MutexLock lock(&mu_);
    stopping_.store(true);
    running.assign(running_.begin(), running_.end());
  }
  for (const auto& i : running) i->Interrupt("the referee is shutting down");
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
