// Seats whose bot joins the referee instead of being dialed: the referee's
// side of dial-in bots on the direct route (docs/dial-in.md, "Routes").
//
// A dial-in bot has no address a referee can dial, but it can connect out. On
// the direct route the arena gives the seat a random ticket (SeatSpec.
// dial_in_ticket) and sends the same ticket to the bot over the bot's gateway
// connection; the bot opens SeatGateway.Join on the referee with it. The
// referee then plays the seat over that stream exactly as over a Bot.Play
// stream it dialed, with no relay on the decision's path.
//
//   arena --RunMatch(seat: ticket)--> referee:
//   SeatRendezvous::AwaitJoin(ticket) arena --JoinReferee(ticket)--> bot
//   --SeatGateway.Join(ticket)--> referee:
//         SeatRendezvous::Join(ticket) -> the seat's JoinedSeat
//
// Either side may come first: a bot that joins before the match asked for its
// seat waits (up to JoinOptions::early_join_wait); a match that asks first
// waits until its connect deadline.
//
// A JoinedSeat outlives its streams: when the bot's stream breaks mid-match,
// a decision due meanwhile waits for the decision's time; if the bot joins
// again with the same ticket (its process restarted and the arena sent the
// ticket again), the seat's state is sent again on the new stream (MatchStart,
// the current HandStart and the waiting DecisionRequest) and play goes on
// without a fault. Once a seat missed a whole decision while away, its next
// requests are disconnect faults at once until the bot is back, so a dead bot
// does not slow its match. A second Join while the seat's stream is live is
// refused with ALREADY_EXISTS, never a replacement, as the arena's relay
// refuses a second referee stream for a seat (arena/play/seat_relay.h).
//
// No gRPC here (referee/server/seat_gateway_service.h is the transport), so it
// is unit-tested without a network.
//
// Thread-safety: thread-safe. A JoinedSeat's BotConnection methods are called
// by its match, one at a time; streams call OnMessage/OnClosed from their own
// threads, which resume the match when they answer its waiting decision
// (decision deadlines are timers, referee/core/timer_queue.h).

#ifndef TAROCK_REFEREE_CORE_JOINED_SEAT_H_
#define TAROCK_REFEREE_CORE_JOINED_SEAT_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "referee/core/bot_connection.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock {

// The metadata key of SeatGateway.Join that carries the ticket.
inline constexpr char kSeatTicketHeader[] = "x-tarock-seat-ticket";

// The transport's side of one joined stream.
class JoinedStream {
public:
  virtual ~JoinedStream() = default;
  // Queues a message for the bot; never blocks. Ignored once closed.
  virtual void Write(const v1::RefereeMessage &message) = 0;
  // Ends the stream with `status` after what is queued.
  virtual void Close(const absl::Status &status) = 0;
};

class JoinedSeat;

struct JoinOptions {
  // How long a bot that joins before its match asked for the seat is kept
  // waiting (the arena sends the ticket just before it starts the match).
  absl::Duration early_join_wait = absl::Seconds(10);
  // Joins waiting for their match at once; more are refused
  // (RESOURCE_EXHAUSTED), so strangers cannot pile up streams.
  int max_early_joins = 1024;
  // Of those, from one client (the transport names clients: an IPv4
  // address, an IPv6 /64), so made-up tickets from one client cannot fill
  // the slots of all (issue 29).
  int max_early_joins_per_client = 64;
};

// Pairs tickets of the matches' seats with the bots' streams.
class SeatRendezvous {
public:
  explicit SeatRendezvous(JoinOptions options = {}) : options_(options) {}

  // The match's side: waits until the bot joins with `ticket` (or has
  // already) or `deadline` passes. The connection keeps the ticket valid for
  // rejoins until it is destroyed. Errors: UNAVAILABLE when no bot joined in
  // time; INVALID_ARGUMENT for a ticket shorter than 16 characters;
  // ALREADY_EXISTS for a ticket in use by another seat.
  absl::StatusOr<std::unique_ptr<BotConnection>>
  AwaitJoin(const std::string &ticket, absl::Time deadline);
  // AwaitJoin without waiting: `done` gets its result (possibly inline).
  void AwaitJoinAsync(const std::string &ticket, absl::Time deadline,
                      BotConnector::ConnectDone done);

  // The stream's side: a bot joined with `ticket`. Returns the seat the
  // stream now plays (its messages go to JoinedSeat::OnMessage), or nullptr
  // when the seat's match has not asked yet (the stream is parked and attached
  // when it does; it is closed with NOT_FOUND when early_join_wait passes
  // first). Errors: RESOURCE_EXHAUSTED when too many joins are parked, in
  // all or from `client` ("" when unknown: counted as one client);
  // INVALID_ARGUMENT for a malformed ticket.
  absl::StatusOr<std::shared_ptr<JoinedSeat>>
  Join(const std::string &ticket, std::shared_ptr<JoinedStream> stream,
       const std::string &client = "");

  // A message on a stream whose Join returned no seat. Returns the seat when
  // the stream has been attached meanwhile (the message went to it; the
  // transport sends the next ones to the seat directly), else nullptr: a
  // Hello is kept for the seat; anything else before the match began closes
  // the stream with FAILED_PRECONDITION.
  std::shared_ptr<JoinedSeat> ParkedMessage(const std::string &ticket,
                                            const JoinedStream *stream,
                                            const v1::BotMessage &message);
  // A stream whose Join returned no seat ended.
  void ParkedClosed(const std::string &ticket, const JoinedStream *stream);

