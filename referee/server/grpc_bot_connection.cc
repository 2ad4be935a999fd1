#include "referee/server/grpc_bot_connection.h"

#include <grpcpp/grpcpp.h>

#include <deque>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "referee/core/async.h"
#include "referee/core/timer_queue.h"
#include "referee/server/completion_loop.h"
#include "referee/server/grpc_status.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock {
namespace {

// One Bot.Play stream on the async API, its operations on the connector's
// CompletionLoop. The stream's state lives here, shared by the match (which
// calls Send/DecideAsync/FinishAsync through GrpcBotConnection) and the loop's
// threads (which hand it completions) under one mutex; callbacks to the match
// run after the mutex is released, because they resume the match, which calls
// in again.
//
// Lifetime: the match owns the GrpcBotConnection, which holds a reference;
// while any operation is outstanding the stream also holds one to itself
// (keep_alive_), and a decision's or close's timer holds one until it fires or
// is cancelled. So the match may drop its connection at any time: what is
// still in flight finishes on its own (cancelled).
//
// A read is posted only while a decision is awaited (or while closing):
// posting the next read as soon as an answer arrives makes gRPC send a frame
// on its own at once, one more sendmsg here and one more wake-up of the bot
// per decision. A HandResult or MatchResult waits in gRPC's buffer
// (buffer_hint) and travels with what follows it.
class Stream : public std::enable_shared_from_this<Stream> {
 public:
  Stream(std::shared_ptr<grpc::Channel> channel, std::string endpoint, grpc::CompletionQueue* cq)
      : channel_(std::move(channel)), stub_(v1::Bot::NewStub(channel_)),
        endpoint_(std::move(endpoint)), cq_(cq) {}

  // Waits (without a thread) for the channel to connect, then starts the call
  // presenting `referee_proof` (if any) as metadata. `done` gets OK once the
  // call has started, UNAVAILABLE when it could not before `deadline`.
  void Connect(absl::Time deadline, const std::string& referee_proof,
               absl::AnyInvocable<void(absl::Status)> done) {
    absl::MutexLock lock(&mu_);
    if (!referee_proof.empty()) context_.AddMetadata(transport::kRefereeProofHeader, referee_proof);
    connect_done_ = std::move(done);
    connect_deadline_ = deadline;
    WatchChannel(channel_->GetState(/*try_to_connect=*/true));
  }

  void Send(const v1::RefereeMessage& message) {
    absl::MutexLock lock(&mu_);
    Enqueue(message);
  }

  void DecideAsync(const v1::DecisionRequest& request, absl::Time deadline,
                   BotConnection::DecideDone done) {
    Callbacks callbacks;
    {
      absl::MutexLock lock(&mu_);
      v1::RefereeMessage m;
      *m.mutable_decision_request() = request;
      pending_.emplace();
      pending_->request_id = request.request_id();
      pending_->start = absl::Now();
      pending_->done = std::move(done);
      Enqueue(std::move(m));
      Progress(&callbacks);
      if (pending_) {
        std::weak_ptr<Stream> self = weak_from_this();
        const int64_t id = request.request_id();
        pending_->timer = TimerQueue::Default().Schedule(deadline, [self, id] {
          if (std::shared_ptr<Stream> stream = self.lock()) stream->DecisionTimedOut(id);
        });
      }
    }
    callbacks.Run();
  }

  void FinishAsync(absl::Time deadline, absl::AnyInvocable<void()> done) {
    Callbacks callbacks;
    {
      absl::MutexLock lock(&mu_);
      if (closed_) {
        callbacks.finish = std::move(done);
      } else {
        finish_done_ = std::move(done);
        writes_done_requested_ = true;
        MaybeWrite();  // half-closes once nothing is left to write
        std::weak_ptr<Stream> self = weak_from_this();
        finish_timer_ = TimerQueue::Default().Schedule(deadline, [self] {
          if (std::shared_ptr<Stream> stream = self.lock()) stream->FinishTimedOut();
        });
        Progress(&callbacks);
      }
    }
    callbacks.Run();
  }

