// Uniformly random legal play through OpenSpiel's `tarok` game (Slovenian
// Tarok for 3 or 4 players) for a fixed number of decisions: OpenSpiel's half
// of the side-by-side comparison. Not part of this project's build: it needs
// an OpenSpiel checkout, and referee/bench/openspiel_side_by_side.sh compiles
// it against one (with referee/engine/random.h, so both halves draw from the
// same generator). Its twin is referee/bench/random_decisions.cc, and both
// print the same JSON line.
//
// Every decision is uniformly random among State::LegalActions(), bidding
// included (AUCTION random), or the auction is fixed to Three (AUCTION three:
// each player bids Three when it is legal and passes otherwise, so forehand
// plays Three, as in engine_bench) and every later decision is random; applied with State::ApplyAction (OpenSpiel's way to play a game;
// tarok's ApplyAction checks the action against the legal list, as our
// referee checks a bot's action). Each hand is scored (State::Returns())
// unless SCORE is noscore (then only the first 1,000 hands, for the
// checksum). The dealing chance node is applied and
// timed but not counted as a decision.
//
//   openspiel_random_decisions PLAYERS DECISIONS SEED [random|three] [score|noscore]
//
// Single thread. Rates are per CPU second of the process (the machine is shared).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "open_spiel/games/tarok/tarok.h"
#include "open_spiel/spiel.h"
#include "referee/engine/random.h"

// The process's CPU time in seconds: the machine is shared, and the wall
// clock would count the time other programs hold the core.
static double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int main(int argc, char** argv) {
  if (argc < 4 || argc > 6) {
    std::fprintf(stderr, "usage: %s PLAYERS DECISIONS SEED [random|three] [score|noscore]\n", argv[0]);
    return 2;
  }
  const std::string auction = argc >= 5 ? argv[4] : "random";
  const std::string scoring = argc >= 6 ? argv[5] : "score";
  if (scoring != "score" && scoring != "noscore") {
    std::fprintf(stderr, "SCORE is score or noscore\n");
    return 2;
  }
  const bool score = scoring == "score";
  if (auction != "random" && auction != "three") {
    std::fprintf(stderr, "the auction is random or three\n");
    return 2;
  }
  const bool fixed_three = auction == "three";
  const int players = std::atoi(argv[1]);
  const long long target = std::atoll(argv[2]);
  const unsigned long long seed = std::strtoull(argv[3], nullptr, 10);
  if (players != 3 && players != 4) {
    std::fprintf(stderr, "PLAYERS must be 3 or 4\n");
    return 2;
  }
  // rng_seed seeds the game's own generator, which draws each deal's seed.
  std::shared_ptr<const open_spiel::Game> game = open_spiel::LoadGame(
      "tarok", {{"players", open_spiel::GameParameter(players)},
                {"rng_seed", open_spiel::GameParameter(static_cast<int>(seed % 1000000007))}});
  tarock::Rng rng(seed);
  long long decisions = 0, hands = 0;
  unsigned long long checksum = 0;
  const double start = CpuSeconds();
  while (decisions < target) {
    std::unique_ptr<open_spiel::State> st = game->NewInitialState();
    while (!st->IsTerminal()) {
      if (st->IsChanceNode()) {
        st->ApplyAction(st->ChanceOutcomes()[0].first);  // the deal: one outcome
        continue;
      }
      const std::vector<open_spiel::Action> legal = st->LegalActions();
      if (fixed_three && static_cast<const open_spiel::tarok::TarokState&>(*st).CurrentGamePhase() ==
                             open_spiel::tarok::GamePhase::kBidding) {
        const bool three =
            std::find(legal.begin(), legal.end(), open_spiel::tarok::kBidThreeAction) != legal.end();
        st->ApplyAction(three ? open_spiel::tarok::kBidThreeAction : open_spiel::tarok::kBidPassAction);
      } else {
        st->ApplyAction(legal[rng.Below(static_cast<uint32_t>(legal.size()))]);
      }
      ++decisions;
    }
    if (score || hands < 1000)
      for (double v : st->Returns()) checksum = checksum * 31 + static_cast<unsigned long long>(v + 1000);
    ++hands;
  }
  const double seconds = CpuSeconds() - start;
  std::printf(
      "{\"engine\":\"openspiel\",\"variant\":\"tarok-%dp\",\"auction\":\"%s\",\"score\":%s,\"decisions\":%lld,\"hands\":%lld,"
      "\"cpu_seconds\":%.4f,\"decisions_per_s\":%.0f,\"decisions_per_hand\":%.2f,\"checksum\":%llu}\n",
      players, auction.c_str(), score ? "true" : "false", decisions, hands, seconds, static_cast<double>(decisions) / seconds,
      static_cast<double>(decisions) / static_cast<double>(hands), checksum % 1000000007ULL);
  return 0;
}
