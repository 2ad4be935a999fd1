// VecEnv: n tables of one variant stepped together in C++, for training and
// evaluating learning bots (issue 46; the Python class tarock_engine.VecEnv,
// docs/python.md "VecEnv").
//
// Each table plays arena matches: MatchProgress (match.h) deals every hand from
// the match seed exactly as the referee does (the engine's own deal-from-seed,
// radli carried, void deals dealt again), and when a match ends the table
// starts the next one (automatic reset). Seats are either the caller's
// ("agent" seats: the table stops there and waits for an action) or played in
// process by a bundled bot ("random", "heuristic", "search", through the SDK's
// BotSession exactly as a bot process would see the match).
//
// Seeds: without duplicate, table i plays match seeds seed + i, seed + i + n,
// seed + i + 2n, ...; the arena's match with published seed s is the table
// whose current match seed is s. With duplicate, tables come in groups of
// num_seats consecutive tables that play the same match seeds (group g: seed +
// g, seed + g + n/num_seats, ...), table r of a group with its controllers
// rotated by r seats: the cards of seat p are the same at every table of the
// group, the bot or agent holding them differs. The duplicate-adjusted reward
// of a seat is its score minus the mean score of the same cards across the
// group, reported when the last table of the group finishes that hand.
//
// Outputs live in buffers owned by the VecEnv and are overwritten by the next
// Reset() or Step().
//
// Thread-safety: not thread-safe; one thread at a time (the Python binding
// marks it busy while it runs without the GIL).

#ifndef TAROCK_SDK_PYTHON_ENGINE_VEC_ENV_H_
#define TAROCK_SDK_PYTHON_ENGINE_VEC_ENV_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "referee/engine/game.h"
#include "referee/engine/match.h"
#include "sdk/python/engine/action_space.h"
#include "sdk/python/engine/encoding.h"
#include "tarock/sdk/bot.h"

namespace tarock::python {

struct VecEnvOptions {
  std::string variant = "slovenian-4p";
  Options options;                // the variant's options (defaults filled in)
  int num_envs = 1;               // tables; a multiple of num_seats with duplicate
  uint64_t seed = 0;              // see the file comment
  // The key of the deals with each match seed (MatchOptions::salt): "" as
  // `tarock match --seed`; an arena match's published "seed_salt" to play its deals.
  std::string salt;
  int hands_per_match = 0;        // 0: num_seats hands (one round); else a multiple of it
  int first_dealer = 0;           // the dealer of each match's first hand, as MatchOptions
  // Per seat: "" (an agent seat, the caller acts), or "random", "heuristic",
  // "search". Empty: every seat is an agent seat. At least one agent seat.
  std::vector<std::string> seat_bots;
  bool duplicate = false;         // groups of num_seats tables, seats rotated
  bool observation_tensor = true; // fill obs (EncodeObservation) for the seat to act
  bool info_state = false;        // fill info (EncodeInfoState) for the seat to act
};

class VecEnv {
 public:
  // InvalidArgument/NotFound on an unknown variant, option or bot name, bad
  // sizes, or no agent seat.
  static absl::StatusOr<std::unique_ptr<VecEnv>> Create(const VecEnvOptions& options);

  // Starts every table at its first match again (the seeds of the options).
  absl::Status Reset();
  // Applies actions[i] (an index in the action space) at table i for its seat
  // to act, plays the bots' seats up to the next agent decision (starting new
  // hands and matches as they end), and fills the outputs. All actions are
  // checked first: one that is outside the space or not legal fails the whole
  // call with InvalidArgument naming the table, the action and the legal ones,
  // and no table changes.
  absl::Status Step(const int32_t* actions);

  const Game& game() const { return *game_; }
  const Encoder& encoder() const { return encoder_; }
  const ActionSpace& space() const { return encoder_.space(); }
  int num_envs() const { return n_; }
  int num_seats() const { return seats_; }
  const VecEnvOptions& options() const { return options_; }

