#include "referee/engine/card.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace tarock {
namespace {

constexpr std::array<const char*, 8> kRedRankNames = {"4", "3", "2", "1", "J", "N", "Q", "K"};
constexpr std::array<const char*, 8> kBlackRankNames = {"7", "8", "9", "10", "J", "N", "Q", "K"};
constexpr char kSuitLetters[] = {'H', 'D', 'C', 'S'};

bool IsRed(Suit s) { return s == kHearts || s == kDiamonds; }

}  // namespace

int CardValue(Card c) {
  if (IsTarock(c)) return (c == kPagat || c == kMond || c == kSkis) ? 5 : 1;
  switch (RankOf(c)) {
    case kKingRank: return 5;
    case kQueenRank: return 4;
    case kKnightRank: return 3;
    case kJackRank: return 2;
    default: return 1;
  }
}

int SetThirds(CardSet s) {
  int sum = 0;
  for (Card c : s) sum += CardThirds(c);
  return sum;
}

std::string CardName(Card c) {
  if (c >= kNumCards) return "?";
  if (IsTarock(c)) return absl::StrCat("T", c + 1);
  Suit s = SuitOf(c);
  const auto& names = IsRed(s) ? kRedRankNames : kBlackRankNames;
  return absl::StrCat(std::string(1, kSuitLetters[s]), names[RankOf(c)]);
}

absl::StatusOr<Card> ParseCard(absl::string_view text) {
  auto bad = [&] { return absl::InvalidArgumentError(absl::StrCat("unknown card '", text, "'")); };
  if (text.size() < 2 || text.size() > 3) return bad();
  if (text[0] == 'T') {
    int n = 0;
    for (char ch : text.substr(1)) {
      if (ch < '0' || ch > '9') return bad();
      n = n * 10 + (ch - '0');
    }
    if (text[1] == '0' || n < 1 || n > 22) return bad();
    return Tarock(n);
  }
  for (int s = 0; s < 4; ++s) {
    if (text[0] != kSuitLetters[s]) continue;
    const auto& names = IsRed(static_cast<Suit>(s)) ? kRedRankNames : kBlackRankNames;
    for (int r = 0; r < 8; ++r) {
      if (text.substr(1) == names[r]) return SuitCard(static_cast<Suit>(s), r);
    }
  }
  return bad();
}

CardSet CardsNamedIn(absl::string_view text) {
  auto alnum = [](char ch) { return absl::ascii_isalnum(static_cast<unsigned char>(ch)); };
  CardSet out;
  size_t i = 0;
  while (i < text.size()) {
    if (!alnum(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && alnum(text[j])) ++j;
    absl::StatusOr<Card> c = ParseCard(text.substr(i, j - i));
    if (c.ok()) out.Add(*c);
    i = j;
  }
  return out;
}

std::string SuitName(Suit s) { return s == kTarocks ? "T" : std::string(1, kSuitLetters[s]); }

absl::StatusOr<Suit> ParseSuit(absl::string_view text) {
  for (int s = 0; s < 4; ++s) {
    if (text.size() == 1 && text[0] == kSuitLetters[s]) return static_cast<Suit>(s);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown suit '", text, "' (want H, D, C or S)"));
}

RankTable RankTable::Make(bool red_pips_numeric) {
  RankTable t{};
  for (int c = 0; c < kNumCards; ++c) {
    Card card = static_cast<Card>(c);
    int r = RankOf(card);
    if (red_pips_numeric && !IsTarock(card) && IsRed(SuitOf(card)) && r < 4) r = 3 - r;
    t.strength[c] = static_cast<uint8_t>(r);
  }
  return t;
}

}  // namespace tarock
