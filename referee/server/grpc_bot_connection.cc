#include "referee/server/grpc_bot_connection.h"

#include <grpcpp/grpcpp.h>

#include <deque>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/server/grpc_status.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock {
namespace {

// One Bot.Play stream on the async API with a completion queue of its own,
// which only the match thread polls: it polls while it waits for a decision
// (AsyncNext with the decision's deadline), and drains what is there when it
// sends. No gRPC thread sits between the socket and the match thread, so an
// answer costs one wake-up of the match thread (the callback API costs a
// wake-up of a gRPC thread and a hand-off to the match thread), and nothing
// here needs a lock: every member is touched by the match thread only.
//
// A read is posted only while the match thread waits (right after the
// request's write): posting the next read as soon as an answer arrives makes
// gRPC send a frame on its own at once, one more sendmsg here and one more
// wake-up of the bot per decision. A HandResult or MatchResult waits in gRPC's
// buffer (buffer_hint) and travels with what follows it.
class GrpcBotConnection : public BotConnection {
 public:
  GrpcBotConnection(std::shared_ptr<grpc::Channel> channel, std::string endpoint)
      : channel_(std::move(channel)), stub_(v1::Bot::NewStub(channel_)),
        endpoint_(std::move(endpoint)) {}

  ~GrpcBotConnection() override {
    if (!finished_) {
      context_.TryCancel();
      Close(absl::InfiniteFuture());
    }
    cq_.Shutdown();
    void* tag;
    bool ok;
    while (cq_.Next(&tag, &ok)) {
    }
  }

  // Starts the stream, presenting `referee_proof` (if any) as metadata; false
  // when it could not start before `deadline`.
  bool Begin(absl::Time deadline, const std::string& referee_proof) {
    if (!referee_proof.empty()) context_.AddMetadata(sdk::kRefereeProofHeader, referee_proof);
    rw_ = stub_->AsyncPlay(&context_, &cq_, Tag(kStart));
    ++outstanding_;
    while (!started_ && !read_closed_) {
      if (!PollOnce(deadline)) return false;
    }
    return started_;
  }

  void Send(const v1::RefereeMessage& message) override { Enqueue(message); }

  BotReply Decide(const v1::DecisionRequest& request, absl::Time deadline) override {
    v1::RefereeMessage m;
    *m.mutable_decision_request() = request;
    const absl::Time start = absl::Now();
    Enqueue(std::move(m));
    BotReply reply;
    for (;;) {
      while (!inbox_.empty()) {
        auto [message, arrived] = std::move(inbox_.front());
        inbox_.pop_front();
        if (message.has_hello()) {
          hello_name_ = message.hello().name().substr(0, 64);
          hello_version_ = message.hello().version().substr(0, 64);
          continue;
        }
        reply.elapsed = arrived - start;
        if (message.has_absent() && message.absent().request_id() == request.request_id()) {
          // A relay says its player is not connected (gateway.proto).
          reply.kind = BotReply::Kind::kDisconnected;
          reply.detail = message.absent().detail().substr(0, 200);
          return reply;
        }
        if (message.has_absent() && message.absent().request_id() < request.request_id()) continue;
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
        FetchStatus(absl::Now() + absl::Milliseconds(200));
        if (finished_ && status_.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
            !reported_oversize_) {
          reported_oversize_ = true;
          reply.kind = BotReply::Kind::kMalformed;
          reply.detail = absl::StrCat("oversized message: ", status_.error_message());
        } else {
          reply.kind = BotReply::Kind::kDisconnected;
          reply.detail = finished_ ? absl::StrCat("stream ended: ",
                                                  GrpcCodeName(status_.error_code()), " ",
                                                  status_.error_message())
                                   : "stream ended";
        }
        return reply;
      }
      EnsureReading();
      if (!PollOnce(deadline)) {
        reply.kind = BotReply::Kind::kTimeout;
        reply.elapsed = absl::Now() - start;
        return reply;
      }
    }
  }

  bool connected() const override { return !read_closed_; }
  std::string hello_name() const override { return hello_name_; }
  std::string hello_version() const override { return hello_version_; }

  void Finish(absl::Time deadline) override {
    if (finished_) return;
    writes_done_requested_ = true;
    MaybeWrite();  // half-closes once nothing is left to write
    // The bot ends the stream once it has read the half-close.
    while (!read_closed_ && !write_failed_) {
      EnsureReading();
      if (!PollOnce(deadline)) {
        context_.TryCancel();
        break;
      }
    }
    Close(deadline);
  }

 private:
  enum Op : intptr_t { kStart = 1, kRead, kWrite, kWritesDone, kFinish };
  static void* Tag(Op op) { return reinterpret_cast<void*>(static_cast<intptr_t>(op)); }

  // Queues `message` (handling what has completed meanwhile) and writes it
  // when nothing else is in flight.
  void Enqueue(v1::RefereeMessage message) {
    PollAvailable();
    if (write_failed_ || writes_done_requested_ || read_closed_) return;
    outbox_.push_back(std::move(message));
    MaybeWrite();
  }