  // The match is being cancelled: end the call. Its operations complete on
  // the completion loop, and a pending decision ends as a disconnect there.
  void Interrupt() {
    absl::MutexLock lock(&mu_);
    if (closed_ || !started_) return;  // a connect in progress ends at its deadline
    context_.TryCancel();
  }

  // The match no longer needs the stream: cancel what is in flight.
  void Abandon() {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    pending_.reset();
    finish_done_ = nullptr;
    if (!started_) return;  // a connect in progress ends on its own
    context_.TryCancel();
    StartFinish();  // every call is finished, even a cancelled one
  }

  bool connected() {
    absl::MutexLock lock(&mu_);
    return !read_closed_;
  }
  std::string hello_name() {
    absl::MutexLock lock(&mu_);
    return hello_name_;
  }
  std::string hello_version() {
    absl::MutexLock lock(&mu_);
    return hello_version_;
  }

 private:
  enum Op { kChannel, kStart, kRead, kWrite, kWritesDone, kFinish };

  // At most one operation of each kind is in flight.
  using Tag = CompletionLoop::OpTag<Stream, Op>;
  friend Tag;

  // Callbacks to run once the mutex is released (they resume the match).
  struct Callbacks {
    BotConnection::DecideDone decide;
    BotReply reply;
    absl::AnyInvocable<void()> finish;
    absl::AnyInvocable<void(absl::Status)> connect;
    absl::Status connect_status;
    void Run() {
      if (connect) connect(std::move(connect_status));
      if (decide) decide(std::move(reply));
      if (finish) finish();
    }
  };

  struct Pending {
    int64_t request_id = 0;
    absl::Time start;
    BotConnection::DecideDone done;
    TimerQueue::Id timer = 0;
  };

  void* TagOf(Op op) { return tags_[op].tag(); }
  void Started() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (outstanding_++ == 0) keep_alive_ = shared_from_this();
  }

