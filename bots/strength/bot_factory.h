// Bot names to in-process bot instances, for tarock-strength (and anything
// else that plays bots against each other without gRPC): "random",
// "heuristic". Each call makes a fresh instance; a seed fixes the choices of
// bots that randomize.
//
// Thread-safety: MakeBot and BotNames are thread-safe; the bots they return are
// used from one thread at a time (the SDK's contract).

#ifndef TAROCK_BOTS_STRENGTH_BOT_FACTORY_H_
#define TAROCK_BOTS_STRENGTH_BOT_FACTORY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tarock/sdk/bot.h"

namespace tarock::bots {

// A new bot called `name`, or NotFound naming the known bots.
absl::StatusOr<std::unique_ptr<sdk::Bot>> MakeBot(const std::string& name, uint64_t seed);

// The names MakeBot knows.
std::vector<std::string> BotNames();

}  // namespace tarock::bots

#endif  // TAROCK_BOTS_STRENGTH_BOT_FACTORY_H_
