// The referee's SeatGateway service (gateway.proto): dial-in bots on the
// direct route join their seats here with the ticket the arena gave them
// (referee/core/joined_seat.h, docs/dial-in.md "Routes"). A thin layer:
// each Join stream becomes a JoinedStream of the SeatRendezvous, and its
// messages go to the seat it plays.
//
// Thread-safety: thread-safe (gRPC's callback API).

#ifndef TAROCK_REFEREE_SERVER_SEAT_GATEWAY_SERVICE_H_
#define TAROCK_REFEREE_SERVER_SEAT_GATEWAY_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "referee/core/joined_seat.h"
#include "tarock/v1/gateway.grpc.pb.h"

namespace tarock {

class SeatGatewayService final : public v1::SeatGateway::CallbackService {
public:
  // `rendezvous` must outlive the service.
  explicit SeatGatewayService(SeatRendezvous *rendezvous)
      : rendezvous_(rendezvous) {}

  grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage> *
  Join(grpc::CallbackServerContext *context) override;

private:
  SeatRendezvous *rendezvous_;
};

} // namespace tarock

#endif // TAROCK_REFEREE_SERVER_SEAT_GATEWAY_SERVICE_H_
