// Tests of the search bot (bots/search/search_bot.h): it plays every Slovenian
// variant legally in local matches (with the heuristic delegate and with its
// built-in rules), finds the right card in positions where one card is
// clearly right (a Mond not thrown under the Skis; end positions where one
// card is best against every consistent lay-out of the hidden cards), and
// keeps to its time limits.

#include "bots/search/search_bot.h"

#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "bots/heuristic/heuristic_bot.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/registry.h"
#include "referee/protocol/convert.h"
#include "referee/variants/austrian/austrian.h"
#include "referee/variants/czech/westfest.h"
#include "referee/variants/slovenian/slovenian.h"
#include "tarock/sdk/determinize.h"
#include "tarock/sdk/local_play.h"

namespace tarock::bots {
namespace {

using slovenian::SlovenianGame;
using slovenian::SlovenianState;

SearchOptions Fast(int iterations) {
  SearchOptions o;
  o.iterations = iterations;
  o.seed = 7;
  return o;
}

// The decision of `bot` for the seat to act in `state`, as a referee would ask it.
struct Asked {
  sdk::MatchInfo match;
  v1::DecisionRequest request;
};
Asked Ask(std::shared_ptr<const Game> game, const State& state, int64_t time_left_ms = 0) {
  Asked a;
  a.match.variant = game->info().name;
  a.match.options = game->options();
  a.match.seat = state.CurrentSeat();
  a.match.num_seats = game->num_seats();
  a.match.num_hands = game->num_seats();
  a.match.game = game;
  a.request = MakeDecisionRequest(state.Observe(state.CurrentSeat()), 1, 0, 0);
  a.request.set_time_left_ms(time_left_ms);
  return a;
}

std::shared_ptr<const Game> MakeGame(const std::string& variant) {
  absl::StatusOr<std::unique_ptr<Game>> g = Registry::Global().Create(variant);
  EXPECT_TRUE(g.ok()) << g.status();
  return std::shared_ptr<const Game>(std::move(*g));
}

class SearchVariantTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SearchVariantTest, PlaysLegallyWithTheHeuristicDelegateAndWithItsOwnRules) {
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(GetParam());
  ASSERT_TRUE(game.ok());
  const int n = (*game)->num_seats();
  std::vector<std::unique_ptr<sdk::Bot>> bots;
  for (int s = 0; s < n; ++s) {
    if (s % 3 == 0) {
      bots.push_back(MakeSearchBot(Fast(6), 11 + s));
    } else if (s % 3 == 1) {
      bots.push_back(std::make_unique<SearchBot>(Fast(6)));  // built-in rules outside the play
    } else {
      bots.push_back(std::make_unique<HeuristicBot>());
    }
  }
  absl::StatusOr<sdk::LocalMatchResult> r = sdk::PlayLocalMatch(GetParam(), {}, std::move(bots), 2 * n, 5);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->decisions, 0);
  EXPECT_EQ(static_cast<int>(r->hand_scores.size()), 2 * n);
}

// Exact value of `state` for `me`, relative utility (own score minus the
// others' mean), its side maximising: an independent check of the bot's search.
double Exact(const State& state, int me, int num_active, int dealer) {
  if (state.IsTerminal()) {
    const HandResult r = state.Result();
    double others = 0;
    int n = 0;
    for (int s = 0; s < static_cast<int>(r.scores.size()); ++s) {
      if (s == me || (num_active < static_cast<int>(r.scores.size()) && s == dealer)) continue;
      others += r.scores[s];
      ++n;
    }
    return r.scores[me] - others / n;
  }
  const auto& st = static_cast<const SlovenianState&>(state);
  const int to_act = st.CurrentSeat();
  auto side = [&](int s) { return s == st.declarer() || s == st.partner(); };
  const bool maximize = to_act == me || side(to_act) == side(me);
  ActionList legal;
  st.LegalActions(&legal);
  double best = maximize ? -1e18 : 1e18;
  for (Action a : legal) {
    std::unique_ptr<State> child = st.Clone();
    child->Apply(a);
    const double v = Exact(*child, me, num_active, dealer);
    best = maximize ? std::max(best, v) : std::min(best, v);
  }
  return best;
}

