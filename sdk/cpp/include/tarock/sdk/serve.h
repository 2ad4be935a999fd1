// Serving a bot over gRPC: the `Bot` service of tarock.v1, one stream per seat
// per match, each stream with a fresh Bot from the factory (so one bot process
// can sit in many matches at once).
//
// Thread-safety: Serve runs one thread per open stream; each Bot instance is only
// ever called from its own stream's thread.

#ifndef TAROCK_SDK_SERVE_H_
#define TAROCK_SDK_SERVE_H_

#include <string>

#include "absl/status/status.h"
#include "tarock/sdk/bot.h"
#include "tarock/sdk/transport.h"

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

// The whole main() of a bot executable: parses the command line (Abseil flags:
// --listen=HOST:PORT, the TLS flags of transport.h, plus any flags the bot
// defines), then Serve()s. Returns
// the process exit status.
int BotMain(int argc, char** argv, const std::string& name, BotFactory factory);

}  // namespace tarock::sdk

#endif  // TAROCK_SDK_SERVE_H_
