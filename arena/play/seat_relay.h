// The seat relay: the arena serves the `Bot` service (tarock.proto) that a
// referee dials like any bot's, and hands each stream to whoever holds that
// seat: a person in the browser (arena/play/play_session.h) today, a bot that
// connected out to the arena from behind NAT later. The key is (match id,
// seat), which the referee's first message on a Bot stream, MatchStart, names.
//
// No gRPC here (arena/play/bot_relay_service.h is the thin gRPC layer), so the
// relay and its consumers are unit-tested without a network.
//
//   referee --Bot.Play stream--> BotRelayService --Attach(MatchStart)--> SeatRelay
//                                        |                                  | (match, seat)
//                                        +---- RefereeLink <--- Send() ---- SeatConsumer
//
// Lifecycle: a consumer is registered for (match, seat) before the match is
// scheduled (so the referee never dials before it is there). Each stream
// that names the key attaches to it: OnAttach with the link back to the
// referee, OnMessage for every message (MatchStart first), OnDetach when the
// stream ends (the referee closed it, or it broke). A match the scheduler
// retries on another referee dials again with the same key: the consumer
// sees a second OnAttach and starts over. A stream for a key nobody holds is
// refused (NOT_FOUND): the referee treats that seat as disconnected.
//
// Thread-safety: thread-safe. Consumer callbacks run on the transport's
// threads, never under the relay's lock; a consumer synchronises itself.

#ifndef TAROCK_ARENA_PLAY_SEAT_RELAY_H_
#define TAROCK_ARENA_PLAY_SEAT_RELAY_H_

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock::arena::play {

// The way back to the referee on one attached stream.
class RefereeLink {
 public:
  virtual ~RefereeLink() = default;
  // Queues a message for the referee; false once the stream is gone.
  virtual bool Send(const v1::BotMessage& message) = 0;
};

// Whoever plays a seat through the relay.
class SeatConsumer {
 public:
  virtual ~SeatConsumer() = default;
  // A referee stream for this seat began (its MatchStart follows as the first
  // OnMessage). A later OnAttach replaces the earlier stream.
  virtual void OnAttach(std::shared_ptr<RefereeLink> link) = 0;
  virtual void OnMessage(const v1::RefereeMessage& message) = 0;
  // The stream of `link` ended (after MatchResult, or broken).
  virtual void OnDetach(const RefereeLink* link) = 0;
};

class SeatRelay {
 public:
  using Key = std::pair<std::string, int>;  // match id, seat

  // Errors: ALREADY_EXISTS when the seat has a consumer.
  absl::Status Register(const std::string& match_id, int seat,
                        std::shared_ptr<SeatConsumer> consumer);
  void Unregister(const std::string& match_id, int seat);
  bool Registered(const std::string& match_id, int seat);

  // A stream's first message arrived: the consumer of its seat, after its
  // OnAttach(link) and OnMessage(first). Errors: INVALID_ARGUMENT when the
  // first message is not a MatchStart, NOT_FOUND when nobody holds the seat.
  absl::StatusOr<std::shared_ptr<SeatConsumer>> Attach(const v1::RefereeMessage& first,
                                                       std::shared_ptr<RefereeLink> link);

 private:
  absl::Mutex mu_;
  std::map<Key, std::shared_ptr<SeatConsumer>> consumers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock::arena::play

#endif  // TAROCK_ARENA_PLAY_SEAT_RELAY_H_