  void WatchChannel(grpc_connectivity_state state) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (state == GRPC_CHANNEL_READY) {
      rw_ = stub_->PrepareAsyncPlay(&context_, cq_);
      rw_->StartCall(TagOf(kStart));
      Started();
      return;
    }
    channel_->NotifyOnStateChange(state, absl::ToChronoTime(connect_deadline_), cq_,
                                  TagOf(kChannel));
    Started();
  }

  void Handle(Op op, bool ok) {
    std::shared_ptr<Stream> release;  // destroyed last, after the callbacks
    Callbacks callbacks;
    {
      absl::MutexLock lock(&mu_);
      --outstanding_;
      switch (op) {
        case kChannel:
          if (!ok) {  // the deadline passed first
            callbacks.connect = std::move(connect_done_);
            callbacks.connect_status =
                absl::UnavailableError(absl::StrCat("no gRPC server answered at ", endpoint_));
            closed_ = true;
          } else {
            WatchChannel(channel_->GetState(/*try_to_connect=*/true));
          }
          break;
        case kStart:
          if (ok) {
            started_ = true;
            callbacks.connect = std::move(connect_done_);
            callbacks.connect_status = absl::OkStatus();
            MaybeWrite();
          } else {
            read_closed_ = true;
            start_failed_ = true;
            StartFinish();  // the call's status ends it; then the connect fails
          }
          break;
        case kRead:
          reading_ = false;
          if (ok) {
            inbox_.emplace_back(std::move(incoming_), absl::Now());
          } else {
            read_closed_ = true;
          }
          break;
        case kWrite:
          writing_ = false;
          outbox_.pop_front();
          if (!ok) {
            write_failed_ = true;
            outbox_.clear();
          }
          MaybeWrite();
          break;
        case kWritesDone:
          break;
        case kFinish:
          finished_ = true;
          if (start_failed_) {
            callbacks.connect = std::move(connect_done_);
            callbacks.connect_status = absl::UnavailableError(
                absl::StrCat("cannot open a Bot.Play stream at ", endpoint_, ": ",
                             status_.error_message()));
            closed_ = true;
          }
          break;
      }
      Progress(&callbacks);
      if (outstanding_ == 0) release = std::move(keep_alive_);
    }
    callbacks.Run();
  }

  // Moves a waiting decision and a waiting close forward after any change.
  void Progress(Callbacks* callbacks) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (pending_) {
      if (std::optional<BotReply> reply = Resolve()) {
        if (pending_->timer) TimerQueue::Default().Cancel(pending_->timer);
        callbacks->decide = std::move(pending_->done);
        callbacks->reply = std::move(*reply);
        pending_.reset();
      } else {
        EnsureReading();
      }
    }
    if (finish_done_) {
      if (!read_closed_ && !write_failed_) EnsureReading();  // the bot ends the stream once it read the half-close
      if (read_closed_ || write_failed_) StartFinish();
      if (finished_ && outstanding_ == 0) CloseNow(callbacks);
    }
  }

  void CloseNow(Callbacks* callbacks) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    closed_ = true;
    if (finish_timer_) TimerQueue::Default().Cancel(finish_timer_);
    finish_timer_ = 0;
    callbacks->finish = std::move(finish_done_);
    finish_done_ = nullptr;
  }

  // The answer to the pending decision, if what arrived settles it.
  std::optional<BotReply> Resolve() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    BotReply reply;
    const int64_t want = pending_->request_id;
    while (!inbox_.empty()) {
      auto [message, arrived] = std::move(inbox_.front());
      inbox_.pop_front();
      if (message.has_hello()) {
        hello_name_ = message.hello().name().substr(0, 64);
        hello_version_ = message.hello().version().substr(0, 64);
        continue;
      }
      if (std::optional<BotReply> settled = ReplyFromMessage(message, want)) {
        settled->elapsed = arrived - pending_->start;
        return settled;
      }
    }
    if (!read_closed_) return std::nullopt;
    // The stream is gone; once its status is in, say why.
    if (!finished_) {
      StartFinish();
      return std::nullopt;
    }
    reply.elapsed = absl::Now() - pending_->start;
    if (status_.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED && !reported_oversize_) {
      reported_oversize_ = true;
      reply.kind = BotReply::Kind::kMalformed;
      reply.detail = absl::StrCat("oversized message: ", status_.error_message());
    } else {
      reply.kind = BotReply::Kind::kDisconnected;
      reply.detail = absl::StrCat("stream ended: ", GrpcCodeName(status_.error_code()), " ",
                                  status_.error_message());
    }
    return reply;
  }

  void DecisionTimedOut(int64_t request_id) {
    Callbacks callbacks;
    {
      absl::MutexLock lock(&mu_);
      if (!pending_ || pending_->request_id != request_id) return;
      callbacks.decide = std::move(pending_->done);
      callbacks.reply.kind = BotReply::Kind::kTimeout;
      callbacks.reply.elapsed = absl::Now() - pending_->start;
      pending_.reset();
    }
    callbacks.Run();
  }

  void FinishTimedOut() {
    Callbacks callbacks;
    {
      absl::MutexLock lock(&mu_);
      finish_timer_ = 0;
      if (!finish_done_) return;
      if (started_) context_.TryCancel();  // every operation completes soon
      if (outstanding_ == 0) CloseNow(&callbacks);
    }
    callbacks.Run();
  }

  // Queues `message` and writes it when nothing else is in flight.
  void Enqueue(v1::RefereeMessage message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (write_failed_ || writes_done_requested_ || read_closed_) return;
    outbox_.push_back(std::move(message));
    MaybeWrite();
  }
  void MaybeWrite() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (writing_ || write_failed_ || !started_ || finish_started_) return;
    if (!outbox_.empty()) {
      writing_ = true;
      grpc::WriteOptions options;
      if (outbox_.front().has_hand_result() || outbox_.front().has_match_result())
        options.set_buffer_hint();
      rw_->Write(outbox_.front(), options, TagOf(kWrite));  // serialized here
      Started();
    } else if (writes_done_requested_ && !writes_done_sent_) {
      writes_done_sent_ = true;
      rw_->WritesDone(TagOf(kWritesDone));
      Started();
    }
  }
  void EnsureReading() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (reading_ || !started_ || read_closed_ || finish_started_) return;
    incoming_.Clear();
    rw_->Read(&incoming_, TagOf(kRead));
    Started();
    reading_ = true;
  }
  void StartFinish() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finish_started_ || rw_ == nullptr) return;
    finish_started_ = true;
    rw_->Finish(&status_, TagOf(kFinish));
    Started();
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Bot::Stub> stub_;
  const std::string endpoint_;
  grpc::CompletionQueue* const cq_;
  Tag tags_[6] = {{this, kChannel}, {this, kStart},      {this, kRead},
                  {this, kWrite},   {this, kWritesDone}, {this, kFinish}};

  absl::Mutex mu_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<v1::RefereeMessage, v1::BotMessage>> rw_;
  v1::BotMessage incoming_;  // owned by the outstanding read
  int outstanding_ ABSL_GUARDED_BY(mu_) = 0;
  std::shared_ptr<Stream> keep_alive_ ABSL_GUARDED_BY(mu_);
  absl::AnyInvocable<void(absl::Status)> connect_done_ ABSL_GUARDED_BY(mu_);
  absl::Time connect_deadline_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool start_failed_ ABSL_GUARDED_BY(mu_) = false;
  bool reading_ ABSL_GUARDED_BY(mu_) = false;
  bool read_closed_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool write_failed_ ABSL_GUARDED_BY(mu_) = false;
  bool writes_done_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool writes_done_sent_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_started_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;  // the call's status is in
  bool closed_ ABSL_GUARDED_BY(mu_) = false;    // nothing more will happen
  bool reported_oversize_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_;
  std::optional<Pending> pending_ ABSL_GUARDED_BY(mu_);
  absl::AnyInvocable<void()> finish_done_ ABSL_GUARDED_BY(mu_);
  TimerQueue::Id finish_timer_ ABSL_GUARDED_BY(mu_) = 0;
  // Messages being written; the front is the one in flight.
  std::deque<v1::RefereeMessage> outbox_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<v1::BotMessage, absl::Time>> inbox_ ABSL_GUARDED_BY(mu_);
  std::string hello_name_ ABSL_GUARDED_BY(mu_);
  std::string hello_version_ ABSL_GUARDED_BY(mu_);
};

