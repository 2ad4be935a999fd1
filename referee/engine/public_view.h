// The public view of a hand: what every seat sees, and so what a spectator may
// be shown while the hand is played (live pages). It is computed from the
// variant's own Observe(seat) for every seat, keeping only what all of them see
// alike: an action whose text differs between seats (a hidden discard: the
// discarding seat sees "discard HK", the others "discard ?") keeps the text the
// other seats see, a talon card is named only once every seat sees it, a
// seat's shown cards only those shown to all. A spectator of the public view
// therefore never learns anything that any single seat does not know.
//
// Thread-safety: free functions over a const State; thread-compatible.

#ifndef TAROCK_REFEREE_ENGINE_PUBLIC_VIEW_H_
#define TAROCK_REFEREE_ENGINE_PUBLIC_VIEW_H_

#include <string>

#include "referee/engine/game.h"

namespace tarock {

// The public view of `state` as an Observation with seat -1, an empty hand and
// no legal actions. `history` holds every action so far in its public text;
// talon entries are "?" unless every seat sees them; declarer, contract,
// called king and partner are set only when every seat knows them alike.
Observation PublicView(const State& state);

// The public view as compact JSON: the fields of ObservationToJson without
// "hand", "legal" and "seat"; without "history" unless `with_history`.
std::string PublicViewToJson(const Observation& view, bool with_history);

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_PUBLIC_VIEW_H_
