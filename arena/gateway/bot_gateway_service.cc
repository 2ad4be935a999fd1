#include "arena/gateway/bot_gateway_service.h"

#include <algorithm>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "arena/scheduler/dial_in.h"
#include "referee/server/grpc_status.h"
#include "referee/server/stream_write_queue.h"

namespace tarock::arena::gateway {
namespace {

using Reactor = grpc::ServerBidiReactor<v1::BotUplink, v1::ArenaDownlink>;

// "ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1"; "ipv6:[::1]:5000" -> "ipv6:[::1]".
std::string AddressOf(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  if (colon == std::string::npos || colon < 5) return peer;
  return peer.substr(0, colon);
}

using Queue = StreamWriteQueue<v1::BotUplink, v1::ArenaDownlink>;

// The hub's handle on one connection. Closing drains what is queued (a
// SeatClosed, or the reason the connection ends) before the status.
class Link final : public BotLink {
 public:
  explicit Link(Reactor* stream) : queue(stream, Queue::OnClose::kDrain) {}
  bool Send(const v1::ArenaDownlink& message) override { return queue.Send(message); }
  void Close(const absl::Status& status) override { queue.Close(ToGrpcStatus(status)); }
  void Finish(const grpc::Status& status) { queue.Close(status); }
  Queue queue;
};

class Connection final : public Reactor {
 public:
  Connection(BotGatewayService* service, grpc::CallbackServerContext* context)
      : service_(service), link_(std::make_shared<Link>(this)) {
    address_ = AddressOf(context->peer());
    if (absl::Status s = service_->Admit(address_); !s.ok()) {
      link_->Close(s);
      return;
    }
    admitted_ = true;
    std::string token;
    const auto& metadata = context->client_metadata();
    auto it = metadata.find("authorization");
    if (it != metadata.end()) {
      std::string value(it->second.data(), it->second.size());
      if (absl::StartsWithIgnoreCase(value, "bearer ")) token = value.substr(7);
    }
    if (token.empty() || token.size() > 256) {
      link_->Close(service_->FailedAuth(
          address_, absl::UnauthenticatedError(
                        "no bot token: send metadata 'authorization: Bearer TOKEN' (the token "
                        "of `tarock-arena-cli bots add NAME --dial_in`)")));
      return;
    }
    // Every token is checked, from a locked-out address too: the lockout
    // (FailedAuth) answers wrong tokens, and never refuses a right one, so
    // one typo behind a NAT does not lock out the good bots behind it.
    std::string hosted_bot;
    if (auto h = metadata.find("x-tarock-hosted-bot"); h != metadata.end())
      hosted_bot.assign(h->second.data(), std::min<size_t>(h->second.size(), 256));
    int64_t host_id = 0;
    absl::StatusOr<std::pair<int64_t, std::string>> bot =
        hosted_bot.empty() ? service_->authenticate()(token)
        : service_->hosted() ? service_->hosted()(token, hosted_bot, &host_id)
                             : absl::StatusOr<std::pair<int64_t, std::string>>(
                                   absl::FailedPreconditionError("this arena hosts no bots"));
    if (!bot.ok()) {
      link_->Close(bot.status().code() == absl::StatusCode::kUnauthenticated
                       ? service_->FailedAuth(address_, bot.status())
                       : bot.status());
      return;
    }
    bot_id_ = bot->first;
    absl::StatusOr<uint64_t> connection = service_->hub()->Connect(bot_id_, bot->second, link_,
                                                                          /*hosted=*/!hosted_bot.empty(), host_id);
    if (!connection.ok()) {
      link_->Close(connection.status());
      return;
    }
    connection_ = *connection;
    tokens_ = service_->options().message_burst;
    last_ = absl::Now();
    StartRead(&in_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The bot closed its side, or sent something that is not a BotUplink
      // (gRPC ends the read either way), or the connection broke (then
      // nobody hears this status).
      Disconnect();
      link_->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "the bot's stream ended: it closed its side or sent a message "
                                 "that is not a tarock.v1.BotUplink"));
      return;
    }
    const GatewayOptions& o = service_->options();
    const absl::Time now = absl::Now();
    tokens_ = std::min(o.message_burst,
                       tokens_ + absl::ToDoubleSeconds(now - last_) * o.max_messages_per_second);
    last_ = now;
    absl::Status status;
    if (--tokens_ < 0) {
      status = absl::ResourceExhaustedError(absl::StrCat(
          "more than ", o.max_messages_per_second, " messages a second on one connection"));
    } else if (static_cast<int>(in_.ByteSizeLong()) > o.max_message_bytes) {
      status = absl::InvalidArgumentError(
          absl::StrCat("a message of more than ", o.max_message_bytes, " bytes"));
    } else {
      status = service_->hub()->FromBot(bot_id_, connection_, in_);
    }
    if (!status.ok()) {
      Disconnect();
      link_->Close(status);
      return;
    }
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override { link_->queue.WriteDone(ok); }

