// Engine speed: full-length random hands per variant, single thread.
//
// Bidding is fixed to one contract (Three, or Klop): each seat bids it when it
// is legal and passes otherwise, so the dealer ends up with it. Every later
// decision (king call, talon, discards, announcements, kontra, every card) is
// uniformly random among the legal actions. A decision is one applied action,
// bidding included. Void deals (a hand without tarocks) are skipped, not counted.
//
//   ./build/bin/engine_bench                 # all variants
//   ./build/bin/engine_bench --benchmark_filter=4p
//
// The "signature" counter is a checksum of every score of the first 1000 hands
// of each benchmark: it changes when the rules or the deal change, like
// Stockfish's bench signature.

#include <benchmark/benchmark.h>

#include "referee/engine/random.h"
#include "referee/engine/registry.h"
#include "referee/variants/austrian/austrian.h"
#include "referee/variants/czech/westfest.h"
#include "referee/variants/slovenian/slovenian.h"

namespace tarock {
namespace {

using slovenian::SlovenianGame;
using slovenian::SlovenianState;

void BM_RandomHands(benchmark::State& bm, const char* variant, int contract) {
  auto game_or = Registry::Global().Create(variant);
  if (!game_or.ok()) {
    bm.SkipWithError(std::string(game_or.status().message()).c_str());
    return;
  }
  const auto& game = static_cast<const SlovenianGame&>(**game_or);
  const Action target = MakeAction(Verb::kBid, contract);
  Rng rng(12345);
  Deal deal;
  HandSetup setup;
  uint64_t hand_seed = 0;
  int64_t decisions = 0, hands = 0;
  uint64_t signature = 0;
  ActionList legal;
  for (auto _ : bm) {
    game.DealInto(++hand_seed, 0, &deal);
    SlovenianState st(&game, deal, setup);  // DealInto's deals are valid: no check
    if (st.IsTerminal()) continue;  // void deal
    while (!st.IsTerminal()) {
      st.LegalActions(&legal);
      Action a;
      if (st.phase() == slovenian::Phase::kBidding || st.phase() == slovenian::Phase::kDeclare) {
        a = legal.Contains(target) ? target : kPassAction;
      } else {
        a = legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
      }
      st.Apply(a);
      ++decisions;
    }
    if (hands < 1000) {
      for (int v : st.Result().scores) signature = signature * 31 + static_cast<uint64_t>(v + 1000);
    }
    ++hands;
  }
  bm.counters["hands/s"] = benchmark::Counter(static_cast<double>(hands), benchmark::Counter::kIsRate);
  bm.counters["decisions/s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  bm.counters["decisions/hand"] = static_cast<double>(decisions) / static_cast<double>(hands ? hands : 1);
  bm.counters["signature"] = static_cast<double>(signature % 1000000);
}

using slovenian::kKlop;
using slovenian::kThree;
BENCHMARK_CAPTURE(BM_RandomHands, slovenian_4p_three, "slovenian-4p", kThree);
BENCHMARK_CAPTURE(BM_RandomHands, slovenian_4p_klop, "slovenian-4p", kKlop);
BENCHMARK_CAPTURE(BM_RandomHands, slovenian_3p_three, "slovenian-3p", kThree);
BENCHMARK_CAPTURE(BM_RandomHands, slovenian_3p_klop, "slovenian-3p", kKlop);
BENCHMARK_CAPTURE(BM_RandomHands, slovenian_5p_three, "slovenian-5p", kThree);
BENCHMARK_CAPTURE(BM_RandomHands, slovenian_5p_klop, "slovenian-5p", kKlop);
BENCHMARK_CAPTURE(BM_RandomHands, slovenian_tapp_three, "slovenian-tapp", kThree);
BENCHMARK_CAPTURE(BM_RandomHands, slovenian_tapp_klop, "slovenian-tapp", kKlop);

// The Austrian variants, the same way: each seat bids `contract` when it is
// legal and passes otherwise (kPass: everybody passes, a Bridscher in
// tapp-tarock, a thrown-in deal in tapp-tarock-classic); every later decision
// (tapp group, discards, announcements, every card) uniformly at random.
constexpr int kAllPass = -1;

void BM_AustrianRandomHands(benchmark::State& bm, const char* variant, int contract) {
  auto game_or = Registry::Global().Create(variant);
  if (!game_or.ok()) {
    bm.SkipWithError(std::string(game_or.status().message()).c_str());
    return;
  }
  const auto& game = static_cast<const austrian::AustrianGame&>(**game_or);
  const Action target = contract == kAllPass ? kPassAction : MakeAction(Verb::kBid, contract);
  Rng rng(12345);
  Deal deal;
  HandSetup setup;
  uint64_t hand_seed = 0;
  int64_t decisions = 0, hands = 0;
  uint64_t signature = 0;
  ActionList legal;
  for (auto _ : bm) {
    game.DealInto(++hand_seed, 0, &deal);
    austrian::AustrianState st(&game, deal, setup);  // DealInto's deals are valid: no check
    while (!st.IsTerminal()) {
      st.LegalActions(&legal);
      Action a;
      if (st.phase() == austrian::Phase::kBidding) {
        a = legal.Contains(target) ? target : kPassAction;
      } else {
        a = legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
      }
      st.Apply(a);
      ++decisions;
    }
    if (hands < 1000) {
      for (int v : st.Result().scores) signature = signature * 31 + static_cast<uint64_t>(v + 1000);
    }
    ++hands;
  }
  bm.counters["hands/s"] = benchmark::Counter(static_cast<double>(hands), benchmark::Counter::kIsRate);
  bm.counters["decisions/s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  bm.counters["decisions/hand"] = static_cast<double>(decisions) / static_cast<double>(hands ? hands : 1);
  bm.counters["signature"] = static_cast<double>(signature % 1000000);
}

BENCHMARK_CAPTURE(BM_AustrianRandomHands, tapp_tarock_three, "tapp-tarock", 0);
BENCHMARK_CAPTURE(BM_AustrianRandomHands, tapp_tarock_bridscher, "tapp-tarock", kAllPass);
BENCHMARK_CAPTURE(BM_AustrianRandomHands, tapp_tarock_classic_three, "tapp-tarock-classic", 0);
BENCHMARK_CAPTURE(BM_AustrianRandomHands, tapp_tarock_classic_solo, "tapp-tarock-classic", 3);


// westfest (004): the prever round fixed (everyone passes: povinnost; or the
// povinnost bids prever), every other decision uniformly random, the deal
// itself (cut or tap, stacks) included.
void BM_WestfestHands(benchmark::State& bm, bool prever) {
  auto game_or = Registry::Global().Create("westfest");
  if (!game_or.ok()) {
    bm.SkipWithError(std::string(game_or.status().message()).c_str());
    return;
  }
  const auto& game = static_cast<const czech::WestfestGame&>(**game_or);
  const Action target = prever ? MakeAction(Verb::kBid, czech::kPrever) : kPassAction;
  Rng rng(12345);
  Deal deal;
  HandSetup setup;
  uint64_t hand_seed = 0;
  int64_t decisions = 0, hands = 0;
  uint64_t signature = 0;
  ActionList legal;
  for (auto _ : bm) {
    game.DealInto(++hand_seed, 0, &deal);
    czech::WestfestState st(&game, deal, setup);  // DealInto's deals are valid: no check
    while (!st.IsTerminal()) {
      st.LegalActions(&legal);
      const Action a = st.phase() == czech::Phase::kPrever
                           ? target
                           : legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
      st.Apply(a);
      ++decisions;
    }
    if (hands < 1000) {
      for (int v : st.Result().scores) signature = signature * 31 + static_cast<uint64_t>(v + 1000);
    }
    ++hands;
  }
  bm.counters["hands/s"] = benchmark::Counter(static_cast<double>(hands), benchmark::Counter::kIsRate);
  bm.counters["decisions/s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  bm.counters["decisions/hand"] = static_cast<double>(decisions) / static_cast<double>(hands ? hands : 1);
  bm.counters["signature"] = static_cast<double>(signature % 1000000);
}
BENCHMARK_CAPTURE(BM_WestfestHands, westfest_povinnost, false);
BENCHMARK_CAPTURE(BM_WestfestHands, westfest_prever, true);

}  // namespace
}  // namespace tarock

BENCHMARK_MAIN();
