// Rosters for `events register --roster FILE` (docs/events.md, "Sign-up"):
// a class list as spreadsheets save it. RFC 4180 CSV (fields in double
// quotes may hold commas, doubled quotes and line breaks), a UTF-8
// byte-order mark (Excel's "CSV UTF-8") dropped, CRLF, CR or LF line ends,
// and the names' column found by its header.
//
// Thread-safety: pure functions.

#ifndef TAROCK_ARENA_CLI_ROSTER_CSV_H_
#define TAROCK_ARENA_CLI_ROSTER_CSV_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tarock::arena {

// The rows of a CSV text, each a list of fields (unquoted). INVALID_ARGUMENT
// for a quote left open at the end.
absl::StatusOr<std::vector<std::vector<std::string>>> ParseCsv(absl::string_view text);

// The names of a roster. `column`: the header of the names' column (matched
// without regard to case or surrounding spaces); then the first row is the
// header and INVALID_ARGUMENT names the headers found when none matches.
// Empty: the first row is a header when one of its fields is "name" (any
// case; that column is read), else there is no header and the first column
// is read. Names are trimmed of spaces; empty ones are skipped.
absl::StatusOr<std::vector<std::string>> RosterNames(absl::string_view text,
                                                    const std::string& column = "");

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_CLI_ROSTER_CSV_H_
