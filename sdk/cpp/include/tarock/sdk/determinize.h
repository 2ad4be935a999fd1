// Determinization: sampling a complete hand (every seat's cards, the talon, the
// hidden discards) that is consistent with everything one seat has seen, and
// replaying the hand's history on it, so that a bot can search the resulting
// perfect-information State (perfect-information Monte Carlo, "PIMC").
//
//   absl::StatusOr<Determinizer> d =
//       Determinizer::Create(*s.game(), s.request(), forced_klop);
//   Rng rng(seed);
//   absl::StatusOr<std::unique_ptr<State>> state = d->Sample(rng);
//
// Variants: all seven built-in ones. The Slovenian family (slovenian-3p,
// slovenian-4p, slovenian-5p, slovenian-tapp; referee/variants/slovenian) at
// every point of the hand; the Austrian variants (tapp-tarock,
// tapp-tarock-classic; referee/variants/austrian) and westfest
// (referee/variants/czech) from the announcements on (after the talon
// exchange: the announcements, the play), which is where a bot searches them.
// Sample() and SampleDeal() serve every variant; SampleState(),
// SampleAustrianState() and SampleWestfestState() give the concrete state of
// their family for fast search.
//
// What a sample respects (everything the seat can know from its observation),
// in every variant:
//   - its own cards, dealt and current, and its own discards;
//   - the hand sizes: every seat holds as many cards as it holds really;
//   - the history: every bid, call, talon choice, announcement, kontra and play
//     replays legally, with sampled cards in place of another seat's hidden
//     ("discard ?") discards; so the seat's whole observation (history, hand,
//     talon as it saw it, legal actions) is the same in the sample;
//   - the talon where it is shown, and the cards the declarer (or, in
//     westfest, a drawing seat) took from it: those are his, in hand or laid
//     away; cards nobody took stay in the talon;
//   - cards shown to everyone (tarock discards, the Open Beggar's hand);
//   - what the play reveals: a seat that did not follow the led suit has none of
//     it, one that did not trump either has no tarock.
// In the Slovenian family also:
//   - in negative contracts (Klop, Beggar, Open Beggar) a seat that did not
//     beat the winning card has no legal card that beats it; a guarded Pagat
//     (negative contracts, or an announced Pagat Ultimo in slovenian-tapp) that
//     was played was the only legal card; all with the Imperator rule as the
//     variant plays it;
//   - the announcements: `announce pagat-ultimo` shows its seat holds T1; the
//     Kontra chain and `announce king-ultimo` show who can be the partner, so
//     the called king goes only to seats that fit them;
//   - a deal without a hand without tarocks (that deal would have been void).
// In the Austrian variants and westfest also:
//   - `announce pagat-ultimo` / `announce pagat` put the Pagat in its seat's
//     cards; westfest's bonus announcements (tarocky, taroky, bida, trul,
//     honery, kralovske-honery[-plus], trul-honery) bound how many tarocks,
//     kings and trula cards the seat was holding, and a passed draw shows uni
//     or bida (at most two tarocks);
//   - westfest's called tarock: the povinnost holds every tarock from XIX down
//     to the one above the called one, and the engine's call from the sampled
//     hand names the same tarock; the deck is one that the recorded cut deals
//     into the sampled hands.
//
// How: each unknown card gets the set of places it may be (a hand, the hidden
// discards, the hidden talon); the cards are dealt most constrained first, each
// to a place drawn in proportion to its free room (close to a uniform deal),
// and the history is replayed with legality checked on every action. A sample
// that reaches a dead end or an illegal action is thrown away and drawn again,
// up to a bound (rejection with repair by resampling). A sample costs a few
// microseconds (the replay dominates).
//
// Thread-safety: a Determinizer is immutable after Create() (copies share the
// immutable parts); Sample*() may be called from several threads at once, each
// with its own Rng. The Game passed to Create() must outlive the Determinizer.

#ifndef TAROCK_SDK_DETERMINIZE_H_
#define TAROCK_SDK_DETERMINIZE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "referee/engine/card.h"
#include "referee/engine/game.h"
#include "referee/engine/random.h"
#include "referee/variants/austrian/austrian.h"
#include "referee/variants/czech/westfest.h"
#include "referee/variants/slovenian/slovenian.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock::sdk {

// The sampler of the Austrian variants and westfest (private to the SDK).
class ReplayDeterminizer;

class Determinizer {
 public:
  // Sampling gives up after this many rejected attempts per call.
  static constexpr int kDefaultMaxAttempts = 2000;

  // Reads the observation of one seat. `forced_klop` is the HandStart flag of
  // the hand; when absent it is inferred (from the history, and from the legal
  // actions during the bidding, where it is the only thing it changes).
  // `legal` are the seat's legal actions, if it is to act (both are used by
  // the Slovenian family only). Fails (Unimplemented) on a variant other than
  // the seven built-in ones and, in the Austrian variants and westfest,
  // before the announcements; fails (InvalidArgument) on an observation that
  // contradicts itself (e.g. card counts that do not add up).
  static absl::StatusOr<Determinizer> Create(const Game& game, const v1::Observation& obs,
                                             std::optional<bool> forced_klop = std::nullopt,
                                             absl::Span<const std::string> legal = {});
  static absl::StatusOr<Determinizer> Create(const Game& game, const v1::DecisionRequest& request,
                                             std::optional<bool> forced_klop = std::nullopt);
  // The engine's own observation (tests, in-process players).
  static absl::StatusOr<Determinizer> Create(const Game& game, const Observation& obs,
                                             std::optional<bool> forced_klop = std::nullopt);

