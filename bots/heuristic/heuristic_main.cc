// The `heuristic` bot as a process: serves HeuristicBot over gRPC (see
// tarock/sdk/serve.h for the flags, e.g. --listen=HOST:PORT).
//
// Thread-safety: the SDK makes one HeuristicBot per match stream.

#include <memory>

#include "bots/heuristic/heuristic_bot.h"
#include "tarock/sdk/serve.h"

int main(int argc, char** argv) {
  return tarock::sdk::BotMain(argc, argv, "heuristic",
                              [] { return std::make_unique<tarock::bots::HeuristicBot>(); });
}
