#include "arena/scheduler/record_split.h"

namespace tarock::arena {
namespace {

// A cursor over JSON text. Every Skip* returns false on malformed input.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : t_(text) {}

  size_t pos() const { return i_; }
  bool AtEnd() const { return i_ >= t_.size(); }
  char Peek() const { return AtEnd() ? '\0' : t_[i_]; }

  void SkipSpace() {
    while (!AtEnd() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++i_;
    return true;
  }
  // A string starting at the cursor; `raw` gets its text between the quotes.
  bool SkipString(std::string_view* raw = nullptr) {
    if (Peek() != '"') return false;
    const size_t start = ++i_;
    while (!AtEnd()) {
      const char c = t_[i_++];
      if (c == '\\') {
        if (AtEnd()) return false;
        ++i_;  // the escaped character; \uXXXX's digits are plain characters
      } else if (c == '"') {
        if (raw != nullptr) *raw = t_.substr(start, i_ - 1 - start);
        return true;
      }
    }
    return false;
  }
  // One value of any kind starting at the cursor (after SkipSpace).
  bool SkipValue() {
    SkipSpace();
    const char c = Peek();
    if (c == '"') return SkipString();
    if (c == '{' || c == '[') {
      int depth = 0;
      while (!AtEnd()) {
        const char d = t_[i_];
        if (d == '"') {
          if (!SkipString()) return false;
          continue;
        }
        ++i_;
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') {
          if (--depth == 0) return true;
        }
      }
      return false;
    }
    // A number, true, false or null: up to the next delimiter.
    const size_t start = i_;
    while (!AtEnd() && t_[i_] != ',' && t_[i_] != '}' && t_[i_] != ']' && t_[i_] != ' ' &&
           t_[i_] != '\n' && t_[i_] != '\t' && t_[i_] != '\r')
      ++i_;
    return i_ > start;
  }

 private:
  std::string_view t_;
  size_t i_ = 0;
};

}  // namespace

std::optional<std::vector<std::string_view>> TopLevelArrayElements(std::string_view json,
                                                                   std::string_view key) {
  Scanner s(json);
  if (!s.Consume('{')) return std::nullopt;
  s.SkipSpace();
  if (s.Peek() == '}') return std::nullopt;
  for (;;) {
    s.SkipSpace();
    std::string_view name;
    if (!s.SkipString(&name) || !s.Consume(':')) return std::nullopt;
    s.SkipSpace();
    if (name == key) {
      if (!s.Consume('[')) return std::nullopt;
      std::vector<std::string_view> out;
      s.SkipSpace();
      if (s.Peek() == ']') return out;
      for (;;) {
        s.SkipSpace();
        const size_t start = s.pos();
        if (!s.SkipValue()) return std::nullopt;
        out.push_back(json.substr(start, s.pos() - start));
        if (s.Consume(']')) return out;
        if (!s.Consume(',')) return std::nullopt;
      }
    }
    if (!s.SkipValue()) return std::nullopt;
    if (s.Consume('}')) return std::nullopt;  // the object ended without the key
    if (!s.Consume(',')) return std::nullopt;
  }
}

}  // namespace tarock::arena
