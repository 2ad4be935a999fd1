#include "referee/core/joined_seat.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/core/async.h"
#include "referee/core/timer_queue.h"

namespace tarock {
namespace {

constexpr size_t kMinTicketLength = 16;
constexpr size_t kMaxTicketLength = 128;
// Messages a bot may have sent ahead of the referee's next Decide; a stream
// that sends more is flooding and is cut off.
constexpr size_t kMaxInbox = 64;

absl::Status CheckTicket(const std::string &ticket) {
  if (ticket.size() < kMinTicketLength || ticket.size() > kMaxTicketLength)
    return absl::InvalidArgumentError(
        absl::StrCat("a seat ticket has ", kMinTicketLength, " to ",
                     kMaxTicketLength, " characters"));
  return absl::OkStatus();
}

} // namespace

// The match runner's handle on a JoinedSeat; while it lives, the ticket
// stays valid for rejoins.
class JoinedConnection final : public BotConnection {
public:
  JoinedConnection(SeatRendezvous *rendezvous, std::string ticket,
                   std::shared_ptr<JoinedSeat> seat)
      : rendezvous_(rendezvous), ticket_(std::move(ticket)),
        seat_(std::move(seat)) {}
  ~JoinedConnection() override {
    seat_->Finish(absl::Now());
    rendezvous_->Forget(ticket_, seat_.get());
  }
  void Send(const v1::RefereeMessage &message) override {
    seat_->Send(message);
  }
  BotReply Decide(const v1::DecisionRequest &request,
                  absl::Time deadline) override {
    return seat_->Decide(request, deadline);
  }
  void DecideAsync(const v1::DecisionRequest &request, absl::Time deadline,
                   DecideDone done) override {
    seat_->DecideAsync(request, deadline, std::move(done));
  }
  bool connected() const override { return seat_->connected(); }
  std::string hello_name() const override { return seat_->hello_name(); }
  std::string hello_version() const override { return seat_->hello_version(); }
  void Finish(absl::Time deadline) override { seat_->Finish(deadline); }
  void Interrupt() override { seat_->Interrupt(); }

private:
  SeatRendezvous *rendezvous_;
  const std::string ticket_;
  std::shared_ptr<JoinedSeat> seat_;
};

// ---------------------------------------------------------------------------
// SeatRendezvous

absl::StatusOr<std::unique_ptr<BotConnection>>
SeatRendezvous::AwaitJoin(const std::string &ticket, absl::Time deadline) {
  return BlockOn<absl::StatusOr<std::unique_ptr<BotConnection>>>(
      [&](BotConnector::ConnectDone done) {
        AwaitJoinAsync(ticket, deadline, std::move(done));
      });
}

void SeatRendezvous::AwaitJoinAsync(const std::string &ticket,
                                    absl::Time deadline,
                                    BotConnector::ConnectDone done) {
  if (absl::Status s = CheckTicket(ticket); !s.ok())
    return done(s);
  ExpireParked(absl::Now());
  auto seat = std::make_shared<JoinedSeat>();
  std::optional<Parked> parked;
  {
    absl::MutexLock lock(&mu_);
    if (seats_.count(ticket))
      return done(absl::AlreadyExistsError(
          "this seat ticket is in use by another seat"));
    seats_[ticket] = seat;
    auto it = parked_.find(ticket);
    if (it != parked_.end()) {
      parked = std::move(it->second);
      parked_.erase(it);
    }
  }
  if (parked)
    seat->Attach(std::move(parked->stream), std::move(parked->hello));
  auto connection = std::make_unique<JoinedConnection>(this, ticket, seat);
  seat->AwaitAttachedAsync(
      deadline, [connection = std::move(connection),
                 done = std::move(done)](bool attached) mutable {
        if (!attached) {
          // The ticket is given up before the match hears of it.
          connection.reset();
          return done(absl::UnavailableError(
              "the dial-in bot did not join its seat (SeatGateway.Join with "
              "the seat's ticket) in time"));
        }
        done(std::move(connection));
      });
}

absl::StatusOr<std::shared_ptr<JoinedSeat>>
SeatRendezvous::Join(const std::string &ticket,
                     std::shared_ptr<JoinedStream> stream,
                     const std::string &client) {
  if (absl::Status s = CheckTicket(ticket); !s.ok())
    return s;
  const absl::Time now = absl::Now();
  ExpireParked(now);
  std::shared_ptr<JoinedSeat> seat;
  {
    absl::MutexLock lock(&mu_);
    auto it = seats_.find(ticket);
    if (it != seats_.end()) {
      seat = it->second;
    } else {
      auto p = parked_.find(ticket);
      if (p == parked_.end() &&
          static_cast<int>(parked_.size()) >= options_.max_early_joins)
        return absl::ResourceExhaustedError(
            "too many joins are waiting for their matches; try again shortly");
      // One stream per ticket: a second join while the first waits is
      // refused, never a replacement (docs/security.md, "Secret deals").
      if (p != parked_.end() && p->second.stream)
        return absl::AlreadyExistsError(
            "this seat ticket has joined already; a second join is refused");
      if (p == parked_.end() || p->second.client != client) {
        // At most max_early_joins entries to count.
        int mine = 0;
        for (const auto &[t, parked] : parked_)
          if (parked.client == client) ++mine;
        if (mine >= options_.max_early_joins_per_client)
          return absl::ResourceExhaustedError(absl::StrCat(
              mine, " joins from this client are waiting for their matches (the "
              "limit); try again shortly"));
      }
      Parked &entry = parked_[ticket];
      entry.client = client;
      entry.stream = std::move(stream);
      entry.until = now + options_.early_join_wait;
    }
  }
  if (seat)
    seat->Attach(std::move(stream), std::nullopt);
  return seat;
}

std::shared_ptr<JoinedSeat>
SeatRendezvous::ParkedMessage(const std::string &ticket,
                              const JoinedStream *stream,
                              const v1::BotMessage &message) {
  std::shared_ptr<JoinedStream> refused;
  std::shared_ptr<JoinedSeat> seat;
  {
    absl::MutexLock lock(&mu_);
    auto p = parked_.find(ticket);
    if (p != parked_.end() && p->second.stream.get() == stream) {
      if (message.has_hello()) {
        p->second.hello = message.hello();
        return nullptr;
      }
      refused = std::move(p->second.stream);
      parked_.erase(p);
    } else if (auto it = seats_.find(ticket); it != seats_.end()) {
      seat = it->second;
    }
  }
  if (refused) {
    refused->Close(absl::FailedPreconditionError(
        "a message other than Hello before the seat's match began"));
    return nullptr;
  }
  if (seat)
    seat->OnMessage(stream, message);
  return seat;
}

void SeatRendezvous::ParkedClosed(const std::string &ticket,
                                  const JoinedStream *stream) {
  std::shared_ptr<JoinedSeat> seat;
  {
    absl::MutexLock lock(&mu_);
    auto p = parked_.find(ticket);
    if (p != parked_.end() && p->second.stream.get() == stream) {
      parked_.erase(p);
      return;
    }
    if (auto it = seats_.find(ticket); it != seats_.end())
      seat = it->second;
  }
  if (seat)
    seat->OnClosed(stream);
}

void SeatRendezvous::ExpireParked(absl::Time now) {
  std::vector<std::shared_ptr<JoinedStream>> expired;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = parked_.begin(); it != parked_.end();) {
      if (it->second.until <= now) {
        expired.push_back(std::move(it->second.stream));
        it = parked_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto &stream : expired)
    stream->Close(absl::NotFoundError(
        "no match of this referee has a seat with this ticket"));
}

void SeatRendezvous::Forget(const std::string &ticket, const JoinedSeat *seat) {
  absl::MutexLock lock(&mu_);
  auto it = seats_.find(ticket);
  if (it != seats_.end() && it->second.get() == seat)
    seats_.erase(it);
}

int SeatRendezvous::seats() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(seats_.size());
}

