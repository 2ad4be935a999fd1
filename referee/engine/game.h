// The narrow interface every Tarock variant implements: an immutable Game (the
// variant with its options) that deals and starts hands, and a State (one hand in
// progress) that says whose turn it is, lists the legal actions, applies one,
// tells when the hand is over and what it scored, and says what one seat may see.
//
// Actions are small integers on the hot path (Action) and text at every boundary
// ("VERB [ARGS]", see ActionCodec). The referee, the bots and the tools only use
// this header; a variant is found by name in the Registry (registry.h).
//
// Thread-safety: a Game is immutable after construction and may be shared by any
// number of threads. A State is a plain value: not thread-safe, cheap to Clone().

#ifndef TAROCK_REFEREE_ENGINE_GAME_H_
#define TAROCK_REFEREE_ENGINE_GAME_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "referee/engine/card.h"

namespace tarock {

// ---------------------------------------------------------------------------
// Actions.

// The verb of an action; the argument is a card, a contract, a suit, a talon
// group, a bonus or a kontra target, depending on the verb.
enum class Verb : uint8_t {
  kPass = 0,
  kBid,       // bid CONTRACT
  kCall,      // call SUIT (king calling)
  kTalon,     // talon N: the N-th talon group, 0-based
  kDiscard,   // discard CARD
  kAnnounce,  // announce BONUS
  kKontra,    // kontra TARGET: "game" or a bonus; each level uses the same verb
  kPlay,      // play CARD
  kCustom,    // variant-defined verbs: the argument selects one (ActionCodec::custom)
};

using Action = uint16_t;
inline constexpr Action MakeAction(Verb v, int arg) {
  return static_cast<Action>((static_cast<int>(v) << 8) | arg);
}
inline constexpr Verb VerbOf(Action a) { return static_cast<Verb>(a >> 8); }
inline constexpr int ArgOf(Action a) { return a & 0xFF; }
inline constexpr Action kPassAction = MakeAction(Verb::kPass, 0);

// Legal actions are written into a fixed array: no allocation on the hot path.
struct ActionList {
  static constexpr int kCapacity = 96;
  Action items[kCapacity];
  int size = 0;

  void push(Action a) { items[size++] = a; }
  void clear() { size = 0; }
  bool Contains(Action a) const {
    for (int i = 0; i < size; ++i)
      if (items[i] == a) return true;
    return false;
  }
  const Action* begin() const { return items; }
  const Action* end() const { return items + size; }
};

// Converts actions to and from their text form. A variant fills in the names
// of its contracts, bonuses and kontra targets (index = argument) and any
// custom verbs.
struct ActionCodec {
  std::vector<std::string> contracts;      // bid arguments
  std::vector<std::string> bonuses;        // announce arguments
  std::vector<std::string> kontra_targets; // kontra arguments ("game", bonuses...)
  std::vector<std::string> custom;         // whole text of each custom action

