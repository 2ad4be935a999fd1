#include "arena/play/bot_relay_service.h"

#include <deque>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "referee/server/grpc_status.h"

namespace tarock::arena::play {
namespace {

using Reactor = grpc::ServerBidiReactor<v1::RefereeMessage, v1::BotMessage>;

// The consumer's handle on one stream. The callback API allows one write in
// flight: messages queue here and go out one after the other. The stream is
// finished only once no write is in flight. StartWrite and Finish are called
// outside the lock (a reaction may run inline).
class Link final : public RefereeLink {
 public:
  explicit Link(Reactor* stream)
      : stream_(stream) {}

  bool Send(const v1::BotMessage& message) override {
    const v1::BotMessage* write = nullptr;
    Reactor* stream = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (closed_ || stream_ == nullptr) return false;
      stream = stream_;
      queue_.push_back(message);
      if (writing_) return true;
      writing_ = true;
      write = &queue_.front();  // stable until OnWriteDone pops it
    }
    stream->StartWrite(write);
    return true;
  }

  void WriteDone(bool ok) {
    const v1::BotMessage* write = nullptr;
    std::optional<grpc::Status> finish;
    Reactor* stream = nullptr;
    {
      absl::MutexLock lock(&mu_);
      stream = stream_;
      queue_.pop_front();
      if (!ok) {
        closed_ = true;
        queue_.clear();
      }
      if (!queue_.empty() && !closed_) {
        write = &queue_.front();
      } else {
        writing_ = false;
        if (finish_pending_ && !finished_) {
          finished_ = true;
          finish = *finish_pending_;
        }
      }
    }
    if (write) stream->StartWrite(write);
    if (finish) stream->Finish(*finish);
  }

  // No more messages; the stream finishes with `status` once the write in
  // flight (if any) is done.
  void Close(const grpc::Status& status) {
    bool now = false;
    Reactor* stream = nullptr;
    {
      absl::MutexLock lock(&mu_);
      stream = stream_;
      closed_ = true;
      if (finished_ || finish_pending_) return;
      // What is queued behind the write in flight goes nowhere.
      while (queue_.size() > (writing_ ? 1 : 0)) queue_.pop_back();
      finish_pending_ = status;
      if (!writing_) {
        finished_ = true;
        now = true;
      }
    }
    if (now) stream->Finish(status);
  }

  void Done() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    stream_ = nullptr;
  }

 private:
  absl::Mutex mu_;
  Reactor* stream_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::BotMessage> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> finish_pending_ ABSL_GUARDED_BY(mu_);
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

  void OnWriteDone(bool ok) override { link_->WriteDone(ok); }

  void OnDone() override {
    link_->Done();
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
