// Dialing in: the client side of the arena's BotGateway (gateway.proto,
// docs/dial-in.md). One reader thread per connection demultiplexes the
// arena's SeatMessages to one thread per seat (a bot that thinks for a second
// blocks no other seat); the seats' answers share the stream under a lock.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tarock/sdk/serve.h"
#include "tarock/v1/gateway.grpc.pb.h"

namespace tarock::sdk {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

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

// One seat: its own thread and Bot.
class Seat {
 public:
  Seat(int64_t id, const std::function<SeatHandler()>* make_seat, Writer* writer)
      : id_(id), make_seat_(make_seat), writer_(writer), thread_([this] { Run(); }) {}
  ~Seat() {
    {
      absl::MutexLock lock(&mu_);
      done_ = true;
    }
    thread_.join();
  }

  void Push(v1::RefereeMessage message) {
    absl::MutexLock lock(&mu_);
    inbox_.push_back(std::move(message));
  }

 private:
  void Run() {
    SeatHandler handler;
    for (;;) {
      v1::RefereeMessage message;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](Seat* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->mu_) { return s->done_ || !s->inbox_.empty(); },
            this));
        if (inbox_.empty()) return;  // done
        message = std::move(inbox_.front());
        inbox_.pop_front();
      }
      // A MatchStart (a new seat, or the seat again after a reconnection)
      // starts a fresh Bot.
      if (message.has_match_start() || !handler) {
        handler = nullptr;  // the old one goes first (a bridge's program ends)
        handler = (*make_seat_)();
      }
      std::optional<v1::BotMessage> reply = handler(message);
      if (!reply) continue;
      v1::BotUplink up;
      up.mutable_reply()->set_seat_id(id_);
      *up.mutable_reply()->mutable_message() = std::move(*reply);
      writer_->Write(up);
    }
  }

  const int64_t id_;
  const std::function<SeatHandler()>* make_seat_;
  Writer* writer_;
  absl::Mutex mu_;
  std::deque<v1::RefereeMessage> inbox_ ABSL_GUARDED_BY(mu_);
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts once the rest is built
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
                           const std::function<SeatHandler()>& make_seat, bool* welcomed) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", options.token));
  std::atomic<bool> ended{false};
  std::thread watcher([&] {  // SIGINT/SIGTERM cancel the call
    while (!ended.load()) {
      if (g_stop.load()) {
        context.TryCancel();
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
    writer.Write(hello);
  }
  std::map<int64_t, std::unique_ptr<Seat>> seats;
  v1::ArenaDownlink in;
  while (stream->Read(&in)) {
    switch (in.message_case()) {
      case v1::ArenaDownlink::kWelcome:
        *welcomed = true;
        std::printf("%s connected to %s as %s\n", options.name.c_str(), options.arena.c_str(),
                    in.welcome().bot().c_str());
        std::fflush(stdout);
        break;
      case v1::ArenaDownlink::kSeat: {
        std::unique_ptr<Seat>& seat = seats[in.seat().seat_id()];
        if (!seat) seat = std::make_unique<Seat>(in.seat().seat_id(), &make_seat, &writer);
        seat->Push(std::move(*in.mutable_seat()->mutable_message()));
        break;
      }
      case v1::ArenaDownlink::kSeatClosed:
        seats.erase(in.seat_closed().seat_id());  // joins the seat's thread
        break;
      default:
        break;  // from a newer arena: ignored
    }
  }
  seats.clear();
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
  auto channel = grpc::CreateCustomChannel(options.arena, grpc::InsecureChannelCredentials(), args);
  std::unique_ptr<v1::BotGateway::Stub> stub = v1::BotGateway::NewStub(channel);
  absl::Duration backoff = absl::Milliseconds(200);
  while (!g_stop.load()) {
    bool welcomed = false;
    grpc::Status status = RunConnection(stub.get(), options, make_seat, &welcomed);
    if (g_stop.load()) break;
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
    while (!g_stop.load() && absl::Now() < until) absl::SleepFor(absl::Milliseconds(20));
    backoff = std::min(backoff * 2, absl::Seconds(5));
  }
  return absl::OkStatus();
}

}  // namespace tarock::sdk