  std::string ToString(Action a) const;
  // Errors name the text and say what is wrong with it.
  absl::StatusOr<Action> Parse(absl::string_view text) const;
};

// ---------------------------------------------------------------------------
// Variant description and options.

struct OptionSpec {
  std::string name;
  std::string default_value;
  std::vector<std::string> choices;  // the allowed values
  std::string help;
};

// Option values are text; a Game receives the complete set (defaults filled in).
using Options = std::map<std::string, std::string>;

// A named set of option values that a club plays by (its house rules), chosen
// with the reserved option `house=NAME`. The set's values apply first; options
// named explicitly beside it override them. The complete options a Game
// receives (and a record keeps) carry the expanded values, never `house`.
struct OptionSet {
  std::string name;    // e.g. "real-play"
  std::string help;    // one line: who plays this way
  Options values;      // option name -> value, each valid for the variant
};

// The reserved option name that selects an OptionSet.
inline constexpr char kHouseOption[] = "house";


struct VariantInfo {
  std::string name;          // registry key, e.g. "slovenian-4p"
  std::string title;         // human-readable name
  std::string rules_source;  // the rule document and its sections
  std::string rules_page;    // path of the rules page in this repository
  int num_seats = 0;
  int hand_size = 0;         // cards per playing seat
  int talon_size = 0;
  // Match-level rules (applied by MatchProgress, match.h):
  int radl_penalty = 0;                 // points off per radl left at the end of a match
  bool zero_total_forces_klop = false;  // a running total of exactly 0 forces a Klop next
  int starting_account = 0;             // each seat's chip account at the start of a match (004: 100)
  std::vector<OptionSpec> options;
  std::vector<OptionSet> option_sets;  // `house=NAME` presets
  std::vector<std::string> contracts;  // names, lowest first
  std::vector<std::string> bonuses;
};

// ---------------------------------------------------------------------------
// Deals, hands, results, observations.

// The cards of one deal. hands[seat] is empty for a seat that sits out.
struct Deal {
  std::vector<CardSet> hands;
  std::vector<Card> talon;  // in deal order
  // Optional: the whole shuffled pack, top card first, for a variant whose hand
  // begins with the deal itself (westfest: cut or tap, packets, stacks). Then the
  // hands are empty until the deal actions have been applied.
  std::vector<Card> deck;
};

// What carries into a hand from the hands before it.
struct HandSetup {
  int dealer = 0;
  std::vector<int> radli;    // per seat; empty means none
  bool forced_klop = false;  // set after a redeal for a hand without tarocks
};

struct BonusResult {
  std::string name;
  std::string side;       // "declarer" or "defenders": whose bonus it was
  int announcer = -1;     // seat that announced it, -1 when silent
  bool won = false;
  int kontra_level = 0;   // 0 none, 1 kontra, 2 rekontra, 3 subkontra, 4 mordkontra
  int value = 0;          // signed effect on the declarer side's score
  // Where a bonus is settled between players rather than sides (each other
  // player pays the seat that owns it: tapp-tarock, tapp-tarock-classic), the
  // owner's seat; `value` is then what each other player pays that seat
  // (negative: what that seat pays each other player). -1 otherwise.
  int seat = -1;
};

struct Penalty {
  int seat = -1;
  int points = 0;  // signed, added to that seat's score
  std::string reason;
};

struct HandResult {
  bool redeal = false;            // the deal was void (e.g. a hand without tarocks)
  // For a void deal: true when it still counts as one of the match's hands (a
  // deal thrown in by the players' own bids: every seat scores 0, the deal
  // passes on and the next hand uses the next deal of the match); false when
  // the match deals this hand again (chance voided it: a hand without tarocks).
  bool counts_as_hand = false;
  bool next_forced_klop = false;  // the next hand must be a forced Klop
  std::vector<int> scores;        // per seat, radli applied
  std::vector<int> radli;         // per seat, after the hand
  int declarer = -1;
  std::string contract;
  int partner = -1;               // -1: none (alone, solo, or no partner game)
  bool declarer_won = false;
  int game_kontra_level = 0;
  // Card points in thirds: [declarer side, defenders], or one per seat in Klop.
  std::vector<int> card_thirds;
  std::vector<int> tricks;        // tricks won per seat
  std::vector<BonusResult> bonuses;
  std::vector<Penalty> penalties;
};

// What one seat may know at a moment of the hand, and nothing more. This is the
// security boundary of the arena: every field here may be sent to that seat's bot.
struct Observation {
  std::string variant;
  int seat = 0;
  int num_seats = 0;
  int dealer = 0;
  std::string phase;
  int to_act = -1;  // -1 when the hand is over
  CardSet hand;
  // Every action so far as this seat may see it (a hidden discard is "discard ?").
  std::vector<std::pair<int, std::string>> history;
  std::vector<std::string> talon;  // deal order; "?" where not shown to this seat
  std::vector<CardSet> shown;      // per seat: cards of that hand shown to everyone
  int declarer = -1;
  std::string contract;
  std::string called_king;         // e.g. "HK", empty when none
  int partner = -1;                // known partner of the declarer, else -1
  int trick_leader = -1;
  std::vector<Card> trick;         // the current trick, in play order
  std::vector<int> tricks_won;     // per seat
  std::vector<int> radli;
  std::vector<std::string> legal;  // the legal actions, only when to_act == seat
  // Only from State::ObserveCompact (the hot path of learning code), which
  // leaves `history` and `legal` empty: the history in compact form, the same
  // content as `history` (entry i: the seat that acted, and the action whose
  // text history[i].second is, or kUnseenDiscard where that text is
  // "discard ?"). Empty from Observe(); never serialized.
  std::vector<std::pair<int, Action>> history_actions;
};

// In Observation::history_actions: a discard whose card the seat does not see
// (the text "discard ?"). Its argument is no card.
inline constexpr Action kUnseenDiscard = MakeAction(Verb::kDiscard, 0xFF);

// Clears every field of *obs to its default, keeping the storage of its
// strings and vectors (for State::ObserveCompact's reuse).
void ClearObservation(Observation* obs);

// Compact JSON of an observation, the format bots see.
std::string ObservationToJson(const Observation& obs);

class Game;

// One hand in progress.
class State {
 public:
  static constexpr int kTerminal = -1;
  virtual ~State() = default;

