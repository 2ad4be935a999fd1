// `heuristic`: the rule-based reference bot of Tarock Arena. It plays all four
// Slovenian variants (slovenian-4p, -3p, -5p, slovenian-tapp) the way a sensible
// club player does: it bids from a point count of its hand, calls a king in a
// short suit, takes the talon group worth most to its hand, discards towards
// voids, announces only sure bonuses, and in play estimates, card by card, how
// likely its side is to win the trick (from the cards still out, the voids the
// others have shown and the seats still to play) against what the card is worth
// later. Klop and Beggar are played to avoid tricks and points.
//
// It plays the other variants with their own rules: tapp-tarock (001: bids
// Three/Two/One/Solo by calibrated point counts, takes the tapp group that is
// worth most counting the rest of a touched pack, announces Absolut,
// Grandpointe, Pagat Ultimo, Trull, Four Kings only when all but sure, plays
// the Bridscher to take the fewest points), tapp-tarock-classic (002: Three or
// Top 3, Solo, Pagat Ultimo and Valat only when sure) and westfest (004: cuts,
// bids prever with a monster, throws in a weak hand that drew its own called
// tarock, passes the draw to keep uni or bida, announces the hand bonuses it
// holds, gives Contra rarely, and plays with the holder of the called tarock as
// the povinnost's partner). In these variants there is no Imperator and no Mond
// penalty; westfest counts raw card points and ranks red pips 1 4 3 2.
//
// Decisions are a pure function of the Situation (the bot keeps no game state
// between decisions), deterministic, and take tens of microseconds. It never
// answers an action outside s.legal(): anything unexpected falls back to
// s.legal()[0].
//
// Thread-safety: a HeuristicBot is called from one thread at a time (the SDK's
// contract); distinct instances share nothing. EvaluateHand is a pure function.

#ifndef TAROCK_BOTS_HEURISTIC_HEURISTIC_BOT_H_
#define TAROCK_BOTS_HEURISTIC_HEURISTIC_BOT_H_

#include <string>

#include "referee/engine/card.h"
#include "tarock/sdk/bot.h"

namespace tarock::bots {

// The bidding view of a hand: counts and the point count the bids are made from.
struct HandEval {
  int tarocks = 0;
  int high_tarocks = 0;  // T17..T22
  int kings = 0;
  int voids = 0;
  bool skis = false;
  bool mond = false;
  bool pagat = false;
  // The point count: every tarock counts (high ones more), kings and guarded
  // queens count, voids and singletons count when there are tarocks to trump
  // with, long weak suits count against. Comparable only between hands of the
  // same size.
  double strength = 0;
  // A hand fit for Beggar: no card that must win a trick.
  bool beggar = false;
};
HandEval EvaluateHand(CardSet hand);

class HeuristicBot : public sdk::Bot {
 public:
  HeuristicBot() = default;
  std::string Decide(const sdk::Situation& s) override;

  // Decisions answered with s.legal()[0] because the bot's own choice was not
  // legal or its code threw: always 0 unless the bot has a bug (tests check).
  int fallbacks() const { return fallbacks_; }

 private:
  int fallbacks_ = 0;
};

}  // namespace tarock::bots

#endif  // TAROCK_BOTS_HEURISTIC_HEURISTIC_BOT_H_