// End positions from random play (two cards left, a contract with sides):
// where one card is at least as good as every other against every sampled
// lay-out of the hidden cards, and clearly better on average, the bot plays it.
TEST_P(SearchVariantTest, FindsTheDominantCardAtTheEnd) {
  std::shared_ptr<const Game> game = MakeGame(GetParam());
  const auto& sg = static_cast<const SlovenianGame&>(*game);
  const int n = game->num_seats();
  const int num_active = sg.rules().num_active;
  Rng rng(123);
  int found = 0, agreed = 0, agreed_by_playouts = 0;
  for (int h = 0; h < 3000 && found < 6; ++h) {
    HandSetup setup;
    setup.dealer = h % n;
    absl::StatusOr<std::unique_ptr<State>> st = game->NewHand(game->DealCards(HandSeed(41, h), setup.dealer), setup);
    ASSERT_TRUE(st.ok());
    auto& s = static_cast<SlovenianState&>(**st);
    while (!s.IsTerminal() &&
           !(s.phase() == slovenian::Phase::kPlay && s.hand(s.CurrentSeat()).size() == 2)) {
      // Mostly Three, so that hands last to the end; every third hand random.
      if (h % 3 != 0 && (s.phase() == slovenian::Phase::kBidding || s.phase() == slovenian::Phase::kDeclare ||
                         s.phase() == slovenian::Phase::kAnnounce)) {
        if (s.ApplyText("bid three").ok() || s.ApplyText("pass").ok()) continue;
      }
      s.Apply(RandomLegalAction(s, rng));
    }
    if (s.IsTerminal() || s.contract() == slovenian::kKlop) continue;
    ActionList legal;
    s.LegalActions(&legal);
    if (legal.size < 2) continue;
    const int me = s.CurrentSeat();
    absl::StatusOr<sdk::Determinizer> det = sdk::Determinizer::Create(*game, s.Observe(me), false);
    ASSERT_TRUE(det.ok()) << det.status();
    std::vector<double> mean(legal.size, 0.0);
    std::vector<bool> dominant(legal.size, true);
    std::vector<int> strictly(legal.size, 0);  // worlds where it beats every other card
    const int worlds = 100;
    for (int w = 0; w < worlds; ++w) {
      absl::StatusOr<std::unique_ptr<State>> world = det->Sample(rng);
      ASSERT_TRUE(world.ok());
      std::vector<double> v(legal.size);
      for (int k = 0; k < legal.size; ++k) {
        std::unique_ptr<State> child = (*world)->Clone();
        child->Apply(legal.items[k]);
        v[k] = Exact(*child, me, num_active, setup.dealer);
        mean[k] += v[k] / worlds;
      }
      for (int k = 0; k < legal.size; ++k) {
        bool strict = true;
        for (int j = 0; j < legal.size; ++j) {
          if (v[j] > v[k] + 1e-9) dominant[k] = false;
          if (j != k && v[j] >= v[k] - 1e-9) strict = false;
        }
        strictly[k] += strict;
      }
    }
    int d = -1;
    for (int k = 0; k < legal.size; ++k) {
      if (!dominant[k]) continue;
      // Clearly better: in a fifth of the lay-outs or more, by 5 points on average.
      bool clear = strictly[k] >= worlds / 5;
      for (int j = 0; j < legal.size; ++j)
        if (j != k && mean[k] < mean[j] + 5.0) clear = false;
      if (clear) d = k;
    }
    if (d < 0) continue;
    ++found;
    SearchBot bot(Fast(100));
    Asked asked = Ask(game, s);
    const std::string want = game->ActionToString(legal.items[d]);
    const std::string got = bot.Decide(sdk::Situation(asked.match, asked.request));
    EXPECT_EQ(got, want) << GetParam() << " hand " << h << ": " << ObservationToJson(s.Observe(me));
    if (got == want) ++agreed;
    // For information: the same with playouts only, no exact solving.
    SearchOptions no_exact = Fast(100);
    no_exact.exact_cards = 0;
    SearchBot playouts(no_exact);
    if (playouts.Decide(sdk::Situation(asked.match, asked.request)) == want) ++agreed_by_playouts;
  }
  std::printf("%s: %d end positions with a dominant card, search played it in %d (%d with playouts only)\n",
              GetParam().c_str(), found, agreed, agreed_by_playouts);
  EXPECT_GE(found, 3);
}

