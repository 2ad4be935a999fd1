// Fuzz target: action text parsing and the rules of every variant, and the
// referee's protocol conversions of what each seat sees.
// Input: byte 0 picks the variant, bytes 1-8 the deal's seed, the rest is
// action text, one per line (a line "#N" plays the N-th legal action instead,
// so the fuzzer reaches deep into hands without knowing the notation).
// Invariants: nothing crashes; an action that parses prints (ToString) as
// text that parses back to the same action; only legal actions apply; every
// seat's observation converts to the protocol, its legal actions parse, and a
// finished hand's scores sum as the variant says (one score per seat).

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "referee/engine/registry.h"
#include "referee/protocol/convert.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

void CheckObservations(const tarock::Game& game, const tarock::State& state, int request_id) {
  for (int seat = 0; seat < game.num_seats(); ++seat) {
    tarock::Observation obs = state.Observe(seat);
    tarock::v1::DecisionRequest request =
        tarock::MakeDecisionRequest(obs, request_id, /*hand_index=*/0, /*events_seen=*/0);
    if (request.observation().seat() != seat) tarock::fuzz::Fail("observation of another seat");
    for (const std::string& text : request.legal_actions()) {
      if (!game.ParseAction(text).ok()) tarock::fuzz::Fail("legal action does not parse: " + text);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<tarock::VariantInfo> variants = tarock::Registry::Global().List();
  tarock::fuzz::Input in(data, size);
  const tarock::VariantInfo& info = variants[in.Byte() % variants.size()];
  auto game = tarock::Registry::Global().Create(info.name);
  if (!game.ok()) tarock::fuzz::Fail("variant does not create: " + info.name);
  uint64_t seed = in.U64();
  auto state = (*game)->NewHand((*game)->DealCards(seed, /*dealer=*/0), tarock::HandSetup{});
  if (!state.ok()) return 0;  // e.g. a setup the variant needs; deals are its own
  int step = 0;
  for (const std::string& line : tarock::fuzz::Lines(in.Rest(), 400)) {
    if ((*state)->IsTerminal()) break;
    if (step++ % 16 == 0) CheckObservations(**game, **state, step);
    tarock::ActionList legal;
    (*state)->LegalActions(&legal);
    if (legal.size == 0) tarock::fuzz::Fail("no legal action in a running hand");
    int index = 0;
    if (line.size() > 1 && line[0] == '#' && absl::SimpleAtoi(line.substr(1), &index)) {
      (*state)->Apply(legal.items[static_cast<unsigned>(index) % legal.size]);
      continue;
    }
    auto action = (*game)->ParseAction(line);
    if (!action.ok()) continue;
    std::string printed = (*game)->ActionToString(*action);
    auto again = (*game)->ParseAction(printed);
    if (!again.ok() || *again != *action) tarock::fuzz::Fail("action does not round-trip: " + line);
    bool was_legal = legal.Contains(*action);
    absl::Status applied = (*state)->ApplyChecked(*action);
    if (applied.ok() != was_legal) tarock::fuzz::Fail("ApplyChecked disagrees with LegalActions");
  }
  if ((*state)->IsTerminal()) {
    tarock::HandResult result = (*state)->Result();
    if (static_cast<int>(result.scores.size()) != (*game)->num_seats())
      tarock::fuzz::Fail("a score per seat");
  } else {
    CheckObservations(**game, **state, step);
  }
  return 0;
}
