#include "referee/server/seat_gateway_service.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "referee/net/rate_limiter.h"
#include "referee/server/grpc_status.h"
#include "referee/server/stream_write_queue.h"

namespace tarock {
namespace {

// Who a Join comes from, for the per-client bound on waiting joins: an IPv4
// address, or an IPv6 /64 (a client with a /64 has all its addresses).
// "ipv4:10.0.0.7:5123" -> "10.0.0.7"; "ipv6:[2001:db8::1]:5" -> "2001:db8:0:0::/64".
std::string ClientOf(absl::string_view peer) {
  if (absl::ConsumePrefix(&peer, "ipv4:")) {
    const size_t colon = peer.rfind(':');
    return std::string(colon == absl::string_view::npos ? peer : peer.substr(0, colon));
  }
  if (absl::ConsumePrefix(&peer, "ipv6:")) {
    std::string decoded = absl::StrReplaceAll(peer, {{"%5B", "["}, {"%5D", "]"}, {"%25", "%"}});
    absl::string_view p = decoded;
    if (absl::ConsumePrefix(&p, "[")) p = p.substr(0, p.find(']'));
    p = p.substr(0, p.find('%'));
    const std::string prefix = net::PrefixKey(p);
    return prefix.empty() ? std::string(p) : prefix;
  }
  return std::string(peer);  // unix:..., one client per path
}

}  // namespace

// One SeatGateway.Join call, from its request to its end. It deletes itself
// once it has finished and no operation of its is outstanding.
//
// All its completions come on one queue, so Handle runs on one thread at a
// time; writes and the finish are started from any thread (the match's, or
// the rendezvous's timer) through the write queue. Operations are started
// under mu_ (the async API never completes one inline); the seat and the
// rendezvous are called with no lock held, because they may resume the match
// right there, which writes to this call again.
//
// Once the stream plays a seat, the read after a bot's answer is posted with
// the next write to the bot (its next DecisionRequest), not at once, unless
// the seat still waits for an answer (JoinedSeat::OnMessage): posting
// it at once makes gRPC return the flow-control credit for the message read
// (WINDOW_UPDATE frames) in a sendmsg of its own, and the bot wakes up for
// it: one more system call on each side per decision (counted with strace).
// Posted with the write, the credit rides along with it. Nothing is lost
// meanwhile (the bot's messages wait in the transport), and a stream that
// broke is noticed at the seat's next message, when a read matters: a seat
// with no decision pending has nothing to hear.
class JoinCall {
 public:
  // The write queue's "reactor": it starts writes and the finish.
  using Queue = StreamWriteQueue<v1::BotMessage, v1::RefereeMessage, JoinCall>;

  JoinCall(SeatGatewayService* service, grpc::ServerCompletionQueue* cq)
      : service_(service), cq_(cq), link_(std::make_shared<Link>(this)) {}

  // Asks gRPC for the next Join call on the queue.
  void Request() {
    absl::MutexLock lock(&mu_);
    ++outstanding_;
    service_->async_.RequestJoin(&context_, &stream_, cq_, cq_, TagOf(kRequest));
  }

  // For the write queue.
  void StartWrite(const v1::RefereeMessage* message) {
    absl::MutexLock lock(&mu_);
    ++outstanding_;
    stream_.Write(*message, TagOf(kWrite));
    PostWantedRead();
  }
  void Finish(const grpc::Status& status) {
    absl::MutexLock lock(&mu_);
    ++outstanding_;
    finish_started_ = true;
    stream_.Finish(status, TagOf(kFinish));
  }

 private:
  enum Op { kRequest, kRead, kWrite, kFinish };

  using Tag = CompletionLoop::OpTag<JoinCall, Op>;
  friend Tag;

  // The rendezvous's side of the stream. It may outlive the call: the write
  // queue ignores it then.
  class Link final : public JoinedStream {
   public:
    explicit Link(JoinCall* call) : queue(call, Queue::OnClose::kDrain) {}
    void Write(const v1::RefereeMessage& message) override { queue.Send(message); }
    void Close(const absl::Status& status) override { queue.Close(ToGrpcStatus(status)); }
    Queue queue;
  };

  void* TagOf(Op op) { return tags_[op].tag(); }

