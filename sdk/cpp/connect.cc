// Dialing in: the client side of the arena's BotGateway (gateway.proto,
// docs/dial-in.md). The connection's messages are played by a small pool of
// threads, leader/follower (Dispatcher): a seat's message is played by the
// thread that read it, with no hand-off on the decision's path, while another
// thread reads on (a bot that thinks for a second blocks no other seat); the
// seats' answers share the stream under a lock.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <chrono>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tarock/sdk/serve.h"
#include "tarock/sdk/transport.h"
#include "tarock/v1/gateway.grpc.pb.h"

namespace tarock::sdk {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }
bool Stopping(const ConnectOptions& o) { return g_stop.load() || (o.stop != nullptr && o.stop->load()); }

using Stream = grpc::ClientReaderWriter<v1::BotUplink, v1::ArenaDownlink>;

// The stream's write side, shared by the seats.
class Writer {
 public:
  explicit Writer(Stream* stream) : stream_(stream) {}
  bool Write(const v1::BotUplink& message) {
    absl::MutexLock lock(&mu_);
    return stream_->Write(message);
  }

 private:
  absl::Mutex mu_;
  Stream* stream_;
};

// Seats on the direct route (gateway.proto, JoinReferee): each is played on a
// stream of its own to the referee, by a thread of its own, with no hand-off:
// the thread reads a referee message, asks the seat's handler, writes the
// answer. These streams do not depend on the arena connection: a seat goes on
// while that connection is re-established, and a JoinReferee sent again after
// a reconnection is ignored for a ticket still being played.
class Joiner {
 public:
  Joiner(const ConnectOptions* options, const std::function<SeatHandler()>* make_seat,
         const Transport* transport)
      : options_(options), make_seat_(make_seat), transport_(transport) {}