  virtual const Game& game() const = 0;
  // The seat to act, or kTerminal when the hand is over.
  virtual int CurrentSeat() const = 0;
  bool IsTerminal() const { return CurrentSeat() == kTerminal; }
  // Writes exactly the legal actions of the seat to act; none when terminal.
  virtual void LegalActions(ActionList* out) const = 0;
  // Applies a legal action. Precondition: the action is in LegalActions().
  // The fast path for search and simulation; use ApplyChecked on outside input.
  virtual void Apply(Action a) = 0;
  // Applies `a` if legal, else returns InvalidArgument naming it and the legal ones.
  absl::Status ApplyChecked(Action a);
  // Parses and applies one action in text form.
  absl::Status ApplyText(absl::string_view text);
  // The scores and details of a finished hand. Precondition: IsTerminal().
  virtual HandResult Result() const = 0;
  // What `seat` may know now.
  virtual Observation Observe(int seat) const = 0;
  // The same for the hot path of learning code (VecEnv): writes into *out
  // every field of Observe(seat) except `history` and `legal`, which stay
  // empty, and the history compactly in out->history_actions. Reuses *out's
  // storage (no allocation once it has grown). Returns false, with *out
  // cleared, when the variant does not provide it (a plugin): use Observe().
  virtual bool ObserveCompact(int seat, Observation* out) const {
    (void)seat;
    ClearObservation(out);
    return false;
  }
  virtual std::unique_ptr<State> Clone() const = 0;
  // The name of the current phase ("bidding", "play", "done", ...).
  virtual std::string PhaseName() const = 0;
  // Actions applied so far, in order.
  virtual std::vector<Action> History() const = 0;
  // The deal and setup this hand started from.
  virtual Deal GetDeal() const = 0;
  virtual HandSetup Setup() const = 0;
};

// A variant with its options. Immutable; thread-safe.
class Game {
 public:
  virtual ~Game() = default;
  virtual const VariantInfo& info() const = 0;
  // The complete options, defaults filled in.
  virtual const Options& options() const = 0;
  int num_seats() const { return info().num_seats; }

  // Deals from a seed, deterministically on every platform (random.h).
  virtual Deal DealCards(uint64_t seed, int dealer) const = 0;
  // Starts a hand. Fails on a deal with duplicate or missing cards, wrong hand
  // sizes, or a bad setup, with a message that says which.
  virtual absl::StatusOr<std::unique_ptr<State>> NewHand(const Deal& deal,
                                                         const HandSetup& setup) const = 0;
  virtual const ActionCodec& codec() const = 0;
  std::string ActionToString(Action a) const { return codec().ToString(a); }
  absl::StatusOr<Action> ParseAction(absl::string_view text) const { return codec().Parse(text); }
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_GAME_H_