TEST_P(SearchVariantTest, KeepsToTheTimeLimits) {
  std::shared_ptr<const Game> game = MakeGame(GetParam());
  absl::StatusOr<std::unique_ptr<State>> st = game->NewHand(game->DealCards(HandSeed(2, 0), 0), HandSetup());
  ASSERT_TRUE(st.ok());
  Rng rng(3);
  while (!(*st)->IsTerminal() && (*st)->PhaseName() != "play") (*st)->Apply(RandomLegalAction(**st, rng));
  ASSERT_FALSE((*st)->IsTerminal());
  // Unlimited iterations: only the clock stops it.
  SearchOptions o = Fast(0);
  o.budget_ms = 30;
  SearchBot by_budget(o);
  Asked a = Ask(game, **st);
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<SearchResult> r = by_budget.Search(sdk::Situation(a.match, a.request));
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->determinizations, 1);
  EXPECT_LT(ms, 30 + 100) << "budget 30 ms";
  // The referee's limit caps a larger budget of our own.
  o.budget_ms = 5000;
  SearchBot by_referee(o);
  Asked b = Ask(game, **st, /*time_left_ms=*/150);
  start = std::chrono::steady_clock::now();
  r = by_referee.Search(sdk::Situation(b.match, b.request));
  ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok());
  EXPECT_LT(ms, 150) << "time_left_ms 150";
}

