// `tarock compare`: did a change make the bot stronger? Plays duplicate deals
// between a candidate and a baseline bot (head to head, or each against the
// same fixed opponents; duplicate_design.h) and runs the sequential test of
// sprt.h on the per-deal differences, candidate minus baseline, until a bound
// is crossed or --max_deals. Bots are SPECs as in `tarock match` (bot_launch.h);
// each SPEC is started once and serves every match. Matches run in process or
// on remote referees, up to --concurrency at once; the results are consumed in
// deal order, so the LLR path and the decision depend only on the seed and the
// bots' own play, never on timing or concurrency.
//
// Exit status: 0 H1 accepted (the candidate is better by at least h1 per deal),
// 1 H0 accepted (better by at most h0), 2 inconclusive at --max_deals, 3 an error
// (bad arguments, a bot that cannot be started or reached, a bot process that
// exits, a referee failure, more than --max_faults faults of the candidate or
// of the baseline).
//
// Thread-safety: a command-line entry point; call from main only.

#ifndef TAROCK_REFEREE_TOOLS_COMPARE_COMPARE_COMMAND_H_
#define TAROCK_REFEREE_TOOLS_COMPARE_COMPARE_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "referee/engine/game.h"
#include "referee/tools/compare/sprt.h"

namespace tarock {

inline constexpr int kCompareH1 = 0;
inline constexpr int kCompareH0 = 1;
inline constexpr int kCompareInconclusive = 2;
inline constexpr int kCompareError = 3;

struct CompareOptions {
  std::string variant;
  Options options;
  std::string candidate;               // SPEC
  std::string baseline;                // SPEC
  std::vector<std::string> opponents;  // SPECs; empty: head to head
  SprtParams sprt;                     // h0, h1, alpha, beta, max_deals (0: none)
  uint64_t seed = 1;
  int concurrency = 1;                 // matches at once
  std::vector<std::string> referees;   // HOST:PORT each; empty: in process
  std::string report_path;             // "" = no JSON report
  int64_t per_decision_ms = 0;         // 0 = the referee's default
  int64_t bank_ms = 0;
  int64_t grace_ms = 0;
  int max_faults = 0;                  // of the candidate or the baseline; 0 = never fail
  int connect_timeout_ms = 10000;
  // "" = the bots' standard error stays on ours; else each started bot's goes
  // to DIR/<role>.log (candidate.log, baseline.log, opponent-<J>.log).
  std::string bot_logs_dir;
  bool quiet = false;                  // no live progress
};

// Runs the test; returns the exit status above. Errors are one line on
// standard error; the progress goes to standard error and the summary to
// standard output.
int RunCompareCommand(const CompareOptions& options);

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_COMPARE_COMPARE_COMMAND_H_
