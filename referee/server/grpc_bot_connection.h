// Bot connections over gRPC: one Bot.Play stream per seat per match, on the
// async API with a completion queue per stream that only the match thread
// polls (no thread per stream, and no gRPC thread between the socket and the
// match thread). The match thread waits for a decision by polling with the
// decision's deadline; an answer is stamped with its arrival time when the
// match thread takes it off the queue, which is at once while it waits.
//
// Each connection gets its own channel with a local subchannel pool, so every
// seat has its own TCP connection: a bot that floods or stalls its connection
// cannot hold up another seat's flow control.
//
// Thread-safety: GrpcBotConnector is thread-safe; a connection is used by one
// match thread only (see bot_connection.h), gRPC's threads never touch it.

#ifndef TAROCK_REFEREE_SERVER_GRPC_BOT_CONNECTION_H_
#define TAROCK_REFEREE_SERVER_GRPC_BOT_CONNECTION_H_

#include <memory>
#include <string>

#include "referee/core/bot_connection.h"
#include "referee/net/endpoint_policy.h"
#include "tarock/sdk/transport.h"

namespace tarock {

struct GrpcConnectorOptions {
  // The largest message accepted from a bot; larger ones fail the stream and
  // count as a malformed-message fault. A decision is a few dozen bytes.
  int max_receive_bytes = 64 * 1024;
  // Which bot addresses may be dialed (referee/net/endpoint_policy.h). The
  // endpoint is resolved and checked when the seat is dialed, and the checked
  // address is what is dialed, so a name that changes after registration
  // cannot point the referee elsewhere. Default: everything (tests, `tarock
  // match`); tarock-referee makes it restrictive.
  net::EndpointPolicy endpoint_policy;
};

class GrpcBotConnector : public BotConnector {
 public:
  // `transport` secures the connections to bots (tarock/sdk/transport.h); the
  // default is plaintext to loopback bots only.
  explicit GrpcBotConnector(GrpcConnectorOptions options = {}, sdk::Transport transport = {})
      : options_(options), transport_(std::move(transport)) {}
  absl::StatusOr<std::unique_ptr<BotConnection>> Connect(const std::string& endpoint,
                                                         absl::Time deadline) override;
  absl::StatusOr<std::unique_ptr<BotConnection>> ConnectSeat(const v1::SeatSpec& seat,
                                                             absl::Time deadline) override;

 private:
  GrpcConnectorOptions options_;
  sdk::Transport transport_;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_GRPC_BOT_CONNECTION_H_
