#include "arena/gateway/bot_gateway_service.h"

#include <algorithm>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "arena/scheduler/dial_in.h"
#include "referee/server/grpc_status.h"

namespace tarock::arena::gateway {
namespace {

using Reactor = grpc::ServerBidiReactor<v1::BotUplink, v1::ArenaDownlink>;

// "ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1"; "ipv6:[::1]:5000" -> "ipv6:[::1]".
std::string AddressOf(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  if (colon == std::string::npos || colon < 5) return peer;
  return peer.substr(0, colon);
}

// The write queue of one connection (the callback API allows one write in
// flight). Close finishes the call once the write in flight is done.
class Link final : public BotLink {
 public:
  explicit Link(Reactor* stream) : stream_(stream) {}

  bool Send(const v1::ArenaDownlink& message) override {
    const v1::ArenaDownlink* write = nullptr;
    Reactor* stream = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (closed_ || stream_ == nullptr) return false;
      stream = stream_;
      queue_.push_back(message);
      if (writing_) return true;
      writing_ = true;
      write = &queue_.front();
    }
    stream->StartWrite(write);
    return true;
  }

  void Close(const absl::Status& status) override { Finish(ToGrpcStatus(status)); }

  void Finish(const grpc::Status& status) {
    bool now = false;
    Reactor* stream = nullptr;
    {
      absl::MutexLock lock(&mu_);
      stream = stream_;
      closed_ = true;
      if (stream == nullptr || finished_ || finish_pending_) return;
      finish_pending_ = status;
      if (!writing_) {
        finished_ = true;
        now = true;
      }
    }
    if (now) stream->Finish(status);
  }

  void WriteDone(bool ok) {
    const v1::ArenaDownlink* write = nullptr;
    std::optional<grpc::Status> finish;
    Reactor* stream = nullptr;
    {
      absl::MutexLock lock(&mu_);
      stream = stream_;
      queue_.pop_front();
      if (!ok) {
        closed_ = true;
        queue_.clear();
      }
      if (!queue_.empty() && (!closed_ || finish_pending_)) {
        write = &queue_.front();
      } else {
        writing_ = false;
        if (finish_pending_ && !finished_) {
          finished_ = true;
          finish = *finish_pending_;
        }
      }
    }
    if (write) stream->StartWrite(write);
    if (finish) stream->Finish(*finish);
  }

  bool closed() {
    absl::MutexLock lock(&mu_);
    return closed_;
  }

  void Done() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    stream_ = nullptr;
  }

 private:
  absl::Mutex mu_;
  Reactor* stream_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::ArenaDownlink> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> finish_pending_ ABSL_GUARDED_BY(mu_);
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
      service_->FailedAuth(address_);
      link_->Close(absl::UnauthenticatedError(
          "no bot token: send metadata 'authorization: Bearer TOKEN' (the token of "
          "`tarock-arena-cli bots add NAME --dial_in`)"));
      return;
    }
    absl::StatusOr<std::pair<int64_t, std::string>> bot = service_->authenticate()(token);
    if (!bot.ok()) {
      if (bot.status().code() == absl::StatusCode::kUnauthenticated) service_->FailedAuth(address_);
      link_->Close(bot.status());
      return;
    }
    bot_id_ = bot->first;
    absl::StatusOr<uint64_t> connection = service_->hub()->Connect(bot_id_, bot->second, link_);
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

  void OnWriteDone(bool ok) override { link_->WriteDone(ok); }

  void OnDone() override {
    Disconnect();
    link_->Done();
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
  const absl::Time now = absl::Now();
  while (!a.failed.empty() && a.failed.front() < now - absl::Minutes(1)) a.failed.pop_front();
  if (static_cast<int>(a.failed.size()) >= options_.max_failed_auth_per_minute)
    return absl::ResourceExhaustedError(absl::StrCat(
        a.failed.size(), " connections with a wrong token from this address in the last "
        "minute (the limit): wait a minute"));
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
  if (--it->second.open <= 0 && it->second.failed.empty()) addresses_.erase(it);
}

void BotGatewayService::FailedAuth(const std::string& address) {
  absl::MutexLock lock(&mu_);
  addresses_[address].failed.push_back(absl::Now());
}

}  // namespace tarock::arena::gateway