  ~Joiner() {
    std::vector<std::thread> threads;
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
      for (auto& [ticket, context] : active_) context->TryCancel();
      for (auto& [id, t] : threads_) threads.push_back(std::move(t));
      threads_.clear();
    }
    for (std::thread& t : threads) t.join();
  }

  void Join(const v1::JoinReferee& join) {
    std::vector<std::thread> finished;
    {
      absl::MutexLock lock(&mu_);
      // Threads of seats that ended are joined here, so they do not pile up.
      for (uint64_t id : finished_) {
        auto it = threads_.find(id);
        if (it == threads_.end()) continue;
        finished.push_back(std::move(it->second));
        threads_.erase(it);
      }
      finished_.clear();
      if (!stopping_ && !join.ticket().empty() && !active_.count(join.ticket())) {
        auto context = std::make_shared<grpc::ClientContext>();
        context->AddMetadata("x-tarock-seat-ticket", join.ticket());
        active_[join.ticket()] = context;
        const uint64_t id = ++next_thread_;
        threads_[id] = std::thread([this, join, context, id] { Play(join, context.get(), id); });
      }
    }
    for (std::thread& t : finished) t.join();
  }

  // Cancels every seat's stream (SIGINT/SIGTERM).
  void CancelAll() {
    absl::MutexLock lock(&mu_);
    for (auto& [ticket, context] : active_) context->TryCancel();
  }

 private:
  void Play(const v1::JoinReferee& join, grpc::ClientContext* first_context, uint64_t id) {
    std::shared_ptr<grpc::Channel> channel = ChannelTo(join.referee());
    // The referee refuses a join while the seat's earlier stream is live
    // (ALREADY_EXISTS): after this process restarted, the referee may not
    // have seen the old stream end yet. Join again for a few seconds.
    std::shared_ptr<grpc::ClientContext> retry_context;
    grpc::ClientContext* context = first_context;
    for (int attempt = 0; channel != nullptr; ++attempt) {
      if (attempt > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        absl::MutexLock lock(&mu_);
        if (stopping_) break;
        retry_context = std::make_shared<grpc::ClientContext>();
        retry_context->AddMetadata("x-tarock-seat-ticket", join.ticket());
        active_[join.ticket()] = retry_context;
        context = retry_context.get();
      }
      std::unique_ptr<v1::SeatGateway::Stub> stub = v1::SeatGateway::NewStub(channel);
      std::unique_ptr<grpc::ClientReaderWriter<v1::BotMessage, v1::RefereeMessage>> stream =
          stub->Join(context);
      v1::BotMessage hello;
      hello.mutable_hello()->set_name(options_->name);
      hello.mutable_hello()->set_version(options_->version);
      stream->Write(hello);
      SeatHandler handler;
      v1::RefereeMessage in;
      bool heard = false;  // the referee answered at all
      while (stream->Read(&in)) {
        heard = true;
        // A MatchStart (a new seat, or the seat again after a rejoin)
        // starts a fresh Bot; the old one goes first.
        if (in.has_match_start() || !handler) {
          handler = nullptr;
          handler = (*make_seat_)();
        }
        std::optional<v1::BotMessage> reply = handler(in);
        if (reply && !stream->Write(*reply)) break;
      }
      handler = nullptr;
      stream->WritesDone();
      grpc::Status status = stream->Finish();
      if (status.error_code() == grpc::StatusCode::ALREADY_EXISTS && !heard && attempt < 20) continue;
      if (status.error_code() == grpc::StatusCode::UNAVAILABLE && !heard) {
        // Never reached the referee: an arena on the default route
        // (--dial_in_route=auto) plays the seat through itself instead.
        std::fprintf(stderr,
                     "%s: cannot reach referee %s for seat %lld (%s); the arena relays the seat "
                     "if its --dial_in_route is auto\n",
                     options_->name.c_str(), join.referee().c_str(),
                     static_cast<long long>(join.seat_id()), status.error_message().c_str());
      } else if (!status.ok() && status.error_code() != grpc::StatusCode::CANCELLED)
        std::fprintf(stderr, "%s: seat %lld on referee %s ended: %s\n", options_->name.c_str(),
                     static_cast<long long>(join.seat_id()), join.referee().c_str(),
                     status.error_message().c_str());
      break;
    }
    absl::MutexLock lock(&mu_);
    active_.erase(join.ticket());
    finished_.push_back(id);
  }

  std::shared_ptr<grpc::Channel> ChannelTo(const std::string& referee) {
    absl::MutexLock lock(&mu_);
    auto it = channels_.find(referee);
    if (it != channels_.end()) return it->second;
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(options_->max_receive_bytes);
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = transport_->Channel(referee, args);
    if (!channel.ok()) {
      std::fprintf(stderr, "%s: cannot reach referee %s: %s\n", options_->name.c_str(),
                   referee.c_str(), std::string(channel.status().message()).c_str());
      return nullptr;
    }
    channels_[referee] = *channel;
    return *channel;
  }

  const ConnectOptions* options_;
  const std::function<SeatHandler()>* make_seat_;
  const Transport* transport_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<grpc::ClientContext>> active_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, std::thread> threads_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> finished_ ABSL_GUARDED_BY(mu_);
  uint64_t next_thread_ ABSL_GUARDED_BY(mu_) = 0;
};

// The connection's threads, leader/follower: one thread (the leader) reads the
// stream; when a message for an idle seat arrives, it hands the reading to
// another thread and plays the seat itself at once (no hand-off on the
// decision's path); messages for a seat that is busy queue behind it and
// its thread plays them in order. Threads are added when no idle one is left
// to read, so a bot thinking on one seat never blocks another.
class Dispatcher {
 public:
  Dispatcher(Stream* stream, Writer* writer, const ConnectOptions* options,
             const std::function<SeatHandler()>* make_seat, Joiner* joiner, bool* welcomed)
      : stream_(stream), writer_(writer), options_(options), make_seat_(make_seat),
        joiner_(joiner), welcomed_(welcomed) {}

  // Runs until the stream ends; every seat's handler is gone when it returns.
  void Run() {
    {
      absl::MutexLock lock(&mu_);
      ++idle_;
    }
    Work();
    std::vector<std::thread> threads;
    {
      absl::MutexLock lock(&mu_);
      threads.swap(threads_);
    }
    for (std::thread& t : threads) t.join();
    absl::MutexLock lock(&mu_);
    // Join added no thread after the swap: ended_ stops new ones.
    std::map<int64_t, SeatState> seats;
    seats.swap(seats_);
    mu_.Unlock();
    seats.clear();  // the handlers end (a bridge's programs) outside the lock
    mu_.Lock();
  }

