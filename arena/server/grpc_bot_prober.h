// The scheduler's BotProber over gRPC: asks a listening bot's endpoint for
// grpc.health.v1.Health/Check. SERVING is back; so is UNIMPLEMENTED (a bot
// that does not serve health checks answered all the same); anything else
// (no connection, NOT_SERVING while it drains, a timeout) is still down.
//
// Thread-safety: thread-safe.

#ifndef TAROCK_ARENA_SERVER_GRPC_BOT_PROBER_H_
#define TAROCK_ARENA_SERVER_GRPC_BOT_PROBER_H_

#include <string>

#include "arena/scheduler/scheduler.h"
#include "tarock/transport/transport.h"

namespace tarock::arena {

class GrpcBotProber final : public BotProber {
 public:
  // `transport` secures the connections as for the referees' dials.
  explicit GrpcBotProber(transport::Transport transport) : transport_(std::move(transport)) {}
  absl::Status Probe(const std::string& endpoint, absl::Time deadline) override;

 private:
  const transport::Transport transport_;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_GRPC_BOT_PROBER_H_
