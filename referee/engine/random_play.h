// Uniformly random legal play, for the demo, the property tests and the
// benchmarks. Thread-safety: functions of their arguments only.

#ifndef TAROCK_REFEREE_ENGINE_RANDOM_PLAY_H_
#define TAROCK_REFEREE_ENGINE_RANDOM_PLAY_H_

#include "referee/engine/game.h"
#include "referee/engine/random.h"

namespace tarock {

// A uniformly random legal action. Precondition: !state.IsTerminal().
inline Action RandomLegalAction(const State& state, Rng& rng) {
  ActionList legal;
  state.LegalActions(&legal);
  return legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
}

// Plays random legal actions to the end of the hand; returns the number applied.
inline int PlayOutRandomly(State& state, Rng& rng) {
  int n = 0;
  while (!state.IsTerminal()) {
    state.Apply(RandomLegalAction(state, rng));
    ++n;
  }
  return n;
}

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_RANDOM_PLAY_H_