  void OnDone() override {
    Disconnect();
    link_->queue.Done();
    if (admitted_) service_->Leave(address_);
    delete this;
  }

 private:
  void Disconnect() {
    if (connection_ == 0) return;
    service_->hub()->Disconnect(bot_id_, connection_);
    connection_ = 0;
  }

  BotGatewayService* service_;
  std::shared_ptr<Link> link_;
  std::string address_;
  bool admitted_ = false;
  int64_t bot_id_ = 0;
  uint64_t connection_ = 0;  // 0: not (or no longer) the bot's connection
  double tokens_ = 0;
  absl::Time last_;
  v1::BotUplink in_;
};

}  // namespace

Authenticator StoreAuthenticator(Store* store) {
  return [store](const std::string& token) -> absl::StatusOr<std::pair<int64_t, std::string>> {
    const std::string hash = HashToken(token);
    for (const BotRow& b : store->ListBots(true)) {
      if (b.token_hash != hash) continue;
      if (b.retired)
        return absl::FailedPreconditionError(absl::StrCat("bot '", b.name, "' is retired"));
      if (b.endpoint == kHostedEndpoint)
        return absl::FailedPreconditionError(absl::StrCat(
            "bot '", b.name,
            "' is hosted: the arena's bot hosts play it, not a connection with its own token; "
            "upload a new version instead (tarock-arena-cli bots upload)"));
      if (b.endpoint != kDialInEndpoint)
        return absl::FailedPreconditionError(absl::StrCat(
            "bot '", b.name, "' is registered with an endpoint (", b.endpoint,
            "), not to dial in; register a bot with `tarock-arena-cli bots add NAME --dial_in`"));
      return std::make_pair(b.id, b.name);
    }
    return absl::UnauthenticatedError("no bot of this arena has this token");
  };
}

BotGatewayService::BotGatewayService(DialInHub* hub, Authenticator authenticate,
                                     GatewayOptions options)
    : hub_(hub), authenticate_(std::move(authenticate)), options_(options) {}

grpc::ServerBidiReactor<v1::BotUplink, v1::ArenaDownlink>* BotGatewayService::Connect(
    grpc::CallbackServerContext* context) {
  return new Connection(this, context);
}

void BotGatewayService::ConfigureServer(const GatewayOptions& o, grpc::ServerBuilder* builder) {
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                              static_cast<int>(absl::ToInt64Milliseconds(o.keepalive)));
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                              static_cast<int>(absl::ToInt64Milliseconds(o.keepalive_timeout)));
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // Bots ping too (the SDKs every 20 s): allow pings every 5 s.
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                              static_cast<int>(absl::ToInt64Milliseconds(o.max_idle)));
}

absl::Status BotGatewayService::Admit(const std::string& address) {
  absl::MutexLock lock(&mu_);
  Address& a = addresses_[address];
  if (a.open >= options_.max_connections_per_address)
    return absl::ResourceExhaustedError(absl::StrCat(
        a.open, " gateway connections are open from this address (the limit)"));
  ++a.open;
  return absl::OkStatus();
}

void BotGatewayService::Leave(const std::string& address) {
  absl::MutexLock lock(&mu_);
  auto it = addresses_.find(address);
  if (it == addresses_.end()) return;
  --it->second.open;
  Forget(it, absl::Now());
}

void BotGatewayService::Forget(std::map<std::string, Address>::iterator it, absl::Time now) {
  Address& a = it->second;
  while (!a.failed.empty() && a.failed.front() < now - absl::Minutes(1)) a.failed.pop_front();
  if (a.open <= 0 && a.failed.empty()) addresses_.erase(it);
}

absl::Status BotGatewayService::FailedAuth(const std::string& address, absl::Status refusal) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  Address& a = addresses_[address];
  while (!a.failed.empty() && a.failed.front() < now - absl::Minutes(1)) a.failed.pop_front();
  // Past the limit the answer is the lockout, and the list stops growing.
  if (static_cast<int>(a.failed.size()) >= options_.max_failed_auth_per_minute)
    return absl::ResourceExhaustedError(absl::StrCat(
        a.failed.size(), " connections with a wrong token from this address in the last "
        "minute (the limit): wait a minute (a right token is still accepted)"));
  a.failed.push_back(now);
  return refusal;
}

}  // namespace tarock::arena::gateway
