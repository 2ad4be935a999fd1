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

// Characters that show nothing (or reorder what is shown).
bool Invisible(uint32_t cp) {
  return cp == 0xad || cp == 0x34f || cp == 0x61c || cp == 0x115f || cp == 0x1160 ||
         cp == 0x17b4 || cp == 0x17b5 || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp == 0x3164 ||
         (cp >= 0xfe00 && cp <= 0xfe0f) || cp == 0xfeff || cp == 0xffa0 ||
         (cp >= 0xfff0 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe0fff) ||
         (cp >= 0x1d173 && cp <= 0x1d17a);
}

// A code point's look-alike in lower-case Latin (UTS #39 confusables, for
// Latin, Cyrillic and Greek), or 0 when it has none here.
uint32_t LatinLookAlike(uint32_t cp) {
  if (cp >= 0xff01 && cp <= 0xff5e) cp -= 0xfee0;  // fullwidth ASCII
  if (cp < 0x80) {
    if (cp == 'I' || cp == '1' || cp == '|') return 'l';
    if (cp == '0') return 'o';
    return absl::ascii_tolower(static_cast<unsigned char>(cp));
  }
  struct Pair {
    uint32_t from;
    char to;
  };
  static constexpr Pair kPairs[] = {
      // Cyrillic capitals and small letters.
      {0x410, 'a'}, {0x412, 'b'}, {0x415, 'e'}, {0x41a, 'k'}, {0x41c, 'm'}, {0x41d, 'h'},
      {0x41e, 'o'}, {0x420, 'p'}, {0x421, 'c'}, {0x422, 't'}, {0x423, 'y'}, {0x425, 'x'},
      {0x405, 's'}, {0x406, 'l'}, {0x408, 'j'}, {0x4ae, 'y'}, {0x4c0, 'l'}, {0x51a, 'q'},
      {0x51c, 'w'}, {0x430, 'a'}, {0x432, 'b'}, {0x435, 'e'}, {0x43a, 'k'}, {0x43c, 'm'},
      {0x43d, 'h'}, {0x43e, 'o'}, {0x440, 'p'}, {0x441, 'c'}, {0x442, 't'}, {0x443, 'y'},
      {0x445, 'x'}, {0x455, 's'}, {0x456, 'i'}, {0x458, 'j'}, {0x4bb, 'h'}, {0x4cf, 'l'},
      {0x501, 'd'}, {0x51b, 'q'}, {0x51d, 'w'}, {0x461, 'w'},
      // Greek capitals and small letters.
      {0x391, 'a'}, {0x392, 'b'}, {0x395, 'e'}, {0x396, 'z'}, {0x397, 'h'}, {0x399, 'l'},
      {0x39a, 'k'}, {0x39c, 'm'}, {0x39d, 'n'}, {0x39f, 'o'}, {0x3a1, 'p'}, {0x3a4, 't'},
      {0x3a5, 'y'}, {0x3a7, 'x'}, {0x3b1, 'a'}, {0x3b3, 'y'}, {0x3b9, 'i'}, {0x3ba, 'k'},
      {0x3bd, 'v'}, {0x3bf, 'o'}, {0x3c1, 'p'}, {0x3c4, 't'}, {0x3c5, 'u'}, {0x3c7, 'x'},
      {0x3f2, 'c'}, {0x3f3, 'j'}, {0x3f9, 'c'},
      // Latin look-alikes outside ASCII.
      {0x131, 'i'}, {0x237, 'j'}, {0x1d00, 'a'}, {0x1d04, 'c'}, {0x1d0f, 'o'}, {0x1d1c, 'u'},
      {0x1d20, 'v'}, {0x1d21, 'w'}, {0x1d22, 'z'}, {0x261, 'g'}, {0x269, 'i'}, {0x1e9d, 'f'},
  };
  for (const Pair& p : kPairs)
    if (p.from == cp) return static_cast<unsigned char>(p.to);
  return 0;
}

bool SpaceLike(uint32_t cp) {
  return cp == ' ' || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
         cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

}  // namespace

absl::Status CheckPersonName(absl::string_view what, absl::string_view name, size_t max_bytes) {
  if (absl::Status s = CheckText(what, name, max_bytes); !s.ok()) return s;
  for (size_t i = 0; i < name.size();) {
    uint32_t cp = 0;
    const size_t n = Utf8At(name, i, &cp);
    if (Invisible(cp))
      return absl::InvalidArgumentError(absl::StrCat(
          what, " must not hold invisible characters (zero-width or direction controls)"));
    i += n;
  }
  if (NameSkeleton(name).empty())
    return absl::InvalidArgumentError(absl::StrCat(what, " must show something"));
  return absl::OkStatus();
}

std::string NameSkeleton(absl::string_view name) {
  std::string out;
  bool space = false;
  for (size_t i = 0; i < name.size();) {
    uint32_t cp = 0;
    size_t n = Utf8At(name, i, &cp);
    if (n == 0) {  // not UTF-8: kept as it is (CheckText refuses it anyway)
      out += name[i++];
      continue;
    }
    const absl::string_view raw = name.substr(i, n);
    i += n;
    if (Invisible(cp)) continue;
    if (SpaceLike(cp)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    const uint32_t latin = LatinLookAlike(cp);
    if (latin == 'm') out += "rn";
    else if (latin != 0) out += static_cast<char>(latin);
    else absl::StrAppend(&out, raw);
  }
  return out;
}

bool SamePersonName(absl::string_view a, absl::string_view b) {
  return NameSkeleton(a) == NameSkeleton(b);
}

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