INSTANTIATE_TEST_SUITE_P(Variants, SearchVariantTest,
                         ::testing::Values("slovenian-4p", "slovenian-3p", "slovenian-5p", "slovenian-tapp"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// A hand of slovenian-3p set up by hand: seat 1 plays Two, leads the Skis;
// seat 0, last to play, holds the Mond and low tarocks. The Mond under the
// Skis costs 20 (Mondfang) and its 5 points: the bot plays a low tarock.
TEST(SearchBotTest, DoesNotThrowTheMondUnderTheSkis) {
  std::shared_ptr<const Game> game = MakeGame("slovenian-3p");
  auto cards = [](std::vector<std::string> names) {
    CardSet out;
    for (const std::string& n : names) out.Add(*ParseCard(n));
    return out;
  };
  Deal deal;
  deal.hands = {
      cards({"T21", "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11", "SN", "SJ", "S10", "S9"}),
      cards({"T22", "T20", "T19", "T18", "T17", "T16", "HK", "HQ", "HN", "HJ", "H1", "H2", "DK", "DQ", "DN", "DJ"}),
      cards({"T15", "T14", "T13", "T12", "H3", "H4", "D1", "D2", "CK", "CQ", "CN", "CJ", "C10", "C9", "SK", "SQ"}),
  };
  for (const char* n : {"D4", "D3", "S7", "S8", "C7", "C8"}) deal.talon.push_back(*ParseCard(n));
  HandSetup setup;
  setup.dealer = 0;
  absl::StatusOr<std::unique_ptr<State>> st = game->NewHand(deal, setup);
  ASSERT_TRUE(st.ok()) << st.status();
  for (const char* a : {"bid two", "pass", "pass", "talon 0", "discard D4", "discard D3", "pass", "pass", "pass",
                        "play T22", "play T12"}) {
    ASSERT_TRUE((*st)->ApplyText(a).ok()) << a;
  }
  ASSERT_EQ((*st)->CurrentSeat(), 0);
  SearchBot bot(Fast(100));
  Asked asked = Ask(game, **st);
  const std::string got = bot.Decide(sdk::Situation(asked.match, asked.request));
  EXPECT_NE(got, "play T21");
  EXPECT_NE(got, "play T1");
  EXPECT_TRUE(got.rfind("play T", 0) == 0) << got;
}

TEST(SearchBotTest, ParsesOptions) {
  absl::StatusOr<SearchOptions> o = ParseSearchOptions("iterations=17,budget_ms=9,epsilon=0.25,utility=own");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->iterations, 17);
  EXPECT_EQ(o->budget_ms, 9);
  EXPECT_DOUBLE_EQ(o->epsilon, 0.25);
  EXPECT_EQ(o->utility, SearchOptions::Utility::kOwn);
  EXPECT_FALSE(ParseSearchOptions("iterations=-1").ok());
  EXPECT_FALSE(ParseSearchOptions("speed=9").ok());
}

// ---------------------------------------------------------------------------
// tapp-tarock, tapp-tarock-classic and westfest: the play is searched on the
// bot's own replay sampler (search_bot.cc), the rest goes to the delegate.

class SearchOtherVariantTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SearchOtherVariantTest, PlaysHundredsOfHandsLegally) {
  const std::string variant = GetParam();
  const int n = MakeGame(variant)->num_seats();
  std::vector<std::unique_ptr<sdk::Bot>> bots;
  for (int s = 0; s < n; ++s) {
    if (s % 3 == 0) {
      bots.push_back(MakeSearchBot(Fast(3), 11 + s));
    } else if (s % 3 == 1) {
      bots.push_back(std::make_unique<SearchBot>(Fast(3)));  // built-in rules outside the play
    } else {
      bots.push_back(std::make_unique<HeuristicBot>());
    }
  }
  const int hands = 100 * n;
  absl::StatusOr<sdk::LocalMatchResult> r = sdk::PlayLocalMatch(variant, {}, std::move(bots), hands, 17);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(static_cast<int>(r->hand_scores.size()), hands);
}

// Every play decision of heuristic self-play is searched: the sampler finds
// deals on which the whole history replays (discards, draws, announcements).
TEST_P(SearchOtherVariantTest, SearchesEveryPlayDecision) {
  std::shared_ptr<const Game> game = MakeGame(GetParam());
  const int n = game->num_seats();
  SearchBot bot(Fast(8));
  HeuristicBot heuristic;
  int searched = 0;
  for (int h = 0; h < 6; ++h) {
    HandSetup setup;
    setup.dealer = h % n;
    absl::StatusOr<std::unique_ptr<State>> st = game->NewHand(game->DealCards(HandSeed(23, h), setup.dealer), setup);
    ASSERT_TRUE(st.ok());
    while (!(*st)->IsTerminal()) {
      Asked a = Ask(game, **st);
      const sdk::Situation sit(a.match, a.request);
      if (sit.phase() == "play" && sit.legal().size() > 1) {
        absl::StatusOr<SearchResult> r = bot.Search(sit);
        ASSERT_TRUE(r.ok()) << r.status() << " " << ObservationToJson((*st)->Observe((*st)->CurrentSeat()));
        EXPECT_EQ(r->determinizations, 8);
        ++searched;
      }
      ASSERT_TRUE((*st)->ApplyText(heuristic.Decide(sit)).ok());
    }
  }
  EXPECT_GT(searched, 20);
}

