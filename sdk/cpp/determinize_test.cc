// Tests of the determinizer (sdk/cpp/determinize.h) over random play in every
// Slovenian variant: at every decision of thousands of random hands, samples of
// the acting seat's (and another seat's) observation must reproduce that
// observation exactly (history, own hand, legal actions, talon, everything),
// must never put a card where the seat knows it is not, and the real deal must
// always be among the allowed ones (the inference from the play is sound).
//
// The Austrian variants and westfest (ReplayDeterminizeTest below): the same
// over random hands from the announcements on, with the consistency checked
// piece by piece as well (hand sizes, voids, the talon, announced cards).
// Every variant the registry lists is covered (EveryVariantIsCovered).
//
// TAROCK_DETERMINIZE_HANDS overrides the number of hands per variant.

#include "tarock/sdk/determinize.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/record.h"
#include "referee/engine/registry.h"
#include "referee/protocol/convert.h"
#include "referee/variants/austrian/austrian.h"
#include "referee/variants/czech/westfest.h"
#include "referee/variants/slovenian/slovenian.h"

namespace tarock::sdk {
namespace {

using slovenian::SlovenianGame;
using slovenian::SlovenianState;

int HandsPerVariant() {
  const char* env = std::getenv("TAROCK_DETERMINIZE_HANDS");
  return env != nullptr ? std::atoi(env) : 400;
}

struct Tally {
  int64_t positions = 0;
  int64_t samples = 0;
  int64_t first_try = 0;  // samples accepted at their first attempt
  int64_t failures = 0;
  int64_t announcements = 0;  // announcements whose cards were checked in a sample
};

// Cards of `seat` the observer cannot know, as the test computes them itself:
// the seat's voids from the tricks (no led-suit card after not following; no
// tarock after neither following nor trumping).
CardSet VoidsShown(const Observation& obs, const Game& game, int seat, int num_active) {
  CardSet voids;
  int in_trick = 0;
  Card first = kNoCard;
  for (const auto& [s, text] : obs.history) {
    absl::StatusOr<Action> a = game.ParseAction(text);
    if (!a.ok() || VerbOf(*a) != Verb::kPlay) continue;
    const Card c = static_cast<Card>(ArgOf(*a));
    if (in_trick == 0) {
      first = c;
    } else if (s == seat && SuitOf(c) != SuitOf(first)) {
      voids |= SuitSet(SuitOf(first));
      if (!IsTarock(c)) voids |= kTarockSet;
    }
    in_trick = (in_trick + 1) % num_active;
  }
  return voids;
}

void CheckPosition(const SlovenianGame& game, const SlovenianState& real, int seat, Rng& rng,
                   bool give_forced_klop, Tally* tally, const std::string& where) {
  const Observation obs = real.Observe(seat);
  std::optional<bool> forced;
  if (give_forced_klop) forced = real.Setup().forced_klop;
  absl::StatusOr<Determinizer> d = Determinizer::Create(game, obs, forced);
  ASSERT_TRUE(d.ok()) << where << ": " << d.status() << "\n" << ObservationToJson(obs);
  ++tally->positions;
  const int n = game.num_seats();
  const Deal real_deal = real.GetDeal();
  // Soundness: the real hidden state is one the determinizer allows.
  for (int s = 0; s < n; ++s) {
    if (s == seat) continue;
    const CardSet bad = real.hand(s) & d->Excluded(s);
    ASSERT_TRUE(bad.empty()) << where << ": seat " << seat << " rules out " << CardName(bad.First())
                             << " for seat " << s << ", which holds it\n" << ObservationToJson(obs);
  }
  // What the observing seat knows for certain.
  CardSet visible_talon;
  for (const std::string& t : obs.talon)
    if (t != "?") visible_talon.Add(*ParseCard(t));
  CardSet played;
  for (const auto& [s, text] : obs.history) {
    absl::StatusOr<Action> a = game.ParseAction(text);
    if (a.ok() && VerbOf(*a) == Verb::kPlay) played.Add(static_cast<Card>(ArgOf(*a)));
  }
  const std::string want = ObservationToJson(obs);
  for (int k = 0; k < 2; ++k) {
    // One attempt at a time, to measure how often the first one succeeds.
    absl::StatusOr<SlovenianState> first = d->SampleState(rng, 1);
    absl::StatusOr<SlovenianState> sample = first.ok() ? first : d->SampleState(rng);
    ++tally->samples;
    if (first.ok()) ++tally->first_try;
    if (!sample.ok()) {
      ++tally->failures;
      ADD_FAILURE() << where << ": " << sample.status() << "\n" << want;
      return;
    }
    const std::string got = ObservationToJson(sample->Observe(seat));
    ASSERT_EQ(got, want) << where << ": the sample looks different to seat " << seat;
    ASSERT_EQ(sample->hand(seat), real.hand(seat)) << where;
    const Deal deal = sample->GetDeal();
    for (int i = 0; i < 6; ++i)
      if (obs.talon[i] != "?") {
        ASSERT_EQ(deal.talon[i], real_deal.talon[i]) << where;
      }
    ASSERT_EQ(deal.hands[seat], real_deal.hands[seat]) << where;
    for (int s = 0; s < n; ++s) {
      if (s == seat) continue;
      // Never a card the seat knows elsewhere: its own, played ones, the
      // visible talon outside the declarer's taken group, others' shown cards.
      CardSet elsewhere = obs.hand | played;
      if (s != real.declarer()) elsewhere |= visible_talon;
      for (int o = 0; o < n; ++o)
        if (o != s) elsewhere |= obs.shown[o];
      const CardSet wrong = sample->hand(s) & elsewhere;
      ASSERT_TRUE(wrong.empty()) << where << ": the sample gives seat " << s << " "
                                 << CardName(wrong.First()) << "\n" << want;
      const int active = n == 5 ? 4 : n;
      const CardSet void_wrong = sample->hand(s) & VoidsShown(obs, game, s, active);
      ASSERT_TRUE(void_wrong.empty()) << where << ": seat " << s << " showed a void, the sample gives it "
                                      << CardName(void_wrong.First()) << "\n" << want;
      if (!obs.shown[s].empty()) {
        ASSERT_EQ(sample->hand(s), real.hand(s)) << where;
      }
    }
  }
}

// A parameter is a variant, optionally followed by ":NAME=VALUE" (an option).
absl::StatusOr<std::unique_ptr<Game>> CreateFromParam(const std::string& param) {
  Options options;
  const size_t colon = param.find(':');
  if (colon != std::string::npos) {
    const std::string kv = param.substr(colon + 1);
    options[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  }
  return Registry::Global().Create(param.substr(0, colon), options);
}

class DeterminizeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DeterminizeTest, SamplesMatchTheObservationInRandomPlay) {
  absl::StatusOr<std::unique_ptr<Game>> g = CreateFromParam(GetParam());
  ASSERT_TRUE(g.ok()) << g.status();
  const auto& game = static_cast<const SlovenianGame&>(**g);
  const int n = game.num_seats();
  Rng rng(0xD5EED + n);
  Tally tally;
  const int hands = HandsPerVariant();
  for (int h = 0; h < hands; ++h) {
    HandSetup setup;
    setup.dealer = h % n;
    setup.forced_klop = h % 10 == 9;
    if (h % 3 == 1) {
      for (int s = 0; s < n; ++s) setup.radli.push_back(static_cast<int>(rng.Below(3)));
    }
    const Deal deal = game.DealCards(HandSeed(77, h), setup.dealer);
    absl::StatusOr<SlovenianState> st = game.NewSlovenianHand(deal, setup);
    ASSERT_TRUE(st.ok()) << st.status();
    int step = 0;
    while (!st->IsTerminal()) {
      const std::string where = absl::StrCat(GetParam(), " hand ", h, " step ", step);
      const int seat = st->CurrentSeat();
      CheckPosition(game, *st, seat, rng, step % 2 == 0, &tally, where);
      if (HasFatalFailure()) return;
      const int other = static_cast<int>(rng.Below(n));
      CheckPosition(game, *st, other, rng, true, &tally, where + " (other seat)");
      if (HasFatalFailure()) return;
      st->Apply(RandomLegalAction(*st, rng));
      ++step;
    }
    // The finished hand too.
    CheckPosition(game, *st, static_cast<int>(rng.Below(n)), rng, true, &tally, "done");
    if (HasFatalFailure()) return;
  }
  std::printf("%s: %lld positions, %lld samples, %.1f%% at the first attempt, %lld failures\n",
              GetParam().c_str(), static_cast<long long>(tally.positions),
              static_cast<long long>(tally.samples), 100.0 * tally.first_try / tally.samples,
              static_cast<long long>(tally.failures));
  EXPECT_EQ(tally.failures, 0);
  // Rejection is the exception: nearly every sample must work at once.
  EXPECT_GT(static_cast<double>(tally.first_try) / tally.samples, 0.9);
}

// The decision request a bot receives works the same as the engine observation.
TEST_P(DeterminizeTest, WorksFromTheDecisionRequest) {
  absl::StatusOr<std::unique_ptr<Game>> g = CreateFromParam(GetParam());
  ASSERT_TRUE(g.ok()) << g.status();
  const auto& game = static_cast<const SlovenianGame&>(**g);
  Rng rng(5);
  for (int h = 0; h < 20; ++h) {
    absl::StatusOr<std::unique_ptr<State>> st = game.NewHand(game.DealCards(HandSeed(3, h), 0), HandSetup());
    ASSERT_TRUE(st.ok());
    while (!(*st)->IsTerminal()) {
      const Observation obs = (*st)->Observe((*st)->CurrentSeat());
      const v1::DecisionRequest request = MakeDecisionRequest(obs, 1, h, 0);
      absl::StatusOr<Determinizer> d = Determinizer::Create(game, request, false);
      ASSERT_TRUE(d.ok()) << d.status();
      absl::StatusOr<std::unique_ptr<State>> sample = d->Sample(rng);
      ASSERT_TRUE(sample.ok()) << sample.status();
      EXPECT_EQ(ObservationToJson((*sample)->Observe(obs.seat)), ObservationToJson(obs));
      (*st)->Apply(RandomLegalAction(**st, rng));
    }
  }
}

// Sampling is fast: a few microseconds each (generous bounds: a shared machine).
TEST_P(DeterminizeTest, SamplingIsFast) {
  absl::StatusOr<std::unique_ptr<Game>> g = CreateFromParam(GetParam());
  ASSERT_TRUE(g.ok());
  const auto& game = static_cast<const SlovenianGame&>(**g);
  Rng rng(11);
  std::vector<Determinizer> positions;
  HandSetup setup;
  setup.dealer = 1;
  for (int h = 0; positions.size() < 200; ++h) {
    absl::StatusOr<SlovenianState> st = game.NewSlovenianHand(game.DealCards(HandSeed(9, h), 1), setup);
    ASSERT_TRUE(st.ok());
    // A position in the middle of the play.
    int plays = 0;
    while (!st->IsTerminal() && plays < 3 * game.num_seats()) {
      if (st->phase() == slovenian::Phase::kPlay) ++plays;
      st->Apply(RandomLegalAction(*st, rng));
    }
    if (st->IsTerminal()) continue;
    absl::StatusOr<Determinizer> d = Determinizer::Create(game, st->Observe(st->CurrentSeat()), false);
    ASSERT_TRUE(d.ok());
    positions.push_back(*std::move(d));
  }
  const auto start = std::chrono::steady_clock::now();
  int64_t samples = 0;
  for (int round = 0; round < 50; ++round) {
    for (const Determinizer& d : positions) {
      absl::StatusOr<SlovenianState> s = d.SampleState(rng);
      ASSERT_TRUE(s.ok());
      ++samples;
    }
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %.2f us per sample\n", GetParam().c_str(), us / samples);
  EXPECT_LT(us / samples, 100.0);
}

INSTANTIATE_TEST_SUITE_P(Variants, DeterminizeTest,
                         // 003's defaults (issue 11: the partner may kontra the game)
                         // and the real-play readings (side against side).
                         ::testing::Values("slovenian-4p", "slovenian-3p", "slovenian-5p", "slovenian-tapp",
                                           "slovenian-4p:house=real-play", "slovenian-5p:house=real-play"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-' || c == ':' || c == '=') c = '_';
                           return name;
                         });


// ---------------------------------------------------------------------------
// The Austrian variants and westfest.

class ReplayDeterminizeTest : public ::testing::TestWithParam<std::string> {};

// A sample of the family of `game` with the typed call the search bot uses
// (`attempts` attempts), as a State.
absl::StatusOr<std::unique_ptr<State>> TypedSample(const Game& game, const Determinizer& d, Rng& rng,
                                                   int attempts) {
  if (dynamic_cast<const austrian::AustrianGame*>(&game) != nullptr) {
    absl::StatusOr<austrian::AustrianState> st = d.SampleAustrianState(rng, attempts);
    if (!st.ok()) return st.status();
    return std::unique_ptr<State>(std::make_unique<austrian::AustrianState>(*std::move(st)));
  }
  absl::StatusOr<czech::WestfestState> st = d.SampleWestfestState(rng, attempts);
  if (!st.ok()) return st.status();
  return std::unique_ptr<State>(std::make_unique<czech::WestfestState>(*std::move(st)));
}

// What announcements show of a seat's cards at the start of the play (its
// hand and its plays), as the rule documents state it (001/002: Pagat Ultimo;
// 004: the hand bonuses): fails when `holding` of `seat` contradicts `text`.
void CheckAnnouncement(const std::string& text, int seat, CardSet holding, const std::string& where) {
  const int tarocks = (holding & kTarockSet).size();
  if (text == "announce pagat-ultimo" || text == "announce pagat") {
    EXPECT_TRUE(holding.Contains(kPagat)) << where << ": seat " << seat << " announced " << text;
  } else if (text == "announce tarocky") {
    EXPECT_GE(tarocks, 8) << where;
  } else if (text == "announce taroky") {
    EXPECT_GE(tarocks, 10) << where;
  } else if (text == "announce bida") {
    EXPECT_TRUE(tarocks >= 1 && tarocks <= 2) << where << ": bida with " << tarocks << " tarocks";
  } else if (text == "announce trul" || text == "announce trul-honery") {
    EXPECT_EQ(holding & kTrulaSet, kTrulaSet) << where << ": " << text;
  } else if (text == "announce kralovske-honery" || text == "announce kralovske-honery-plus") {
    EXPECT_EQ(holding & kKingSet, kKingSet) << where << ": " << text;
  }
}

// The hand of `seat` now (State has no such accessor: it is the variant's).
CardSet HandOf(const State& st, int seat) {
  if (const auto* a = dynamic_cast<const austrian::AustrianState*>(&st)) return a->hand(seat);
  return dynamic_cast<const czech::WestfestState&>(st).hand(seat);
}

void CheckReplayPosition(const Game& game, const State& real, int seat, Rng& rng, bool from_request,
                         Tally* tally, const std::string& where) {
  const Observation obs = real.Observe(seat);
  absl::StatusOr<Determinizer> d =
      from_request ? Determinizer::Create(game, MakeDecisionRequest(obs, 1, 0, 0))
                   : Determinizer::Create(game, obs);
  ASSERT_TRUE(d.ok()) << where << ": " << d.status() << "\n" << ObservationToJson(obs);
  ++tally->positions;
  const int n = game.num_seats();
  EXPECT_EQ(d->seat(), seat);
  EXPECT_EQ(d->setup().dealer, obs.dealer);
  // Soundness: the real hidden state is one the determinizer allows.
  for (int s = 0; s < n; ++s) {
    if (s == seat) continue;
    const CardSet bad = HandOf(real, s) & d->Excluded(s);
    ASSERT_TRUE(bad.empty()) << where << ": seat " << seat << " rules out " << CardName(bad.First())
                             << " for seat " << s << ", which holds it\n" << ObservationToJson(obs);
  }
  // What the observing seat knows for certain, computed here from the history.
  std::vector<CardSet> played(n);
  CardSet all_played, named_discards;
  for (const auto& [s, text] : obs.history) {
    absl::StatusOr<Action> a = game.ParseAction(text);
    if (!a.ok()) continue;
    if (VerbOf(*a) == Verb::kPlay) {
      played[s].Add(static_cast<Card>(ArgOf(*a)));
      all_played.Add(static_cast<Card>(ArgOf(*a)));
    } else if (VerbOf(*a) == Verb::kDiscard) {
      named_discards.Add(static_cast<Card>(ArgOf(*a)));
    }
  }
  const std::string want = ObservationToJson(obs);
  for (int k = 0; k < 2; ++k) {
    absl::StatusOr<std::unique_ptr<State>> first = TypedSample(game, *d, rng, 1);
    absl::StatusOr<std::unique_ptr<State>> sample = first.ok() ? std::move(first) : TypedSample(game, *d, rng, 2000);
    ++tally->samples;
    if (first.ok()) ++tally->first_try;
    if (!sample.ok()) {
      ++tally->failures;
      ADD_FAILURE() << where << ": " << sample.status() << "\n" << want;
      return;
    }
    const State& st = **sample;
    // The whole observation: history (own discards named, others' hidden
    // ones as "discard ?"), own hand, the talon as far as seen, contract,
    // called tarock, the trick, legal actions.
    ASSERT_EQ(ObservationToJson(st.Observe(seat)), want) << where << ": the sample looks different to seat "
                                                         << seat;
    // The same piece by piece, so that a failure says what broke.
    ASSERT_EQ(HandOf(st, seat), HandOf(real, seat)) << where;
    for (int s = 0; s < n; ++s) {
      ASSERT_EQ(HandOf(st, s).size(), HandOf(real, s).size()) << where << ": hand size of seat " << s;
      if (s == seat) continue;
      const CardSet elsewhere = obs.hand | all_played | named_discards;
      const CardSet wrong = HandOf(st, s) & elsewhere;
      ASSERT_TRUE(wrong.empty()) << where << ": the sample gives seat " << s << " " << CardName(wrong.First())
                                 << ", which seat " << seat << " saw elsewhere\n" << want;
      const CardSet void_wrong = HandOf(st, s) & VoidsShown(obs, game, s, n);
      ASSERT_TRUE(void_wrong.empty()) << where << ": seat " << s << " showed a void, the sample gives it "
                                      << CardName(void_wrong.First()) << "\n" << want;
      ASSERT_TRUE((HandOf(st, s) & d->Excluded(s)).empty()) << where;
    }
    const Deal deal = st.GetDeal();
    for (size_t i = 0; i < obs.talon.size(); ++i)
      if (obs.talon[i] != "?") {
        ASSERT_EQ(CardName(deal.talon[i]), obs.talon[i]) << where << ": talon card " << i;
      }
    for (const auto& [s, text] : obs.history)
      if (absl::StartsWith(text, "announce ")) {
        CheckAnnouncement(text, s, HandOf(st, s) | played[s], where);
        ++tally->announcements;
      }
  }
  // SampleDeal() and Sample() give the same kind of sample: the deal and the
  // filled-in history replay to the observed point.
  absl::StatusOr<Determinizer::Sampled> sd = d->SampleDeal(rng);
  ASSERT_TRUE(sd.ok()) << where << ": " << sd.status();
  absl::StatusOr<std::unique_ptr<State>> replayed = game.NewHand(sd->deal, d->setup());
  ASSERT_TRUE(replayed.ok()) << where << ": " << replayed.status();
  for (Action a : sd->actions) ASSERT_TRUE((*replayed)->ApplyChecked(a).ok()) << where;
  ASSERT_EQ(ObservationToJson((*replayed)->Observe(seat)), want) << where;
  absl::StatusOr<std::unique_ptr<State>> generic = d->Sample(rng);
  ASSERT_TRUE(generic.ok()) << where << ": " << generic.status();
  ASSERT_EQ(ObservationToJson((*generic)->Observe(seat)), want) << where;
}

TEST_P(ReplayDeterminizeTest, SamplesMatchTheObservationInRandomPlay) {
  absl::StatusOr<std::unique_ptr<Game>> g = CreateFromParam(GetParam());
  ASSERT_TRUE(g.ok()) << g.status();
  const Game& game = **g;
  const int n = game.num_seats();
  Rng rng(0xA5EED + n);
  Tally tally;
  const int hands = std::max(1, HandsPerVariant() / 4);
  int hands_searched = 0;
  for (int h = 0; h < hands; ++h) {
    HandSetup setup;
    setup.dealer = h % n;
    absl::StatusOr<std::unique_ptr<State>> st = game.NewHand(game.DealCards(HandSeed(78, h), setup.dealer), setup);
    ASSERT_TRUE(st.ok()) << st.status();
    State& real = **st;
    int step = 0;
    bool searched = false;
    while (!real.IsTerminal()) {
      const std::string phase = real.PhaseName();
      const std::string where = absl::StrCat(GetParam(), " hand ", h, " step ", step, " (", phase, ")");
      if (phase == "announce" || phase == "play") {
        searched = true;
        CheckReplayPosition(game, real, real.CurrentSeat(), rng, step % 3 == 0, &tally, where);
        if (HasFatalFailure()) return;
        const int other = static_cast<int>(rng.Below(n));
        CheckReplayPosition(game, real, other, rng, false, &tally, where + " (other seat)");
        if (HasFatalFailure()) return;
      } else {
        // Before the talon exchange is over the determinizer declines.
        absl::StatusOr<Determinizer> d = Determinizer::Create(game, real.Observe(real.CurrentSeat()));
        ASSERT_EQ(d.status().code(), absl::StatusCode::kUnimplemented) << where << ": " << d.status();
      }
      real.Apply(RandomLegalAction(real, rng));
      ++step;
    }
    hands_searched += searched;
  }
  std::printf("%s: %d hands (%d played out), %lld positions, %lld samples, %.1f%% at the first attempt, "
              "%lld failures, %lld announcements checked\n",
              GetParam().c_str(), hands, hands_searched, static_cast<long long>(tally.positions),
              static_cast<long long>(tally.samples), 100.0 * tally.first_try / std::max<int64_t>(1, tally.samples),
              static_cast<long long>(tally.failures), static_cast<long long>(tally.announcements));
  EXPECT_GT(hands_searched, hands / 2);
  EXPECT_GT(tally.announcements, 0);
  EXPECT_EQ(tally.failures, 0);
  // Rejection stays the exception.
  EXPECT_GT(static_cast<double>(tally.first_try) / tally.samples, 0.5);
}

// Asking a determinizer of one family for another family's state is an error,
// not a crash.
TEST_P(ReplayDeterminizeTest, OtherFamiliesStatesAreRefused) {
  absl::StatusOr<std::unique_ptr<Game>> g = CreateFromParam(GetParam());
  ASSERT_TRUE(g.ok()) << g.status();
  Rng rng(8);
  for (int h = 0; h < 20; ++h) {
    absl::StatusOr<std::unique_ptr<State>> st = (*g)->NewHand((*g)->DealCards(HandSeed(4, h), 0), HandSetup());
    ASSERT_TRUE(st.ok());
    while (!(*st)->IsTerminal() && (*st)->PhaseName() != "play") (*st)->Apply(RandomLegalAction(**st, rng));
    if ((*st)->IsTerminal()) continue;
    absl::StatusOr<Determinizer> d = Determinizer::Create(**g, (*st)->Observe((*st)->CurrentSeat()));
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->SampleState(rng).status().code(), absl::StatusCode::kFailedPrecondition);
    const bool austrian = dynamic_cast<const austrian::AustrianGame*>(g->get()) != nullptr;
    EXPECT_EQ(d->SampleAustrianState(rng).ok(), austrian);
    EXPECT_EQ(d->SampleWestfestState(rng).ok(), !austrian);
    return;
  }
  FAIL() << "no hand reached the play";
}

INSTANTIATE_TEST_SUITE_P(Variants, ReplayDeterminizeTest,
                         ::testing::Values("tapp-tarock", "tapp-tarock-classic", "westfest",
                                           "tapp-tarock:house=traditional", "westfest:throw_in=xix-to-xv",
                                           "westfest:red_pip_order=traditional"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-' || c == ':' || c == '=') c = '_';
                           return name;
                         });

// Every variant the registry lists has a determinizer: at the first play
// decision of a few random hands, Create() succeeds and Sample() reproduces
// the observation.
TEST(DeterminizeAllVariantsTest, EveryVariantIsCovered) {
  int variants = 0;
  for (const VariantInfo& info : Registry::Global().List()) {
    absl::StatusOr<std::unique_ptr<Game>> g = Registry::Global().Create(info.name, Options());
    ASSERT_TRUE(g.ok()) << info.name << ": " << g.status();
    Rng rng(21);
    int played = 0;
    for (int h = 0; h < 40 && played < 5; ++h) {
      absl::StatusOr<std::unique_ptr<State>> st = (*g)->NewHand((*g)->DealCards(HandSeed(5, h), 0), HandSetup());
      ASSERT_TRUE(st.ok());
      while (!(*st)->IsTerminal() && (*st)->PhaseName() != "play") (*st)->Apply(RandomLegalAction(**st, rng));
      if ((*st)->IsTerminal()) continue;
      ++played;
      const Observation obs = (*st)->Observe((*st)->CurrentSeat());
      absl::StatusOr<Determinizer> d = Determinizer::Create(**g, obs);
      ASSERT_TRUE(d.ok()) << info.name << ": " << d.status();
      absl::StatusOr<std::unique_ptr<State>> sample = d->Sample(rng);
      ASSERT_TRUE(sample.ok()) << info.name << ": " << sample.status();
      EXPECT_EQ(ObservationToJson((*sample)->Observe(obs.seat)), ObservationToJson(obs)) << info.name;
    }
    EXPECT_GT(played, 0) << info.name << ": no hand reached the play";
    std::printf("%s: %d hands sampled in the play\n", info.name.c_str(), played);
    ++variants;
  }
  EXPECT_GE(variants, 7);
}

}  // namespace
}  // namespace tarock::sdk
