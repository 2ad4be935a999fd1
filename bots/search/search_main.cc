// `tarock-bot-search`: the search bot (bots/search/search_bot.h) served over
// gRPC. Flags: --iterations (determinizations per decision), --budget_ms (time
// per decision; the referee's time_left_ms always caps it), --seed, --epsilon,
// --utility, --search_talon, plus the SDK's --listen.
//
// Thread-safety: the SDK makes one SearchBot per match stream.

#include <memory>

#include "absl/flags/flag.h"
#include "bots/search/search_bot.h"
#include "tarock/sdk/serve.h"

ABSL_FLAG(int, iterations, tarock::bots::SearchOptions().iterations,
          "determinizations per decision (with --budget_ms: 0 means as many as fit)");
ABSL_FLAG(int, budget_ms, 0, "time per decision in ms (0: --iterations only); capped by the referee's limit");
ABSL_FLAG(int, margin_ms, tarock::bots::SearchOptions().margin_ms,
          "kept free of the referee's per-decision time limit");
ABSL_FLAG(uint64_t, seed, 0,
          "seed of the sampling (per match: seed + seat); 0 (default): a fresh unpredictable "
          "seed every match (`tarock match --seed` seeds the deals, not this bot)");
ABSL_FLAG(double, epsilon, tarock::bots::SearchOptions().epsilon, "share of random moves in the playouts");
ABSL_FLAG(std::string, utility, "relative",
          "relative: own score minus the others' mean (zero-sum); own: the own score only");
ABSL_FLAG(bool, search_talon, tarock::bots::SearchOptions().search_talon, "search the talon choice too");

int main(int argc, char** argv) {
  return tarock::sdk::BotMain(
      argc, argv, "search",
      "The search reference bot: in the play it samples the hidden cards (--iterations\n"
      "determinizations, or as many as --budget_ms allows), plays every legal card in each\n"
      "sample to the end of the hand and plays the card with the best mean result (PIMC);\n"
      "bidding, talon and discards follow the heuristic bot. The strongest bundled bot, and\n"
      "the slowest (milliseconds a decision).",
      [] {
    tarock::bots::SearchOptions o;
    o.iterations = absl::GetFlag(FLAGS_iterations);
    o.budget_ms = absl::GetFlag(FLAGS_budget_ms);
    o.margin_ms = absl::GetFlag(FLAGS_margin_ms);
    o.seed = absl::GetFlag(FLAGS_seed);
    o.epsilon = absl::GetFlag(FLAGS_epsilon);
    o.utility = absl::GetFlag(FLAGS_utility) == "own" ? tarock::bots::SearchOptions::Utility::kOwn
                                                       : tarock::bots::SearchOptions::Utility::kRelative;
    o.search_talon = absl::GetFlag(FLAGS_search_talon);
    return tarock::bots::MakeSearchBot(o);
  });
}
