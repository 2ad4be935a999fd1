#include "tarock/sdk/serve.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "referee/tools/program_usage.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "tarock/sdk/health.h"
#include "tarock/v1/tarock.grpc.pb.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:0",
          "HOST:PORT to serve the bot on (port 0: pick a free one and print it)");
ABSL_FLAG(std::string, arena, "",
          "dial in: HOST:PORT of the arena to connect to instead of listening (docs/dial-in.md)");
ABSL_FLAG(std::string, token, "",
          "dial in: the bot's token (default: the environment variable TAROCK_BOT_TOKEN)");
ABSL_FLAG(std::string, referee_secret, "",
          "the referee secret the arena gave at registration: streams from referees that "
          "cannot prove it are refused (default $TAROCK_REFEREE_SECRET; empty: accept any)");
#ifndef TAROCK_SDK_VERSION
#define TAROCK_SDK_VERSION ""  // set by the build (the project version)
#endif
ABSL_FLAG(bool, stdio, false,
          "play one match over standard input and output (JSON lines, as tarock-bothost runs a "
          "hosted bot in its sandbox; docs/hosting.md) instead of serving or dialing in");
ABSL_FLAG(std::string, bot_version, TAROCK_SDK_VERSION,
          "the version the bot gives in its Hello (match records and `tarock compare` reports "
          "keep it)");

namespace tarock::sdk {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

// The sync API gives each stream its own thread, so a bot that thinks for a
// second blocks nobody else.
class BotService final : public v1::Bot::Service {
 public:
  BotService(const ServeOptions& options, BotFactory factory)
      : options_(options), factory_(std::move(factory)) {}

  grpc::Status Play(grpc::ServerContext* context,
                    grpc::ServerReaderWriter<v1::BotMessage, v1::RefereeMessage>* stream) override {
    v1::RefereeMessage message;
    bool have_first = false;
    if (!options_.referee_secret.empty()) {
      // A stranger learns nothing, not even the Hello, before it proves it
      // was sent by the arena this bot registered with.
      if (!stream->Read(&message)) return grpc::Status::OK;
      have_first = true;
      if (absl::Status proved = CheckRefereeProof(*context, options_.referee_secret, message); !proved.ok()) {
        std::fprintf(stderr, "%s: refused a stream: %s\n", options_.name.c_str(),
                     std::string(proved.message()).c_str());
        return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, std::string(proved.message()));
      }
    }
    v1::BotMessage hello;
    hello.mutable_hello()->set_name(options_.name);
    hello.mutable_hello()->set_version(options_.version);
    if (!stream->Write(hello)) return grpc::Status::OK;
    BotSession session(factory_());
    if (have_first) {
      std::optional<v1::BotMessage> reply = session.Handle(message);
      if (reply && !stream->Write(*reply)) return grpc::Status::OK;
    }
    while (stream->Read(&message)) {
      std::optional<v1::BotMessage> reply = session.Handle(message);
      if (reply && !stream->Write(*reply)) break;
    }
    return grpc::Status::OK;
  }

 private:
  ServeOptions options_;
  BotFactory factory_;
};

}  // namespace


absl::Status Serve(const ServeOptions& options, BotFactory factory) {
  absl::StatusOr<Transport> transport = Transport::Create(options.transport);
  if (!transport.ok()) return transport.status();
  auto credentials = transport->ServerCredentials(options.listen);
  if (!credentials.ok()) return credentials.status();
  BotService service(options, std::move(factory));
  EnableHealthService();  // grpc.health.v1 for probes: SERVING while it serves
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, *credentials, &port);
  builder.SetMaxReceiveMessageSize(options.max_receive_bytes);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0)
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen));
  SetServing(*server, true, {"tarock.v1.Bot"});
  std::string host = options.listen.substr(0, options.listen.rfind(':'));
  std::printf("%s listening on %s:%d\n", options.name.c_str(), host.c_str(), port);
  std::fflush(stdout);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  SetServing(*server, false, {"tarock.v1.Bot"});
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return absl::OkStatus();
}

absl::Status ServeStdio(BotFactory factory) {
  BotSession session(factory());
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  std::string line;
  std::ios::sync_with_stdio(false);
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    v1::RefereeMessage message;
    // "pb:" + base64 of the binary message (tarock-bothost's lines), else JSON.
    std::string bytes;
    if (line.compare(0, 3, "pb:") == 0
            ? !absl::Base64Unescape(absl::string_view(line).substr(3), &bytes) ||
                  !message.ParseFromString(bytes)
            : !google::protobuf::util::JsonStringToMessage(line, &message, options).ok()) {
      std::fprintf(stderr, "stdio: a line that is no RefereeMessage (%zu bytes)\n", line.size());
      continue;
    }
    std::optional<v1::BotMessage> reply = session.Handle(message);
    if (message.has_decision_request()) {
      std::cout << (reply && reply->has_decision() ? reply->decision().action() : std::string())
                << std::endl;
    }
  }
  return absl::OkStatus();
}

int BotMain(int argc, char** argv, const std::string& name, BotFactory factory) {
  return BotMain(argc, argv, name, "", std::move(factory));
}

int BotMain(int argc, char** argv, const std::string& name, const std::string& description,
            BotFactory factory) {
  // The usage names the program as it was started (tarock-bot-heuristic), not the
  // bot's name in a match.
  std::string program = argc > 0 && argv[0] != nullptr ? std::string(argv[0]) : name;
  if (const size_t slash = program.rfind('/'); slash != std::string::npos) program = program.substr(slash + 1);
  SetProgramUsage(absl::StrCat(
      program, " --listen=HOST:PORT [FLAGS]\n", program, " --arena=HOST:PORT [--token=T] [FLAGS]\n",
      description.empty() ? "" : absl::StrCat(description, "\n"),
      "A Tarock Arena bot: serves the Bot gRPC service at HOST:PORT for a referee to dial\n"
      "(tarock match starts it with --listen 127.0.0.1:PORT; register it in an arena with\n"
      "tarock-arena-cli bots add NAME --endpoint=HOST:PORT). Port 0 picks a free port; the\n"
      "bound address is printed. Or, with --arena, it dials in: connects to the arena and\n"
      "plays the seats it is given (register it with tarock-arena-cli bots add NAME\n"
      "--dial_in; the token comes from --token or TAROCK_BOT_TOKEN). SIGINT or SIGTERM stop it."));
  tarock::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_stdio)) {
    absl::Status s = ServeStdio(std::move(factory));
    return s.ok() ? 0 : 1;
  }
  if (!absl::GetFlag(FLAGS_arena).empty()) {
    ConnectOptions connect;
    connect.arena = absl::GetFlag(FLAGS_arena);
    connect.token = SecretFromFlagOrEnv(absl::GetFlag(FLAGS_token), "TAROCK_BOT_TOKEN");
    connect.name = name;
    connect.transport = TransportOptionsFromFlags();
    absl::Status s = Connect(connect, std::move(factory));
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(s.message()).c_str());
      return 1;
    }
    return 0;
  }
  ServeOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.name = name;
  options.transport = TransportOptionsFromFlags();
  options.referee_secret =
      SecretFromFlagOrEnv(absl::GetFlag(FLAGS_referee_secret), "TAROCK_REFEREE_SECRET");
  options.version = absl::GetFlag(FLAGS_bot_version);
  absl::Status s = Serve(options, std::move(factory));
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace tarock::sdk
