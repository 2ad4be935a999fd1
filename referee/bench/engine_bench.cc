// Engine speed: full-length random hands per variant, single thread.
//
// Bidding is fixed to one contract (Three, or Klop; in the Austrian games also
// all-pass and Solo; in westfest the prever round): each seat bids it when it
// is legal and passes otherwise, so the dealer ends up with it. Every later
// decision (king call, talon, discards, announcements, kontra, every card) is
// uniformly random among the legal actions. One template (BM_Hands) serves
// every family's concrete State. A decision is one applied action,
// bidding included. Void deals (a hand without tarocks) are skipped, not counted.
//
//   ./build/bin/engine_bench                 # all variants
//   ./build/bin/engine_bench --benchmark_filter=4p
//
// The "signature" counter is a checksum of every score of the first 1000 hands
// of each benchmark: it changes when the rules or the deal change, like
// Stockfish's bench signature.

#include <benchmark/benchmark.h>

#include "referee/bench/benchmark_usage.h"

#include "referee/engine/public_view.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"
#include "referee/variants/austrian/austrian.h"
#include "referee/variants/czech/westfest.h"
#include "referee/variants/slovenian/slovenian.h"

namespace tarock {
namespace {

// Each seat bids `contract` when it is legal and passes otherwise (kAllPass:
// everybody passes: a Bridscher in tapp-tarock, a thrown-in deal in
// tapp-tarock-classic, the povinnost's game in westfest).
constexpr int kAllPass = -1;

// What differs between the families: the Game type, how a hand starts, and
// which phases are the fixed auction (every other decision is random).
template <class StateT>
struct Family;

template <>
struct Family<slovenian::SlovenianState> {
  using Game = slovenian::SlovenianGame;
  static bool Auction(const slovenian::SlovenianState& st) {
    return st.phase() == slovenian::Phase::kBidding || st.phase() == slovenian::Phase::kDeclare;
  }
};

template <>
struct Family<austrian::AustrianState> {
  using Game = austrian::AustrianGame;
  static bool Auction(const austrian::AustrianState& st) { return st.phase() == austrian::Phase::kBidding; }
};

// westfest (004): the prever round is the auction; the deal itself (cut or
// tap, stacks) is random like every other decision.
template <>
struct Family<czech::WestfestState> {
  using Game = czech::WestfestGame;
  static bool Auction(const czech::WestfestState& st) { return st.phase() == czech::Phase::kPrever; }
};

// Plays random hands of `variant` with StateT, the concrete state type (no
// virtual dispatch), and reports the rates and the signature.
template <class StateT>
void BM_Hands(benchmark::State& bm, const char* variant, int contract) {
  auto game_or = Registry::Global().Create(variant);
  if (!game_or.ok()) {
    bm.SkipWithError(std::string(game_or.status().message()).c_str());
    return;
  }
  const auto& game = static_cast<const typename Family<StateT>::Game&>(**game_or);
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
    StateT st(&game, deal, setup);  // DealInto's deals are valid: no check
    if (st.IsTerminal()) continue;  // void deal (only the Slovenian games have them)
    while (!st.IsTerminal()) {
      st.LegalActions(&legal);
      Action a;
      if (Family<StateT>::Auction(st)) {
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

// One template, registered under the names the three loops had, so that
// results and filters stay comparable across versions.
constexpr auto BM_RandomHands = &BM_Hands<slovenian::SlovenianState>;
constexpr auto BM_AustrianRandomHands = &BM_Hands<austrian::AustrianState>;
constexpr auto BM_WestfestHands = &BM_Hands<czech::WestfestState>;

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

BENCHMARK_CAPTURE(BM_AustrianRandomHands, tapp_tarock_three, "tapp-tarock", 0);
BENCHMARK_CAPTURE(BM_AustrianRandomHands, tapp_tarock_bridscher, "tapp-tarock", kAllPass);
BENCHMARK_CAPTURE(BM_AustrianRandomHands, tapp_tarock_classic_three, "tapp-tarock-classic", 0);
BENCHMARK_CAPTURE(BM_AustrianRandomHands, tapp_tarock_classic_solo, "tapp-tarock-classic", 3);

BENCHMARK_CAPTURE(BM_WestfestHands, westfest_povinnost, "westfest", kAllPass);
BENCHMARK_CAPTURE(BM_WestfestHands, westfest_prever, "westfest", czech::kPrever);

// The referee's cost per action of a match with MatchSpec.public_events (live
// spectators): the public view (every seat's observation, intersected) and
// its JSON, against one seat's observation and its JSON (what every decision
// request costs anyway). Random hands; every state of each hand.
void BM_PublicView(benchmark::State& bm, const char* variant, bool public_view) {
  auto game = Registry::Global().Create(variant);
  if (!game.ok()) {
    bm.SkipWithError(std::string(game.status().message()).c_str());
    return;
  }
  Rng rng(7);
  uint64_t hand_seed = 0;
  int64_t views = 0;
  size_t bytes = 0;
  for (auto _ : bm) {
    HandSetup setup;
    auto st = (*game)->NewHand((*game)->DealCards(++hand_seed, 0), setup);
    if (!st.ok()) continue;
    State& state = **st;
    while (!state.IsTerminal()) {
      ActionList legal;
      state.LegalActions(&legal);
      state.Apply(legal.items[rng.Below(static_cast<uint32_t>(legal.size))]);
      const std::string json = public_view ? PublicViewToJson(PublicView(state), false)
                                           : ObservationToJson(state.Observe(state.IsTerminal() ? 0 : state.CurrentSeat()));
      bytes += json.size();
      ++views;
    }
  }
  bm.counters["views/s"] = benchmark::Counter(static_cast<double>(views), benchmark::Counter::kIsRate);
  bm.counters["us/view"] = benchmark::Counter(static_cast<double>(views), benchmark::Counter::kIsRate |
                                                                              benchmark::Counter::kInvert);
  bm.counters["bytes/view"] = static_cast<double>(bytes) / static_cast<double>(views ? views : 1);
}
BENCHMARK_CAPTURE(BM_PublicView, slovenian_4p_public, "slovenian-4p", true);
BENCHMARK_CAPTURE(BM_PublicView, slovenian_4p_one_seat, "slovenian-4p", false);
BENCHMARK_CAPTURE(BM_PublicView, tapp_tarock_public, "tapp-tarock", true);
BENCHMARK_CAPTURE(BM_PublicView, tapp_tarock_one_seat, "tapp-tarock", false);

}  // namespace
}  // namespace tarock

TAROCK_BENCHMARK_MAIN(
    "engine_bench",
    "engine_bench [--benchmark_filter=REGEX] [--benchmark_repetitions=N]\n"
    "Benchmark: the rules engine's speed, one thread: full random hands of every variant (one "
    "contract bid, every later decision uniformly random), in decisions and hands a second; "
    "its signature counter changes when the rules or the deal change.");
