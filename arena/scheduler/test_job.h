// A test in the arena: `tarock compare` as an arena job. A candidate bot
// against a baseline bot (head to head, or each against the same registered
// opponents) on duplicate deals, with the seatings and per-deal differences of
// referee/tools/compare/duplicate_design.h and the sequential test of
// referee/tools/compare/sprt.h, until a bound is crossed or max_deals.
//
// Matches: block k is one match of n hands (n = seats) from match seed
// HandSeed(seed, k), played once per seating; the match of block k and
// seating i is "S<test>-<k>-<i>" (kind "test", never rated). Evidence is
// consumed in block order and only by whole blocks (every seating done), so
// the differences, the LLR path and the decision depend on the seed and the
// bots' play, never on timing, the referees or a restart.
//
// State: what has been consumed (blocks, the differences in deal order, the
// faults and Hello of each role, hands) and the result, as JSON in the test's
// store row. The Sprt is rebuilt by replaying the differences, so a test
// resumed after a restart goes on exactly where the stored state ends; blocks
// whose matches were stored but not consumed are consumed from their stored
// records (a done match is never played again).
//
// Thread-safety: TestJob is a value type, not synchronized (the scheduler's
// dispatcher thread owns the running ones); the free functions are pure.

#ifndef TAROCK_ARENA_SCHEDULER_TEST_JOB_H_
#define TAROCK_ARENA_SCHEDULER_TEST_JOB_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/store/store.h"
#include "referee/tools/compare/duplicate_design.h"
#include "referee/tools/compare/sprt.h"
#include "tarock/v1/arena.pb.h"

namespace tarock::arena {

// The defaults of `tarock compare` filled in (h1 5, alpha and beta 0.05,
// max_deals 20000, min_deals 20, seed 1), then checked: INVALID_ARGUMENT for an
// unknown variant or option, a bad SPRT parameter, max_deals beyond 1,000,000,
// a missing bot name or more opponents than seats - 1.
absl::StatusOr<v1::TestConfig> NormalizeTestConfig(v1::TestConfig config);

// A test's match: the row to store and the spec to run.
struct TestMatch {
  MatchRow match;
  v1::MatchSpec spec;
};

class TestJob {
 public:
  // A running test from its stored row; `bots` are the registered bots of its
  // roles: candidate, baseline, then the opponents in order. The config must
  // be normalized.
  static absl::StatusOr<TestJob> FromRow(const TestRow& row, std::vector<BotRow> bots);
  // The state of a test that has not consumed anything (for InsertTest).
  static std::string InitialState();

  int64_t id() const { return id_; }
  int per_block() const { return static_cast<int>(seatings_.size()); }
  int64_t max_blocks() const;
  // "S<test>-<block>-<seating>".
  std::string MatchId(int64_t block, int seating) const;
  // The matches of block `block`, one per seating.
  std::vector<TestMatch> MakeBlock(int64_t block) const;

  // Consumes block blocks_consumed() from the records of its matches (one per
  // seating, in seating order): the differences go to the Sprt in deal order
  // until it decides. Then the test is done when the Sprt decided, the
  // candidate or the baseline made more than max_faults faults, or the last
  // block was consumed (inconclusive). A record that cannot be read ends the
  // test with an error.
  void ConsumeBlock(const std::vector<std::string>& records);
  // Ends the test: result "error" with `error`, or "stopped".
  void Fail(const std::string& error);
  void Stop();

  bool done() const { return !result_.empty(); }
  int64_t blocks_consumed() const { return blocks_; }
  const Sprt& sprt() const { return sprt_; }
  std::string status() const { return done() ? "done" : "running"; }
  // The state to store (the JSON of the tests row).
  std::string StateJson() const;

 private:
  TestJob(int64_t id, v1::TestConfig config, std::vector<BotRow> bots, int num_seats);

  int64_t id_;
  v1::TestConfig config_;
  std::vector<BotRow> bots_;  // by role
  int n_;                     // seats, = hands per block
  std::vector<Seating> seatings_;
  Sprt sprt_;
  // The state (see the header comment).
  int64_t blocks_ = 0;
  std::vector<double> differences_;
  std::vector<int64_t> faults_;  // by role
  std::vector<std::map<std::string, int64_t>> fault_kinds_;
  std::vector<std::string> hello_names_, hello_versions_;
  int64_t hands_ = 0;
  int64_t left_out_ = 0;
  std::string result_;  // "" while running; H1, H0, inconclusive, error, stopped
  std::string error_;
};

// The SPRT parameters of a normalized config.
SprtParams SprtParamsOf(const v1::TestConfig& config);

// A stored test as the API shows it; `matches_done` and `matches_total` count
// its stored matches. With `with_path`, the differences and the LLR path.
v1::TestInfo TestInfoOf(const TestRow& row, int64_t matches_done, int64_t matches_total,
                        bool with_path);

// The exit status of `tarock compare` for a result: 0 H1, 1 H0, 2
// inconclusive or stopped, 3 error, -1 "" (running).
int TestExitStatus(const std::string& result);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_TEST_JOB_H_
