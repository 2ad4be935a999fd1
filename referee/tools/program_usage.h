// What `--help` prints for every Tarock Arena program: the program's own usage
// text, then its own flags with their defaults.
//
// Abseil's --help lists only the flags defined in a file named after the
// program ("No flags matched" for tarock-referee, whose flags live in
// referee_main.cc) and names each file by the path it was compiled from (a
// build machine's path). SetProgramUsage lists every flag defined outside
// Abseil itself and names files by their path in the source tree.
//
// Thread-safety: call once from main() before absl::ParseCommandLine.

#ifndef TAROCK_REFEREE_TOOLS_PROGRAM_USAGE_H_
#define TAROCK_REFEREE_TOOLS_PROGRAM_USAGE_H_

#include <string>

#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace tarock {

// The path of a source file from the top of the source tree
// ("/home/x/tarock/referee/tools/tarock_main.cc" -> "referee/tools/tarock_main.cc").
inline std::string SourceTreePath(absl::string_view path) {
  size_t best = absl::string_view::npos;
  for (absl::string_view top : {"/referee/", "/arena/", "/sdk/", "/bots/", "/tests/", "/examples/"}) {
    const size_t at = path.find(top);
    if (at != absl::string_view::npos && (best == absl::string_view::npos || at < best)) best = at;
  }
  return std::string(best == absl::string_view::npos ? path : path.substr(best + 1));
}

// Sets the usage text (what the program does, its commands) and makes --help
// and --helpshort list the program's own flags.
inline void SetProgramUsage(absl::string_view usage) {
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    return !absl::StrContains(file, "absl/");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  config.normalize_filename = [](absl::string_view file) { return SourceTreePath(file); };
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(usage);
}

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_PROGRAM_USAGE_H_