// The match's handle on a Stream. The synchronous forms wait for the
// asynchronous ones (never call them from a CompletionLoop thread).
class GrpcBotConnection : public BotConnection {
 public:
  explicit GrpcBotConnection(std::shared_ptr<Stream> stream) : stream_(std::move(stream)) {}
  ~GrpcBotConnection() override { stream_->Abandon(); }

  void Send(const v1::RefereeMessage& message) override { stream_->Send(message); }
  BotReply Decide(const v1::DecisionRequest& request, absl::Time deadline) override {
    return BlockOn<BotReply>([&](DecideDone done) {
      stream_->DecideAsync(request, deadline, std::move(done));
    });
  }
  void DecideAsync(const v1::DecisionRequest& request, absl::Time deadline,
                   DecideDone done) override {
    stream_->DecideAsync(request, deadline, std::move(done));
  }
  void Finish(absl::Time deadline) override {
    BlockOn<bool>([&](absl::AnyInvocable<void(bool)> done) {
      stream_->FinishAsync(deadline, [done = std::move(done)]() mutable { done(true); });
    });
  }
  void FinishAsync(absl::Time deadline, absl::AnyInvocable<void()> done) override {
    stream_->FinishAsync(deadline, std::move(done));
  }
  bool connected() const override { return stream_->connected(); }
  std::string hello_name() const override { return stream_->hello_name(); }
  std::string hello_version() const override { return stream_->hello_version(); }
  void Interrupt() override { stream_->Interrupt(); }

 private:
  std::shared_ptr<Stream> stream_;
};

}  // namespace