  void MaybeWrite() {
    if (writing_ || write_failed_ || !started_ || finish_started_) return;
    if (!outbox_.empty()) {
      writing_ = true;
      grpc::WriteOptions options;
      if (outbox_.front().has_hand_result() || outbox_.front().has_match_result())
        options.set_buffer_hint();
      rw_->Write(outbox_.front(), options, Tag(kWrite));  // serialized here
      ++outstanding_;
    } else if (writes_done_requested_ && !writes_done_sent_) {
      writes_done_sent_ = true;
      rw_->WritesDone(Tag(kWritesDone));
      ++outstanding_;
    }
  }

  void EnsureReading() {
    if (reading_ || !started_ || read_closed_ || finish_started_) return;
    incoming_.Clear();
    rw_->Read(&incoming_, Tag(kRead));
    ++outstanding_;
    reading_ = true;
  }

  void Handle(void* tag, bool ok) {
    --outstanding_;
    switch (static_cast<Op>(reinterpret_cast<intptr_t>(tag))) {
      case kStart:
        if (ok) {
          started_ = true;
          MaybeWrite();
        } else {
          read_closed_ = true;
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
        break;
    }
  }

  // Handles one completion; false when `deadline` passed first.
  bool PollOnce(absl::Time deadline) {
    void* tag = nullptr;
    bool ok = false;
    if (cq_.AsyncNext(&tag, &ok, absl::ToChronoTime(deadline)) !=
        grpc::CompletionQueue::GOT_EVENT)
      return false;
    Handle(tag, ok);
    return true;
  }

  // Handles the completions already there, without waiting. (Not with
  // absl::Now() as the deadline: gRPC rounds deadlines up to the next
  // millisecond; nor absl::InfinitePast(): that overflows to "never".)
  void PollAvailable() {
    for (int i = 0; i < 1000; ++i) {
      void* tag = nullptr;
      bool ok = false;
      if (cq_.AsyncNext(&tag, &ok, gpr_time_0(GPR_CLOCK_MONOTONIC)) !=
          grpc::CompletionQueue::GOT_EVENT)
        return;
      Handle(tag, ok);
    }
  }

  // Asks for the call's status and waits for it until `deadline`.
  void FetchStatus(absl::Time deadline) {
    if (!finish_started_) {
      finish_started_ = true;
      rw_->Finish(&status_, Tag(kFinish));
      ++outstanding_;
    }
    while (!finished_ && PollOnce(deadline)) {
    }
  }

  // Ends the call and waits for every operation to complete (cancelling the
  // call when `deadline` passes first).
  void Close(absl::Time deadline) {
    FetchStatus(deadline);
    while (outstanding_ > 0) {
      if (!PollOnce(deadline)) {
        context_.TryCancel();
        deadline = absl::InfiniteFuture();
      }
    }
    finished_ = true;
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Bot::Stub> stub_;
  std::string endpoint_;
  grpc::ClientContext context_;
  grpc::CompletionQueue cq_;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<v1::RefereeMessage, v1::BotMessage>> rw_;
  v1::BotMessage incoming_;  // owned by the outstanding read
  int outstanding_ = 0;      // operations whose completion has not been handled
  bool started_ = false;
  bool reading_ = false;
  bool read_closed_ = false;
  bool writing_ = false;
  bool write_failed_ = false;
  bool writes_done_requested_ = false;
  bool writes_done_sent_ = false;
  bool finish_started_ = false;
  bool finished_ = false;
  bool reported_oversize_ = false;
  grpc::Status status_;
  // Messages being written; the front is the one in flight.
  std::deque<v1::RefereeMessage> outbox_;
  std::deque<std::pair<v1::BotMessage, absl::Time>> inbox_;
  std::string hello_name_;
  std::string hello_version_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<BotConnection>> GrpcBotConnector::Connect(
    const std::string& endpoint, absl::Time deadline) {
  v1::SeatSpec seat;
  seat.set_endpoint(endpoint);
  return ConnectSeat(seat, deadline);
}

absl::StatusOr<std::unique_ptr<BotConnection>> GrpcBotConnector::ConnectSeat(
    const v1::SeatSpec& seat, absl::Time deadline) {
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
  absl::StatusOr<std::shared_ptr<grpc::Channel>> made = transport_.Channel(checked->target, args);
  if (!made.ok()) return made.status();
  std::shared_ptr<grpc::Channel> channel = *std::move(made);
  if (!channel->WaitForConnected(absl::ToChronoTime(deadline))) {
    return absl::UnavailableError(absl::StrCat("no gRPC server answered at ", endpoint));
  }
  auto connection = std::make_unique<GrpcBotConnection>(std::move(channel), endpoint);
  if (!connection->Begin(deadline, seat.referee_proof())) {
    return absl::UnavailableError(absl::StrCat("cannot open a Bot.Play stream at ", endpoint));
  }
  return connection;
}

}  // namespace tarock
