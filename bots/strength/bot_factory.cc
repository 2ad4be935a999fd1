#include "bots/strength/bot_factory.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bots/heuristic/heuristic_bot.h"
#include "bots/search/search_bot.h"
// New bots: include their header here and add a row to kBots below.

namespace tarock::bots {
namespace {

// The `random` baseline, as bots/random/random_bot.cc plays it: a uniformly
// random legal action. Its generator is seeded per instance (the random bot
// process seeds per match with seed + seat; here each seat is its own
// instance with its own seed, which is the same thing).
class RandomBot : public sdk::Bot {
 public:
  explicit RandomBot(uint64_t seed) : rng_(seed) {}
  std::string Decide(const sdk::Situation& s) override {
    std::uniform_int_distribution<size_t> pick(0, s.legal().size() - 1);
    return s.legal()[pick(rng_)];
  }

 private:
  std::mt19937_64 rng_;
};

struct Entry {
  const char* name;
  std::unique_ptr<sdk::Bot> (*make)(uint64_t seed);
};

const Entry kBots[] = {
    {"random",
     [](uint64_t seed) -> std::unique_ptr<sdk::Bot> { return std::make_unique<RandomBot>(seed); }},
    {"heuristic",
     [](uint64_t) -> std::unique_ptr<sdk::Bot> { return std::make_unique<HeuristicBot>(); }},
    // Options from $TAROCK_SEARCH_OPTIONS, e.g. "iterations=100,epsilon=0.1" (search_bot.h).
    {"search", [](uint64_t seed) -> std::unique_ptr<sdk::Bot> { return MakeSearchBotFromEnvironment(seed); }},
};

}  // namespace

absl::StatusOr<std::unique_ptr<sdk::Bot>> MakeBot(const std::string& name, uint64_t seed) {
  for (const Entry& e : kBots)
    if (name == e.name) return e.make(seed);
  return absl::NotFoundError(
      absl::StrCat("unknown bot '", name, "' (known: ", absl::StrJoin(BotNames(), ", "), ")"));
}

std::vector<std::string> BotNames() {
  std::vector<std::string> out;
  for (const Entry& e : kBots) out.push_back(e.name);
  return out;
}

}  // namespace tarock::bots