  // Outputs (row i is table i).
  const float* obs() const { return obs_.data(); }          // n x observation_size (or empty)
  const float* info() const { return info_.data(); }        // n x info_state_size (or empty)
  const uint8_t* mask() const { return mask_.data(); }      // n x space size
  const int16_t* legal() const { return legal_.data(); }    // n x kMaxLegal, -1 padded
  const int32_t* num_legal() const { return num_legal_.data(); }  // n
  const int32_t* seat() const { return seat_.data(); }      // n: the seat to act
  const int32_t* phase() const { return phase_.data(); }    // n: PhaseId
  const float* reward() const { return reward_.data(); }    // n x seats: scores of hands ended
  const float* dup_reward() const { return dup_reward_.data(); }  // n x seats (duplicate)
  const uint8_t* hand_done() const { return hand_done_.data(); }  // n: a hand ended
  // n: dup_reward holds a duplicate-adjusted hand of this table (even one of 0).
  const uint8_t* dup_done() const { return dup_done_.data(); }
  const uint8_t* match_done() const { return match_done_.data(); }  // n: a match ended
  const int32_t* hand_index() const { return hand_index_.data(); }  // n: hand in its match
  const uint64_t* match_seed() const { return match_seed_.data(); }  // n: its match's seed
  // Decisions the caller made, and that the bots made, since Create().
  int64_t agent_decisions() const { return agent_decisions_; }
  int64_t bot_decisions() const { return bot_decisions_; }

  // Writes, per table, the action index that the bundled bot `bot` ("random",
  // "heuristic", "search") would choose for the seat to act now: labels for
  // imitation. Changes no table. NotFound for an unknown bot.
  absl::Status TeacherActions(const std::string& bot, int32_t* out);

  // Writes, per table, the search bot's value of each legal action of the seat
  // to act now (out: n x space size): its mean utility over its determinizations
  // (that seat's score minus the other seats' mean, search_bot.h), soft targets
  // for imitation. NaN for the actions it did not value: the whole row outside
  // the phases it searches (the play, the talon choice and the discards) and
  // where it cannot determinize the position. Only `bot` "search" has values
  // (InvalidArgument otherwise). Changes no table.
  absl::Status TeacherValues(const std::string& bot, float* out);

  // The observation of table i's seat to act (what that seat sees now).
  Observation ObserveCurrent(int i) const;
  // A copy of table i's current state (for search or the privileged tensor).
  std::unique_ptr<State> CloneState(int i) const;
  // The controller of `seat` at table i ("" for an agent seat).
  const std::string& Controller(int i, int seat) const;

  static constexpr int kMaxLegal = ActionList::kCapacity;

 private:
  struct Table {
    int rotation = 0;
    uint64_t first_seed = 0;
    uint64_t seed_stride = 1;
    int matches = 0;  // matches started
    uint64_t seed = 0;
    std::optional<MatchProgress> progress;
    MatchProgress::NextHand next;
    std::unique_ptr<State> state;
    std::vector<std::string> controller;                   // per seat
    std::vector<std::unique_ptr<sdk::BotSession>> bots;     // per seat, null for agents
    std::vector<int> seen;                                  // per seat: history sent
    int64_t request_id = 0;
  };
  explicit VecEnv(const VecEnvOptions& options, std::unique_ptr<Game> game);
  absl::Status StartMatch(int i);
  absl::Status StartHand(int i);
  absl::Status Advance(int i);
  void Fill(int i);
  void BookDuplicate(int i, const HandResult& result);
  // The teachers of `bot` (made on first use) and the MatchInfo they decide in.
  absl::StatusOr<std::vector<std::unique_ptr<sdk::Bot>>*> Teachers(const std::string& bot);
  sdk::MatchInfo TeacherMatch() const;

  VecEnvOptions options_;
  std::unique_ptr<Game> game_;
  Encoder encoder_;
  int n_, seats_, a_;
  std::vector<Table> tables_;
  std::vector<float> obs_, info_, reward_, dup_reward_;
  std::vector<uint8_t> mask_, hand_done_, match_done_, dup_done_;
  std::vector<int16_t> legal_;
  std::vector<int32_t> num_legal_, seat_, phase_, hand_index_;
  std::vector<uint64_t> match_seed_;
  // Duplicate: per group, per (match number, hand index), the scores so far
  // of the group's tables.
  struct DupEntry {
    int count = 0;
    std::vector<std::vector<int>> scores;  // per table of the group
  };
  std::vector<std::map<std::pair<int, int>, DupEntry>> dup_;
  // Teachers (TeacherActions): per bot name, one instance per table.
  std::map<std::string, std::vector<std::unique_ptr<sdk::Bot>>> teachers_;
  std::shared_ptr<const Game> teacher_game_;
  int64_t agent_decisions_ = 0;
  int64_t bot_decisions_ = 0;
  // Fill's observation, reused (State::ObserveCompact allocates nothing once
  // it has grown).
  Observation scratch_;
};

}  // namespace tarock::python

#endif  // TAROCK_SDK_PYTHON_ENGINE_VEC_ENV_H_
