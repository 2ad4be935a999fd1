// Fuzz target: the arena's record splitter (TopLevelArrayElements), checked
// against a real JSON parser (nlohmann::json) on the same text.
// Invariants: every element is a view inside the input; when the parser reads
// the input as an object whose "deals" is an array, the splitter finds the
// same number of elements and each parses to the same value.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "arena/scheduler/record_split.h"
#include "nlohmann/json.hpp"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  auto elements = tarock::arena::TopLevelArrayElements(json, "deals");
  if (elements) {
    for (std::string_view e : *elements) {
      if (e.data() < json.data() || e.data() + e.size() > json.data() + json.size())
        tarock::fuzz::Fail("element outside the input");
    }
  }
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) return 0;
  // Only plain records: the splitter compares keys as written and takes the
  // first "deals"; JSON with escaped or repeated keys is outside its contract.
  if (json.find('\\') != std::string_view::npos) return 0;
  auto it = parsed.find("deals");
  if (it == parsed.end() || !it->is_array()) return 0;
  size_t occurrences = 0;
  for (size_t pos = json.find("\"deals\""); pos != std::string_view::npos;
       pos = json.find("\"deals\"", pos + 1))
    ++occurrences;
  if (occurrences != 1) return 0;
  if (!elements) tarock::fuzz::Fail("splitter missed the deals of a valid record");
  if (elements->size() != it->size()) tarock::fuzz::Fail("splitter found another number of deals");
  for (size_t i = 0; i < elements->size(); ++i) {
    nlohmann::json element =
        nlohmann::json::parse((*elements)[i], nullptr, /*allow_exceptions=*/false);
    if (element != (*it)[i]) tarock::fuzz::Fail("splitter's element differs from the parser's");
  }
  return 0;
}
