// A hosted bot's upload: what the arena accepts as a version and how a host
// lays it out (docs/hosting.md). Parsing only: nothing here ever runs what was
// uploaded (the arena validates with it; tarock-bothost unpacks with it and
// builds and runs in the sandbox).
//
// An upload is one file or a .zip. Kinds:
//  - python: one .py file, or a zip with the bot's modules; the entry point
//    is named in the manifest or is the first of bot.py, main.py, my_bot.py;
//    run as `python3 -m tarock_bot stdio ENTRY` on the installed Python SDK.
//  - cpp: one .cc/.cpp file, or a zip of sources (every .cc/.cpp at its top
//    level is compiled), built against the installed C++ SDK by the host.
//  - stdio: a script for python3, node, awk or sh (by its extension, its
//    #! line or the manifest's "interpreter"), or a static x86-64 Linux
//    executable; speaks the stdio bridge's JSON lines (sdk/stdio/README.md).
// The manifest is `tarock.json` at the top of a zip:
//   {"kind": "python|cpp|stdio", "entry": "PATH", "interpreter": "awk"}
//
// Refused, each with one line that says why: an empty upload, one larger than
// the limit, a zip with absolute or `..` paths, links, devices, too many files
// or too many bytes unpacked, no entry point, text that is not UTF-8 where
// text is expected (sources, scripts, the manifest), an executable for another
// architecture or a dynamically linked one.
//
// Thread-safety: free functions on values; thread-safe.

#ifndef TAROCK_ARENA_BOTHOST_PACKAGE_H_
#define TAROCK_ARENA_BOTHOST_PACKAGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tarock::bothost {

struct PackageLimits {
  int64_t max_upload_bytes = int64_t{32} << 20;    // 32 MiB as uploaded
  int64_t max_unpacked_bytes = int64_t{64} << 20;  // 64 MiB unpacked (twice the upload)
  int max_files = 256;
};

struct Package {
  std::string kind;         // "python", "cpp" or "stdio"
  std::string entry;        // path of the entry point inside the package
  std::string interpreter;  // stdio: "python3", "node", "awk", "sh" or "" (an executable)
  std::map<std::string, std::string> files;  // relative path -> content
  std::string sha256;       // hex SHA-256 of the upload as sent
  int64_t size = 0;         // bytes as sent
};

// Parses and checks an upload. `filename` is the name it was sent under (its
// extension decides for a single file); `kind` ("" = by convention) and
// `entry` ("" = manifest or convention) override. Errors: INVALID_ARGUMENT
// with one line for the author.
absl::StatusOr<Package> ParsePackage(const std::string& filename, const std::string& content,
                                     const std::string& kind = "", const std::string& entry = "",
                                     const PackageLimits& limits = {});

// The program's argv inside the sandbox for a package unpacked at `root`
// (e.g. "/bot"): for cpp, the built binary at `root`/.build/bot.
std::vector<std::string> PackageCommand(const Package& package, const std::string& root);

// Writes the package's files under `dir` (created, mode 0755 dirs, 0644 files,
// 0755 for a stdio executable). Refuses paths that would leave `dir`.
absl::Status UnpackPackage(const Package& package, const std::string& dir);

// What `tarock-arena-cli bots upload` sends for PATH: a file as it is, a
// folder as a zip of its regular files (links and special files refused).
// Returns (file name, content).
absl::StatusOr<std::pair<std::string, std::string>> PackUpload(const std::string& path);

// Is `text` valid UTF-8?
bool IsUtf8(const std::string& text);

}  // namespace tarock::bothost

#endif  // TAROCK_ARENA_BOTHOST_PACKAGE_H_