TEST_P(SearchOtherVariantTest, KeepsToTheTimeLimits) {
  std::shared_ptr<const Game> game = MakeGame(GetParam());
  HeuristicBot heuristic;
  // The first deal the heuristic bots play (002 throws in an all-pass deal).
  absl::StatusOr<std::unique_ptr<State>> st;
  for (uint64_t seed = 2; seed < 40; ++seed) {
    st = game->NewHand(game->DealCards(HandSeed(seed, 0), 0), HandSetup());
    ASSERT_TRUE(st.ok());
    while (!(*st)->IsTerminal() && (*st)->PhaseName() != "play") {
      Asked a = Ask(game, **st);
      ASSERT_TRUE((*st)->ApplyText(heuristic.Decide(sdk::Situation(a.match, a.request))).ok());
    }
    if (!(*st)->IsTerminal()) break;
  }
  ASSERT_FALSE((*st)->IsTerminal());
  SearchOptions o = Fast(0);
  o.budget_ms = 30;
  SearchBot by_budget(o);
  Asked a = Ask(game, **st);
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<SearchResult> r = by_budget.Search(sdk::Situation(a.match, a.request));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->determinizations, 1);
  EXPECT_LT(ms, 30 + 100) << "budget 30 ms";
}

// With two cards left, leading, the Pagat and one other card, and no other
// tarock out: the other card first, so that the Pagat wins the last trick
// (001: Pagat Ultimo, 10 from each other player; 004: 2 for the holder's
// side; 002: the declarer's, 4 from each defender). Leading the Pagat now
// wins this trick instead and gains nothing.
TEST_P(SearchOtherVariantTest, KeepsThePagatForTheLastTrick) {
  const std::string variant = GetParam();
  std::shared_ptr<const Game> game = MakeGame(variant);
  const int n = game->num_seats();
  Rng rng(321);
  int found = 0;
  for (int h = 0; h < 4000 && found < 3; ++h) {
    HandSetup setup;
    setup.dealer = h % n;
    absl::StatusOr<std::unique_ptr<State>> st = game->NewHand(game->DealCards(HandSeed(43, h), setup.dealer), setup);
    ASSERT_TRUE(st.ok());
    State& s = **st;
    bool bid = false;
    while (!s.IsTerminal()) {
      const std::string phase = s.PhaseName();
      if (phase == "play" && s.Observe(s.CurrentSeat()).hand.size() == 2) break;
      // Someone plays Three (tapp-tarock, classic); westfest plays on after a
      // drawn partner card; everything else at random.
      if (phase == "bidding" && !bid && s.ApplyText("bid three").ok()) {
        bid = true;
        continue;
      }
      if ((phase == "bidding" || phase == "throw-in") && s.ApplyText("pass").ok()) continue;
      s.Apply(RandomLegalAction(s, rng));
    }
    if (s.IsTerminal()) continue;
    const int me = s.CurrentSeat();
    const Observation obs = s.Observe(me);
    if (!obs.trick.empty() || !obs.hand.Contains(kPagat)) continue;
    if (variant == "tapp-tarock-classic" && me != obs.declarer) continue;
    bool tarock_out = false;
    for (int p = 0; p < n; ++p) {
      if (p == me) continue;
      const CardSet other = variant == "westfest" ? static_cast<const czech::WestfestState&>(s).hand(p)
                                                  : static_cast<const austrian::AustrianState&>(s).hand(p);
      tarock_out |= !(other & kTarockSet).empty();
    }
    if (tarock_out) continue;
    if (variant == "tapp-tarock" && obs.contract == "bridscher") continue;
    bool valat = false;  // 004: no Pagat on a called valat
    for (const auto& [seat, action] : obs.history) valat |= action == "announce valat";
    if (valat) continue;
    ++found;
    SearchBot bot(Fast(60));
    Asked asked = Ask(game, s);
    const std::string got = bot.Decide(sdk::Situation(asked.match, asked.request));
    EXPECT_NE(got, "play T1") << variant << " hand " << h << ": " << ObservationToJson(obs);
  }
  std::printf("%s: %d positions with the Pagat and one other card\n", variant.c_str(), found);
  EXPECT_GE(found, 1) << variant;
}

INSTANTIATE_TEST_SUITE_P(Other, SearchOtherVariantTest,
                         ::testing::Values("tapp-tarock", "tapp-tarock-classic", "westfest"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace tarock::bots