  // Parked joins whose wait ran out are closed (called by AwaitJoin and Join,
  // and by the transport's timer).
  void ExpireParked(absl::Time now);

  int seats();
  int parked();

private:
  friend class JoinedConnection;
  struct Parked {
    std::shared_ptr<JoinedStream> stream;
    absl::Time until;
    std::optional<v1::Hello> hello;
    std::string client;
  };
  void Forget(const std::string &ticket, const JoinedSeat *seat);

  const JoinOptions options_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<JoinedSeat>>
      seats_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Parked> parked_ ABSL_GUARDED_BY(mu_);
};

// One seat played over joined streams; a BotConnection for the match runner.
class JoinedSeat : public std::enable_shared_from_this<JoinedSeat> {
public:
  JoinedSeat() = default;

  // A stream of the bot: with no live stream (never one, or the last one
  // ended) it becomes the seat's stream and gets the seat's state again; while
  // one is live it is refused (closed with ALREADY_EXISTS), never a
  // replacement.
  void Attach(std::shared_ptr<JoinedStream> stream,
              std::optional<v1::Hello> hello);
  // A message the bot sent on `stream` (ignored from a replaced stream).
  // Returns whether the seat still waits for an answer from the bot (a
  // decision is pending that this message did not settle): then the transport
  // must read on at once; otherwise it may read only when it next writes to
  // the bot (referee/server/seat_gateway_service.cc says why).
  bool OnMessage(const JoinedStream *stream, const v1::BotMessage &message);
  // `stream` ended (a no-op for a replaced stream).
  void OnClosed(const JoinedStream *stream);

  // `done` gets true once a stream is attached (at once if one was), false
  // when `deadline` passes first.
  void AwaitAttachedAsync(absl::Time deadline,
                          absl::AnyInvocable<void(bool)> done);

  // BotConnection, through JoinedConnection.
  void Send(const v1::RefereeMessage &message);
  BotReply Decide(const v1::DecisionRequest &request, absl::Time deadline);
  void DecideAsync(const v1::DecisionRequest &request, absl::Time deadline,
                   BotConnection::DecideDone done);
  bool connected();
  std::string hello_name();
  std::string hello_version();
  void Finish(absl::Time deadline);
  // BotConnection::Interrupt: closes the stream; a waiting decision ends
  // (as a disconnect) on the timer thread, and so do later ones.
  void Interrupt();

private:
  void Remember(const v1::RefereeMessage &message)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the waiting decision: returns its callback (to be called outside the
  // lock) and cancels its timer.
  BotConnection::DecideDone Settle() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Settles the waiting decision if the inbox answers it.
  bool TryAnswer(BotReply *reply, BotConnection::DecideDone *settle)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DecisionTimedOut(int64_t request_id);

  absl::Mutex mu_;
  std::shared_ptr<JoinedStream> stream_ ABSL_GUARDED_BY(mu_);
  bool ever_attached_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  // Missed a whole decision while away: requests fail at once until a join.
  bool absent_ ABSL_GUARDED_BY(mu_) = false;
  std::string closed_detail_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::MatchStart> start_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::HandStart> hand_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::DecisionRequest> pending_ ABSL_GUARDED_BY(mu_);
  absl::Time pending_deadline_ ABSL_GUARDED_BY(mu_);
  absl::Time pending_start_ ABSL_GUARDED_BY(mu_);
  BotConnection::DecideDone decide_done_ ABSL_GUARDED_BY(mu_);
  uint64_t decide_timer_ ABSL_GUARDED_BY(mu_) = 0;
  absl::AnyInvocable<void(bool)> attach_done_ ABSL_GUARDED_BY(mu_);
  uint64_t attach_timer_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<std::pair<v1::BotMessage, absl::Time>> inbox_ ABSL_GUARDED_BY(mu_);
  std::string hello_name_ ABSL_GUARDED_BY(mu_);
  std::string hello_version_ ABSL_GUARDED_BY(mu_);
  // A Hello that came on a stream not attached yet, while the seat had none
  // (a parked join the match took: the rendezvous hands the seat the stream
  // after its lock, and the stream's Hello can come in between): Attach of
  // that stream takes it.
  const JoinedStream *early_stream_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::optional<v1::Hello> early_hello_ ABSL_GUARDED_BY(mu_);
};

// Chooses per seat: a seat with a dial_in_ticket waits for its bot to join
// (with dial_in_join_wait_ms, that long, and then dials the seat's endpoint:
// the arena's relay); every other seat is dialed by `dial`.
class JoinOrDialConnector final : public BotConnector {
public:
  // Both must outlive the connector.
  JoinOrDialConnector(SeatRendezvous *rendezvous, BotConnector *dial)
      : rendezvous_(rendezvous), dial_(dial) {}
  absl::StatusOr<std::unique_ptr<BotConnection>>
  Connect(const std::string &endpoint, absl::Time deadline) override {
    return dial_->Connect(endpoint, deadline);
  }
  absl::StatusOr<std::unique_ptr<BotConnection>>
  ConnectSeat(const v1::SeatSpec &seat, absl::Time deadline) override;
  void ConnectSeatAsync(const v1::SeatSpec &seat, absl::Time deadline,
                        ConnectDone done) override;

private:
  SeatRendezvous *rendezvous_;
  BotConnector *dial_;
};

} // namespace tarock

#endif // TAROCK_REFEREE_CORE_JOINED_SEAT_H_
