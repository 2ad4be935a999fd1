// Bot connections over gRPC: one Bot.Play stream per seat per match, driven by
// the callback API (no thread per stream). Messages from the bot are stamped
// with their arrival time on gRPC's thread and queued; the match thread waits
// on the queue with a deadline.
//
// Each connection gets its own channel with a local subchannel pool, so every
// seat has its own TCP connection: a bot that floods or stalls its connection
// cannot hold up another seat's flow control.
//
// Thread-safety: GrpcBotConnector is thread-safe; a connection is used by one
// match thread (see bot_connection.h) while gRPC's threads feed it.

#ifndef TAROCK_REFEREE_SERVER_GRPC_BOT_CONNECTION_H_
#define TAROCK_REFEREE_SERVER_GRPC_BOT_CONNECTION_H_

#include <memory>
#include <string>

#include "referee/core/bot_connection.h"

namespace tarock {

struct GrpcConnectorOptions {
  // The largest message accepted from a bot; larger ones fail the stream and
  // count as a malformed-message fault. A decision is a few dozen bytes.
  int max_receive_bytes = 64 * 1024;
};

class GrpcBotConnector : public BotConnector {
 public:
  explicit GrpcBotConnector(GrpcConnectorOptions options = {}) : options_(options) {}
  absl::StatusOr<std::unique_ptr<BotConnection>> Connect(const std::string& endpoint,
                                                         absl::Time deadline) override;

 private:
  GrpcConnectorOptions options_;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_GRPC_BOT_CONNECTION_H_
