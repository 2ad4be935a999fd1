// Conversions between the engine's plain C++ values and the tarock.v1 protocol
// messages (proto/tarock/v1/tarock.proto). The referee's thin gRPC service
// classes call these; nothing here includes grpcpp.
//
// Thread-safety: pure functions.

#ifndef TAROCK_REFEREE_PROTOCOL_CONVERT_H_
#define TAROCK_REFEREE_PROTOCOL_CONVERT_H_

#include "referee/engine/game.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock {

// Every field of the observation, cards and actions in the text notation.
v1::Observation ObservationToProto(const Observation& obs);

// A decision request for the seat of `obs`: the observation, its legal actions
// and the events since `events_seen` (the length of the history this seat had
// already been sent).
v1::DecisionRequest MakeDecisionRequest(const Observation& obs, int64_t request_id,
                                        int hand_index, int events_seen);

}  // namespace tarock

#endif  // TAROCK_REFEREE_PROTOCOL_CONVERT_H_
