// The arena's `Bot` service (tarock.proto): the endpoint a referee dials for a
// seat that the arena relays (a person in the browser; later a bot that
// connected out to the arena). One callback-API reactor per stream; the first
// message (MatchStart) picks the seat's consumer in the SeatRelay, every later
// message goes to it, and its answers go back on the stream in order. A
// stream for a seat nobody holds ends with NOT_FOUND.
//
// Thread-safety: thread-safe (gRPC runs the reactors).

#ifndef TAROCK_ARENA_PLAY_BOT_RELAY_SERVICE_H_
#define TAROCK_ARENA_PLAY_BOT_RELAY_SERVICE_H_

#include "arena/play/seat_relay.h"
#include "referee/metrics/grpc_metrics.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock::arena::play {

class BotRelayService final : public v1::Bot::CallbackService {
 public:
  // `grpc_metrics` (may be null; must outlive the service): the server's
  // metrics, in which a seat's stream is held under its match id
  // (GrpcMetrics::HoldServerCall) from its MatchStart: how long it took is
  // how long the match did, public once its deal is (the scheduler releases
  // it then, through RefereeClient::ReleaseHeldMetrics).
  explicit BotRelayService(SeatRelay* relay, metrics::GrpcMetrics* grpc_metrics = nullptr)
      : relay_(relay), grpc_metrics_(grpc_metrics) {}

  grpc::ServerBidiReactor<v1::RefereeMessage, v1::BotMessage>* Play(
      grpc::CallbackServerContext* context) override;

 private:
  SeatRelay* relay_;
  metrics::GrpcMetrics* const grpc_metrics_;
};

}  // namespace tarock::arena::play

#endif  // TAROCK_ARENA_PLAY_BOT_RELAY_SERVICE_H_
