#include "arena/play/bot_relay_service.h"

#include "referee/server/grpc_status.h"
#include "referee/server/stream_write_queue.h"

namespace tarock::arena::play {
namespace {

using Queue = StreamWriteQueue<v1::RefereeMessage, v1::BotMessage>;

// The consumer's handle on one stream. Closing drops what is queued behind
// the write in flight: the referee's stream is over.
class Link final : public RefereeLink {
 public:
  explicit Link(Queue::Reactor* stream) : queue(stream, Queue::OnClose::kDrop) {}
  bool Send(const v1::BotMessage& message) override { return queue.Send(message); }
  void Close(const grpc::Status& status) { queue.Close(status); }
  Queue queue;
};

class Stream final : public grpc::ServerBidiReactor<v1::RefereeMessage, v1::BotMessage> {
 public:
  explicit Stream(SeatRelay* relay) : relay_(relay), link_(std::make_shared<Link>(this)) {
    StartRead(&in_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The referee closed its side (after MatchResult) or the stream broke.
      if (consumer_) consumer_->OnDetach(link_.get());
      link_->Close(grpc::Status::OK);
      return;
    }
    if (!consumer_) {
      absl::StatusOr<std::shared_ptr<SeatConsumer>> consumer = relay_->Attach(in_, link_);
      if (!consumer.ok()) {
        link_->Close(ToGrpcStatus(consumer.status()));
        return;
      }
      consumer_ = *consumer;
    } else {
      consumer_->OnMessage(in_);
    }
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override { link_->queue.WriteDone(ok); }

  void OnDone() override {
    link_->queue.Done();
    delete this;
  }

 private:
  SeatRelay* relay_;
  std::shared_ptr<Link> link_;
  std::shared_ptr<SeatConsumer> consumer_;
  v1::RefereeMessage in_;
};

}  // namespace

grpc::ServerBidiReactor<v1::RefereeMessage, v1::BotMessage>* BotRelayService::Play(
    grpc::CallbackServerContext*) {
  return new Stream(relay_);
}

}  // namespace tarock::arena::play