int SeatRendezvous::parked() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(parked_.size());
}

// ---------------------------------------------------------------------------
// JoinedSeat

void JoinedSeat::Attach(std::shared_ptr<JoinedStream> stream,
                        std::optional<v1::Hello> hello) {
  std::shared_ptr<JoinedStream> old;
  absl::AnyInvocable<void(bool)> attached;
  absl::Status why;
  {
    absl::MutexLock lock(&mu_);
    if (finished_) {
      old = std::move(stream);
      why = absl::FailedPreconditionError("the seat's match is over");
    } else if (stream_) {
      // Never a replacement: a second join while the seat's stream is live is
      // refused (a stranger who learnt the ticket cannot take the seat over;
      // a bot that restarted joins again once its old stream has ended).
      old = std::move(stream);
      why = absl::AlreadyExistsError(
          "this seat already has a live stream; a second join is refused");
    } else {
      old = std::move(stream_);
      stream_ = std::move(stream);
      ever_attached_ = true;
      if (attach_done_) {
        attached = std::move(attach_done_);
        attach_done_ = nullptr;
        if (attach_timer_) TimerQueue::Default().Cancel(attach_timer_);
        attach_timer_ = 0;
      }
      absent_ = false;
      if (!hello && early_hello_ && early_stream_ == stream_.get())
        hello = std::move(early_hello_);
      early_stream_ = nullptr;
      early_hello_.reset();
      if (hello) {
        hello_name_ = hello->name().substr(0, 64);
        hello_version_ = hello->version().substr(0, 64);
      }
      // Answers that came on the old stream stay valid; the new stream gets the
      // seat's state again.
      if (start_) {
        v1::RefereeMessage m;
        *m.mutable_match_start() = *start_;
        stream_->Write(m);
      }
      if (hand_) {
        v1::RefereeMessage m;
        *m.mutable_hand_start() = *hand_;
        stream_->Write(m);
      }
      if (pending_) {
        v1::RefereeMessage m;
        *m.mutable_decision_request() = *pending_;
        m.mutable_decision_request()->set_time_left_ms(std::max<int64_t>(
            0, absl::ToInt64Milliseconds(pending_deadline_ - absl::Now())));
        stream_->Write(m);
      }
    }
  }
  if (old)
    old->Close(why);
  if (attached)
    attached(true);
}