  void Handle(Op op, bool ok) {
    switch (op) {
      case kRequest:
        if (!ok) {  // the server is shutting down: no call came, none follows
          absl::MutexLock lock(&mu_);
          finished_ = true;
          break;
        }
        service_->RequestCall(cq_);  // the next caller's
        Begin();
        break;
      case kRead:
        if (ok) {
          // Moved out: the seat may resume the match right here, whose next
          // write to this stream posts the next read into incoming_.
          const v1::BotMessage message = std::move(incoming_);
          if (seat_) {
            {
              // A write from the match this message may resume posts the read.
              absl::MutexLock lock(&mu_);
              read_wanted_ = true;
            }
            if (seat_->OnMessage(link_.get(), message)) {
              // The seat waits for more (a Hello before an answer, a stale
              // answer): read on now, unless a write did already.
              absl::MutexLock lock(&mu_);
              PostWantedRead();
            }
          } else {
            seat_ = service_->rendezvous_->ParkedMessage(ticket_, link_.get(), message);
            StartRead();
          }
        } else {
          // The bot closed its side or the stream broke.
          NotifyClosed();
          link_->Close(absl::OkStatus());
        }
        break;
      case kWrite:
        link_->queue.WriteDone(ok);
        break;
      case kFinish:
        // A call the referee ended (match over, stream replaced, a refusal):
        // the seat hears of it even if its read never failed.
        NotifyClosed();
        link_->queue.Done();
        {
          absl::MutexLock lock(&mu_);
          finished_ = true;
        }
        break;
    }
    bool ended = false;
    {
      absl::MutexLock lock(&mu_);
      ended = --outstanding_ == 0 && finished_;
    }
    if (ended) {
      service_->CallEnded();
      delete this;
    }
  }

  // The call came: find the seat its ticket names.
  void Begin() {
    const auto& metadata = context_.client_metadata();
    auto it = metadata.find(kSeatTicketHeader);
    if (it != metadata.end()) ticket_.assign(it->second.data(), it->second.size());
    if (ticket_.empty()) {
      link_->Close(absl::UnauthenticatedError(
          std::string("no seat ticket: SeatGateway.Join needs the metadata '") +
          kSeatTicketHeader + "' with the ticket the arena sent (JoinReferee)"));
      return;
    }
    joined_ = true;
    absl::StatusOr<std::shared_ptr<JoinedSeat>> seat =
        service_->rendezvous_->Join(ticket_, link_, ClientOf(context_.peer()));
    if (!seat.ok()) {
      joined_ = false;
      link_->Close(seat.status());
      return;
    }
    seat_ = *std::move(seat);
    StartRead();
  }

  void StartRead() {
    absl::MutexLock lock(&mu_);
    PostRead();
  }
  // The read held back for the next write, if one is.
  void PostWantedRead() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!read_wanted_) return;
    read_wanted_ = false;
    PostRead();
  }
  void PostRead() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finish_started_) return;  // the read would only fail
    ++outstanding_;
    incoming_.Clear();
    stream_.Read(&incoming_, TagOf(kRead));
  }

  // Tells the seat (or the rendezvous, while parked) once that the stream ended.
  void NotifyClosed() {
    if (!joined_ || closed_notified_) return;
    closed_notified_ = true;
    if (seat_) {
      seat_->OnClosed(link_.get());
    } else {
      service_->rendezvous_->ParkedClosed(ticket_, link_.get());
    }
  }

  SeatGatewayService* const service_;
  grpc::ServerCompletionQueue* const cq_;
  grpc::ServerContext context_;
  grpc::ServerAsyncReaderWriter<v1::RefereeMessage, v1::BotMessage> stream_{&context_};
  Tag tags_[4] = {{this, kRequest}, {this, kRead}, {this, kWrite}, {this, kFinish}};
  const std::shared_ptr<Link> link_;

  // Touched by Handle only (one thread at a time).
  std::string ticket_;
  bool joined_ = false;  // the rendezvous knows the stream
  bool closed_notified_ = false;
  std::shared_ptr<JoinedSeat> seat_;
  v1::BotMessage incoming_;  // owned by the outstanding read

  absl::Mutex mu_;
  int outstanding_ ABSL_GUARDED_BY(mu_) = 0;
  bool finish_started_ ABSL_GUARDED_BY(mu_) = false;
  // The next read waits for the next write (see the class comment).
  bool read_wanted_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

void SeatGatewayService::Start(CompletionLoop* loop) {
  for (grpc::ServerCompletionQueue* cq : loop->server_queues()) RequestCall(cq);
}

void SeatGatewayService::RequestCall(grpc::ServerCompletionQueue* cq) {
  absl::MutexLock lock(&mu_);
  if (stopped_) return;
  ++calls_;
  // Requested under the lock, so Stop cannot slip in between.
  (new JoinCall(this, cq))->Request();
}

void SeatGatewayService::Stop() {
  absl::MutexLock lock(&mu_);
  stopped_ = true;
}

void SeatGatewayService::CallEnded() {
  absl::MutexLock lock(&mu_);
  --calls_;
}

bool SeatGatewayService::AwaitCallsEnded(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  auto none = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return calls_ == 0; };
  return mu_.AwaitWithDeadline(absl::Condition(&none), deadline);
}

}  // namespace tarock
