#include "sdk/python/engine/action_space.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "referee/engine/status_macros.h"

namespace tarock::python {

ActionSpace::ActionSpace(const Game& game) : codec_(&game.codec()) {
  const VariantInfo& info = game.info();
  const ActionCodec& c = game.codec();
  auto count = [&](Verb v) -> int& { return count_[static_cast<int>(v)]; };
  count(Verb::kPass) = 1;
  count(Verb::kBid) = static_cast<int>(c.contracts.size());
  count(Verb::kCall) = 4;
  count(Verb::kTalon) = info.talon_size;
  count(Verb::kDiscard) = kNumCards;
  count(Verb::kAnnounce) = static_cast<int>(c.bonuses.size());
  count(Verb::kKontra) = static_cast<int>(c.kontra_targets.size());
  count(Verb::kPlay) = kNumCards;
  count(Verb::kCustom) = static_cast<int>(c.custom.size());
  int next = 0;
  for (int v = 0; v < kNumVerbs; ++v) {
    offset_[v] = next;
    for (int arg = 0; arg < count_[v]; ++arg)
      actions_.push_back(MakeAction(static_cast<Verb>(v), arg));
    next += count_[v];
  }
}

absl::StatusOr<Action> ActionSpace::CheckedActionAt(int64_t index) const {
  if (index < 0 || index >= size())
    return absl::InvalidArgumentError(
        absl::StrCat("action index ", index, " is outside the action space [0, ", size(), ")"));
  return actions_[index];
}

std::string ActionSpace::Text(int index) const { return codec_->ToString(actions_[index]); }

absl::StatusOr<int> ActionSpace::Parse(absl::string_view text) const {
  ASSIGN_OR_RETURN(Action a, codec_->Parse(text));
  const int i = Index(a);
  if (i < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("action '", text, "' is not in this variant's action space"));
  return i;
}

std::vector<std::string> ActionSpace::Names() const {
  std::vector<std::string> out;
  out.reserve(actions_.size());
  for (int i = 0; i < size(); ++i) out.push_back(Text(i));
  return out;
}

void ActionSpace::Mask(const ActionList& legal, uint8_t* mask) const {
  // memset: a byte loop through uint8_t* may alias the vector's size, which
  // the compiler then reloads every byte.
  std::memset(mask, 0, actions_.size());
  for (Action a : legal) {
    const int i = Index(a);
    if (i >= 0) mask[i] = 1;
  }
}

int ActionSpace::Indices(const ActionList& legal, int32_t* out) const {
  int n = 0;
  for (Action a : legal) out[n++] = Index(a);
  return n;
}

}  // namespace tarock::python
