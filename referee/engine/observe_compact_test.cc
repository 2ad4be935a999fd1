// State::ObserveCompact (game.h), the hot path of learning code: in every
// registered variant, with every value of every option, at every decision of
// many random hands, for every seat, it says exactly what Observe(seat) says:
// every field the same, `history` and `legal` left empty, and
// `history_actions` the history entry by entry (the seat, and the action whose
// text is Observe's, kUnseenDiscard exactly where Observe shows "discard ?").
// One Observation is reused throughout (across seats, hands and variants), so
// nothing of an earlier call survives a later one. Since the compact history
// renders to Observe's text one to one, it tells the seat nothing Observe does
// not (Observe itself is checked for leaks by property_test and
// public_view_test).

#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/registry.h"

namespace tarock {
namespace {

// The option sets to try for a variant: the defaults, then each value of each
// option that is not its default (the others at their defaults).
std::vector<Options> OptionVariants(const VariantInfo& info) {
  std::vector<Options> out = {{}};
  for (const OptionSpec& spec : info.options)
    for (const std::string& value : spec.choices)
      if (value != spec.default_value) out.push_back({{spec.name, value}});
  return out;
}

std::string Rendered(const Game& game, Action a) {
  return a == kUnseenDiscard ? std::string("discard ?") : game.ActionToString(a);
}

TEST(ObserveCompactTest, SaysWhatObserveSaysInEveryVariantAndOption) {
  Observation compact;  // reused by every call
  int unseen = 0, checked = 0;
  for (const VariantInfo& info : Registry::Global().List()) {
    for (const Options& options : OptionVariants(info)) {
      absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(info.name, options);
      ASSERT_TRUE(game.ok()) << game.status();
      const int n = (*game)->num_seats();
      const int hands = options.empty() ? 40 : 6;
      for (int h = 0; h < hands; ++h) {
        const uint64_t seed = HandSeed(0xC0A1, h);
        Rng rng(seed ^ 0x3);
        HandSetup setup;
        setup.dealer = h % n;
        const Deal deal = (*game)->DealCards(seed, setup.dealer);
        // Radli where the variant has them (the observation carries them).
        HandSetup with_radli = setup;
        for (int s = 0; s < n; ++s) with_radli.radli.push_back(static_cast<int>(rng.Below(3)));
        absl::StatusOr<std::unique_ptr<State>> st = (*game)->NewHand(deal, with_radli);
        if (!st.ok()) st = (*game)->NewHand(deal, setup);
        ASSERT_TRUE(st.ok()) << st.status();
        State& state = **st;
        while (true) {
          for (int seat = 0; seat < n; ++seat) {
            const std::string where = absl::StrCat(info.name, " hand ", h, " action ",
                                                   state.History().size(), " seat ", seat);
            const Observation want = state.Observe(seat);
            ASSERT_TRUE(want.history_actions.empty()) << where;
            ASSERT_TRUE(state.ObserveCompact(seat, &compact)) << where;
            EXPECT_TRUE(compact.history.empty()) << where;
            EXPECT_TRUE(compact.legal.empty()) << where;
            EXPECT_EQ(compact.variant, want.variant) << where;
            EXPECT_EQ(compact.seat, want.seat) << where;
            EXPECT_EQ(compact.num_seats, want.num_seats) << where;
            EXPECT_EQ(compact.dealer, want.dealer) << where;
            EXPECT_EQ(compact.phase, want.phase) << where;
            EXPECT_EQ(compact.to_act, want.to_act) << where;
            EXPECT_EQ(compact.hand, want.hand) << where;
            EXPECT_EQ(compact.talon, want.talon) << where;
            EXPECT_EQ(compact.shown, want.shown) << where;
            EXPECT_EQ(compact.declarer, want.declarer) << where;
            EXPECT_EQ(compact.contract, want.contract) << where;
            EXPECT_EQ(compact.called_king, want.called_king) << where;
            EXPECT_EQ(compact.partner, want.partner) << where;
            EXPECT_EQ(compact.trick_leader, want.trick_leader) << where;
            EXPECT_EQ(compact.trick, want.trick) << where;
            EXPECT_EQ(compact.tricks_won, want.tricks_won) << where;
            EXPECT_EQ(compact.radli, want.radli) << where;
            ASSERT_EQ(compact.history_actions.size(), want.history.size()) << where;
            for (size_t i = 0; i < want.history.size(); ++i) {
              EXPECT_EQ(compact.history_actions[i].first, want.history[i].first) << where;
              ASSERT_EQ(Rendered(**game, compact.history_actions[i].second),
                        want.history[i].second)
                  << where << " entry " << i;
              if (compact.history_actions[i].second == kUnseenDiscard) ++unseen;
            }
            ++checked;
          }
          if (state.IsTerminal()) break;
          state.Apply(RandomLegalAction(state, rng));
        }
      }
    }
  }
  std::cout << checked << " observations compared, " << unseen << " unseen discards\n";
  EXPECT_GT(checked, 10000);
  EXPECT_GT(unseen, 100) << "no unseen discard came up: the test checks nothing there";
}

TEST(ObserveCompactTest, ClearObservationLeavesTheDefaults) {
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create("slovenian-4p", {});
  ASSERT_TRUE(game.ok());
  HandSetup setup;
  auto st = (*game)->NewHand((*game)->DealCards(7, 0), setup);
  ASSERT_TRUE(st.ok());
  Rng rng(1);
  for (int i = 0; i < 30; ++i) (*st)->Apply(RandomLegalAction(**st, rng));
  Observation o = (*st)->Observe((*st)->CurrentSeat());
  ASSERT_TRUE((*st)->ObserveCompact(0, &o));  // both histories filled once
  o.history.emplace_back(1, "pass");
  o.legal.push_back("pass");
  ClearObservation(&o);
  const Observation fresh;
  EXPECT_EQ(ObservationToJson(o), ObservationToJson(fresh));
  EXPECT_TRUE(o.history.empty());
  EXPECT_TRUE(o.history_actions.empty());
  EXPECT_TRUE(o.legal.empty());
}

}  // namespace
}  // namespace tarock
