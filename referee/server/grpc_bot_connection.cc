#include "referee/server/grpc_bot_connection.h"

#include <grpcpp/grpcpp.h>

#include <deque>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "referee/server/grpc_status.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock {
namespace {

class GrpcBotConnection : public BotConnection,
                          public grpc::ClientBidiReactor<v1::RefereeMessage, v1::BotMessage> {
 public:
  GrpcBotConnection(std::shared_ptr<grpc::Channel> channel, std::string endpoint)
      : channel_(std::move(channel)), stub_(v1::Bot::NewStub(channel_)),
        endpoint_(std::move(endpoint)) {}

  ~GrpcBotConnection() override {
    context_.TryCancel();
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(&done_));
  }

  void Begin() {
    stub_->async()->Play(&context_, this);
    StartRead(&incoming_);
    StartCall();
  }

  // gRPC may run a reaction inline inside a Start* call, so no Start* call is
  // ever made while holding mu_: the decision to start is taken under the lock,
  // the call itself after it.
  void Send(const v1::RefereeMessage& message) override {
    const v1::RefereeMessage* to_write = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (write_failed_ || writes_done_requested_ || done_) return;
      outbox_.push_back(message);
      if (!writing_) {
        writing_ = true;
        to_write = &outbox_.front();
      }
    }
    if (to_write != nullptr) StartWrite(to_write);
  }

  BotReply Decide(const v1::DecisionRequest& request, absl::Time deadline) override {
    v1::RefereeMessage m;
    *m.mutable_decision_request() = request;
    const absl::Time start = absl::Now();
    Send(m);
    absl::MutexLock lock(&mu_);
    BotReply reply;
    for (;;) {
      while (!inbox_.empty()) {
        auto [message, arrived] = std::move(inbox_.front());
        inbox_.pop_front();
        if (message.has_hello()) {
          hello_name_ = message.hello().name().substr(0, 64);
          continue;
        }
        reply.elapsed = arrived - start;
        if (!message.has_decision()) {
          reply.kind = BotReply::Kind::kMalformed;
          reply.detail = "a message that is neither a Decision nor a Hello";
          return reply;
        }
        const int64_t id = message.decision().request_id();
        if (id < request.request_id() && id > 0) continue;  // a late answer, already charged
        if (id != request.request_id()) {
          reply.kind = BotReply::Kind::kMalformed;
          reply.detail = absl::StrCat("a Decision for request_id ", id, ", expected ",
                                      request.request_id());
          return reply;
        }
        reply.kind = BotReply::Kind::kDecision;
        reply.action = message.decision().action();
        return reply;
      }
      if (read_closed_) {
        reply.elapsed = absl::Now() - start;
        // The stream is gone; once its status is in, say why.
        mu_.AwaitWithDeadline(absl::Condition(&done_), absl::Now() + absl::Milliseconds(200));
        if (done_ && status_.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
            !reported_oversize_) {
          reported_oversize_ = true;
          reply.kind = BotReply::Kind::kMalformed;
          reply.detail = absl::StrCat("oversized message: ", status_.error_message());
        } else {
          reply.kind = BotReply::Kind::kDisconnected;
          reply.detail = done_ ? absl::StrCat("stream ended: ", GrpcCodeName(status_.error_code()),
                                              " ", status_.error_message())
                               : "stream ended";
        }
        return reply;
      }
      if (mu_.AwaitWithDeadline(absl::Condition(this, &GrpcBotConnection::Ready), deadline))
        continue;
      reply.kind = BotReply::Kind::kTimeout;
      reply.elapsed = absl::Now() - start;
      return reply;
    }
  }

  bool connected() const override {
    absl::MutexLock lock(&mu_);
    return !read_closed_;
  }

  std::string hello_name() const override {
    absl::MutexLock lock(&mu_);
    return hello_name_;
  }

  void Finish(absl::Time deadline) override {
    bool start_writes_done = false;
    {
      absl::MutexLock lock(&mu_);
      if (!writes_done_requested_) {
        writes_done_requested_ = true;
        start_writes_done = !writing_ && !write_failed_ && !done_;
      }
    }
    if (start_writes_done) StartWritesDone();
    absl::MutexLock lock(&mu_);
    if (!mu_.AwaitWithDeadline(absl::Condition(&done_), deadline)) {
      context_.TryCancel();
      mu_.Await(absl::Condition(&done_));
    }
  }

  // gRPC callbacks.
  void OnReadDone(bool ok) override {
    const absl::Time arrived = absl::Now();
    {
      absl::MutexLock lock(&mu_);
      if (!ok) {
        read_closed_ = true;
        return;
      }
      inbox_.emplace_back(std::move(incoming_), arrived);
      incoming_.Clear();
    }
    StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override {
    const v1::RefereeMessage* to_write = nullptr;
    bool start_writes_done = false;
    {
      absl::MutexLock lock(&mu_);
      outbox_.pop_front();
      if (!ok) {
        write_failed_ = true;
        writing_ = false;
        outbox_.clear();
        return;
      }
      if (!outbox_.empty()) {
        to_write = &outbox_.front();
      } else {
        writing_ = false;
        start_writes_done = writes_done_requested_;
      }
    }
    if (to_write != nullptr) StartWrite(to_write);
    if (start_writes_done) StartWritesDone();
  }

  void OnDone(const grpc::Status& status) override {
    absl::MutexLock lock(&mu_);
    status_ = status;
    read_closed_ = true;
    done_ = true;
  }

 private:
  bool Ready() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !inbox_.empty() || read_closed_; }

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Bot::Stub> stub_;
  std::string endpoint_;
  grpc::ClientContext context_;
  v1::BotMessage incoming_;  // owned by the outstanding read

  mutable absl::Mutex mu_;
  // Messages being written; the front is the one in flight (its address must
  // stay valid until OnWriteDone, which std::deque guarantees).
  std::deque<v1::RefereeMessage> outbox_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool write_failed_ ABSL_GUARDED_BY(mu_) = false;
  bool writes_done_requested_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<std::pair<v1::BotMessage, absl::Time>> inbox_ ABSL_GUARDED_BY(mu_);
  bool read_closed_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  bool reported_oversize_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  std::string hello_name_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<BotConnection>> GrpcBotConnector::Connect(
    const std::string& endpoint, absl::Time deadline) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options_.max_receive_bytes);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // Fail fast on a dead address instead of backing off for a second or more.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
  if (!channel->WaitForConnected(absl::ToChronoTime(deadline))) {
    return absl::UnavailableError(absl::StrCat("no gRPC server answered at ", endpoint));
  }
  auto connection = std::make_unique<GrpcBotConnection>(std::move(channel), endpoint);
  connection->Begin();
  return connection;
}

}  // namespace tarock