bool JoinedSeat::OnMessage(const JoinedStream *stream,
                           const v1::BotMessage &message) {
  std::shared_ptr<JoinedStream> flooding;
  BotConnection::DecideDone settle;
  BotReply reply;
  bool awaiting = false;
  {
    absl::MutexLock lock(&mu_);
    if (stream != stream_.get()) {
      if (!stream_ && !finished_ && message.has_hello()) {
        early_stream_ = stream;
        early_hello_ = message.hello();
      }
      return false;
    }
    if (message.has_hello()) {
      hello_name_ = message.hello().name().substr(0, 64);
      hello_version_ = message.hello().version().substr(0, 64);
    } else if (inbox_.size() >= kMaxInbox) {
      flooding = std::move(stream_);
      closed_detail_ = "the bot sent messages nobody asked for";
    } else {
      inbox_.emplace_back(message, absl::Now());
      TryAnswer(&reply, &settle);
    }
    awaiting = !flooding && pending_.has_value() && decide_done_ != nullptr;
  }
  if (settle) settle(std::move(reply));
  if (flooding)
    flooding->Close(absl::ResourceExhaustedError(
        "more messages than requests on this seat"));
  return awaiting;
}

void JoinedSeat::OnClosed(const JoinedStream *stream) {
  absl::MutexLock lock(&mu_);
  if (stream != stream_.get() || stream == nullptr)
    return;
  stream_.reset();
  closed_detail_ = "the bot's stream to the referee ended";
}

