// Splitting a match record into its hand records without re-serialising it.
//
// The arena stores every match record whole and each of its deals as a hand
// record. Parsing the record into a DOM and dumping each deal again cost more
// CPU than everything else the arena does per match, and changed the bytes
// (number formatting); this scanner finds the deals in the record's own text,
// so each hand record is the exact text of the referee's record.
//
// Thread-safety: pure functions.

#ifndef TAROCK_ARENA_SCHEDULER_RECORD_SPLIT_H_
#define TAROCK_ARENA_SCHEDULER_RECORD_SPLIT_H_

#include <optional>
#include <string_view>
#include <vector>

namespace tarock::arena {

// The raw text of each element of the array under the top-level `key` of the
// JSON object `json` (views into `json`), in order. nullopt when `json` is not
// an object with such an array or is malformed on the way there. Keys are
// compared as written (the record's keys have no escapes).
std::optional<std::vector<std::string_view>> TopLevelArrayElements(std::string_view json,
                                                                   std::string_view key);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_RECORD_SPLIT_H_
