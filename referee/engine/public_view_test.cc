// PublicView (public_view.h): in every registered variant, over many randomly
// played hands, the public view never names a card that some seat does not
// see, never a card still hidden in a hand, in the unexposed talon or among
// hidden discards; the first public view of a hand names no card.

#include "referee/engine/public_view.h"

#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/registry.h"

namespace tarock {
namespace {

class PublicViewTest : public testing::TestWithParam<std::string> {};

TEST_P(PublicViewTest, NamesOnlyWhatEverySeatSees) {
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(GetParam(), {});
  ASSERT_TRUE(game.ok()) << game.status();
  const int n = (*game)->num_seats();
  int hidden_discards = 0;  // discards shown as "discard ?": the test is not vacuous
  int steps_checked = 0;
  for (int h = 0; h < 150; ++h) {
    const uint64_t seed = HandSeed(0x5EC7, h);
    Rng rng(seed ^ 0x77);
    HandSetup setup;
    setup.dealer = h % n;
    absl::StatusOr<std::unique_ptr<State>> st = (*game)->NewHand((*game)->DealCards(seed, setup.dealer), setup);
    ASSERT_TRUE(st.ok()) << st.status();
    State& state = **st;
    bool first = true;
    while (true) {
      const std::string where = absl::StrCat(GetParam(), " hand ", h, " action ", state.History().size());
      const Observation view = PublicView(state);
      const std::string json = PublicViewToJson(view, /*with_history=*/true);
      const CardSet named = CardsNamedIn(json);
      if (first) {
        EXPECT_TRUE(named.empty()) << where << ": the hand's first public view names " << json;
        first = false;
      }
      // Every card named is seen by every seat (checked on the text bots get).
      for (int s = 0; s < n; ++s) {
        const Observation obs = state.Observe(s);
        const CardSet leaked = named - CardsNamedIn(ObservationToJson(obs));
        ASSERT_TRUE(leaked.empty()) << where << ": public view names " << CardName(leaked.First())
                                    << " that seat " << s << " does not see\n" << json;
        // No card of a hand unless shown to all or from the exposed talon.
        CardSet open_talon;
        for (const std::string& t : view.talon)
          if (t != "?") open_talon.Add(*ParseCard(t));
        const CardSet shown = s < static_cast<int>(view.shown.size()) ? view.shown[s] : CardSet();
        // (The called king is named by the call; who holds it is not said.)
        CardSet called;
        if (!view.called_king.empty()) called.Add(*ParseCard(view.called_king));
        const CardSet in_hand = (named & obs.hand) - shown - open_talon - called;
        ASSERT_TRUE(in_hand.empty()) << where << ": public view names " << CardName(in_hand.First())
                                     << ", still in the hand of seat " << s << "\n" << json;
      }
      EXPECT_TRUE(view.hand.empty());
      EXPECT_TRUE(view.legal.empty());
      // Each action in the public history is the full action or its verb with "?".
      const std::vector<Action> actions = state.History();
      ASSERT_EQ(view.history.size(), actions.size()) << where;
      for (size_t i = 0; i < actions.size(); ++i) {
        const std::string full = (*game)->ActionToString(actions[i]);
        const std::string& shown = view.history[i].second;
        if (shown == full) continue;
        ASSERT_EQ(shown, absl::StrCat(full.substr(0, full.find(' ')), " ?")) << where;
        if (full.rfind("discard ", 0) == 0 && state.IsTerminal()) ++hidden_discards;
      }
      ++steps_checked;
      if (state.IsTerminal()) break;
      state.Apply(RandomLegalAction(state, rng));
    }
  }
  EXPECT_GT(steps_checked, 300);
  if (GetParam() == "slovenian-4p" || GetParam() == "slovenian-3p")
    EXPECT_GT(hidden_discards, 0) << "no hidden discard came up: the test checks nothing there";
}

std::vector<std::string> AllVariants() {
  std::vector<std::string> names;
  for (const VariantInfo& info : Registry::Global().List()) names.push_back(info.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Variants, PublicViewTest, testing::ValuesIn(AllVariants()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace tarock
