// `tarock match`: runs one match from the command line between bots given as
// NAME=SPEC, one per seat in seat order. SPEC is an executable (started on a free
// loopback port with `--listen 127.0.0.1:PORT` and stopped at the end) or the
// HOST:PORT of a running bot. The referee runs in process, or remotely at
// --referee. Prints progress, a table per bot, and writes the match record.
//
// Thread-safety: a command-line entry point; call from main only.

#ifndef TAROCK_REFEREE_TOOLS_MATCH_COMMAND_H_
#define TAROCK_REFEREE_TOOLS_MATCH_COMMAND_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "referee/engine/game.h"

namespace tarock {

struct MatchCommandOptions {
  std::string variant;
  Options options;
  int hands = 0;                  // 0: 10 per seat
  uint64_t seed = 1;
  std::string record_path;        // "" = do not write
  std::string referee;            // "" = in process
  std::string match_id;           // "" = derived from the seed
  int64_t per_decision_ms = 0;    // 0 = the referee's default
  int64_t bank_ms = 0;            // 0 = no bank
  int64_t grace_ms = 0;           // 0 = the referee's default
  int max_faults = 0;             // 0 = never forfeit
  int connect_timeout_ms = 10000;
  bool quiet = false;             // no progress line
  bool json = false;              // print the summary as JSON instead of a table
  // "" = the started bots' standard error stays on ours; else each started
  // bot's standard error is appended to DIR/seat<N>-<NAME>.log (N the seat,
  // NAME with characters other than [A-Za-z0-9._-] replaced by '_'); the
  // directory is created.
  std::string bot_logs_dir;
};

// Runs the match; `seats` are the NAME=SPEC arguments. Errors are one line.
absl::Status RunMatchCommand(const MatchCommandOptions& options,
                             const std::vector<std::string>& seats);

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_MATCH_COMMAND_H_
