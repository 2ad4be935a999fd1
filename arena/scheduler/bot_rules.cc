#include "arena/scheduler/bot_rules.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tarock::arena {
namespace {

bool NameCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// The length of the UTF-8 sequence at `s[i]` and its code point, or 0 for
// an invalid (or overlong, or surrogate) sequence.
size_t Utf8At(absl::string_view s, size_t i, uint32_t* code) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  uint32_t cp = 0, min = 0;
  if (c < 0x80) return *code = c, 1;
  if ((c & 0xe0) == 0xc0) n = 2, cp = c & 0x1f, min = 0x80;
  else if ((c & 0xf0) == 0xe0) n = 3, cp = c & 0x0f, min = 0x800;
  else if ((c & 0xf8) == 0xf0) n = 4, cp = c & 0x07, min = 0x10000;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (b(i + k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  *code = cp;
  return n;
}

bool Control(uint32_t cp) { return cp < 0x20 || (cp >= 0x7f && cp < 0xa0); }

}  // namespace

absl::Status CheckNewBotName(absl::string_view name) {
  if (name.empty() || name.size() > 64 || !std::all_of(name.begin(), name.end(), NameCharacter))
    return absl::InvalidArgumentError(
        "a bot name is 1-64 characters of letters, digits, '-', '_' and '.'");
  if (name == "." || name == "..")
    return absl::InvalidArgumentError("a bot name is not '.' or '..'");
  if (absl::EqualsIgnoreCase(name, "human"))
    return absl::InvalidArgumentError(
        absl::StrCat("the name '", name, "' is reserved for people's seats"));
  return absl::OkStatus();
}

bool SameBotName(absl::string_view a, absl::string_view b) { return absl::EqualsIgnoreCase(a, b); }

absl::Status CheckText(absl::string_view what, absl::string_view text, size_t max_bytes,
                       bool newlines) {
  if (text.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " must not be empty"));
  if (text.size() > max_bytes)
    return absl::InvalidArgumentError(absl::StrCat(what, " is at most ", max_bytes, " bytes"));
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t n = Utf8At(text, i, &cp);
    if (n == 0) return absl::InvalidArgumentError(absl::StrCat(what, " must be UTF-8 text"));
    if (Control(cp) && !(newlines && cp == '\n'))
      return absl::InvalidArgumentError(absl::StrCat(what, " must not hold control characters"));
    i += n;
  }
  return absl::OkStatus();
}

absl::Status CheckOwner(absl::string_view owner) {
  return CheckText("the owner", owner, kMaxOwnerBytes);
}

std::string ForTerminal(absl::string_view text, size_t max) {
  std::string out;
  const bool cut = text.size() > max;
  if (cut) text = text.substr(0, max);
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t n = Utf8At(text, i, &cp);
    if (n == 0 || Control(cp)) {
      for (size_t k = 0; k < std::max<size_t>(n, 1); ++k)
        absl::StrAppendFormat(&out, "\\x%02x", static_cast<unsigned char>(text[i + k]));
      i += std::max<size_t>(n, 1);
      continue;
    }
    if (cp == '\\') out += '\\';
    absl::StrAppend(&out, text.substr(i, n));
    i += n;
  }
  if (cut) out += "...";
  return out;
}

}  // namespace tarock::arena