  // One sampled state at the observed decision point. NotFound when no
  // consistent sample was found in `max_attempts` attempts.
  absl::StatusOr<std::unique_ptr<State>> Sample(Rng& rng,
                                                int max_attempts = kDefaultMaxAttempts) const;
  // The same, as a concrete value for fast search (no allocation, no virtual
  // calls): SampleState() in the Slovenian family, SampleAustrianState() in
  // tapp-tarock and tapp-tarock-classic, SampleWestfestState() in westfest.
  // FailedPrecondition when the determinizer is of another family; NotFound
  // as Sample().
  absl::StatusOr<slovenian::SlovenianState> SampleState(
      Rng& rng, int max_attempts = kDefaultMaxAttempts) const;
  absl::StatusOr<austrian::AustrianState> SampleAustrianState(
      Rng& rng, int max_attempts = kDefaultMaxAttempts) const;
  absl::StatusOr<czech::WestfestState> SampleWestfestState(
      Rng& rng, int max_attempts = kDefaultMaxAttempts) const;
  // The deal of a sample and the hand's actions with the sampled hidden
  // discards filled in: Game::NewHand(deal, setup()) and Apply() of each action
  // gives the sampled state (in westfest the deal is a deck, and the actions
  // begin with the cut that deals it). NotFound as Sample().
  struct Sampled {
    Deal deal;
    std::vector<Action> actions;
  };
  absl::StatusOr<Sampled> SampleDeal(Rng& rng, int max_attempts = kDefaultMaxAttempts) const;

  // The setup of the sampled hands (dealer, radli, forced Klop).
  const HandSetup& setup() const { return setup_; }
  int seat() const { return seat_; }
  // The cards whose place the seat does not know and that the sampler deals.
  CardSet UnknownCards() const { return unknown_; }
  // Cards each seat cannot hold now, as the history shows (for tests and
  // bots); empty for the observing seat itself, whose hand is known.
  CardSet Excluded(int seat) const { return forbidden_[seat]; }

 private:
  // Places a card may go: a seat's hand (0..4), the hidden discards, the
  // hidden talon.
  static constexpr int kDiscardPlace = slovenian::SlovenianState::kMaxSeats;
  static constexpr int kTalonPlace = kDiscardPlace + 1;
  static constexpr int kNumPlaces = kTalonPlace + 1;
  // Stands for another seat's "discard ?" in actions_.
  static constexpr Action kHiddenDiscard = MakeAction(Verb::kDiscard, 0xFF);

  Determinizer() = default;
  absl::Status Init(const slovenian::SlovenianGame& game, const v1::Observation& obs,
                    std::optional<bool> forced_klop, absl::Span<const std::string> legal);
  // One attempt: deals the unknown cards and fills `out` and `discards` (the
  // hidden discards in history order). False on a dead end.
  bool TryDeal(Rng& rng, Deal* out, std::array<Card, 6>* discards) const;
  // Replays the history on `deal`; false when an action is not legal there.
  bool Replay(const Deal& deal, const std::array<Card, 6>& discards,
              slovenian::SlovenianState* state) const;
  std::optional<slovenian::SlovenianState> Attempt(Rng& rng, Deal* deal,
                                                   std::array<Card, 6>* discards) const;

  // The Austrian variants and westfest: everything is there (setup_,
  // unknown_ and forbidden_ are copied from it); null in the Slovenian family.
  std::shared_ptr<const ReplayDeterminizer> replay_;
  const slovenian::SlovenianGame* game_ = nullptr;
  int seat_ = 0;
  int num_seats_ = 0;
  HandSetup setup_;
  std::vector<Action> actions_;
  // Per seat: cards known to have been dealt to it (its plays, shown cards,
  // its visible discards; all of its own hand for the observing seat), before
  // the talon group is taken out again for the declarer.
  std::array<CardSet, slovenian::SlovenianState::kMaxSeats> base_{};
  std::array<CardSet, slovenian::SlovenianState::kMaxSeats> forbidden_{};
  int declarer_ = -1;
  CardSet talon_taken_;                 // the group the declarer took
  std::array<Card, 6> talon_{};         // known positions; kNoCard where hidden
  std::array<int, kNumPlaces> capacity_{};
  CardSet unknown_;
  // The cards to place with the places each may go (bit per place), most
  // constrained first.
  std::vector<Card> cards_;
  std::vector<uint8_t> places_;
  // Where the popcount of places_ changes: cards_[bucket_[k], bucket_[k+1])
  // have the same number of places and are dealt in random order.
  std::vector<int> bucket_;
  int to_act_ = -1;
  bool void_deal_ = false;  // the observed hand was a void deal (nobody acted)
};

}  // namespace tarock::sdk

#endif  // TAROCK_SDK_DETERMINIZE_H_
