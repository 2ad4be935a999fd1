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

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/internal/parse.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/status/status.h"
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

// absl::ParseCommandLine, except that a usage flag (--help, --helpfull,
// --helpshort, --helppackage, --helpmatch=S, --version, --only_check_flags)
// prints what Abseil prints and exits 0: Abseil 20220623 exits 1 after --help,
// and asking for help is no failure. A flag it does not know, or a bad value,
// still exits 1 with Abseil's message. Call after SetProgramUsage.
inline std::vector<char*> ParseCommandLine(int argc, char* argv[]) {
  std::vector<char*> args = absl::flags_internal::ParseCommandLineImpl(
      argc, argv, absl::flags_internal::ArgvListAction::kRemoveParsedArgs,
      absl::flags_internal::UsageFlagsAction::kIgnoreUsage,
      absl::flags_internal::OnUndefinedFlag::kAbortIfUndefined);
  if (absl::flags_internal::HandleUsageFlags(std::cout, absl::ProgramUsageMessage()) != -1) {
    std::cout.flush();
    std::exit(0);
  }
  return args;
}

// `PROGRAM help COMMAND`: prints the lines of `usage` that belong to COMMAND (from
// the line "  COMMAND ..." to the next line that starts another command) and the
// flags that command reads, with their defaults and help. `flags_by_command`
// maps every command to its flags; `common_flags` are added to each. NotFound
// (naming the commands) for a command not in the map.
inline absl::Status PrintCommandHelp(absl::string_view usage, const std::string& command,
                                     const std::map<std::string, std::vector<std::string>>& flags_by_command,
                                     const std::vector<std::string>& common_flags) {
  auto it = flags_by_command.find(command);
  if (it == flags_by_command.end()) {
    std::vector<std::string> names;
    for (const auto& [name, flags] : flags_by_command) names.push_back(name);
    return absl::NotFoundError(
        absl::StrCat("no command '", command, "' (commands: ", absl::StrJoin(names, ", "), ")"));
  }
  bool in = false;
  for (absl::string_view line : absl::StrSplit(usage, '\n')) {
    const bool starts_command = line.size() > 2 && line.substr(0, 2) == "  " && line[2] != ' ';
    if (starts_command)
      in = line.substr(2, command.size()) == command &&
           (line.size() == 2 + command.size() || line[2 + command.size()] == ' ');
    if (in) std::cout << line << "\n";
  }
  const auto all = absl::GetAllFlags();
  std::vector<std::string> flags = it->second;
  flags.insert(flags.end(), common_flags.begin(), common_flags.end());
  std::cout << "\nflags:\n";
  for (const std::string& name : flags) {
    auto f = all.find(name);
    if (f == all.end()) continue;
    std::cout << "  --" << name << " (default: " << f->second->DefaultValue() << ")\n      "
              << f->second->Help() << "\n";
  }
  return absl::OkStatus();
}

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_PROGRAM_USAGE_H_
