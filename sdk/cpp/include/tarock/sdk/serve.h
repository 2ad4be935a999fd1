// Serving a bot over gRPC: the `Bot` service of tarock.v1, one stream per seat
// per match, each stream with a fresh Bot from the factory (so one bot process
// can sit in many matches at once).
//
// Thread-safety: Serve runs one thread per open stream; each Bot instance is only
// ever called from its own stream's thread.

#ifndef TAROCK_SDK_SERVE_H_
#define TAROCK_SDK_SERVE_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "tarock/sdk/bot.h"
#include "tarock/sdk/transport.h"

namespace grpc {
class ServerContext;
}  // namespace grpc

namespace tarock::sdk {

struct ServeOptions {
  // HOST:PORT to listen on; port 0 picks a free port (printed on standard output).
  std::string listen = "127.0.0.1:0";
  std::string name = "bot";  // sent in Hello
  std::string version;       // sent in Hello
  // Largest message accepted from the referee.
  int max_receive_bytes = 4 << 20;
  // TLS (transport.h); the default is plaintext, on loopback only.
  TransportOptions transport;
  // The secret the arena gave at registration: a stream whose referee cannot
  // present its proof (transport.h, RefereeProof) is refused with
  // UNAUTHENTICATED before the bot sees anything. Empty: accept every stream.
  std::string referee_secret;
};

// Serves until SIGINT or SIGTERM, then drains open streams for up to a second.
// Prints "NAME listening on HOST:PORT" on standard output once it accepts
// connections. Fails when the address cannot be bound, or is not loopback and
// neither a certificate nor allow_plaintext is configured.
absl::Status Serve(const ServeOptions& options, BotFactory factory);

// The check a served bot makes with a referee secret: OK when the stream's
// metadata carries the proof (referee_proof.h) for the MatchStart `first`;
// UNAUTHENTICATED with the reason otherwise (no proof, a wrong one, or a first
// message that is not a MatchStart). For servers of their own (the stdio
// bridge); Serve does it already.
absl::Status CheckRefereeProof(const grpc::ServerContext& context, const std::string& secret,
                               const v1::RefereeMessage& first);

// Dialing in (docs/dial-in.md): the bot connects out to an arena's
// BotGateway with its token and plays every seat the arena gives it through
// that one connection, each seat with a fresh Bot from the factory on a
// thread of its own. No listening port: works behind NAT or a firewall.
struct ConnectOptions {
  std::string arena;  // HOST:PORT of the arena (its --listen port)
  std::string token;  // from `tarock-arena-cli bots add NAME --dial_in`
  std::string name = "bot";  // sent in Hello
  std::string version;       // sent in Hello
  int max_receive_bytes = 4 << 20;
  // Reconnect after a lost connection (with backoff, up to 5 s between
  // tries); false: return the error instead.
  bool reconnect = true;
  // TLS (transport.h): TLS when ca_file is set; plaintext only to a loopback
  // arena unless allow_plaintext.
  TransportOptions transport;
  // Extra metadata on the gateway call (tarock-bothost: x-tarock-hosted-bot).
  std::vector<std::pair<std::string, std::string>> metadata;
  // When set and true, Connect returns (as on SIGTERM): a host stops one bot.
  const std::atomic<bool>* stop = nullptr;
  // Offer the direct route (JoinReferee): the bot joins the referee for each
  // seat. false: every seat is relayed by the arena (tarock-bothost: a
  // restarted host then gets its seats in progress again from the arena).
  bool direct_route = true;
};

// Plays until SIGINT or SIGTERM. Prints "NAME connected to HOST:PORT as BOT"
// on standard output on each connection, and a line on standard error when it
// is lost. Returns at once with the arena's error when the arena refuses the
// token (UNAUTHENTICATED), the bot is retired or not a dial-in bot
// (FAILED_PRECONDITION), or a newer connection of the same bot replaced this
// one (ABORTED); retries otherwise.
absl::Status Connect(const ConnectOptions& options, BotFactory factory);

// Connect at a lower level, for bridges: each seat gets a handler from
// `make_seat` (again on every MatchStart) that turns each referee message into
// the reply to send, if any (a Decision, or an Absent when the seat's player
// is gone: the referee records a disconnect fault). A handler is destroyed
// when its seat ends, on its seat's thread's behalf.
using SeatHandler = std::function<std::optional<v1::BotMessage>(const v1::RefereeMessage&)>;
absl::Status ConnectSeats(const ConnectOptions& options, std::function<SeatHandler()> make_seat);

// Plays one match over standard input and output: each input line is one
// RefereeMessage in protobuf's JSON mapping (the stdio bridge's --events
// lines, sdk/stdio/README.md), each DecisionRequest is answered with one line,
// the action. How tarock-bothost runs a hosted C++ bot in its sandbox (no
// network: `BOT --stdio`). Returns at end of input.
absl::Status ServeStdio(BotFactory factory);

// The whole main() of a bot executable: parses the command line (Abseil flags:
// --listen=HOST:PORT, or --arena=HOST:PORT with --token=T (or the environment
// variable TAROCK_BOT_TOKEN, which keeps the token out of `ps`) to dial in,
// the TLS flags of transport.h, plus any flags the bot defines), then
// Serve()s or Connect()s. Returns the process exit status.
// The usage line names the program by its own file name (argv[0]); `name` is
// the bot's name when it dials in.
int BotMain(int argc, char** argv, const std::string& name, BotFactory factory);
// The same, with `description` (how this bot plays) as the first lines of --help.
int BotMain(int argc, char** argv, const std::string& name, const std::string& description,
            BotFactory factory);

}  // namespace tarock::sdk

#endif  // TAROCK_SDK_SERVE_H_