 private:
  struct SeatState {
    SeatHandler handler;
    std::deque<v1::RefereeMessage> queue;
    bool busy = false;
    bool closed = false;
  };

  void Work() {
    mu_.Lock();
    for (;;) {
      mu_.Await(absl::Condition(
          +[](Dispatcher* d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(d->mu_) { return d->ended_ || !d->reading_; },
          this));
      if (ended_) break;
      reading_ = true;
      --idle_;
      mu_.Unlock();
      const bool ok = stream_->Read(&in_);
      mu_.Lock();
      reading_ = false;
      if (!ok) {
        ended_ = true;
        break;
      }
      int64_t play = 0;
      switch (in_.message_case()) {
        case v1::ArenaDownlink::kWelcome:
          *welcomed_ = true;
          std::printf("%s connected to %s as %s\n", options_->name.c_str(), options_->arena.c_str(),
                      in_.welcome().bot().c_str());
          std::fflush(stdout);
          break;
        case v1::ArenaDownlink::kSeat: {
          SeatState& seat = seats_[in_.seat().seat_id()];
          seat.queue.push_back(std::move(*in_.mutable_seat()->mutable_message()));
          if (!seat.busy) {
            seat.busy = true;
            play = in_.seat().seat_id();
          }
          break;
        }
        case v1::ArenaDownlink::kSeatClosed: {
          auto it = seats_.find(in_.seat_closed().seat_id());
          if (it != seats_.end()) {
            if (it->second.busy) {
              it->second.closed = true;  // its thread drops it when done
            } else {
              SeatHandler gone = std::move(it->second.handler);
              seats_.erase(it);
              mu_.Unlock();
              gone = nullptr;
              mu_.Lock();
            }
          }
          break;
        }
        case v1::ArenaDownlink::kJoinReferee:
          joiner_->Join(in_.join_referee());
          break;
        default:
          break;  // from a newer arena: ignored
      }
      if (play == 0) {
        ++idle_;
        continue;
      }
      // Someone must read while this thread plays the seat.
      if (idle_ == 0) threads_.emplace_back([this] {
        absl::MutexLock lock(&mu_);
        ++idle_;
        mu_.Unlock();
        Work();
        mu_.Lock();
      });
      PlaySeat(play);
      ++idle_;
    }
    mu_.Unlock();
  }

  // Plays the queued messages of a busy seat, in order, then frees it.
  void PlaySeat(int64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (;;) {
      SeatState& seat = seats_[id];  // stable: only this thread erases a busy seat
      if (seat.queue.empty()) {
        seat.busy = false;
        if (seat.closed) {
          SeatHandler gone = std::move(seat.handler);
          seats_.erase(id);
          mu_.Unlock();
          gone = nullptr;
          mu_.Lock();
        }
        return;
      }
      v1::RefereeMessage message = std::move(seat.queue.front());
      seat.queue.pop_front();
      SeatHandler handler = std::move(seat.handler);
      mu_.Unlock();
      // A MatchStart (a new seat, or the seat again after a reconnection)
      // starts a fresh Bot; the old one goes first (a bridge's program ends).
      if (message.has_match_start() || !handler) {
        handler = nullptr;
        handler = (*make_seat_)();
      }
      std::optional<v1::BotMessage> reply = handler(message);
      if (reply) {
        v1::BotUplink up;
        up.mutable_reply()->set_seat_id(id);
        *up.mutable_reply()->mutable_message() = std::move(*reply);
        writer_->Write(up);
      }
      mu_.Lock();
      seats_[id].handler = std::move(handler);
    }
  }

  Stream* stream_;
  Writer* writer_;
  const ConnectOptions* options_;
  const std::function<SeatHandler()>* make_seat_;
  Joiner* joiner_;
  bool* welcomed_;
  absl::Mutex mu_;
  bool reading_ ABSL_GUARDED_BY(mu_) = false;  // a thread is in Read
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  int idle_ ABSL_GUARDED_BY(mu_) = 0;  // threads free to read
  v1::ArenaDownlink in_;  // only the reading thread touches it
  std::map<int64_t, SeatState> seats_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
};

bool Permanent(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED ||
         code == grpc::StatusCode::FAILED_PRECONDITION || code == grpc::StatusCode::ABORTED ||
         code == grpc::StatusCode::INVALID_ARGUMENT || code == grpc::StatusCode::UNIMPLEMENTED;
}

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "ERROR";
  }
}

