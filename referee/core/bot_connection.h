// A seat's link to its bot, as the match runner sees it: send referee messages,
// wait for the decision answering one request, close. The gRPC implementation
// lives in referee/server (the only place that includes grpcpp); in-process
// seats (tests, benchmarks, strength runs) implement it over an SDK BotSession.
//
// Thread-safety: Send, AwaitDecision and Finish are called from the match's
// thread only; implementations receive on their own threads and synchronise
// internally.

#ifndef TAROCK_REFEREE_CORE_BOT_CONNECTION_H_
#define TAROCK_REFEREE_CORE_BOT_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
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
  // Closes the referee's side and waits until `deadline` for the stream to end.
  virtual void Finish(absl::Time deadline) = 0;
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
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_CORE_BOT_CONNECTION_H_
