// Encodings of what one seat sees, for learning bots (issue 46; docs/python.md,
// "Encodings"): a fixed-size observation tensor per variant, a perfect-recall
// information-state tensor (the observation tensor followed by the whole
// history as the seat saw it), the legal-action mask in the variant's fixed
// action space (action_space.h), the phase as a small integer, and a text
// rendering for language-model agents.
//
// Leak-proof by construction: every one of these is computed from an
// Observation (game.h), the very struct the referee sends to that seat's bot,
// and from nothing else. The tensors and the history also read the compact
// form of that struct (State::ObserveCompact: the history as actions, no
// texts to build or parse; VecEnv's hot path), byte for byte the same
// (encoding_test.cc compares both forms at every decision of random hands of
// every variant). Two states that differ only in cards the seat cannot
// see have the same Observation, so they have byte-identical encodings
// (encoding_test.cc checks it for every variant on many such pairs).
//
// The one exception is named so: EncodePrivileged() reads the full State (every
// hand and the dealt talon) for training critics. The referee never serves it.
//
// Seats are relative: block r of a per-seat field is the seat (seat + r) mod
// num_seats, so block 0 is always the observing seat and one network serves
// every seat.
//
// Versions: kEncodingVersion changes whenever any layout or value changes; the
// golden file sdk/python/engine/testdata/encoding_golden.txt pins it.
//
// Thread-safety: an Encoder is immutable after construction; any number of
// threads may use one. It keeps a pointer to the Game: the Game outlives it.

#ifndef TAROCK_SDK_PYTHON_ENGINE_ENCODING_H_
#define TAROCK_SDK_PYTHON_ENGINE_ENCODING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "referee/engine/game.h"
#include "sdk/python/engine/action_space.h"

namespace tarock::python {

// Version 1: the layout below (Encoder's constructor, docs/python.md).
inline constexpr int kEncodingVersion = 1;

// The phases of every built-in variant, in this order; a phase not listed
// (a plugin's) is kPhaseOther. The index is the phase id.
const std::vector<std::string>& PhaseNames();
// The id of a phase name: its index in PhaseNames(), or the index of "other".
int PhaseId(const std::string& phase);

// One named block of a tensor: floats [offset, offset + size).
struct Field {
  std::string name;
  int offset = 0;
  int size = 0;
  std::string doc;  // one line: what a value in it means
};

class Encoder {
 public:
  // Lays the tensors out for the game's variant and options.
  explicit Encoder(const Game& game);

  const ActionSpace& space() const { return space_; }
  int num_seats() const { return seats_; }
  // Floats in the observation tensor.
  int observation_size() const { return obs_size_; }
  // The most history entries the information-state tensor holds (a bound no
  // hand of the variant reaches: encoding_test.cc plays random hands to check).
  int max_history() const { return max_history_; }
  // Floats per history entry: the relative seat (num_seats) then the action
  // (space().size() + 1; the last slot is an action whose argument the seat
  // did not see, "discard ?").
  int history_entry_size() const { return seats_ + space_.size() + 1; }
  // Floats in the information-state tensor: observation_size() +
  // max_history() * history_entry_size().
  int info_state_size() const { return obs_size_ + max_history_ * history_entry_size(); }
  // Floats in the privileged tensor: observation_size() + (num_seats + 1) * 54.
  int privileged_size() const { return obs_size_ + (seats_ + 1) * kNumCards; }

  // The observation tensor's fields, in order (for documentation and tools).
  const std::vector<Field>& fields() const { return fields_; }

