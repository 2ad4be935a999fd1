// The gate of the arena's seat relay, as the scheduler sees it: before each
// attempt at a match, every seat the referee reaches through the arena's
// relay (a person's seat of a play match, a dial-in bot's relayed seat) gets
// a fresh random capability. The scheduler gives it only to the referee of
// that attempt (SeatSpec.referee_proof, which the referee presents as the
// "x-tarock-referee-proof" metadata of the stream it opens), and the relay
// admits no other stream for that seat: not a stranger's, not a replay, not
// a late stream of an earlier attempt (arena/play/seat_relay.h).
//
// Thread-safety: implementations are thread-safe.

#ifndef TAROCK_ARENA_SCHEDULER_RELAY_GATE_H_
#define TAROCK_ARENA_SCHEDULER_RELAY_GATE_H_

#include <string>

#include "absl/status/status.h"

namespace tarock::arena {

class RelayGate {
 public:
  virtual ~RelayGate() = default;
  // From now on only a stream presenting `capability` (32+ characters) opens
  // seat `seat` of `match_id`, once. Errors: NOT_FOUND when the relay holds
  // no such seat.
  virtual absl::Status Authorize(const std::string& match_id, int seat,
                                 const std::string& capability) = 0;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_RELAY_GATE_H_
