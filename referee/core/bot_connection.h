// A seat's link to its bot, as the match runner sees it: send referee messages,
// wait for the decision answering one request, close. The gRPC implementation
// lives in referee/server (the only place that includes grpcpp); in-process
// seats (tests, benchmarks, strength runs) implement it over an SDK BotSession.
//
// Each wait has two forms. The referee's matches use the asynchronous ones
// (DecideAsync, FinishAsync, ConnectSeatAsync: the match is a coroutine,
// referee/core/async.h, resumed by the callback), so a match holds no thread
// while it waits. The synchronous forms serve tools and tests. A connection
// implements at least the synchronous forms: the asynchronous defaults call
// them inline (fine for in-process bots, which answer at once); connections
// that really wait (gRPC, joined seats) implement both.
//
// Thread-safety: a connection's methods are called by its match only, one at
// a time, but not always from the same thread (a match moves between the
// threads that resume it); implementations receive on their own threads and
// synchronise internally. Callbacks may run on any thread, possibly inline.

#ifndef TAROCK_REFEREE_CORE_BOT_CONNECTION_H_
#define TAROCK_REFEREE_CORE_BOT_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock {

// What came back for one decision request.
struct BotReply {
  enum class Kind {
    kDecision,      // `action` holds the bot's answer (not yet checked for legality)
    kTimeout,       // nothing arrived before the deadline
    kMalformed,     // a message that is not a valid answer (detail says why)
    kDisconnected,  // the stream is gone (detail says why)
  };
  Kind kind = Kind::kTimeout;
  std::string action;
  std::string detail;
  // From the moment the request was handed to the transport to the moment the
  // answer arrived (or the wait ended).
  absl::Duration elapsed;
};

// What `message` means for the decision request `want` (its request_id): the
// reply it settles (a Decision, an Absent, or kMalformed for a stray
// message), or nullopt when it is to be skipped (an answer or Absent for an
// earlier request: that request's time was already charged). Hellos are the
// caller's to handle before. `elapsed` is left for the caller.
inline std::optional<BotReply> ReplyFromMessage(const v1::BotMessage& message, int64_t want) {
  BotReply reply;
  if (message.has_absent()) {
    if (message.absent().request_id() < want) return std::nullopt;
    if (message.absent().request_id() == want) {
      // A relay says its player is not connected (gateway.proto).
      reply.kind = BotReply::Kind::kDisconnected;
      reply.detail = message.absent().detail().substr(0, 200);
      return reply;
    }
  }
  if (!message.has_decision()) {
    reply.kind = BotReply::Kind::kMalformed;
    reply.detail = "a message that is neither a Decision nor a Hello";
    return reply;
  }
  const int64_t id = message.decision().request_id();
  if (id < want && id > 0) return std::nullopt;
  if (id != want) {
    reply.kind = BotReply::Kind::kMalformed;
    reply.detail = absl::StrCat("a Decision for request_id ", id, ", expected ", want);
    return reply;
  }
  reply.kind = BotReply::Kind::kDecision;
  reply.action = message.decision().action();
  return reply;
}

class BotConnection {
 public:
  virtual ~BotConnection() = default;
  // Queues a message to the bot; never blocks. Ignored once disconnected.
  virtual void Send(const v1::RefereeMessage& message) = 0;
  // Sends `request` and waits for its Decision until `deadline`. Answers to
  // earlier requests that arrive late are dropped silently (their timeout was
  // already charged); any other stray message makes the reply kMalformed.
  virtual BotReply Decide(const v1::DecisionRequest& request, absl::Time deadline) = 0;
  // False once the stream has ended or failed.
  virtual bool connected() const = 0;
  // The name the bot gave in its Hello, if any.
  virtual std::string hello_name() const = 0;
  // The version the bot gave in its Hello, if any.
  virtual std::string hello_version() const { return ""; }
  // Closes the referee's side and waits until `deadline` for the stream to end.
  virtual void Finish(absl::Time deadline) = 0;

  using DecideDone = absl::AnyInvocable<void(BotReply)>;
  // Decide without waiting: `done` gets the reply (exactly once, on any
  // thread, possibly before DecideAsync returns). The default calls Decide.
  virtual void DecideAsync(const v1::DecisionRequest& request, absl::Time deadline,
                           DecideDone done) {
    done(Decide(request, deadline));
  }
  // Ends the connection now, from any thread (match_interrupt.h): the bot's
  // stream is closed and a pending DecideAsync completes soon as a
  // disconnect, never inline. The default does nothing: the wait ends at its
  // deadline (in-process bots answer at once anyway).
  virtual void Interrupt() {}
  // Finish without waiting: `done` runs once the stream has ended (or
  // `deadline` passed and it was cancelled). The default calls Finish.
  virtual void FinishAsync(absl::Time deadline, absl::AnyInvocable<void()> done) {
    Finish(deadline);
    done();
  }
};

// Opens connections to bots by endpoint.
class BotConnector {
 public:
  virtual ~BotConnector() = default;
  // Fails with UNAVAILABLE when the bot cannot be reached before `deadline`.
  virtual absl::StatusOr<std::unique_ptr<BotConnection>> Connect(const std::string& endpoint,
                                                                 absl::Time deadline) = 0;
  // Connect to the seat's endpoint, presenting its referee_proof where the
  // transport can (gRPC metadata). The default ignores the proof.
  virtual absl::StatusOr<std::unique_ptr<BotConnection>> ConnectSeat(const v1::SeatSpec& seat,
                                                                     absl::Time deadline) {
    return Connect(seat.endpoint(), deadline);
  }
  using ConnectDone = absl::AnyInvocable<void(absl::StatusOr<std::unique_ptr<BotConnection>>)>;
  // ConnectSeat without waiting: `done` gets the connection or the error
  // (exactly once, on any thread, possibly inline). The default calls ConnectSeat.
  virtual void ConnectSeatAsync(const v1::SeatSpec& seat, absl::Time deadline, ConnectDone done) {
    done(ConnectSeat(seat, deadline));
  }
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_CORE_BOT_CONNECTION_H_
