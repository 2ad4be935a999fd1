// `random`: answers every decision with a uniformly random legal action. The
// baseline of every strength measurement, and the load generator of the
// referee benchmark. --seed fixes its choices (per match: seed + seat); without
// it every match draws a fresh seed (the match's --seed seeds the deals, not bots).

#include <memory>
#include <random>

#include "absl/flags/flag.h"
#include "tarock/sdk/serve.h"

ABSL_FLAG(uint64_t, seed, 0,
          "seed of the random choices (seat S of a match plays from seed + S, so the same seed "
          "and deals give the same play); 0 (default): a fresh unpredictable seed every match. "
          "`tarock match --seed` seeds the deals only, never this bot: for repeatable matches "
          "start it with --seed (a two-line script: exec tarock-bot-random --seed 7 \"$@\")");

namespace {

class RandomBot : public tarock::sdk::Bot {
 public:
  explicit RandomBot(uint64_t seed) : seed_(seed) {}
  void StartMatch(const tarock::sdk::MatchInfo& match) override {
    rng_.seed(seed_ != 0 ? seed_ + match.seat : std::random_device{}());
  }
  std::string Decide(const tarock::sdk::Situation& s) override {
    if (s.legal().empty()) return "";  // a broken request: answer nothing sensible
    std::uniform_int_distribution<size_t> pick(0, s.legal().size() - 1);
    return s.legal()[pick(rng_)];
  }

 private:
  uint64_t seed_;
  std::mt19937_64 rng_;
};

}  // namespace

int main(int argc, char** argv) {
  return tarock::sdk::BotMain(
      argc, argv, "random",
      "The random reference bot: answers every decision with a uniformly random legal action\n"
      "(the baseline of every strength measurement; --seed makes its choices repeatable).",
      [] {
    return std::make_unique<RandomBot>(absl::GetFlag(FLAGS_seed));
  });
}
