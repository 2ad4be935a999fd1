// The rules for what a bot registration may name and print: bot names
// (reserved names, names unique without regard to case), owner fields
// (length, printable characters only), and how text from older rows that
// broke those rules is shown on a terminal. No gRPC, no store.
//
// Thread-safety: pure functions; thread-safe.

#ifndef TAROCK_ARENA_SCHEDULER_BOT_RULES_H_
#define TAROCK_ARENA_SCHEDULER_BOT_RULES_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tarock::arena {

inline constexpr size_t kMaxOwnerBytes = 200;

// A new bot's name: 1-64 of [A-Za-z0-9._-] (ValidBotName), not "." or "..",
// not "human" in any case (people's seats). INVALID_ARGUMENT saying which.
absl::Status CheckNewBotName(absl::string_view name);

// Whether two bot names are the same name (case does not count: "RND1" is
// "rnd1").
bool SameBotName(absl::string_view a, absl::string_view b);

// Text a person gives (an event's name, an entrant's name): 1-max_bytes
// bytes of UTF-8 without control characters (newlines allowed when
// `newlines`). INVALID_ARGUMENT naming `what` ("the name").
absl::Status CheckText(absl::string_view what, absl::string_view text, size_t max_bytes,
                       bool newlines = false);

// A person's name in an event (an entrant's): CheckText, and no invisible
// characters (zero-width spaces and joiners, bidi controls and marks, the
// soft hyphen, word joiners, BOM, Hangul fillers, tag characters, variation
// selectors): "Bea" with a zero-width space is refused, not a new name.
absl::Status CheckPersonName(absl::string_view what, absl::string_view name, size_t max_bytes);

// The skeleton two people's names are compared by (after UTS #39's
// confusables, for Latin, Cyrillic and Greek look-alikes): Cyrillic and
// Greek letters that look like Latin ones become those, fullwidth ASCII
// becomes ASCII, case is folded ("I", "1" and "|" become "l", "0" becomes
// "o", "m" becomes "rn"), and runs of spaces become one, none at the ends.
// "Вea" (a Cyrillic В) and "BEA " have the skeleton of "Bea".
std::string NameSkeleton(absl::string_view name);
// Whether two people's names are the same name: their skeletons are equal.
bool SamePersonName(absl::string_view a, absl::string_view b);

// An owner field: 1-200 bytes of UTF-8 without control characters (C0, DEL,
// C1) or invalid sequences. INVALID_ARGUMENT saying which.
absl::Status CheckOwner(absl::string_view owner);

// `text` safe to print on a terminal: control characters, DEL, C1 and bytes
// of invalid UTF-8 as \xNN escapes (a backslash as \\), longer than `max`
// bytes cut with "...". For rows stored before the rules above.
std::string ForTerminal(absl::string_view text, size_t max = 200);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_BOT_RULES_H_