  // Writes observation_size() floats. Entries of the history or talon that do
  // not parse (a plugin's own text) are skipped, never guessed. The history
  // is obs.history, or obs.history_actions when obs.history is empty (an
  // observation from State::ObserveCompact): the same bytes either way.
  void EncodeObservation(const Observation& obs, float* out) const;
  // Writes info_state_size() floats. FailedPrecondition when the history is
  // longer than max_history() (nothing is truncated silently). Either form of
  // the history, as EncodeObservation.
  absl::Status EncodeInfoState(const Observation& obs, float* out) const;
  // Writes space().size() bytes: 1 for each of obs.legal (empty unless the
  // seat is to act, and in a compact observation), 0 elsewhere.
  void EncodeMask(const Observation& obs, uint8_t* out) const;
  // Writes max_history() * 2 int16 values: per history entry its absolute seat
  // and its action index (space().size() for a hidden one), then -1 padding.
  // Returns the number of entries, or FailedPrecondition as EncodeInfoState.
  // Either form of the history, as EncodeObservation.
  absl::Status EncodeHistory(const Observation& obs, int16_t* out) const;
  // A plain-text rendering of everything in the observation (for language
  // models and for people). Reads obs.history and obs.legal: an observation
  // from Observe(), not a compact one.
  std::string Text(const Observation& obs) const;

  // PRIVILEGED: reads the full state, not only what `seat` sees. The
  // observation tensor of `seat`, then every seat's current hand (relative
  // seats, 54 each) and the dealt talon (54). For critics in training only;
  // never give it to a bot that plays.
  void EncodePrivileged(const State& state, int seat, float* out) const;

 private:
  int Rel(const Observation& obs, int seat) const {
    return ((seat - obs.seat) % seats_ + seats_) % seats_;
  }
  int Add(const std::string& name, int size, const std::string& doc);
  // One history entry as the encodings read it: the text form's rules (an
  // action of the space by its text; a text that does not name one but
  // starts with "discard" is a discard whose card is unknown; any other
  // such text is skipped), applied alike to both forms of the history.
  enum class Kind : uint8_t { kAction, kUnknownDiscard, kSkip };
  struct Entry {
    int who;
    Kind kind;
    Action action;  // for kAction
  };
  Entry FromText(int who, const std::string& text) const;
  Entry FromAction(int who, Action a) const {
    if (a == kUnseenDiscard) return Entry{who, unseen_kind_, unseen_action_};
    const int i = space_.Index(a);
    if (i >= 0) return Entry{who, kind_by_index_[i], action_by_index_[i]};
    return FromOtherAction(who, a);
  }
  // An action outside the space (no built-in variant's history has one): its
  // text, as the text form would read it.
  Entry FromOtherAction(int who, Action a) const;
  // The history of either form: its length and entry i.
  int HistoryLength(const Observation& obs) const {
    return static_cast<int>(obs.history.empty() ? obs.history_actions.size()
                                                : obs.history.size());
  }
  Entry HistoryEntry(const Observation& obs, int i) const {
    return obs.history.empty() ? FromAction(obs.history_actions[i].first,
                                            obs.history_actions[i].second)
                               : FromText(obs.history[i].first, obs.history[i].second);
  }
  template <bool kCompact>
  void EncodeObservationImpl(const Observation& obs, float* out) const;
  // The action of a history or legal text; false for text outside the action
  // space ("discard ?", a plugin's own). A table lookup (the codec's texts).
  bool Lookup(const std::string& text, Action* out) const {
    auto it = actions_by_text_.find(text);
    if (it == actions_by_text_.end()) return false;
    *out = it->second;
    return true;
  }

  const Game* game_;
  ActionSpace space_;
  int seats_;
  int hand_size_;
  int talon_size_;
  int obs_size_ = 0;
  int max_history_ = 0;
  std::vector<Field> fields_;
  absl::flat_hash_map<std::string, Action> actions_by_text_;
  // FromAction's table: per action of the space (by index), the entry its
  // text gives; and the entry of the text "discard ?" (kUnseenDiscard).
  std::vector<Kind> kind_by_index_;
  std::vector<Action> action_by_index_;
  Kind unseen_kind_ = Kind::kSkip;
  Action unseen_action_ = 0;
  // Offsets of the fields.
  int f_hand_, f_played_, f_trick_, f_leader_, f_talon_, f_talon_hidden_, f_shown_,
      f_own_discards_, f_discards_, f_dealer_, f_to_act_, f_declarer_, f_partner_, f_phase_,
      f_contract_, f_king_, f_bid_, f_passed_, f_talon_choice_, f_announced_, f_kontra_,
      f_custom_, f_tricks_, f_radli_, f_cards_left_;
};

}  // namespace tarock::python

#endif  // TAROCK_SDK_PYTHON_ENGINE_ENCODING_H_
