// `tarock-stdio-bridge`: serves the Bot service for any program that reads one
// JSON decision request per line on standard input and writes one action per
// line on standard output (sdk/stdio/README.md has the format and an example
// exchange).
//
//   tarock-stdio-bridge --listen 127.0.0.1:7801 [--log FILE] [--name NAME] [--events]
//                       -- awk -f my_bot.awk
//   tarock-stdio-bridge --connect ARENA_HOST:PORT [--token T] ... -- awk -f my_bot.awk
//
// With --connect the bridge dials in to an arena instead of listening
// (docs/dial-in.md; the token from --token or TAROCK_BOT_TOKEN): each seat the
// arena gives it gets its own run of the program, as each stream does here.
//
// Every match stream (one per seat per match) gets its own run of the program,
// started when the referee opens the stream and stopped when it ends. The
// program's standard error goes to --log (appended; default: the bridge's own
// standard error). A program that exits or closes its output ends the stream
// (the referee records a disconnect); one that does not answer in time leaves
// the decision to the referee's timeout; a line that is no legal action goes
// to the referee as it is. Nothing the program does can hang the bridge.
//
// Thread-safety: the gRPC sync server runs one thread per stream; each stream
// owns its program and StdioBot.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "referee/tools/program_usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sdk/stdio/stdio_bot.h"
#include "tarock/sdk/health.h"
#include "tarock/sdk/serve.h"
#include "tarock/v1/tarock.grpc.pb.h"
#include "tarock/sdk/transport.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:0",
          "HOST:PORT to serve on (port 0: pick a free one and print it)");
ABSL_FLAG(std::string, log, "", "append the program's standard error to this file");
ABSL_FLAG(std::string, name, "", "the bot's name in Hello (default: the program's name)");
ABSL_FLAG(std::string, version, "", "the version in Hello");
ABSL_FLAG(bool, events, false,
          "send every referee message (match start, hand start, results), not only requests");
ABSL_FLAG(int, max_line_bytes, 4096, "answers longer than this are cut (and are no action)");
ABSL_FLAG(std::string, connect, "",
          "dial in: HOST:PORT of an arena to connect to instead of listening (docs/dial-in.md)");
ABSL_FLAG(std::string, referee_secret, "",
          "the referee secret the arena gave at registration: streams from referees that "
          "cannot prove it are refused before the program starts (default "
          "$TAROCK_REFEREE_SECRET; empty: accept any)");
ABSL_FLAG(std::string, token, "",
          "dial in: the bot's token (default: the environment variable TAROCK_BOT_TOKEN)");

namespace tarock::stdio {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

class BridgeService final : public v1::Bot::Service {
 public:
  BridgeService(StdioOptions options, std::string name, std::string version,
                std::string referee_secret)
      : options_(std::move(options)),
        name_(std::move(name)),
        version_(std::move(version)),
        referee_secret_(std::move(referee_secret)) {}

  grpc::Status Play(grpc::ServerContext* context,
                    grpc::ServerReaderWriter<v1::BotMessage, v1::RefereeMessage>* stream) override {
    v1::RefereeMessage message;
    bool have_first = false;
    if (!referee_secret_.empty()) {
      // A stranger starts no program and learns nothing, not even the Hello.
      if (!stream->Read(&message)) return grpc::Status::OK;
      have_first = true;
      if (absl::Status proved = sdk::CheckRefereeProof(*context, referee_secret_, message);
          !proved.ok()) {
        std::fprintf(stderr, "tarock-stdio-bridge: refused a stream: %s\n",
                     std::string(proved.message()).c_str());
        return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, std::string(proved.message()));
      }
    }
    const int id = ++streams_;
    StdioOptions options = options_;
    options.label = absl::StrCat("stdio-bridge[", id, "]");
    auto bot = std::make_unique<StdioBot>(options);
    StdioBot* stdio = bot.get();
    if (absl::Status s = stdio->Start(); !s.ok())
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(s.message()));
    v1::BotMessage hello;
    hello.mutable_hello()->set_name(name_);
    hello.mutable_hello()->set_version(version_);
    if (!stream->Write(hello)) return grpc::Status::OK;
    sdk::BotSession session(std::move(bot));
    while (have_first || stream->Read(&message)) {
      have_first = false;
      if (options.events && !message.has_decision_request()) stdio->Forward(message);
      std::optional<v1::BotMessage> reply = session.Handle(message);
      if (stdio->failure())
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, *stdio->failure());
      if (reply && !stdio->timed_out() && !stream->Write(*reply)) break;
    }
    stdio->Finish();
    return grpc::Status::OK;
  }

 private:
  const StdioOptions options_;
  const std::string name_;
  const std::string version_;
  const std::string referee_secret_;
  std::atomic<int> streams_{0};
};

