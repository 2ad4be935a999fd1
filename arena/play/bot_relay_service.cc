#include "arena/play/bot_relay_service.h"

#include <atomic>

#include "referee/server/grpc_status.h"
#include "referee/server/stream_write_queue.h"
#include "tarock/transport/referee_proof.h"

namespace tarock::arena::play {
namespace {

using Queue = StreamWriteQueue<v1::RefereeMessage, v1::BotMessage>;

// The consumer's handle on one stream. Closing drops what is queued behind
// the write in flight: the referee's stream is over.
class Link final : public RefereeLink {
 public:
  explicit Link(Queue::Reactor* stream) : queue(stream, Queue::OnClose::kDrop) {}
  bool Send(const v1::BotMessage& message) override {
    return !revoked.load() && queue.Send(message);
  }
  void Revoke() override {
    revoked.store(true);
    queue.Close(grpc::Status(grpc::StatusCode::ABORTED, "a newer attempt of this match took the seat"));
  }
  void Close(const grpc::Status& status) { queue.Close(status); }
  Queue queue;
  std::atomic<bool> revoked{false};
};

class Stream final : public grpc::ServerBidiReactor<v1::RefereeMessage, v1::BotMessage> {
 public:
  Stream(SeatRelay* relay, std::string capability, metrics::GrpcMetrics* grpc_metrics,
         const grpc::ServerContextBase* context)
      : relay_(relay),
        capability_(std::move(capability)),
        grpc_metrics_(grpc_metrics),
        context_(context),
        link_(std::make_shared<Link>(this)) {
    StartRead(&in_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The referee closed its side (after MatchResult) or the stream broke.
      if (consumer_) consumer_->OnDetach(link_.get());
      link_->Close(grpc::Status::OK);
      return;
    }
    if (link_->revoked.load()) return;  // a newer attempt holds the seat; Revoke closed us
    if (!consumer_) {
      absl::StatusOr<std::shared_ptr<SeatConsumer>> consumer =
          relay_->Attach(in_, capability_, link_);
      if (!consumer.ok()) {
        link_->Close(ToGrpcStatus(consumer.status()));
        return;
      }
      consumer_ = *consumer;
      // The referee's seat of this match: its stream ends with the match.
      if (grpc_metrics_ != nullptr)
        grpc_metrics_->HoldServerCall(context_, in_.match_start().match_id());
    } else {
      consumer_->OnMessage(in_);
    }
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override { link_->queue.WriteDone(ok); }

  void OnDone() override {
    if (grpc_metrics_ != nullptr) grpc_metrics_->ForgetServerCall(context_);
    link_->queue.Done();
    delete this;
  }

 private:
  SeatRelay* relay_;
  const std::string capability_;  // the referee's "x-tarock-referee-proof"
  metrics::GrpcMetrics* const grpc_metrics_;      // may be null
  const grpc::ServerContextBase* const context_;  // this stream's
  std::shared_ptr<Link> link_;
  std::shared_ptr<SeatConsumer> consumer_;
  v1::RefereeMessage in_;
};

}  // namespace

grpc::ServerBidiReactor<v1::RefereeMessage, v1::BotMessage>* BotRelayService::Play(
    grpc::CallbackServerContext* context) {
  std::string capability;
  const auto& metadata = context->client_metadata();
  if (auto it = metadata.find(transport::kRefereeProofHeader); it != metadata.end())
    capability.assign(it->second.data(), std::min<size_t>(it->second.size(), 256));
  return new Stream(relay_, std::move(capability), grpc_metrics_, context);
}

}  // namespace tarock::arena::play
