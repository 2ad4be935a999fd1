// The arena's BotGateway service (gateway.proto): the gRPC side of bots that
// dial in. One callback-API reactor per connection: it checks the limits of
// the caller's address, authenticates the token of the call's metadata
// (`authorization: Bearer TOKEN`), hands the connection to the DialInHub
// (arena/gateway/dial_in_hub.h) and passes the bot's messages to it under a
// message-rate limit. Every refusal ends the call with a status that says why
// and changes nothing. Tokens are never logged nor echoed.
//
// Thread-safety: thread-safe (gRPC runs the reactors).

#ifndef TAROCK_ARENA_GATEWAY_BOT_GATEWAY_SERVICE_H_
#define TAROCK_ARENA_GATEWAY_BOT_GATEWAY_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/gateway/dial_in_hub.h"
#include "arena/store/store.h"
#include "tarock/v1/gateway.grpc.pb.h"

namespace tarock::arena::gateway {

struct GatewayOptions {
  int max_connections_per_address = 256;  // open gateway calls from one address
  // Connections with a wrong (or no) token per address and minute; past it a
  // wrong token is answered RESOURCE_EXHAUSTED for the rest of the minute.
  // A right token is always accepted (issue 29: one typo behind a NAT must
  // not lock out the good bots behind it).
  int max_failed_auth_per_minute = 20;
  double max_messages_per_second = 2000;  // per connection, sustained
  double message_burst = 4000;            // per connection
  int max_message_bytes = 64 << 10;       // one uplink message
  absl::Duration keepalive = absl::Seconds(20);          // the arena pings every connection this often
  absl::Duration keepalive_timeout = absl::Seconds(10);  // and closes it when a ping is not answered
  absl::Duration max_idle = absl::Seconds(120);  // a connection with no call open is closed
};

// Who a token belongs to: the bot's id and name. Errors: UNAUTHENTICATED (no
// such token), FAILED_PRECONDITION (retired, or not a dial-in bot).
using Authenticator = std::function<absl::StatusOr<std::pair<int64_t, std::string>>(const std::string&)>;

// The arena's bots, by the SHA-256 of their tokens (store.h).
Authenticator StoreAuthenticator(Store* store);

// A bot host's connection for one hosted bot (docs/hosting.md): the host's
// token and the bot's name (metadata `x-tarock-hosted-bot: NAME`).
// `host_id` gets the host's id (its seats are its to report on:
// DialInHub::ClaimSeatReport).
using HostedAuthenticator = std::function<absl::StatusOr<std::pair<int64_t, std::string>>(
    const std::string& token, const std::string& bot, int64_t* host_id)>;

class BotGatewayService final : public v1::BotGateway::CallbackService {
 public:
  // `hub` must outlive the service.
  BotGatewayService(DialInHub* hub, Authenticator authenticate, GatewayOptions options = {});

  grpc::ServerBidiReactor<v1::BotUplink, v1::ArenaDownlink>* Connect(
      grpc::CallbackServerContext* context) override;

  // The keep-alive and idle settings of `options` on the arena's server
  // (they apply to every connection of its --listen port).
  static void ConfigureServer(const GatewayOptions& options, grpc::ServerBuilder* builder);

  // Used by the connections.
  DialInHub* hub() { return hub_; }
  const GatewayOptions& options() const { return options_; }
  const Authenticator& authenticate() const { return authenticate_; }
  // Hosted bots: connections with `x-tarock-hosted-bot` go here (set before
  // the server starts; without it they are refused).
  void SetHostedAuthenticator(HostedAuthenticator hosted) { hosted_ = std::move(hosted); }
  const HostedAuthenticator& hosted() const { return hosted_; }
  // An address opens a connection: an error when it has too many open.
  absl::Status Admit(const std::string& address);
  void Leave(const std::string& address);
  // A connection from `address` brought a wrong or no token: counts it and
  // returns `refusal`, or the lockout (RESOURCE_EXHAUSTED) past the limit.
  absl::Status FailedAuth(const std::string& address, absl::Status refusal);

 private:
  struct Address {
    int open = 0;
    std::deque<absl::Time> failed;  // within the last minute
  };
  // Drops `it` when nothing about it is left to remember.
  void Forget(std::map<std::string, Address>::iterator it, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  DialInHub* hub_;
  Authenticator authenticate_;
  HostedAuthenticator hosted_;
  const GatewayOptions options_;
  absl::Mutex mu_;
  std::map<std::string, Address> addresses_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock::arena::gateway

#endif  // TAROCK_ARENA_GATEWAY_BOT_GATEWAY_SERVICE_H_
