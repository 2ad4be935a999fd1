// The `heuristic` bot as a process: serves HeuristicBot over gRPC (see
// tarock/sdk/serve.h for the flags, e.g. --listen=HOST:PORT).
//
// Thread-safety: the SDK makes one HeuristicBot per match stream.

#include <memory>

#include "bots/heuristic/heuristic_bot.h"
#include "tarock/sdk/serve.h"

int main(int argc, char** argv) {
  return tarock::sdk::BotMain(
      argc, argv, "heuristic",
      "The heuristic reference bot: rule-based, the way a sensible club player plays. It bids\n"
      "from a point count of its hand, calls a king in a short suit, takes the talon group\n"
      "worth most, discards towards voids, announces only sure bonuses, and plays each card by\n"
      "how likely its side is to win the trick against what the card is worth later.\n"
      "Deterministic, tens of microseconds a decision.",
      [] { return std::make_unique<tarock::bots::HeuristicBot>(); });
}
