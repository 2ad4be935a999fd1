// The determinizer of the Austrian variants (tapp-tarock, tapp-tarock-classic:
// referee/variants/austrian) and westfest (referee/variants/czech), behind
// tarock::sdk::Determinizer (tarock/sdk/determinize.h). Not installed: the
// public header only forward-declares it.
//
// How: the cards this seat has not seen are dealt most constrained first, each
// to a place drawn in proportion to its free room (the other hands, their
// face-down discards, the talon cards nobody took); for each talon card another
// seat drew unseen, one of that seat's cards is picked; the deal is rebuilt
// (westfest: the deck that the recorded cut deals into those hands) and the
// whole history is replayed on it. A sample is kept only when every recorded
// action is legal there and the seat's view (its hand, the called tarock)
// comes out the same; otherwise it is drawn again (rejection). What the play
// and the announcements show is used while dealing, so that rejection stays
// rare: a seat that did not follow suit has none of it, one that did not trump
// has no tarock; `announce pagat-ultimo` / `announce pagat` put the Pagat in
// the seat's cards; westfest's bonus announcements bound how many tarocks,
// kings or trula cards a seat holds, a passed draw shows uni or bida, and the
// called tarock shows which of XIX..XV the povinnost was dealt.
//
// The observation must be taken after the talon exchange: in the announcements
// or the play (or a finished hand); Create() fails earlier in the hand.
//
// Thread-safety: immutable after Create(); sampling only reads it.

#ifndef TAROCK_SDK_CPP_DETERMINIZE_REPLAY_H_
#define TAROCK_SDK_CPP_DETERMINIZE_REPLAY_H_

#include <array>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/engine/card.h"
#include "referee/engine/game.h"
#include "referee/engine/random.h"
#include "referee/variants/austrian/austrian.h"
#include "referee/variants/czech/westfest.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock::sdk {

class ReplayDeterminizer {
 public:
  // Whether `game` is one of the variants this determinizer knows.
  static bool Knows(const Game& game);
  // Fails on a variant other than the Austrian ones and westfest, before the
  // talon exchange is over, or on an observation whose counts do not add up.
  static absl::StatusOr<ReplayDeterminizer> Create(const Game& game, const v1::Observation& obs);

  // One sampled state at the observed decision, or nullopt after
  // `max_attempts` rejected attempts (or for the other family's game).
  std::optional<austrian::AustrianState> SampleAustrian(Rng& rng, int max_attempts) const;
  std::optional<czech::WestfestState> SampleWestfest(Rng& rng, int max_attempts) const;
  // A sampled state of either family; `deal` and `actions` (the history with
  // the hidden discards filled in) are set when not null.
  std::unique_ptr<State> Sample(Rng& rng, int max_attempts, Deal* deal, std::vector<Action>* actions) const;

  bool IsAustrian() const { return austrian_ != nullptr; }
  const HandSetup& setup() const { return setup_; }
  CardSet UnknownCards() const { return unknown_; }
  // Cards seat `s` cannot hold now.
  CardSet Excluded(int s) const;

 private:
  static constexpr int kMax = 4;                  // seats
  static constexpr int kRest = 2 * kMax;          // place: a talon card nobody took
  static constexpr int kNumPlaces = kRest + 1;    // places 0..3 hands, 4..7 hidden discards
  static constexpr Action kHidden = MakeAction(Verb::kDiscard, 0xFF);

  bool DealPlaces(Rng& rng, std::array<CardSet, kNumPlaces>* out) const;
  // The deal (hands dealt and talon; westfest: the deck) of one attempt.
  bool BuildDeal(Rng& rng, tarock::Deal* deal, std::array<std::vector<Card>, kMax>* hidden) const;
  template <typename St>
  bool Replay(St* st, const std::array<std::vector<Card>, kMax>& hidden) const;
  // Up to `max_attempts` attempts on `game` (AustrianGame or WestfestGame);
  // `deal` and `hidden` are those of the last attempt.
  template <typename St, typename G>
  std::optional<St> Attempts(const G& game, Rng& rng, int max_attempts, Deal* deal,
                             std::array<std::vector<Card>, kMax>* hidden) const;
  // The history with the hidden discards of one attempt filled in.
  std::vector<Action> Filled(const std::array<std::vector<Card>, kMax>& hidden) const;

  const Game* game_ = nullptr;
  const austrian::AustrianGame* austrian_ = nullptr;
  const czech::WestfestGame* westfest_ = nullptr;
  HandSetup setup_;
  int n_ = 0;
  int me_ = 0;
  int dealer_ = 0;
  int to_act_ = -1;  // the seat to act at the observed point, -1: the hand is over
  std::vector<std::pair<int, Action>> actions_;
  std::array<CardSet, kMax> holdings_known_{};  // cards known to be among a seat's holdings
  std::array<int, kMax> hand_count_{};          // cards in each hand now
  std::array<int, kMax> hidden_count_{};        // face-down discards of each seat
  std::array<Card, 6> talon_{};                 // kNoCard where not seen
  std::array<int, 6> drawer_{};                 // seat that took talon card i, -1: nobody
  std::array<CardSet, kMax> excluded_{};        // cards a hand cannot hold now
  CardSet unknown_;
  std::array<CardSet, kNumPlaces> allowed_{};   // cards each place may take
  std::array<int, kNumPlaces> capacity_{};
  // What announcements (and westfest's passed draws) show of a seat's twelve
  // or sixteen cards at the start of the play (its hand now and its plays):
  // at least `min` and at most `max` cards of `cards`.
  struct Count {
    int seat;
    CardSet cards;
    int min;
    int max;
  };
  std::vector<Count> counts_;
  std::array<CardSet, kMax> played_{};
  std::array<CardSet, kMax> must_hold_{};  // cards in the seat's hand now (or played)
  CardSet must_pov_;     // westfest: tarocks the povinnost was dealt (the call shows it)
  int povinnost_ = -1;
  Card called_ = kNoCard;
  bool has_call_ = false;
  std::array<int, kNumCards> position_seat_{};  // westfest: the deck position's seat
  std::array<std::vector<int>, kMax> positions_{};  // westfest: deck positions of each seat
  CardSet my_hand_;
};

}  // namespace tarock::sdk

#endif  // TAROCK_SDK_CPP_DETERMINIZE_REPLAY_H_
