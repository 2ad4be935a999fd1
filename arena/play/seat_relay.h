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
// scheduled (so the referee never dials before it is there). Before each
// attempt at the match the scheduler authorises a fresh random capability for
// the seat (Authorize; arena/scheduler/relay_gate.h), which it gives only to
// the referee of that attempt (SeatSpec.referee_proof, presented as the
// stream's "x-tarock-referee-proof" metadata). A stream attaches only with
// the current capability: OnAttach with the link back to the referee,
// OnMessage for every message (MatchStart first), OnDetach when the stream
// ends (the referee closed it, or it broke). A stream without it (a
// stranger's, one of an earlier attempt) is refused (PERMISSION_DENIED), and
// so is a second stream with it while the first is attached (ALREADY_EXISTS):
// a seat's stream is never replaced by another of the same attempt. A match
// the scheduler retries on another referee comes with a new capability: its
// stream ends the earlier attempt's (Revoke) and the consumer sees a second
// OnAttach and starts over. A stream for a key nobody holds is refused
// (NOT_FOUND): the referee treats that seat as disconnected.
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
#include "arena/scheduler/relay_gate.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock::arena::play {

// The way back to the referee on one attached stream.
class RefereeLink {
 public:
  virtual ~RefereeLink() = default;
  // Queues a message for the referee; false once the stream is gone.
  virtual bool Send(const v1::BotMessage& message) = 0;
  // A newer attempt's stream took the seat: end this stream (ABORTED) and
  // deliver none of its further messages.
  virtual void Revoke() {}
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

class SeatRelay final : public RelayGate {
 public:
  using Key = std::pair<std::string, int>;  // match id, seat

  // Errors: ALREADY_EXISTS when the seat has a consumer.
  absl::Status Register(const std::string& match_id, int seat,
                        std::shared_ptr<SeatConsumer> consumer);
  void Unregister(const std::string& match_id, int seat);
  bool Registered(const std::string& match_id, int seat);

  // The capability of the match's next attempt for a registered seat: from
  // now on only a stream presenting it attaches. Errors: NOT_FOUND when
  // nobody holds the seat; INVALID_ARGUMENT for fewer than 32 characters.
  absl::Status Authorize(const std::string& match_id, int seat,
                         const std::string& capability) override;

  // A stream's first message arrived, with the capability its referee
  // presented: the consumer of its seat, after its OnAttach(link) and
  // OnMessage(first). Errors: INVALID_ARGUMENT when the first message is not
  // a MatchStart, NOT_FOUND when nobody holds the seat, PERMISSION_DENIED
  // for a capability that is not the current attempt's (compared in constant
  // time), ALREADY_EXISTS when a stream of this attempt is attached.
  absl::StatusOr<std::shared_ptr<SeatConsumer>> Attach(const v1::RefereeMessage& first,
                                                       const std::string& capability,
                                                       std::shared_ptr<RefereeLink> link);
 private:
  struct Entry {
    std::shared_ptr<SeatConsumer> consumer;
    std::string capability;               // the current attempt's; "" none yet
    std::weak_ptr<RefereeLink> attached;  // its stream, once one attached
    bool used = false;                    // a stream of this attempt attached
  };
  absl::Mutex mu_;
  std::map<Key, Entry> consumers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock::arena::play

#endif  // TAROCK_ARENA_PLAY_SEAT_RELAY_H_