void JoinedSeat::AwaitAttachedAsync(absl::Time deadline,
                                    absl::AnyInvocable<void(bool)> done) {
  {
    absl::MutexLock lock(&mu_);
    if (!ever_attached_) {
      attach_done_ = std::move(done);
      std::weak_ptr<JoinedSeat> self = weak_from_this();
      attach_timer_ = TimerQueue::Default().Schedule(deadline, [self] {
        std::shared_ptr<JoinedSeat> seat = self.lock();
        if (!seat) return;
        absl::AnyInvocable<void(bool)> late;
        {
          absl::MutexLock lock(&seat->mu_);
          seat->attach_timer_ = 0;
          late = std::move(seat->attach_done_);
          seat->attach_done_ = nullptr;
        }
        if (late) late(false);
      });
      return;
    }
  }
  done(true);
}

void JoinedSeat::Remember(const v1::RefereeMessage &message) {
  switch (message.message_case()) {
  case v1::RefereeMessage::kMatchStart:
    start_ = message.match_start();
    hand_.reset();
    break;
  case v1::RefereeMessage::kHandStart:
    hand_ = message.hand_start();
    break;
  case v1::RefereeMessage::kHandResult:
    hand_.reset();
    break;
  default:
    break;
  }
}

void JoinedSeat::Send(const v1::RefereeMessage &message) {
  absl::MutexLock lock(&mu_);
  if (finished_)
    return;
  Remember(message);
  if (stream_)
    stream_->Write(message);
}

BotReply JoinedSeat::Decide(const v1::DecisionRequest &request,
                            absl::Time deadline) {
  return BlockOn<BotReply>([&](BotConnection::DecideDone done) {
    DecideAsync(request, deadline, std::move(done));
  });
}

void JoinedSeat::DecideAsync(const v1::DecisionRequest &request,
                             absl::Time deadline,
                             BotConnection::DecideDone done) {
  BotConnection::DecideDone settle;
  BotReply reply;
  {
    absl::MutexLock lock(&mu_);
    if (finished_) {
      reply.kind = BotReply::Kind::kDisconnected;
      reply.detail = "the seat's connection is closed";
      settle = std::move(done);
    } else {
      pending_ = request;
      pending_deadline_ = deadline;
      pending_start_ = absl::Now();
      decide_done_ = std::move(done);
      if (stream_) {
        v1::RefereeMessage m;
        *m.mutable_decision_request() = request;
        stream_->Write(m);
      } else if (absent_) {
        reply.kind = BotReply::Kind::kDisconnected;
        reply.detail = absl::StrCat("not connected: ", closed_detail_);
        settle = Settle();
      }
      if (!settle && !TryAnswer(&reply, &settle)) {
        std::weak_ptr<JoinedSeat> self = weak_from_this();
        const int64_t id = request.request_id();
        decide_timer_ = TimerQueue::Default().Schedule(deadline, [self, id] {
          if (std::shared_ptr<JoinedSeat> seat = self.lock()) seat->DecisionTimedOut(id);
        });
      }
    }
  }
  if (settle) settle(std::move(reply));
}

BotConnection::DecideDone JoinedSeat::Settle() {
  pending_.reset();
  if (decide_timer_) TimerQueue::Default().Cancel(decide_timer_);
  decide_timer_ = 0;
  return std::move(decide_done_);
}

bool JoinedSeat::TryAnswer(BotReply *reply, BotConnection::DecideDone *settle) {
  if (!pending_ || !decide_done_) return false;
  while (!inbox_.empty()) {
    auto [message, arrived] = std::move(inbox_.front());
    inbox_.pop_front();
    if (std::optional<BotReply> settled =
            ReplyFromMessage(message, pending_->request_id())) {
      *reply = std::move(*settled);
      reply->elapsed = arrived - pending_start_;
      *settle = Settle();
      return true;
    }
  }
  return false;
}

