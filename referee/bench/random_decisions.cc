// Uniformly random legal play through this engine for a fixed number of
// decisions: this engine's half of the side-by-side comparison with
// OpenSpiel's `tarok` game (referee/bench/openspiel_side_by_side.sh builds the
// other half, referee/bench/openspiel_random_decisions.cc, from an OpenSpiel
// checkout). Both halves play the same way and print the same JSON line.
//
// Every decision is uniformly random among the legal actions, bidding
// included (--auction random), or the auction is fixed to Three (--auction
// three: each seat bids Three when it is legal and passes otherwise, as in
// engine_bench) and every later decision is random.
// Each hand is scored (State::Result()) unless --score=false, which scores
// only the first 1,000 hands for the checksum, as engine_bench does.
// A decision is one applied action; dealing the cards is timed but not
// counted, and so is OpenSpiel's dealing chance node. A Slovenian deal
// without tarocks in a hand is thrown in by the rules (no decision): it is
// timed and skipped.
//
//   ./build/bin/random_decisions --players 4 --decisions 5000000
//   -> {"engine":"tarock","variant":"slovenian-4p","auction":"random","score":true,
//       "decisions":5000000,"hands":...,"cpu_seconds":...,"decisions_per_s":...,...}
//
// Single thread. Rates are per CPU second of the process (the machine is shared).

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "referee/tools/program_usage.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"
#include "referee/variants/slovenian/slovenian.h"

// The process's CPU time in seconds: the machine is shared, and the wall
// clock would count the time other programs hold the core.
static double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

ABSL_FLAG(int, players, 4, "3 or 4: slovenian-3p or slovenian-4p (OpenSpiel's tarok plays these two)");
ABSL_FLAG(int64_t, decisions, 5000000, "decisions to play (the last hand is played to its end)");
ABSL_FLAG(std::string, auction, "random",
          "random: every bid is random too; three: each seat bids Three when it is legal and passes "
          "otherwise, then every decision is random");
ABSL_FLAG(bool, score, true,
          "score every hand (State::Result(), as the referee does); false: only the first 1,000, "
          "as engine_bench does");
ABSL_FLAG(uint64_t, seed, 1, "seed of the random choices and of the deals");

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "random_decisions [FLAGS]\nBenchmark: plays uniformly random legal actions through this engine (slovenian-3p or -4p) for a "
      "number of decisions and prints one JSON line with decisions per second; this engine's "
      "half of referee/bench/openspiel_side_by_side.sh.");
  tarock::ParseCommandLine(argc, argv);
  const int players = absl::GetFlag(FLAGS_players);
  if (players != 3 && players != 4) {
    std::fprintf(stderr, "--players must be 3 or 4\n");
    return 2;
  }
  const std::string auction = absl::GetFlag(FLAGS_auction);
  if (auction != "random" && auction != "three") {
    std::fprintf(stderr, "--auction is random or three\n");
    return 2;
  }
  const bool fixed_three = auction == "three";
  const bool score = absl::GetFlag(FLAGS_score);
  const tarock::Action three = tarock::MakeAction(tarock::Verb::kBid, tarock::slovenian::kThree);
  const std::string variant = players == 3 ? "slovenian-3p" : "slovenian-4p";
  auto game_or = tarock::Registry::Global().Create(variant);
  if (!game_or.ok()) {
    std::fprintf(stderr, "%s\n", std::string(game_or.status().message()).c_str());
    return 1;
  }
  const auto& game = static_cast<const tarock::slovenian::SlovenianGame&>(**game_or);
  const int64_t target = absl::GetFlag(FLAGS_decisions);
  tarock::Rng rng(absl::GetFlag(FLAGS_seed));
  tarock::Deal deal;
  tarock::HandSetup setup;
  tarock::ActionList legal;
  uint64_t hand_seed = absl::GetFlag(FLAGS_seed) << 32;
  int64_t decisions = 0, hands = 0;
  uint64_t checksum = 0;  // keeps the scores live, and says whether two runs played alike
  const double start = CpuSeconds();
  while (decisions < target) {
    game.DealInto(++hand_seed, static_cast<int>(hands % players), &deal);
    tarock::slovenian::SlovenianState st(&game, deal, setup);
    while (!st.IsTerminal()) {
      st.LegalActions(&legal);
      if (fixed_three && (st.phase() == tarock::slovenian::Phase::kBidding ||
                          st.phase() == tarock::slovenian::Phase::kDeclare)) {
        st.Apply(legal.Contains(three) ? three : tarock::kPassAction);
      } else {
        st.Apply(legal.items[rng.Below(static_cast<uint32_t>(legal.size))]);
      }
      ++decisions;
    }
    if (score || hands < 1000)
      for (int v : st.Result().scores) checksum = checksum * 31 + static_cast<uint64_t>(v + 1000);
    ++hands;
  }
  const double seconds = CpuSeconds() - start;
  std::printf(
      "{\"engine\":\"tarock\",\"variant\":\"%s\",\"auction\":\"%s\",\"score\":%s,\"decisions\":%lld,\"hands\":%lld,"
      "\"cpu_seconds\":%.4f,\"decisions_per_s\":%.0f,\"decisions_per_hand\":%.2f,\"checksum\":%llu}\n",
      variant.c_str(), auction.c_str(), score ? "true" : "false", static_cast<long long>(decisions), static_cast<long long>(hands), seconds,
      static_cast<double>(decisions) / seconds, static_cast<double>(decisions) / static_cast<double>(hands),
      static_cast<unsigned long long>(checksum % 1000000007));
  return 0;
}
