// Helpers shared by the variants' rule tests (slovenian_test, austrian_test,
// westfest_test): cards from their names, action scripts in text form, the
// legal actions and the history as text. Test-only: uses GoogleTest.

#ifndef TAROCK_REFEREE_VARIANTS_VARIANT_TEST_UTIL_H_
#define TAROCK_REFEREE_VARIANTS_VARIANT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "referee/engine/card.h"
#include "referee/engine/game.h"

namespace tarock::variant_test {

// The card named `name` ("XXI", "HK", ...); a test failure if there is none.
inline Card C(absl::string_view name) {
  absl::StatusOr<Card> c = ParseCard(name);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : kNoCard;
}

// Cards from space-separated names, in order.
inline std::vector<Card> CardList(absl::string_view text) {
  std::vector<Card> out;
  for (absl::string_view name : absl::StrSplit(text, ' ', absl::SkipEmpty())) out.push_back(C(name));
  return out;
}

// A set from space-separated names; a test failure if a card is named twice.
inline CardSet Cards(absl::string_view text) {
  CardSet out;
  for (Card c : CardList(text)) {
    EXPECT_FALSE(out.Contains(c)) << CardName(c) << " twice in '" << text << "'";
    out.Add(c);
  }
  return out;
}

// The actions taken so far, in text, joined by ", ".
inline std::string HistoryText(const State& s) {
  std::vector<std::string> out;
  for (Action a : s.History()) out.push_back(s.game().ActionToString(a));
  return absl::StrJoin(out, ", ");
}

// Applies a comma-separated script of actions in text form.
inline ::testing::AssertionResult Do(State& s, absl::string_view script) {
  int i = 0;
  for (absl::string_view a : absl::StrSplit(script, ',', absl::SkipWhitespace())) {
    a = absl::StripAsciiWhitespace(a);
    absl::Status st = s.ApplyText(a);
    if (!st.ok())
      return ::testing::AssertionFailure() << "script action " << i << " '" << a << "': " << st
                                           << "\nhistory: " << HistoryText(s);
    ++i;
  }
  return ::testing::AssertionSuccess();
}

// The legal actions of the seat to act, in text, joined by ", ".
inline std::string Legal(const State& s) {
  ActionList legal;
  s.LegalActions(&legal);
  std::vector<std::string> out;
  for (Action a : legal) out.push_back(s.game().ActionToString(a));
  return absl::StrJoin(out, ", ");
}

}  // namespace tarock::variant_test

#endif  // TAROCK_REFEREE_VARIANTS_VARIANT_TEST_UTIL_H_