absl::StatusCode ToAbsl(grpc::StatusCode code) { return static_cast<absl::StatusCode>(code); }

// One connection, until it ends: its status, and whether a Welcome came.
grpc::Status RunConnection(v1::BotGateway::Stub* stub, const ConnectOptions& options,
                           const std::function<SeatHandler()>& make_seat, Joiner* joiner,
                           bool* welcomed) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", options.token));
  for (const auto& [key, value] : options.metadata) context.AddMetadata(key, value);
  std::atomic<bool> ended{false};
  std::thread watcher([&] {  // SIGINT/SIGTERM cancel the call
    while (!ended.load()) {
      if (Stopping(options)) {
        context.TryCancel();
        joiner->CancelAll();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  std::unique_ptr<Stream> stream = stub->Connect(&context);
  Writer writer(stream.get());
  {
    v1::BotUplink hello;
    hello.mutable_hello()->set_name(options.name);
    hello.mutable_hello()->set_version(options.version);
    // This SDK follows JoinReferee (the direct route, gateway.proto).
    if (options.direct_route) hello.mutable_hello()->add_features("join-referee");
    writer.Write(hello);
  }
  Dispatcher(stream.get(), &writer, &options, &make_seat, joiner, welcomed).Run();
  grpc::Status status = stream->Finish();
  ended.store(true);
  watcher.join();
  return status;
}

}  // namespace

absl::Status Connect(const ConnectOptions& options, BotFactory factory) {
  return ConnectSeats(options, [&factory]() -> SeatHandler {
    auto session = std::make_shared<BotSession>(factory());
    return [session](const v1::RefereeMessage& m) { return session->Handle(m); };
  });
}

absl::Status ConnectSeats(const ConnectOptions& options, std::function<SeatHandler()> make_seat) {
  if (options.arena.empty() || options.arena.find(':') == std::string::npos)
    return absl::InvalidArgumentError("the arena's address must be HOST:PORT");
  if (options.token.empty())
    return absl::InvalidArgumentError(
        "no token: give --token or set TAROCK_BOT_TOKEN (from `tarock-arena-cli bots add NAME "
        "--dial_in`)");
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_receive_bytes);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 20000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 5000);
  // TLS when configured; plaintext only to a loopback arena unless allowed.
  absl::StatusOr<Transport> transport = Transport::Create(options.transport);
  if (!transport.ok()) return transport.status();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = transport->Channel(options.arena, args);
  if (!channel.ok()) return channel.status();
  std::unique_ptr<v1::BotGateway::Stub> stub = v1::BotGateway::NewStub(*channel);
  // Seats on the direct route outlive a lost arena connection.
  Joiner joiner(&options, &make_seat, &*transport);
  absl::Duration backoff = absl::Milliseconds(200);
  while (!Stopping(options)) {
    bool welcomed = false;
    grpc::Status status = RunConnection(stub.get(), options, make_seat, &joiner, &welcomed);
    if (Stopping(options)) break;
    const std::string why = absl::StrCat(CodeName(status.error_code()), ": ", status.error_message());
    if (Permanent(status.error_code()))
      return absl::Status(ToAbsl(status.error_code()),
                          absl::StrCat("the arena at ", options.arena, " ended the connection: ", why));
    if (!options.reconnect)
      return absl::UnavailableError(absl::StrCat("connection to ", options.arena, " lost: ", why));
    if (welcomed) backoff = absl::Milliseconds(200);
    std::fprintf(stderr, "%s: connection to %s lost (%s); reconnecting in %.1f s\n",
                 options.name.c_str(), options.arena.c_str(), why.c_str(),
                 absl::ToDoubleSeconds(backoff));
    const absl::Time until = absl::Now() + backoff;
    while (!Stopping(options) && absl::Now() < until) absl::SleepFor(absl::Milliseconds(20));
    backoff = std::min(backoff * 2, absl::Seconds(5));
  }
  return absl::OkStatus();
}

}  // namespace tarock::sdk
