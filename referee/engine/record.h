// Hand records: the JSON form of one hand (its deal, setup and actions), and
// replaying one to its scores. The format is fixed; other tools depend on it:
//
//   { "variant": "slovenian-4p", "options": {"difference_rounding": "5"},
//     "dealer": 0, "hands": [["T22", "HK", ...], [...], ...],  // one array per seat
//     "talon": ["T3", ...],                                     // 6 cards, deal order
//     "deck": ["T3", ...],          // optional: the whole pack, top first (westfest, whose
//                                   // hand begins with the deal; its hands are then empty)
//     "radli": [0, 1, 0, 0],        // optional: per seat, at the start of the hand
//     "forced_klop": false,         // optional: this hand follows a void deal
//     "seed": 42,                   // optional: the seed the deal came from
//     "actions": ["pass", "bid three", ...] }
//
// In slovenian-5p the dealer's array is empty. A match record (JSON with a
// "deals" array of hand records) replays hand by hand.
//
// Thread-safety: free functions on values; thread-safe.

#ifndef TAROCK_REFEREE_ENGINE_RECORD_H_
#define TAROCK_REFEREE_ENGINE_RECORD_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "referee/engine/game.h"

namespace tarock {

struct HandRecord {
  std::string variant;
  Options options;   // as written; defaults are filled in when replayed
  Deal deal;
  HandSetup setup;
  std::optional<uint64_t> seed;
  std::vector<std::string> actions;
  std::optional<std::vector<int>> scores;  // as recorded, when the record carries them
};

// Parses one hand record. Errors are one line and say what is wrong and where.
absl::StatusOr<HandRecord> ParseHandRecord(absl::string_view json_text);
// Parses a hand record or a match record ({"deals": [...]}) into its hands.
absl::StatusOr<std::vector<HandRecord>> ParseRecords(absl::string_view json_text);
// JSON of a record; indent < 0 is one line.
std::string HandRecordToJson(const HandRecord& record, int indent = -1);

// A fresh hand from a seed, as `tarock deal` prints it.
absl::StatusOr<HandRecord> DealRecord(const std::string& variant, const Options& options,
                                      uint64_t seed, int dealer);
// The record of a hand in progress or finished.
HandRecord RecordOf(const Game& game, const State& state, std::optional<uint64_t> seed = {});

struct Replay {
  std::unique_ptr<Game> game;
  std::unique_ptr<State> state;
};
// Replays a record's actions. An illegal or malformed action is an error that
// gives its 0-based index and text.
absl::StatusOr<Replay> ReplayRecord(const HandRecord& record);

// The replay report: when the hand is over, `scores`, `radli`, `declarer`,
// `contract`, `partner`, card points and bonuses; otherwise `phase`, `to_act`
// and `legal`. Both carry `variant` and `actions` (the number applied).
std::string ReplayReportJson(const Game& game, const State& state, int indent = -1);

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_RECORD_H_
