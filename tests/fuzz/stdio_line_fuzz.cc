// Fuzz target: the stdio bridge's reading of a line a bot program wrote
// (stdio::ActionFromLine). Invariants: the action is at most max_bytes long
// and printable ASCII, so it always travels as a well-formed message.

#include <cstddef>
#include <cstdint>
#include <string>

#include "sdk/stdio/stdio_bot.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tarock::fuzz::Input in(data, size);
  size_t max_bytes = 1 + in.Byte() * 16;
  std::string line(in.Rest());
  std::string action = tarock::stdio::ActionFromLine(line, max_bytes);
  if (action.size() > max_bytes) tarock::fuzz::Fail("action longer than the limit");
  for (char c : action) {
    if (c < 0x20 || c > 0x7e) tarock::fuzz::Fail("action with a byte that is not printable ASCII");
  }
  return 0;
}
