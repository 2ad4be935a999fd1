// Fuzz target: the record parser and `tarock replay` (ParseRecords,
// ReplayRecord, ReplayReportJson), on arbitrary text.
// Invariants: nothing crashes; a record that parses prints (HandRecordToJson)
// to text that parses again to the same variant, deal seed and actions.

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "referee/engine/record.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto records = tarock::ParseRecords(text);
  if (!records.ok()) return 0;
  int replayed = 0;
  for (const tarock::HandRecord& record : *records) {
    if (++replayed > 4) break;  // bounded work per input
    std::string printed = tarock::HandRecordToJson(record);
    auto again = tarock::ParseHandRecord(printed);
    if (!again.ok()) tarock::fuzz::Fail("printed record does not parse: " + printed);
    if (again->variant != record.variant || again->actions != record.actions ||
        again->seed != record.seed || again->options != record.options)
      tarock::fuzz::Fail("printed record parses to another record: " + printed);
    auto replay = tarock::ReplayRecord(record);
    if (!replay.ok()) continue;
    std::string report = tarock::ReplayReportJson(*replay->game, *replay->state);
    if (report.empty()) tarock::fuzz::Fail("empty replay report");
  }
  return 0;
}