void JoinedSeat::Interrupt() {
  std::shared_ptr<JoinedStream> stream;
  {
    absl::MutexLock lock(&mu_);
    stream = std::move(stream_);
    closed_detail_ = "the match was cancelled";
    absent_ = true;
    if (pending_ && decide_done_) {
      // Settled on the timer's thread, never inline.
      if (decide_timer_) TimerQueue::Default().Cancel(decide_timer_);
      std::weak_ptr<JoinedSeat> self = weak_from_this();
      const int64_t id = pending_->request_id();
      decide_timer_ = TimerQueue::Default().Schedule(absl::Now(), [self, id] {
        if (std::shared_ptr<JoinedSeat> seat = self.lock()) seat->DecisionTimedOut(id);
      });
    }
  }
  if (stream) stream->Close(absl::CancelledError("the referee cancelled the match"));
}

void JoinedSeat::DecisionTimedOut(int64_t request_id) {
  BotConnection::DecideDone settle;
  BotReply reply;
  {
    absl::MutexLock lock(&mu_);
    if (!pending_ || pending_->request_id() != request_id || !decide_done_) return;
    decide_timer_ = 0;  // this one fired
    reply.elapsed = absl::Now() - pending_start_;
    if (stream_) {
      reply.kind = BotReply::Kind::kTimeout;
    } else {
      // Away for the whole decision: a disconnect, and the next ones at once.
      absent_ = true;
      reply.kind = BotReply::Kind::kDisconnected;
      reply.detail = absl::StrCat("not connected: ", closed_detail_);
    }
    settle = Settle();
  }
  settle(std::move(reply));
}

bool JoinedSeat::connected() {
  absl::MutexLock lock(&mu_);
  return stream_ != nullptr;
}

std::string JoinedSeat::hello_name() {
  absl::MutexLock lock(&mu_);
  return hello_name_;
}

std::string JoinedSeat::hello_version() {
  absl::MutexLock lock(&mu_);
  return hello_version_;
}

void JoinedSeat::Finish(absl::Time) {
  std::shared_ptr<JoinedStream> stream;
  {
    absl::MutexLock lock(&mu_);
    if (finished_)
      return;
    finished_ = true;
    stream = std::move(stream_);
  }
  // The stream ends after what is queued (the MatchResult).
  if (stream)
    stream->Close(absl::OkStatus());
}

// ---------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<BotConnection>>
JoinOrDialConnector::ConnectSeat(const v1::SeatSpec &seat,
                                 absl::Time deadline) {
  return BlockOn<absl::StatusOr<std::unique_ptr<BotConnection>>>(
      [&](ConnectDone done) {
        ConnectSeatAsync(seat, deadline, std::move(done));
      });
}

void JoinOrDialConnector::ConnectSeatAsync(const v1::SeatSpec &seat,
                                           absl::Time deadline,
                                           ConnectDone done) {
  if (seat.dial_in_ticket().empty())
    return dial_->ConnectSeatAsync(seat, deadline, std::move(done));
  if (seat.dial_in_join_wait_ms() <= 0 || seat.endpoint().empty())
    return rendezvous_->AwaitJoinAsync(seat.dial_in_ticket(), deadline,
                                       std::move(done));
  // Joined if the bot comes in time, else dialed at the endpoint.
  const absl::Time join_deadline = std::min(
      deadline, absl::Now() + absl::Milliseconds(seat.dial_in_join_wait_ms()));
  rendezvous_->AwaitJoinAsync(
      seat.dial_in_ticket(), join_deadline,
      [this, seat, deadline, done = std::move(done)](
          absl::StatusOr<std::unique_ptr<BotConnection>> joined) mutable {
        if (joined.ok() || absl::Now() >= deadline)
          return done(std::move(joined));
        dial_->ConnectSeatAsync(seat, deadline, std::move(done));
      });
}

} // namespace tarock