GrpcBotConnector::GrpcBotConnector(GrpcConnectorOptions options, transport::Transport transport)
    : options_(options), transport_(std::move(transport)),
      own_loop_(options.loop == nullptr
                    ? std::make_unique<CompletionLoop>(options.completion_threads)
                    : nullptr),
      loop_(options.loop != nullptr ? options.loop : own_loop_.get()) {}

GrpcBotConnector::~GrpcBotConnector() = default;

absl::StatusOr<std::unique_ptr<BotConnection>> GrpcBotConnector::Connect(
    const std::string& endpoint, absl::Time deadline) {
  v1::SeatSpec seat;
  seat.set_endpoint(endpoint);
  return ConnectSeat(seat, deadline);
}

absl::StatusOr<std::unique_ptr<BotConnection>> GrpcBotConnector::ConnectSeat(
    const v1::SeatSpec& seat, absl::Time deadline) {
  return BlockOn<absl::StatusOr<std::unique_ptr<BotConnection>>>(
      [&](ConnectDone done) { ConnectSeatAsync(seat, deadline, std::move(done)); });
}

void GrpcBotConnector::ConnectSeatAsync(const v1::SeatSpec& seat, absl::Time deadline,
                                        ConnectDone done) {
  {
    absl::MutexLock lock(&mu_);
    if (connects_in_flight_ >= std::max(1, options_.max_connects_in_flight)) {
      waiting_connects_.push_back({seat, deadline, std::move(done)});
      return;
    }
    ++connects_in_flight_;
  }
  if (absl::Status refused = StartConnect(seat, deadline, &done); !refused.ok()) {
    ReleaseConnectSlot();
    done(refused);
  }
}

void GrpcBotConnector::ReleaseConnectSlot() {
  // A loop, not a recursion through StartConnect: a long queue of connects
  // that fail at once (say, endpoints the policy refuses) must not grow the
  // stack.
  for (;;) {
    WaitingConnect next;
    {
      absl::MutexLock lock(&mu_);
      if (waiting_connects_.empty()) {
        --connects_in_flight_;
        return;
      }
      next = std::move(waiting_connects_.front());
      waiting_connects_.pop_front();
    }
    absl::Status failed;
    if (next.deadline > absl::Now()) {
      failed = StartConnect(next.seat, next.deadline, &next.done);
      if (failed.ok()) return;  // the slot passed on to it
    } else {
      failed = absl::UnavailableError(absl::StrCat(
          "no gRPC server answered at ", next.seat.endpoint(),
          " (the referee was opening many streams at once and this one's connect deadline "
          "passed while it waited its turn)"));
    }
    next.done(failed);  // the slot is still ours: on to the next
  }
}

absl::Status GrpcBotConnector::StartConnect(const v1::SeatSpec& seat, absl::Time deadline,
                                            ConnectDone* raw_done) {
  const std::string& endpoint = seat.endpoint();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options_.max_receive_bytes);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // Fail fast on a dead address instead of backing off for a second or more.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  absl::StatusOr<net::ResolvedEndpoint> checked = options_.endpoint_policy.Check(endpoint);
  if (!checked.ok()) return checked.status();
  // A certificate names the host, not the address it resolved to.
  if (checked->target != endpoint && !checked->host.empty())
    args.SetSslTargetNameOverride(checked->host);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      transport_.Channel(checked->target, args);
  if (!channel.ok()) return channel.status();
  // From here on the outcome comes through `done`; whatever it is, the slot
  // goes back first.
  ConnectDone done = [this, raw_done = std::move(*raw_done)](
                         absl::StatusOr<std::unique_ptr<BotConnection>> result) mutable {
    ReleaseConnectSlot();
    raw_done(std::move(result));
  };
  auto stream = std::make_shared<Stream>(*std::move(channel), endpoint, loop_->cq());
  stream->Connect(deadline, seat.referee_proof(),
                  [stream, done = std::move(done)](absl::Status status) mutable {
                    if (!status.ok()) return done(status);
                    done(std::make_unique<GrpcBotConnection>(std::move(stream)));
                  });
  return absl::OkStatus();
}

}  // namespace tarock
