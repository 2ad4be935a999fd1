// The fixed integer action space of one variant (with its options), for the
// Python module tarock_engine and for learning code: every action the variant
// can ever name gets one index in [0, size()), the same for every state of
// every hand of that game, so a policy can have one output per index and a
// legal mask can be a bool array of size() entries.
//
// Layout, in this order (each block only as large as the variant needs):
//   pass                               1
//   bid CONTRACT                       one per codec contract (ActionCodec::contracts)
//   call SUIT                          4 (H, D, C, S)
//   talon N                            talon_size (N = 0 .. talon_size-1)
//   discard CARD                       54 (card index order, T1 .. SK)
//   announce BONUS                     one per codec bonus
//   kontra TARGET                      one per codec kontra target
//   play CARD                          54
//   custom verbs                       one per codec custom action (westfest's cut, ...)
// Index <-> engine Action is a table lookup both ways; text goes through the
// engine's ActionCodec, so the text is always the protocol's.
//
// Pure C++ (no Python): unit-testable and usable from learn_binding, vec_env.
// Thread-safety: immutable after construction; any number of threads may use
// one ActionSpace. The Game it was built from must outlive it only for Text()
// and Parse() (it keeps a pointer to the game's codec).

#ifndef TAROCK_SDK_PYTHON_ENGINE_ACTION_SPACE_H_
#define TAROCK_SDK_PYTHON_ENGINE_ACTION_SPACE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "referee/engine/game.h"

namespace tarock::python {

class ActionSpace {
 public:
  // Builds the layout from the game's VariantInfo and ActionCodec.
  explicit ActionSpace(const Game& game);

  // The number of indices.
  int size() const { return static_cast<int>(actions_.size()); }
  // The index of an engine action, or -1 when the action is outside the space
  // (never for an action the engine lists as legal: tests check every variant).
  int Index(Action a) const {
    const int v = a >> 8, arg = a & 0xFF;
    if (v >= kNumVerbs || arg >= count_[v]) return -1;
    return offset_[v] + arg;
  }
  // The engine action at `index`. Precondition: 0 <= index < size().
  Action ActionAt(int index) const { return actions_[index]; }
  // The same, checked: InvalidArgument naming the index and the size.
  absl::StatusOr<Action> CheckedActionAt(int64_t index) const;
  // The protocol's text of the action at `index` ("play T21"). Precondition as ActionAt.
  std::string Text(int index) const;
  // The index of an action text; the codec's error for bad text, InvalidArgument
  // for text that parses but is outside the space.
  absl::StatusOr<int> Parse(absl::string_view text) const;
  // Every index's text, in index order.
  std::vector<std::string> Names() const;
  // Writes the legal mask: mask[i] = 1 when ActionAt(i) is in `legal`, else 0.
  // `mask` has size() entries.
  void Mask(const ActionList& legal, uint8_t* mask) const;
  // Writes the indices of `legal` (in the engine's order) into `out`; returns
  // how many. `out` has room for ActionList::kCapacity entries.
  int Indices(const ActionList& legal, int32_t* out) const;

  // The first index and the size of one verb's block.
  int Offset(Verb v) const { return offset_[static_cast<int>(v)]; }
  int Count(Verb v) const { return count_[static_cast<int>(v)]; }

 private:
  static constexpr int kNumVerbs = static_cast<int>(Verb::kCustom) + 1;
  const ActionCodec* codec_;
  std::array<int, kNumVerbs> offset_{};
  std::array<int, kNumVerbs> count_{};
  std::vector<Action> actions_;
};

}  // namespace tarock::python

#endif  // TAROCK_SDK_PYTHON_ENGINE_ACTION_SPACE_H_
