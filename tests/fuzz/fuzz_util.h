// Helpers shared by the libFuzzer targets (tests/fuzz/README.md): reading
// fuzz input as small integers and text, and failing loudly on a broken
// invariant. Thread-safety: functions of their arguments only.

#ifndef TAROCK_TESTS_FUZZ_FUZZ_UTIL_H_
#define TAROCK_TESTS_FUZZ_FUZZ_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace tarock::fuzz {

// Consumes fuzz input front to back; reads past the end give zeros.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | Byte();
    return v;
  }
  bool empty() const { return pos_ >= size_; }
  // The rest of the input as text.
  std::string_view Rest() {
    std::string_view rest(reinterpret_cast<const char*>(data_) + pos_, size_ - pos_);
    pos_ = size_;
    return rest;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Lines of `text`, at most `max_lines` of them.
inline std::vector<std::string> Lines(std::string_view text, size_t max_lines) {
  std::vector<std::string> lines;
  while (!text.empty() && lines.size() < max_lines) {
    size_t end = text.find('\n');
    lines.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// A broken invariant: print it and abort, so libFuzzer saves the input.
[[noreturn]] inline void Fail(const std::string& what) {
  std::fprintf(stderr, "invariant broken: %s\n", what.c_str());
  std::abort();
}

}  // namespace tarock::fuzz

#endif  // TAROCK_TESTS_FUZZ_FUZZ_UTIL_H_