// Dialing in: one run of the program per seat, as one per stream when listening.
int ConnectMain(const StdioOptions& options, const std::string& name, const std::string& version) {
  sdk::ConnectOptions connect;
  connect.arena = absl::GetFlag(FLAGS_connect);
  connect.token = sdk::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_token), "TAROCK_BOT_TOKEN");
  connect.name = name;
  connect.transport = sdk::TransportOptionsFromFlags();
  connect.version = version;
  auto seats = std::make_shared<std::atomic<int>>(0);
  absl::Status s = sdk::ConnectSeats(connect, [options, seats]() -> sdk::SeatHandler {
    StdioOptions o = options;
    o.label = absl::StrCat("stdio-bridge[", ++*seats, "]");
    auto bot = std::make_unique<StdioBot>(o);
    StdioBot* stdio = bot.get();
    absl::Status started = stdio->Start();
    // The session owns the bot; the handler owns the session and ends the
    // program when the seat ends.
    struct Seat {
      Seat(std::unique_ptr<StdioBot> bot, StdioBot* s) : session(std::move(bot)), stdio(s) {}
      ~Seat() { stdio->Finish(); }
      sdk::BotSession session;
      StdioBot* stdio;
      std::optional<std::string> failure;
    };
    auto seat = std::make_shared<Seat>(std::move(bot), stdio);
    if (!started.ok()) seat->failure = std::string(started.message());
    const bool events = o.events;
    return [seat, events](const v1::RefereeMessage& m) -> std::optional<v1::BotMessage> {
      if (!seat->failure) {
        if (events && !m.has_decision_request()) seat->stdio->Forward(m);
        std::optional<v1::BotMessage> reply = seat->session.Handle(m);
        if (seat->stdio->failure()) seat->failure = *seat->stdio->failure();
        if (!seat->failure) {
          if (seat->stdio->timed_out()) return std::nullopt;
          return reply;
        }
      }
      if (!m.has_decision_request()) return std::nullopt;
      v1::BotMessage absent;  // the program is gone: a disconnect fault at once
      absent.mutable_absent()->set_request_id(m.decision_request().request_id());
      absent.mutable_absent()->set_detail(seat->failure->substr(0, 200));
      return absent;
    };
  });
  ChildProcess::KillAll();
  if (!s.ok()) {
    std::fprintf(stderr, "tarock-stdio-bridge: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}

int Main(int argc, char** argv) {
  SetProgramUsage(
      "tarock-stdio-bridge --listen HOST:PORT [--log FILE] [--name NAME] [--events] -- COMMAND...\n"
      "tarock-stdio-bridge --connect ARENA_HOST:PORT [--token T] [FLAGS] -- COMMAND...\n"
      "Serves the Bot service for a program that reads one JSON request per line and writes\n"
      "one action per line (see sdk/stdio/README.md); with --connect, dials in to an arena\n"
      "instead (token from --token or TAROCK_BOT_TOKEN; docs/dial-in.md).");
  std::vector<char*> args = tarock::ParseCommandLine(argc, argv);
  StdioOptions options;
  for (size_t i = 1; i < args.size(); ++i) options.command.emplace_back(args[i]);
  if (options.command.empty()) {
    std::fprintf(stderr, "tarock-stdio-bridge: no program given (want -- COMMAND...)\n");
    return 2;
  }
  options.log_path = absl::GetFlag(FLAGS_log);
  options.events = absl::GetFlag(FLAGS_events);
  options.max_line_bytes = std::max(16, absl::GetFlag(FLAGS_max_line_bytes));
  std::string name = absl::GetFlag(FLAGS_name);
  if (name.empty()) {
    name = options.command[0];
    name = name.substr(name.rfind('/') + 1);
  }
  std::signal(SIGPIPE, SIG_IGN);
  if (!absl::GetFlag(FLAGS_connect).empty())
    return ConnectMain(options, name, absl::GetFlag(FLAGS_version));

  BridgeService service(
      options, name, absl::GetFlag(FLAGS_version),
      sdk::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_referee_secret), "TAROCK_REFEREE_SECRET"));
  sdk::EnableHealthService();  // grpc.health.v1 for probes: SERVING while it serves
  grpc::ServerBuilder builder;
  int port = 0;
  const std::string listen = absl::GetFlag(FLAGS_listen);
  absl::StatusOr<tarock::sdk::Transport> transport = tarock::sdk::Transport::FromFlags();
  if (!transport.ok()) {
    std::fprintf(stderr, "tarock-stdio-bridge: %s\n", std::string(transport.status().message()).c_str());
    return 1;
  }
  auto credentials = transport->ServerCredentials(listen);
  if (!credentials.ok()) {
    std::fprintf(stderr, "tarock-stdio-bridge: %s\n", std::string(credentials.status().message()).c_str());
    return 1;
  }
  builder.AddListeningPort(listen, *credentials, &port);
  builder.SetMaxReceiveMessageSize(4 << 20);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "tarock-stdio-bridge: cannot listen on %s\n", listen.c_str());
    return 1;
  }
  sdk::SetServing(*server, true, {"tarock.v1.Bot"});
  std::printf("%s listening on %s:%d\n", name.c_str(), listen.substr(0, listen.rfind(':')).c_str(),
              port);
  std::fflush(stdout);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  sdk::SetServing(*server, false, {"tarock.v1.Bot"});
  // The programs go first: a stream waiting on one returns at once.
  ChildProcess::KillAll();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}

}  // namespace
}  // namespace tarock::stdio

int main(int argc, char** argv) { return tarock::stdio::Main(argc, argv); }
