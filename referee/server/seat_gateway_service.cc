#include "referee/server/seat_gateway_service.h"

#include <memory>
#include <string>

#include "referee/server/grpc_status.h"
#include "referee/server/stream_write_queue.h"

namespace tarock {
namespace {

using Queue = StreamWriteQueue<v1::BotMessage, v1::RefereeMessage>;

class Link final : public JoinedStream {
public:
  explicit Link(Queue::Reactor *reactor)
      : queue(reactor, Queue::OnClose::kDrain) {}
  void Write(const v1::RefereeMessage &message) override {
    queue.Send(message);
  }
  void Close(const absl::Status &status) override {
    queue.Close(ToGrpcStatus(status));
  }
  Queue queue;
};

class JoinStream final
    : public grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage> {
public:
  JoinStream(SeatRendezvous *rendezvous, grpc::CallbackServerContext *context)
      : rendezvous_(rendezvous), link_(std::make_shared<Link>(this)) {
    const auto &metadata = context->client_metadata();
    auto it = metadata.find(kSeatTicketHeader);
    if (it != metadata.end())
      ticket_.assign(it->second.data(), it->second.size());
    if (ticket_.empty()) {
      link_->Close(absl::UnauthenticatedError(
          std::string("no seat ticket: SeatGateway.Join needs the metadata '") +
          kSeatTicketHeader +
          "' with the ticket the arena sent (JoinReferee)"));
      return;
    }
    absl::StatusOr<std::shared_ptr<JoinedSeat>> seat =
        rendezvous_->Join(ticket_, link_);
    if (!seat.ok()) {
      link_->Close(seat.status());
      return;
    }
    seat_ = *std::move(seat);
    StartRead(&in_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The bot closed its side or the stream broke.
      if (seat_) {
        seat_->OnClosed(link_.get());
      } else {
        rendezvous_->ParkedClosed(ticket_, link_.get());
      }
      link_->Close(absl::OkStatus());
      return;
    }
    if (seat_) {
      seat_->OnMessage(link_.get(), in_);
    } else {
      seat_ = rendezvous_->ParkedMessage(ticket_, link_.get(), in_);
    }
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override { link_->queue.WriteDone(ok); }

  void OnDone() override {
    // A stream that ended without a read ending first (cancelled, or
    // finished by the referee): the seat hears it too.
    if (seat_) {
      seat_->OnClosed(link_.get());
    } else if (!ticket_.empty()) {
      rendezvous_->ParkedClosed(ticket_, link_.get());
    }
    link_->queue.Done();
    delete this;
  }

private:
  SeatRendezvous *rendezvous_;
  std::shared_ptr<Link> link_;
  std::string ticket_;
  std::shared_ptr<JoinedSeat> seat_;
  v1::BotMessage in_;
};

} // namespace

grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage> *
SeatGatewayService::Join(grpc::CallbackServerContext *context) {
  return new JoinStream(rendezvous_, context);
}

} // namespace tarock
