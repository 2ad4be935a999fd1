// Rule-by-rule unit tests of the Slovenian family (slovenian-4p, -3p, -5p and
// slovenian-tapp) against docs/engine-decisions.md.
//
// Every deal here is built by hand. Most hands are then played with a simple,
// hand-traceable policy (PlayOut): each seat plays the first card of its own
// preference list that is legal, else the first legal action (the legal list is
// in card-index order: T1..T22, then H 4 3 2 1 J N Q K, D likewise, C 7 8 9 10 J N
// Q K, S likewise). The scoring tests trace such a hand trick by trick in a
// comment and work the score out by hand; card points are counted in thirds
// (3v-2 per card: K, Skis, Mond, Pagat 13; Q 10; N 7; J 4; any other card 1).

#include "referee/variants/slovenian/slovenian.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "referee/engine/record.h"
#include "referee/engine/registry.h"
#include "referee/variants/variant_test_util.h"

namespace tarock::slovenian {
namespace {

using variant_test::C;
using variant_test::CardList;
using variant_test::Cards;
using variant_test::Do;
using variant_test::HistoryText;
using variant_test::Legal;

// ---------------------------------------------------------------------------
// Helpers.

// A deal from one string of card names per seat ("" for a seat that sits out).
Deal MakeDeal(const std::vector<std::string>& hands, absl::string_view talon) {
  Deal d;
  for (const std::string& h : hands) d.hands.push_back(Cards(h));
  d.talon = CardList(talon);
  return d;
}

HandSetup Dealt(int dealer, std::vector<int> radli = {}, bool forced_klop = false) {
  HandSetup s;
  s.dealer = dealer;
  s.radli = std::move(radli);
  s.forced_klop = forced_klop;
  return s;
}

// A game and one hand of it.
struct Table {
  std::unique_ptr<Game> game;
  std::unique_ptr<State> state;
  const SlovenianState& st() const { return static_cast<const SlovenianState&>(*state); }
  State& s() { return *state; }
};

Table Start(const std::string& variant, const Deal& deal, const HandSetup& setup,
            const Options& options = {}) {
  Table t;
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(variant, options);
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return t;
  t.game = std::move(*game);
  absl::StatusOr<std::unique_ptr<State>> state = t.game->NewHand(deal, setup);
  EXPECT_TRUE(state.ok()) << state.status();
  if (state.ok()) t.state = std::move(*state);
  return t;
}

// Plays to the end: in the play phase each seat plays the first card of its
// preference list (prefs[seat], card names) that is legal, else the first legal
// action; in other phases the first legal action (pass, when there is one).
// `each_step` runs before every action.
template <typename F>
::testing::AssertionResult PlayOutWith(State& s, const std::vector<std::string>& prefs, F each_step) {
  std::vector<std::vector<Card>> order;
  for (const std::string& p : prefs) order.push_back(CardList(p));
  for (int guard = 0; !s.IsTerminal(); ++guard) {
    if (guard > 500) return ::testing::AssertionFailure() << "the hand does not end";
    each_step();
    ActionList legal;
    s.LegalActions(&legal);
    if (legal.size == 0) return ::testing::AssertionFailure() << "no legal action in " << s.PhaseName();
    Action pick = legal.items[0];
    const int seat = s.CurrentSeat();
    if (s.PhaseName() == "play" && seat < static_cast<int>(order.size())) {
      for (Card c : order[seat]) {
        if (legal.Contains(MakeAction(Verb::kPlay, c))) {
          pick = MakeAction(Verb::kPlay, c);
          break;
        }
      }
    }
    s.Apply(pick);
  }
  each_step();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult PlayOut(State& s, const std::vector<std::string>& prefs = {}) {
  return PlayOutWith(s, prefs, [] {});
}

// The plays of the hand grouped by trick, for failure messages.
std::string Tricks(const State& s) {
  std::string out;
  int n = 0;
  const int per_trick = s.game().num_seats() == 5 ? 4 : s.game().num_seats();
  for (Action a : s.History()) {
    if (VerbOf(a) != Verb::kPlay) continue;
    if (n % per_trick == 0) absl::StrAppend(&out, "\ntrick ", n / per_trick + 1, ":");
    absl::StrAppend(&out, " ", CardName(static_cast<Card>(ArgOf(a))));
    ++n;
  }
  return out;
}

// Independent thirds count (3v-2 per card) to cross-check the engine's.
int Thirds(CardSet s) {
  int t = 0;
  for (Card c : s) {
    int v = 1;
    if (c == kPagat || c == kMond || c == kSkis) v = 5;
    else if (!IsTarock(c)) v = RankOf(c) == 7 ? 5 : RankOf(c) == 6 ? 4 : RankOf(c) == 5 ? 3 : RankOf(c) == 4 ? 2 : 1;
    t += 3 * v - 2;
  }
  return t;
}

// Klop scores computed from the final piles, as the decisions doc states them.
std::vector<int> ExpectedKlop(const SlovenianState& st, int num_seats, int lose_thirds,
                              const std::vector<int>& radli = {}) {
  std::vector<int> scores(num_seats, 0);
  bool decided = false;
  for (int s = 0; s < num_seats; ++s) {
    if (st.GetDeal().hands[s].empty()) continue;  // sits out
    if (Thirds(st.won(s)) >= lose_thirds) scores[s] = -70, decided = true;
    else if (st.won(s).empty()) scores[s] = 70, decided = true;
  }
  for (int s = 0; s < num_seats; ++s) {
    if (st.GetDeal().hands[s].empty()) continue;
    if (!decided) scores[s] = -((Thirds(st.won(s)) + 1) / 3);
    if (!radli.empty() && radli[s] > 0) scores[s] *= 2;
  }
  return scores;
}

// Checks that no seat's observation names a card in another seat's hand, other
// than the public ones: played cards, tarock discards, the exposed talon, the
// called king's name and the Open Beggar declarer's hand.
::testing::AssertionResult NoLeaks(const SlovenianState& st) {
  const int n = st.game().num_seats();
  CardSet played, tarock_discards;
  for (Action a : st.History()) {
    const Card c = static_cast<Card>(ArgOf(a));
    if (VerbOf(a) == Verb::kPlay) played.Add(c);
    if (VerbOf(a) == Verb::kDiscard && IsTarock(c)) tarock_discards.Add(c);
  }
  for (int seat = 0; seat < n; ++seat) {
    const Observation obs = st.Observe(seat);
    const std::string json = ObservationToJson(obs);
    CardSet allowed = played | tarock_discards;
    for (const std::string& t : obs.talon)
      if (t != "?") allowed.Add(C(t));
    if (!obs.called_king.empty()) allowed.Add(C(obs.called_king));
    for (CardSet shown : obs.shown) allowed |= shown;
    const CardSet seen = CardsNamedIn(json);
    for (int other = 0; other < n; ++other) {
      if (other == seat) continue;
      const CardSet leaked = (seen & st.hand(other)) - allowed;
      if (!leaked.empty())
        return ::testing::AssertionFailure() << "seat " << seat << " sees " << CardName(leaked.First())
                                             << " of seat " << other << ": " << json;
    }
    if (obs.hand != st.hand(seat)) return ::testing::AssertionFailure() << "wrong own hand";
  }
  return ::testing::AssertionSuccess();
}

const BonusResult* FindBonus(const HandResult& r, const std::string& name) {
  for (const BonusResult& b : r.bonuses)
    if (b.name == name) return &b;
  return nullptr;
}

// ---------------------------------------------------------------------------
// The hand-built deals.

// Deal A (4p, dealer 0, forehand 1). Seat 0 holds the eleven top tarocks and S7;
// the talon groups for Three are [T11 H4 H3] and [T1 D4 D3].
Deal DealA() {
  return MakeDeal({"T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 S7",
                   "T2 T3 T4 S8 S9 S10 SJ SN SQ SK H2 H1",
                   "T5 T6 T7 C7 C8 C9 C10 CJ CN CQ CK HJ",
                   "T8 T9 T10 HN HQ HK D2 D1 DJ DN DQ DK"},
                  "T11 H4 H3 T1 D4 D3");
}
// The first-legal play of deal A after seat 0 keeps T12..T22 and S7 (Three,
// Solo Three; seat 1 leads, seat 0 plays last in trick 1):
//   trick 1      s1 T2, s2 T5, s3 T8, s0 T12      -> s0
//   tricks 2-11  s0 leads T13..T22; the others follow with T3 T4 / T6 T7 / T9 T10
//                and then throw their lowest cards (s1 H2 H1 S8..SQ, s2 HJ C7..CQ,
//                s3 HN HQ HK D2 D1 DJ DN DQ)                      -> all s0
//   trick 12     s0 S7, s1 SK, s2 CK, s3 DK           -> s1
// Defenders: trick 12 (1+13+13+13 = 40) and the unchosen group T1 D4 D3 (13+1+1 =
// 15) = 55 thirds; seat 0's side 210-55 = 155 thirds = 51 2/3, rounded 52.
// The Kontra chain on the game side against side (the pre-issue-11 reading).
const Options kSideAgainstSide = {{"game_kontra", "side-against-side"}};

constexpr const char* kDealAThree = "pass, pass, pass, bid three, call H, talon 0, discard H4, discard H3, discard T11";

// Deal B (4p, dealer 0): the mirror image, the defender seat 1 holds the tarocks.
Deal DealB() {
  return MakeDeal({"T2 T3 T4 HK HQ HN HJ H1 H2 DK CQ CN",
                   "T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 S7",
                   "T5 T6 T7 C7 CK S8 S9 S10 SJ SN SQ SK",
                   "T8 T9 T10 D2 D1 DJ DN DQ C8 C9 C10 CJ"},
                  "T11 H4 H3 T1 D4 D3");
}

// Deal K (4p, dealer 0): seat 0 holds the trula and wins all but trick 11.
Deal DealK() {
  return MakeDeal({"T1 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 H4",
                   "T2 T3 T4 T5 T6 H3 H2 H1 HJ HN HQ HK",
                   "T7 T8 T9 D4 D3 D2 D1 DJ DN DQ S10 SJ",
                   "T10 T11 T12 DK C10 CJ CN CQ CK SN SQ SK"},
                  "C7 C8 C9 S7 S8 S9");
}
const std::vector<std::string> kDealKPrefs = {"T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 H4 T1"};
// Play of deal K (Three, seat 0 keeps his hand; seat 1 leads):
//   trick 1      s1 T2, s2 T7, s3 T10, s0 T13         -> s0
//   tricks 2-10  s0 leads T14..T22; s1 T3..T6 then H3 H2 H1 HJ HN; s2 T8 T9 then
//                D4 D3 D2 D1 DJ DN DQ; s3 T11 T12 then DK C10 CJ CN CQ CK SN -> s0
//   trick 11     s0 H4, s1 HQ, s2 S10, s3 SQ          -> s1 (1+10+1+10 = 22 thirds)
//   trick 12     s1 HK, s2 SJ, s3 SK, s0 T1           -> s0, the Pagat wins the last trick
// Defenders: 22 + unchosen group S7 S8 S9 (3) = 25 thirds; seat 0's side 185 thirds
// = 61 2/3 -> 62, difference 27 -> 25; Three = 10 + 25 = 35. Seat 0's side has the
// trula and all four kings.

// Deal F (4p, dealer 3, seat 0 forehand): seat 0 holds all four kings, the top
// two cards of each suit and T19..T22; each other seat two cards of each suit.
Deal DealF() {
  return MakeDeal({"HK HJ DK DQ CK CQ SK SQ T19 T20 T21 T22",
                   "T1 T2 T3 T4 H4 H3 D4 D3 C7 C8 S7 S8",
                   "T5 T6 T7 T8 H2 H1 D2 D1 C9 C10 S9 S10",
                   "T9 T10 T11 T12 HQ HN DJ DN CJ CN SJ SN"},
                  "T13 T14 T15 T16 T17 T18");
}
const std::vector<std::string> kDealFPrefs = {"SK SQ CK CQ DK DQ HK HJ T19 T20 T21 T22",
                                              "S7 S8 C7 C8 D4 D3 H4 H3 T2 T3 T4 T1", "",
                                              "SJ SN CJ CN DJ DN HN HQ T9 T10 T11 T12"};
constexpr const char* kDealFTwo =
    "bid two, pass, pass, pass, call H, talon 2, discard T17, discard T18";

// Deal T (slovenian-tapp or -3p, dealer 0): seat 0 has 15 tarocks and S7.
Deal DealT() {
  return MakeDeal({"T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T22 S7",
                   "T2 T3 T4 S8 S9 S10 SJ SN SQ SK H2 H1 HJ HN HQ HK",
                   "T5 T6 D2 D1 DJ DN DQ DK C7 C8 C9 C10 CJ CN CQ CK"},
                  "T21 H4 H3 T1 D4 D3");
}

// ---------------------------------------------------------------------------
// 1. Bidding, slovenian-4p (003 §4.2).

TEST(Bidding4p, ForehandSpeaksFirstAndTheLowestBidIsTwo) {
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(t.state);
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_EQ(t.s().PhaseName(), "bidding");
  EXPECT_EQ(Legal(t.s()),
            "pass, bid two, bid one, bid solo-three, bid solo-two, bid solo-one, bid beggar, "
            "bid solo-without, bid open-beggar, bid colour-valat, bid valat");
  EXPECT_FALSE(t.s().ApplyText("bid three").ok());
  EXPECT_FALSE(t.s().ApplyText("bid klop").ok());
  // With dealer 2 the forehand is seat 3.
  Table u = Start("slovenian-4p", DealA(), Dealt(2));
  EXPECT_EQ(u.s().CurrentSeat(), 3);
}

TEST(Bidding4p, EachBidMustBeHigherAndPassIsFinal) {
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, bid two"));  // s1 passes, s2 bids two
  EXPECT_EQ(t.s().CurrentSeat(), 3);
  absl::Status st = t.s().ApplyText("bid two");
  EXPECT_TRUE(absl::StrContains(st.message(), "illegal action 'bid two'")) << st;
  EXPECT_TRUE(absl::StartsWith(Legal(t.s()), "pass, bid one, bid solo-three")) << Legal(t.s());
  ASSERT_TRUE(Do(t.s(), "pass, bid one"));  // s3 passes, s0 bids one
  // Seat 1 passed first and is skipped: seat 2 speaks next.
  EXPECT_EQ(t.s().CurrentSeat(), 2);
  EXPECT_TRUE(absl::StartsWith(Legal(t.s()), "pass, bid solo-three")) << Legal(t.s());
  ASSERT_TRUE(Do(t.s(), "bid solo-three"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  ASSERT_TRUE(Do(t.s(), "pass"));  // the third pass ends the bidding
  EXPECT_EQ(t.st().declarer(), 2);
  EXPECT_EQ(t.st().contract(), kSoloThree);
  EXPECT_EQ(t.s().PhaseName(), "talon");  // solo: no king call
}

TEST(Bidding4p, BiddingEndsWhenThreeHavePassed) {
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "bid two, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "bidding");
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(t.s().PhaseName(), "king-call");
  EXPECT_EQ(t.st().declarer(), 1);
  EXPECT_EQ(t.st().contract(), kTwo);
  EXPECT_EQ(t.s().CurrentSeat(), 1);
}

TEST(Bidding4p, DealerAloneMayChooseKlopOrThreeWhenAllPass) {
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass"));
  // Seat 3 is not the dealer: no Klop, no Three.
  EXPECT_TRUE(absl::StartsWith(Legal(t.s()), "pass, bid two")) << Legal(t.s());
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  // The dealer must choose: no pass.
  EXPECT_EQ(Legal(t.s()),
            "bid klop, bid three, bid two, bid one, bid solo-three, bid solo-two, bid solo-one, "
            "bid beggar, bid solo-without, bid open-beggar, bid colour-valat, bid valat");
  EXPECT_FALSE(t.s().ApplyText("pass").ok());
  ASSERT_TRUE(Do(t.s(), "bid klop"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.st().contract(), kKlop);
  EXPECT_EQ(t.st().declarer(), -1);
  EXPECT_EQ(t.s().CurrentSeat(), 1);  // forehand leads Klop
}

TEST(Bidding4p, ForcedKlopAllowsOnlySoloWithoutAndHigher) {
  Table t = Start("slovenian-4p", DealA(), Dealt(0, {}, /*forced_klop=*/true));
  EXPECT_EQ(t.s().PhaseName(), "bidding");
  EXPECT_EQ(Legal(t.s()), "pass, bid solo-without, bid open-beggar, bid colour-valat, bid valat");
  EXPECT_FALSE(t.s().ApplyText("bid two").ok());
  EXPECT_FALSE(t.s().ApplyText("bid beggar").ok());
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(Legal(t.s()), "bid klop, bid solo-without, bid open-beggar, bid colour-valat, bid valat");
  EXPECT_FALSE(t.s().ApplyText("bid three").ok());
  ASSERT_TRUE(Do(t.s(), "bid klop"));
  EXPECT_EQ(t.st().contract(), kKlop);
}

TEST(Bidding5p, DealerSitsOutAndTheSeatBeforeHimHasTheDealersChoice) {
  // Deal A's four hands for seats 0-3; seat 4 deals and sits out.
  Deal d = DealA();
  d.hands.push_back(CardSet());
  Table t = Start("slovenian-5p", d, Dealt(4));
  ASSERT_TRUE(t.state);
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 3);
  EXPECT_TRUE(absl::StartsWith(Legal(t.s()), "bid klop, bid three, bid two")) << Legal(t.s());
  ASSERT_TRUE(Do(t.s(), "bid klop"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // the forehand (after the dealer) leads
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.scores[4], 0);
  EXPECT_EQ(r.radli, (std::vector<int>{1, 1, 1, 1, 0}));  // no radl for the dealer
  EXPECT_EQ(r.scores, ExpectedKlop(t.st(), 5, 107)) << Tricks(t.s());
  // A deal that gives the sitting-out dealer cards is refused.
  Deal bad = DealA();
  bad.hands.push_back(CardSet());
  std::swap(bad.hands[0], bad.hands[4]);
  absl::StatusOr<std::unique_ptr<Game>> g = Registry::Global().Create("slovenian-5p");
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE((*g)->NewHand(bad, Dealt(4)).ok());
}

TEST(Bidding5p, ColourValatIsLedByTheSeatBeforeTheDealer) {
  Deal d = DealA();
  d.hands.push_back(CardSet());
  Table t = Start("slovenian-5p", d, Dealt(4));
  ASSERT_TRUE(Do(t.s(), "bid colour-valat, pass, pass, pass, pass, pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.s().CurrentSeat(), 3);
}

TEST(Bidding3p, NoSoloThreeTwoOneAndNoKingCall) {
  Table t = Start("slovenian-3p", DealT(), Dealt(0));
  ASSERT_TRUE(t.state);
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_EQ(Legal(t.s()),
            "pass, bid two, bid one, bid beggar, bid solo-without, bid open-beggar, bid colour-valat, "
            "bid valat");
  EXPECT_FALSE(t.s().ApplyText("bid solo-three").ok());
  ASSERT_TRUE(Do(t.s(), "pass, pass"));
  EXPECT_EQ(Legal(t.s()),
            "bid klop, bid three, bid two, bid one, bid beggar, bid solo-without, bid open-beggar, "
            "bid colour-valat, bid valat");
  ASSERT_TRUE(Do(t.s(), "bid three"));
  EXPECT_EQ(t.s().PhaseName(), "talon");  // no king call in 3p
  EXPECT_EQ(Legal(t.s()), "talon 0, talon 1");
  ASSERT_TRUE(Do(t.s(), "talon 0, discard H4, discard H3, discard T7"));
  EXPECT_EQ(t.s().PhaseName(), "announce");
  // No King Ultimo in 3p; seat 0 holds no Pagat; he may not kontra his own game.
  EXPECT_EQ(Legal(t.s()), "pass, announce trula, announce kings, announce valat");
  ASSERT_TRUE(PlayOut(t.s()));
  EXPECT_EQ(t.s().Result().partner, -1);
}

// ---------------------------------------------------------------------------
// 1b. The seniority auction of slovenian-tapp (000 "Auction").

TEST(TappAuction, DealerOpensWithThreeOnly) {
  Table t = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(t.state);
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  EXPECT_EQ(Legal(t.s()), "pass, bid three");
  EXPECT_FALSE(t.s().ApplyText("bid two").ok());
  // A later opener is held to the lowest bid as well.
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_EQ(Legal(t.s()), "pass, bid three");
}

TEST(TappAuction, ChallengerRaisesOneStepAndTheSeniorMayHold) {
  Table t = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "bid three"));
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_EQ(Legal(t.s()), "pass, bid two");  // the next higher bid only
  EXPECT_FALSE(t.s().ApplyText("bid one").ok());
  ASSERT_TRUE(Do(t.s(), "bid two"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  EXPECT_EQ(Legal(t.s()), "pass, bid two");  // the senior holds with the same bid
  ASSERT_TRUE(Do(t.s(), "bid two"));
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_EQ(Legal(t.s()), "pass, bid one");
  ASSERT_TRUE(Do(t.s(), "bid one, bid one"));  // s1 raises, s0 holds
  EXPECT_EQ(Legal(t.s()), "pass, bid beggar");
  ASSERT_TRUE(Do(t.s(), "pass"));  // s1 is out; s2 meets the senior s0
  EXPECT_EQ(t.s().CurrentSeat(), 2);
  EXPECT_EQ(Legal(t.s()), "pass, bid beggar");
  ASSERT_TRUE(Do(t.s(), "bid beggar"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  EXPECT_EQ(Legal(t.s()), "pass, bid beggar");
  ASSERT_TRUE(Do(t.s(), "pass"));  // s2 wins the auction
  EXPECT_EQ(t.s().PhaseName(), "declare");
  EXPECT_EQ(t.s().CurrentSeat(), 2);
  // The winner plays the bid contract or converts to a higher one.
  EXPECT_EQ(Legal(t.s()), "bid beggar, bid solo-without");
  EXPECT_FALSE(t.s().ApplyText("bid one").ok());
  ASSERT_TRUE(Do(t.s(), "bid solo-without"));
  EXPECT_EQ(t.st().declarer(), 2);
  EXPECT_EQ(t.st().contract(), kSoloWithout);
  EXPECT_EQ(t.s().PhaseName(), "play");  // no talon, no announcements
  EXPECT_EQ(t.s().CurrentSeat(), 2);     // the declarer leads Solo Without
}

TEST(TappAuction, SoleBidderDeclaresAndMayConvertUpward) {
  Table t = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "declare");
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  EXPECT_EQ(Legal(t.s()), "bid three, bid two, bid one, bid beggar, bid solo-without");
  ASSERT_TRUE(Do(t.s(), "bid one"));
  EXPECT_EQ(t.st().contract(), kOne);
  EXPECT_EQ(t.s().PhaseName(), "talon");
}

TEST(TappAuction, BeggarIsLedByTheDeclarerWithoutAnnouncements) {
  Table t = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, bid three, pass, bid beggar"));
  EXPECT_EQ(t.st().declarer(), 1);
  EXPECT_EQ(t.s().PhaseName(), "play");  // no talon, no announcements, no kontra
  EXPECT_EQ(t.s().CurrentSeat(), 1);     // the declarer, not the dealer, leads
}

TEST(TappAuction, AllPassIsKlopLedByTheDealer) {
  Table t = Start("slovenian-tapp", DealT(), Dealt(1));
  EXPECT_EQ(t.s().CurrentSeat(), 1);  // the dealer speaks first
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.st().contract(), kKlop);
  EXPECT_EQ(t.s().CurrentSeat(), 1);  // 000: the dealer leads everything but Beggar/Solo Without
}

TEST(TappAuction, CompulsoryKlopHasNoAuction) {
  Table t = Start("slovenian-tapp", DealT(), Dealt(2, {}, /*forced_klop=*/true));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.st().contract(), kKlop);
  EXPECT_EQ(t.s().CurrentSeat(), 2);
}

// ---------------------------------------------------------------------------
// 2. King call (003 §4.3).

TEST(KingCall, PartnerIsTheHolderOfTheCalledKing) {
  for (const auto& [suit, partner] : std::vector<std::pair<std::string, int>>{{"H", 3}, {"C", 2}, {"S", 1}}) {
    Table t = Start("slovenian-4p", DealA(), Dealt(0));
    ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three"));
    EXPECT_EQ(Legal(t.s()), "call H, call D, call C, call S");
    ASSERT_TRUE(Do(t.s(), "call " + suit));
    EXPECT_EQ(t.st().partner(), partner) << suit;
  }
}

TEST(KingCall, OwnKingPlaysAloneAtTheNormalValue) {
  // Deal F: seat 0 holds all four kings and calls the heart king: alone, but the
  // contract stays Two (20), not Solo Two (50). The trick trace and the score
  // (95) are worked out in Scoring.OwnKingAloneAndADefendersFailedSilentPagat.
  Table t = Start("slovenian-4p", DealF(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), kDealFTwo));
  EXPECT_EQ(t.st().partner(), -1);
  ASSERT_TRUE(PlayOut(t.s(), kDealFPrefs));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.contract, "two");
  EXPECT_EQ(r.partner, -1);
  EXPECT_EQ(r.scores, (std::vector<int>{95, 0, 0, 0})) << Tricks(t.s());
}

TEST(KingCall, KingInTheTalonPlaysAloneAtTheNormalValue) {
  // Deal A with HK and H4 swapped: the heart king lies in talon group 0.
  Deal d = MakeDeal({"T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 S7",
                     "T2 T3 T4 S8 S9 S10 SJ SN SQ SK H2 H1",
                     "T5 T6 T7 C7 C8 C9 C10 CJ CN CQ CK HJ",
                     "T8 T9 T10 HN HQ H4 D2 D1 DJ DN DQ DK"},
                    "T11 HK H3 T1 D4 D3");
  Table t = Start("slovenian-4p", d, Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call H"));
  EXPECT_EQ(t.st().partner(), -1);
  // Seat 0 takes T11 HK H3 and lays away H3, T12, T13: he keeps T11, T14..T22, HK, S7.
  ASSERT_TRUE(Do(t.s(), "talon 0, discard H3, discard T12, discard T13"));
  ASSERT_TRUE(PlayOut(t.s()));
  // trick 1: s1 T2, s2 T5, s3 T8, s0 T11 -> s0; tricks 2-10: s0 T14..T22 -> s0;
  // trick 11: s0 HK, s1 SQ, s2 CQ, s3 DQ -> s0; trick 12: s0 S7, s1 SK, s2 CK, s3 DK -> s1.
  // Defenders: 40 + 15 (T1 D4 D3) = 55 thirds; seat 0: 155 thirds -> 52, difference
  // 17 -> 15: Three = 10 + 15 = 25 (Solo Three would be 55). No bonus: the heart
  // king was not in the last trick, trula and kings are split.
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{155, 55})) << Tricks(t.s());
  EXPECT_EQ(r.scores, (std::vector<int>{25, 0, 0, 0})) << Tricks(t.s());
  EXPECT_TRUE(r.bonuses.empty());
}

// ---------------------------------------------------------------------------
// 3. Talon groups and discards (003 §4.4, 000).

TEST(Talon, FourPlayerGroupsAreConsecutive) {
  struct Case { const char* bid; const char* legal; const char* pick; const char* taken; };
  for (const Case& c : {Case{"bid three", "talon 0, talon 1", "talon 1", "T1 D4 D3"},
                        Case{"bid two", "talon 0, talon 1, talon 2", "talon 1", "H3 T1"},
                        Case{"bid one", "talon 0, talon 1, talon 2, talon 3, talon 4, talon 5",
                             "talon 4", "D4"}}) {
    Table t = Start("slovenian-4p", DealA(), Dealt(0));
    ASSERT_TRUE(Do(t.s(), absl::StrCat("pass, pass, pass, ", c.bid, ", call H")));
    EXPECT_EQ(t.s().PhaseName(), "talon");
    EXPECT_EQ(Legal(t.s()), c.legal) << c.bid;
    // All see the talon while the declarer chooses.
    EXPECT_EQ(t.s().Observe(2).talon, (std::vector<std::string>{"T11", "H4", "H3", "T1", "D4", "D3"}));
    ASSERT_TRUE(Do(t.s(), c.pick));
    EXPECT_TRUE(t.st().hand(0).ContainsAll(Cards(c.taken))) << c.bid;
    EXPECT_EQ(t.st().hand(0).size(), 12 + Cards(c.taken).size()) << c.bid;
    EXPECT_EQ(t.s().PhaseName(), "discard");
  }
}

TEST(Talon, TappRowsColumnsAndSingleCards) {
  // The talon T21 H4 H3 / T1 D4 D3 lies in two rows of three.
  struct Case { const char* bid; const char* legal; const char* pick; const char* taken; };
  for (const Case& c : {Case{"bid three", "talon 0, talon 1", "talon 1", "T1 D4 D3"},
                        Case{"bid two", "talon 0, talon 1, talon 2", "talon 1", "H4 D4"},
                        Case{"bid two", "talon 0, talon 1, talon 2", "talon 2", "H3 D3"},
                        Case{"bid one", "talon 0, talon 1, talon 2, talon 3, talon 4, talon 5",
                             "talon 3", "T1"}}) {
    Table t = Start("slovenian-tapp", DealT(), Dealt(0));
    ASSERT_TRUE(Do(t.s(), absl::StrCat("bid three, pass, pass, ", c.bid)));
    EXPECT_EQ(Legal(t.s()), c.legal) << c.bid;
    ASSERT_TRUE(Do(t.s(), c.pick));
    EXPECT_TRUE(t.st().hand(0).ContainsAll(Cards(c.taken))) << c.bid << " " << c.pick;
    EXPECT_EQ(t.st().hand(0).size(), 16 + Cards(c.taken).size()) << c.bid;
  }
}

TEST(Talon, KingsAndTrulaMayNotBeDiscarded) {
  // Deal K with talon group 0 (C7 C8 C9): seat 0 holds T1 T21 T22, no king.
  Table t = Start("slovenian-4p", DealK(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call C, talon 0"));
  EXPECT_EQ(Legal(t.s()),
            "discard T13, discard T14, discard T15, discard T16, discard T17, discard T18, "
            "discard T19, discard T20, discard H4, discard C7, discard C8, discard C9");
  EXPECT_FALSE(t.s().ApplyText("discard T1").ok());
  EXPECT_FALSE(t.s().ApplyText("discard T21").ok());
  EXPECT_FALSE(t.s().ApplyText("discard T22").ok());
  // Deal B: seat 0 holds HK and DK; kings are never offered.
  Table b = Start("slovenian-4p", DealB(), Dealt(0));
  ASSERT_TRUE(Do(b.s(), "pass, pass, pass, bid three, call C, talon 0"));
  EXPECT_FALSE(absl::StrContains(Legal(b.s()), "K")) << Legal(b.s());
  absl::Status st = b.s().ApplyText("discard HK");
  EXPECT_TRUE(absl::StrContains(st.message(), "illegal action 'discard HK'")) << st;
  ASSERT_TRUE(Do(b.s(), "discard H4, discard H3"));
  EXPECT_EQ(b.s().PhaseName(), "discard");  // one card per action, three in all
  ASSERT_TRUE(Do(b.s(), "discard T11"));
  EXPECT_EQ(b.s().PhaseName(), "announce");
}

TEST(Talon, TarockDiscardsAreShownOtherDiscardsHidden) {
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  for (int seat = 0; seat < 4; ++seat) {
    const Observation o = t.s().Observe(seat);
    std::vector<std::string> discards;
    for (const auto& [who, text] : o.history)
      if (absl::StartsWith(text, "discard")) {
        EXPECT_EQ(who, 0);
        discards.push_back(text);
      }
    if (seat == 0) {
      EXPECT_EQ(discards, (std::vector<std::string>{"discard H4", "discard H3", "discard T11"}));
    } else {
      EXPECT_EQ(discards, (std::vector<std::string>{"discard ?", "discard ?", "discard T11"})) << seat;
    }
  }
  // A discard from the declarer's own hand (S7 instead of T11) is named nowhere.
  Table v = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(v.s(), "pass, pass, pass, bid three, call H, talon 0, discard H4, discard H3, discard S7"));
  for (int seat = 1; seat < 4; ++seat)
    EXPECT_FALSE(CardsNamedIn(ObservationToJson(v.s().Observe(seat))).Contains(C("S7"))) << seat;
}

// ---------------------------------------------------------------------------
// 4. Play legality (003 §4.6, §4.6.3, §5.2.7; 000).

TEST(Play, FollowSuitElseTarockElseAnything) {
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.s().CurrentSeat(), 1);  // forehand leads Three
  // Seat 1 may lead any of his twelve cards.
  ActionList all;
  t.s().LegalActions(&all);
  EXPECT_EQ(all.size, 12);
  ASSERT_TRUE(Do(t.s(), "play H2"));
  // Seat 2 holds HJ: must follow hearts.
  EXPECT_EQ(Legal(t.s()), "play HJ");
  ASSERT_TRUE(Do(t.s(), "play HJ"));
  // Seat 3 holds HN HQ HK: any heart, no obligation to win in a positive contract.
  EXPECT_EQ(Legal(t.s()), "play HN, play HQ, play HK");
  ASSERT_TRUE(Do(t.s(), "play HN"));
  // Seat 0 has no heart: must play a tarock, S7 is not allowed.
  EXPECT_EQ(Legal(t.s()),
            "play T12, play T13, play T14, play T15, play T16, play T17, play T18, play T19, "
            "play T20, play T21, play T22");
  EXPECT_FALSE(t.s().ApplyText("play S7").ok());
  ASSERT_TRUE(Do(t.s(), "play T12"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // the tarock took the trick
  // Seat 0 leads a tarock; seat 1 follows with a tarock.
  ASSERT_TRUE(Do(t.s(), "play T13"));
  EXPECT_EQ(Legal(t.s()), "play T2, play T3, play T4");
  ASSERT_TRUE(Do(t.s(), "play T2, play T5, play T8"));
  ASSERT_TRUE(Do(t.s(), "play T14, play T3, play T6, play T9"));
  ASSERT_TRUE(Do(t.s(), "play T15, play T4, play T7, play T10"));
  // Tarock led, seat 1 has none left: anything.
  ASSERT_TRUE(Do(t.s(), "play T16"));
  ActionList free;
  t.s().LegalActions(&free);
  EXPECT_EQ(free.size, t.st().hand(1).size());
  ASSERT_TRUE(Do(t.s(), "play H1, play C7, play HQ"));
  // Seat 0 leads S7: seat 1 must follow spades.
  ASSERT_TRUE(Do(t.s(), "play S7"));
  EXPECT_EQ(Legal(t.s()), "play S8, play S9, play S10, play SJ, play SN, play SQ, play SK");
  ASSERT_TRUE(Do(t.s(), "play SK"));
  // Seat 2 has neither spades nor tarocks: anything.
  ActionList any;
  t.s().LegalActions(&any);
  EXPECT_EQ(any.size, t.st().hand(2).size());
}


// Deal OT (4p, dealer 0) for overtaking in Klop: seats 1 and 2 share hearts and
// diamonds, seats 3 and 0 clubs and spades; the talon holds T17..T22.
Deal DealOT() {
  return MakeDeal({"T1 T14 T15 T16 C8 C10 CN CK S8 S10 SN SK",
                   "T2 T5 T8 T11 H4 H2 HJ HQ D4 D2 DJ DQ",
                   "T3 T6 T9 T12 H3 H1 HN HK D3 D1 DN DK",
                   "T4 T7 T10 T13 C7 C9 CJ CQ S7 S9 SJ SQ"},
                  "T17 T18 T19 T20 T21 T22");
}

TEST(Play, KlopMustBeatTheHighestCardOnTheTable) {
  // The play below was traced with red pips 1 > 2 > 3 > 4 (the real-play order).
  Table t = Start("slovenian-4p", DealOT(), Dealt(0), {{"red_pip_order", "traditional"}});
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid klop"));
  ASSERT_TRUE(Do(t.s(), "play H2"));
  // Seat 2 must follow hearts and beat H2 (red pips: 1 > 2 > 3 > 4): not H3.
  EXPECT_EQ(Legal(t.s()), "play H1, play HN, play HK");
  EXPECT_FALSE(t.s().ApplyText("play H3").ok());
  ASSERT_TRUE(Do(t.s(), "play H1"));
  // Seat 3 has no heart: any tarock beats a heart.
  EXPECT_EQ(Legal(t.s()), "play T4, play T7, play T10, play T13");
  ASSERT_TRUE(Do(t.s(), "play T4"));
  // Seat 0 must beat T4; the Pagat is not allowed while he has other tarocks.
  EXPECT_EQ(Legal(t.s()), "play T14, play T15, play T16");
  ASSERT_TRUE(Do(t.s(), "play T14"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  // Leading, seat 0 may not lead the Pagat either.
  EXPECT_FALSE(absl::StrContains(Legal(t.s()), "T1,")) << Legal(t.s());
  EXPECT_FALSE(t.s().ApplyText("play T1").ok());
  ASSERT_TRUE(Do(t.s(), "play C8, play T11"));
  // Seat 2 (no club) must beat T11: only T12 does.
  EXPECT_EQ(Legal(t.s()), "play T12");
  ASSERT_TRUE(Do(t.s(), "play T12"));
  // Seat 3 follows clubs and cannot beat a tarock with a club: any club.
  EXPECT_EQ(Legal(t.s()), "play C7, play C9, play CJ, play CQ");
}

// Deal KL (4p, dealer 0): seat 1 holds T11..T22 and takes every trick of a Klop.
Deal DealKL() {
  return MakeDeal({"T1 T2 T3 HK HQ HN HJ H1 H2 H3 H4 DK",
                   "T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22",
                   "T4 T5 T6 DQ DN DJ D1 D2 D3 D4 CK CQ",
                   "T7 T8 T9 T10 CN CJ C10 C9 C8 C7 SK SQ"},
                  "SN SJ S10 S9 S8 S7");
}

TEST(Play, PagatOnlyWhenItIsTheOnlyLegalCardInNegativeContracts) {
  Table t = Start("slovenian-4p", DealKL(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid klop"));
  ASSERT_TRUE(Do(t.s(), "play T11, play T4, play T7"));
  EXPECT_EQ(Legal(t.s()), "play T2, play T3");  // cannot beat T11; no Pagat
  ASSERT_TRUE(Do(t.s(), "play T2, play T12, play T5, play T8, play T3"));
  ASSERT_TRUE(Do(t.s(), "play T13, play T6, play T9"));
  EXPECT_EQ(Legal(t.s()), "play T1");  // the last tarock: now forced
  ASSERT_TRUE(Do(t.s(), "play T1"));
  // In a positive contract the Pagat is an ordinary card: Deal K, seat 0 plays
  // last to trick 1 and may play it.
  Table k = Start("slovenian-4p", DealK(), Dealt(0));
  ASSERT_TRUE(Do(k.s(), "pass, pass, pass, bid three, call C, talon 0, discard C7, discard C8, discard C9"));
  ASSERT_TRUE(Do(k.s(), "announce pagat-ultimo, pass, pass, pass, pass"));
  ASSERT_TRUE(Do(k.s(), "play T2, play T7, play T10"));
  EXPECT_TRUE(absl::StartsWith(Legal(k.s()), "play T1, play T13")) << Legal(k.s());
}

// Deal BG (4p, dealer 3, seat 0 forehand): seat 0 holds the lowest cards.
Deal DealBG() {
  return MakeDeal({"T2 T3 T4 T5 H4 H3 H2 D4 D3 D2 C7 S7",
                   "T1 T6 T7 T8 T9 H1 HJ HN D1 DJ C8 C9",
                   "T10 T11 T12 T13 T14 HQ HK DN C10 CJ S8 S9",
                   "T15 T16 T17 T18 T19 DQ DK CN CQ S10 SJ SN"},
                  "T20 T21 T22 CK SQ SK");
}

TEST(Play, BeggarMustBeatAndTheDeclarerLeads) {
  // The script lets the declarer open the announcements (announce_first=declarer).
  Table t = Start("slovenian-4p", DealBG(), Dealt(3), {{"announce_first", "declarer"}});
  ASSERT_TRUE(Do(t.s(), "bid beggar, pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "announce");  // kontra on the game is possible
  EXPECT_EQ(Legal(t.s()), "pass");           // no bonuses in Beggar; not his own kontra
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(Legal(t.s()), "pass, kontra game");
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // the declarer leads Beggar
  ASSERT_TRUE(Do(t.s(), "play T2"));
  EXPECT_EQ(Legal(t.s()), "play T6, play T7, play T8, play T9");
}

// Deal CV (4p, dealer 3): seats 0-2 have no hearts and hold T22, T21, T1; seat 3
// holds all hearts and T2..T5.
Deal DealCV() {
  return MakeDeal({"T22 T20 T19 T18 DK DQ DN DJ CK CQ CN CJ",
                   "T21 T17 T16 T15 D1 D2 D3 D4 SK SQ SN SJ",
                   "T1 T14 T13 T12 C10 C9 C8 C7 S10 S9 S8 S7",
                   "H4 H3 H2 H1 HJ HN HQ HK T2 T3 T4 T5"},
                  "T6 T7 T8 T9 T10 T11");
}

TEST(Play, ColourValatTarocksAreNoTrumpsButMustBePlayedWhenVoid) {
  Table t = Start("slovenian-4p", DealCV(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid colour-valat, pass, pass, pass, pass, pass, pass, pass"));
  EXPECT_EQ(t.st().contract(), kColourValat);
  EXPECT_EQ(t.s().CurrentSeat(), 3);  // 003 §4.6: the dealer leads Colour Valat
  // A tarock lead is followed with tarocks; the highest wins.
  ASSERT_TRUE(Do(t.s(), "play T2, play T22, play T15, play T12"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  // A suit lead: seats void in it must still play a tarock, which does not win.
  ASSERT_TRUE(Do(t.s(), "play DK"));
  EXPECT_EQ(Legal(t.s()), "play D4, play D3, play D2, play D1");
  ASSERT_TRUE(Do(t.s(), "play D1"));
  EXPECT_EQ(Legal(t.s()), "play T1, play T13, play T14");
  ASSERT_TRUE(Do(t.s(), "play T14"));
  EXPECT_EQ(Legal(t.s()), "play T3, play T4, play T5");
  ASSERT_TRUE(Do(t.s(), "play T5"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // DK took it, not T14
  EXPECT_FALSE(t.s().IsTerminal());
}

TEST(Play, ColourValatImperatorDoesNotBeatTheLedSuit) {
  // Hearts led; the trula falls on it from three seats void in hearts. In Colour
  // Valat tarocks are not trumps: the heart wins, not the Pagat.
  Table t = Start("slovenian-4p", DealCV(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid colour-valat, pass, pass, pass, pass, pass, pass, pass"));
  ASSERT_TRUE(Do(t.s(), "play H4"));
  EXPECT_EQ(Legal(t.s()), "play T18, play T19, play T20, play T22");
  ASSERT_TRUE(Do(t.s(), "play T22, play T21, play T1"));
  ASSERT_TRUE(t.s().IsTerminal());  // the declarer lost a trick: the hand stops
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{0, 0, 0, 1}));
  EXPECT_FALSE(r.declarer_won);
  EXPECT_EQ(r.scores, (std::vector<int>{-125, 0, 0, 0}));
}

TEST(Play, ColourValatUpgradeOnTheSoloDeclarersFirstTurn) {
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid solo-three, talon 0, discard H4, discard H3, discard T11"));
  EXPECT_EQ(Legal(t.s()), "pass, bid colour-valat, announce trula, announce kings, announce valat");
  ASSERT_TRUE(Do(t.s(), "bid colour-valat"));
  EXPECT_EQ(t.st().contract(), kColourValat);
  EXPECT_EQ(Legal(t.s()), "pass, kontra game");  // no bonuses in Colour Valat
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // the dealer (here the declarer) leads
  // Not offered again after the first turn.
  Table u = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(u.s(), "pass, pass, pass, bid solo-three, talon 0, discard H4, discard H3, discard T11"));
  ASSERT_TRUE(Do(u.s(), "pass, pass, pass"));
  EXPECT_EQ(u.s().CurrentSeat(), 3);
  ASSERT_TRUE(Do(u.s(), "kontra game"));
  EXPECT_FALSE(absl::StrContains(Legal(u.s()), "colour-valat")) << Legal(u.s());
}

TEST(Play, TappAnnouncedPagatUltimoMustBeKept) {
  Table t = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass, bid three, talon 1, discard D4, discard D3, discard T7"));
  Table silent = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(Do(silent.s(), HistoryText(t.s())));
  ASSERT_TRUE(Do(silent.s(), "pass, pass, pass"));
  EXPECT_TRUE(absl::StartsWith(Legal(silent.s()), "play T1, play T8")) << Legal(silent.s());
  ASSERT_TRUE(Do(t.s(), "announce pagat-ultimo, pass, pass, pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // the dealer leads Three in Tapp
  EXPECT_TRUE(absl::StartsWith(Legal(t.s()), "play T8")) << Legal(t.s());
  EXPECT_FALSE(t.s().ApplyText("play T1").ok());
}

TEST(Play, KlopPagatMustBeatMondAndSkisAndThenHoldsTheTrick) {
  // Deal CV as Klop, dealer 3: seat 0 leads the Skis, seat 1 cannot beat it and
  // may play the Mond; seat 2 must then play the Pagat (the Imperator beats
  // them); seat 3 may play any tarock, nothing beats the Imperator.
  Table t = Start("slovenian-4p", DealCV(), Dealt(3), {{"mondfang_in_klop", "no"}});
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid klop, play T22"));
  EXPECT_EQ(Legal(t.s()), "play T15, play T16, play T17, play T21");
  ASSERT_TRUE(Do(t.s(), "play T21"));
  EXPECT_EQ(Legal(t.s()), "play T1");
  ASSERT_TRUE(Do(t.s(), "play T1"));
  EXPECT_EQ(Legal(t.s()), "play T2, play T3, play T4, play T5");
  ASSERT_TRUE(Do(t.s(), "play T5"));
  EXPECT_EQ(t.s().CurrentSeat(), 2);  // the Pagat took the trick
  EXPECT_EQ(t.s().Observe(0).tricks_won, (std::vector<int>{0, 0, 1, 0}));
  // Mond and Skis fell together; with mondfang_in_klop=no that costs nothing
  // (MondfangInKlop below has the default).
  ASSERT_TRUE(PlayOut(t.s()));
  EXPECT_TRUE(t.s().Result().penalties.empty());
  EXPECT_EQ(t.s().Result().scores, ExpectedKlop(t.st(), 4, 107));
}

TEST(Play, RedPipsRankAs003ListsThemByDefault) {
  // 003 §2: "Reihenfolge der roten 'Farben': König, Dame, Ritter, Bube, 4, 3, 2,
  // 1". Deal OT as Klop: seat 1 leads H2; seat 2 (H3 H1 HN HK) must beat it
  // (§4.6.3.1): H3 beats H2 (3 stands before 2), H1 does not (1 is the lowest).
  Table t = Start("slovenian-4p", DealOT(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid klop, play H2"));
  EXPECT_EQ(Legal(t.s()), "play H3, play HN, play HK");
  for (const char* variant : {"slovenian-4p", "slovenian-3p", "slovenian-5p"}) {
    absl::StatusOr<Options> o = Registry::Global().CompleteOptions(variant, {});
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->at("red_pip_order"), "numeric") << variant;
  }
  // The real-play order 1 > 2 > 3 > 4 as an option: KlopMustBeatTheHighestCardOnTheTable.
  // slovenian-tapp keeps 1 > 2 > 3 > 4: 000's red 10 > 9 > 8 > 7 are our 1 2 3 4.
  absl::StatusOr<Options> tapp = Registry::Global().CompleteOptions("slovenian-tapp", {});
  ASSERT_TRUE(tapp.ok());
  EXPECT_EQ(tapp->at("red_pip_order"), "traditional");
}

// ---------------------------------------------------------------------------
// 5. Scoring (003 §3, §5; 000 "Scoring").

TEST(Scoring, ThreeWonDifferenceRoundedToFive) {
  // Deal A, Three, partner seat 3 (heart king); the trace is at DealA(). Seat 0's
  // side: 155 thirds = 51 2/3 -> 52 points; difference 52 - 35 = 17 -> 15 (nearest
  // 5). No bonus: T1 lies with the defenders (trula split), the kings are split,
  // the heart king fell in trick 6. Score 10 + 15 = 25 for seats 0 and 3.
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.contract, "three");
  EXPECT_EQ(r.declarer, 0);
  EXPECT_EQ(r.partner, 3);
  EXPECT_TRUE(r.declarer_won);
  EXPECT_EQ(r.card_thirds, (std::vector<int>{155, 55})) << Tricks(t.s());
  EXPECT_EQ(Thirds(t.st().won(0) | t.st().won(3)), 155);
  EXPECT_EQ(r.tricks, (std::vector<int>{11, 1, 0, 0}));
  EXPECT_TRUE(r.bonuses.empty());
  EXPECT_EQ(r.scores, (std::vector<int>{25, 0, 0, 25}));
  // Unrounded difference (option): 10 + 17 = 27.
  Table u = Start("slovenian-4p", DealA(), Dealt(0), {{"difference_rounding", "1"}});
  ASSERT_TRUE(Do(u.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(u.s()));
  EXPECT_EQ(u.s().Result().scores, (std::vector<int>{27, 0, 0, 27}));
}

TEST(Scoring, ThreeLostWithTheDefendersSilentTrula) {
  // Deal B, Three by seat 0 calling clubs (partner seat 2); seat 0 takes T11 H4 H3
  // and lays away H4 H3 H2 (3 thirds). Seat 1 leads T12..T22 and wins tricks 1-11
  // (seat 0 spends T2 T3 T4 T11, then H1 HJ HN HQ HK DK CN); trick 12: s1 S7, s2 SK,
  // s3 CJ, s0 CQ -> seat 2. Declarer side: 3 + (1+13+4+10) = 31 thirds = 10 1/3 ->
  // 10 points, lost by 25: -(10 + 25) = -35. The defenders hold T1 (talon), T21
  // and T22: silent trula -10. Score -45 for seats 0 and 2.
  Table t = Start("slovenian-4p", DealB(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call C, talon 0, discard H4, discard H3, discard H2"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_FALSE(r.declarer_won);
  EXPECT_EQ(r.card_thirds, (std::vector<int>{31, 179})) << Tricks(t.s());
  ASSERT_EQ(r.bonuses.size(), 1u);
  EXPECT_EQ(r.bonuses[0].name, "trula");
  EXPECT_EQ(r.bonuses[0].side, "defenders");
  EXPECT_EQ(r.bonuses[0].value, -10);
  EXPECT_EQ(r.scores, (std::vector<int>{-45, 0, -45, 0}));
}

TEST(Scoring, SoloThreeHasNoPartner) {
  // Deal A as Solo Three: the same play, 40 + 15 = 55 for seat 0 alone.
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid solo-three, talon 0, discard H4, discard H3, discard T11"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.partner, -1);
  EXPECT_EQ(r.scores, (std::vector<int>{55, 0, 0, 0})) << Tricks(t.s());
}

TEST(Scoring, KontraChainMultipliesTheGame) {
  // Deal A, Three worth 25 (see ThreeWonDifferenceRoundedToFive). The chain side
  // against side (game_kontra=side-against-side); GameKontraByAnyoneButTheDeclarer
  // has 003 §4.5.2's default.
  Table t = Start("slovenian-4p", DealA(), Dealt(0), kSideAgainstSide);
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  EXPECT_EQ(Legal(t.s()), "pass, announce trula, announce kings, announce king-ultimo, announce valat");
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_TRUE(absl::StrContains(Legal(t.s()), "kontra game"));  // seat 1, a defender
  ASSERT_TRUE(Do(t.s(), "kontra game"));
  EXPECT_FALSE(absl::StrContains(Legal(t.s()), "kontra game"));  // seat 2: rekontra is not his
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_TRUE(absl::StrContains(Legal(t.s()), "kontra game"));  // seat 3, the partner
  Table k1 = Start("slovenian-4p", DealA(), Dealt(0), kSideAgainstSide);
  ASSERT_TRUE(Do(k1.s(), HistoryText(t.s())));
  ASSERT_TRUE(Do(k1.s(), "pass, pass, pass"));  // kontra only: 25 x 2
  ASSERT_TRUE(PlayOut(k1.s()));
  EXPECT_EQ(k1.s().Result().game_kontra_level, 1);
  EXPECT_EQ(k1.s().Result().scores, (std::vector<int>{50, 0, 0, 50}));
  // Rekontra (x4), subkontra (x8), mordkontra (x16), then no more.
  ASSERT_TRUE(Do(t.s(), "kontra game, pass, kontra game, pass, kontra game, pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_FALSE(absl::StrContains(Legal(t.s()), "kontra game"));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  ASSERT_TRUE(PlayOut(t.s()));
  EXPECT_EQ(t.s().Result().game_kontra_level, 4);
  EXPECT_EQ(t.s().Result().scores, (std::vector<int>{400, 0, 0, 400}));
}

TEST(Scoring, AnnouncedTrulaLostAndKontraOnTheBonus) {
  // Deal A: the declarer announces the trula but T1 stays with the defenders:
  // 25 - 20 = 5; with a kontra on the trula 25 - 40 = -15.
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(Do(t.s(), "announce trula, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  const BonusResult* b = FindBonus(r, "trula");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->announcer, 0);
  EXPECT_FALSE(b->won);
  EXPECT_EQ(b->value, -20);
  EXPECT_EQ(r.scores, (std::vector<int>{5, 0, 0, 5}));

  Table k = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(k.s(), kDealAThree));
  ASSERT_TRUE(Do(k.s(), "announce trula"));
  EXPECT_TRUE(absl::StrContains(Legal(k.s()), "kontra trula"));  // seat 1 may
  ASSERT_TRUE(Do(k.s(), "kontra trula, pass"));
  // Seat 3 (partner) may rekontra the trula; 003 §4.5.2 lets him (any player but
  // the declarer) kontra the game too.
  EXPECT_EQ(Legal(k.s()), "pass, announce kings, announce king-ultimo, announce valat, kontra game, kontra trula");
  ASSERT_TRUE(Do(k.s(), "pass, pass, pass"));
  ASSERT_TRUE(PlayOut(k.s()));
  r = k.s().Result();
  EXPECT_EQ(FindBonus(r, "trula")->kontra_level, 1);
  EXPECT_EQ(r.scores, (std::vector<int>{-15, 0, 0, -15}));
}

TEST(Scoring, SilentTrulaKingsAndPagatUltimo) {
  // Deal K, Three calling clubs (partner seat 3); trace at DealK(): game 10 + 25 =
  // 35; silent trula +10, silent kings +10 (HK and SK in trick 12, DK and CK
  // thrown by seat 3 in tricks 4 and 9), silent Pagat Ultimo +25 (T1 takes trick
  // 12). The club king fell in trick 9: no King Ultimo. 35+10+10+25 = 80.
  Table t = Start("slovenian-4p", DealK(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call C, talon 0, discard C7, discard C8, discard C9"));
  ASSERT_TRUE(PlayOut(t.s(), kDealKPrefs));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{185, 25})) << Tricks(t.s());
  EXPECT_EQ(r.tricks, (std::vector<int>{11, 1, 0, 0}));
  ASSERT_EQ(r.bonuses.size(), 3u);
  EXPECT_EQ(FindBonus(r, "trula")->value, 10);
  EXPECT_EQ(FindBonus(r, "kings")->value, 10);
  EXPECT_EQ(FindBonus(r, "pagat-ultimo")->value, 25);
  EXPECT_EQ(FindBonus(r, "pagat-ultimo")->announcer, -1);
  EXPECT_EQ(r.scores, (std::vector<int>{80, 0, 0, 80}));
}

TEST(Scoring, KingUltimoSilentAndAnnouncedBonuses) {
  // Deal K calling spades: partner seat 3, whose SK falls in trick 12 taken by
  // seat 0's Pagat: King Ultimo +10 on top of 80 = 90.
  Table t = Start("slovenian-4p", DealK(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call S, talon 0, discard C7, discard C8, discard C9"));
  ASSERT_TRUE(PlayOut(t.s(), kDealKPrefs));
  HandResult r = t.s().Result();
  EXPECT_EQ(FindBonus(r, "king-ultimo")->value, 10);
  EXPECT_EQ(r.scores, (std::vector<int>{90, 0, 0, 90})) << Tricks(t.s());

  // All four announced: 35 + trula 20 + kings 20 + Pagat Ultimo 50 + King Ultimo 20 = 145.
  Table a = Start("slovenian-4p", DealK(), Dealt(0));
  ASSERT_TRUE(Do(a.s(), "pass, pass, pass, bid three, call S, talon 0, discard C7, discard C8, discard C9"));
  EXPECT_EQ(Legal(a.s()),
            "pass, announce trula, announce kings, announce king-ultimo, announce pagat-ultimo, "
            "announce valat");
  ASSERT_TRUE(Do(a.s(), "announce trula"));
  // A defender may announce for his side, but neither King Ultimo nor Pagat Ultimo.
  EXPECT_EQ(Legal(a.s()), "pass, announce kings, announce valat, kontra game, kontra trula");
  ASSERT_TRUE(Do(a.s(), "pass, pass, announce king-ultimo, announce kings, pass, pass, pass"));
  ASSERT_TRUE(Do(a.s(), "announce pagat-ultimo, pass, pass, pass, pass"));
  EXPECT_EQ(a.s().PhaseName(), "play");
  ASSERT_TRUE(PlayOut(a.s(), kDealKPrefs));
  r = a.s().Result();
  EXPECT_EQ(FindBonus(r, "king-ultimo")->announcer, 3);
  EXPECT_EQ(FindBonus(r, "king-ultimo")->value, 20);
  EXPECT_EQ(FindBonus(r, "pagat-ultimo")->value, 50);
  EXPECT_EQ(r.scores, (std::vector<int>{145, 0, 0, 145})) << Tricks(a.s());
}

TEST(Scoring, KingUltimoFailsWhenTheCalledKingIsLostInTheLastTrick) {
  // Deal A calling clubs: partner seat 2, whose CK is his last card and falls in
  // trick 12 to seat 1's SK. Same play and piles as with the heart call (155
  // thirds, game 25), but the failed silent King Ultimo costs 10: 15 for seats 0
  // and 2. Announced by the partner: -20: 5.
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call C, talon 0, discard H4, discard H3, discard T11"));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{155, 55})) << Tricks(t.s());
  const BonusResult* k = FindBonus(r, "king-ultimo");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(k->won);
  EXPECT_EQ(k->value, -10);
  EXPECT_EQ(r.scores, (std::vector<int>{15, 0, 15, 0}));
  Table a = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(a.s(), "pass, pass, pass, bid three, call C, talon 0, discard H4, discard H3, discard T11"));
  ASSERT_TRUE(Do(a.s(), "pass, pass, announce king-ultimo, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(a.s()));
  EXPECT_EQ(a.s().Result().scores, (std::vector<int>{5, 0, 5, 0}));
}

TEST(Scoring, OwnKingAloneAndADefendersFailedSilentPagat) {
  // Deal F, Two by seat 0 (forehand, dealer 3) calling his own heart king: alone.
  // He takes T17 T18 and lays them away. Play (preference lists):
  //   tricks 1-8  s0 leads SK SQ CK CQ DK DQ HK HJ; the others follow suit. Trick 8:
  //               s0 HJ, s1 H3, s2 H1, s3 HQ -> s3 (4+1+1+10 = 16 thirds)
  //   trick 9     s3 T9, s0 T19, s1 T2, s2 T5 -> s0
  //   tricks 10-12 s0 T20 T21 T22; s1 T3 T4 T1 (forced last), s2 T6 T7 T8,
  //               s3 T10 T11 T12 -> s0; no Imperator (T21 and T22 in separate tricks)
  // Defenders: 16 + T13..T16 (4) = 20 thirds; seat 0: 190 = 63 1/3 -> 63,
  // difference 28 -> 30: Two = 20 + 30 = 50. Silent trula +10 and kings +10 (all
  // his); seat 1's Pagat lost the last trick: a failed silent Pagat Ultimo of the
  // defenders, +25 for the declarer. 50 + 10 + 10 + 25 = 95, seat 0 only.
  // The scripts let the declarer open the announcements (announce_first=declarer).
  Table t = Start("slovenian-4p", DealF(), Dealt(3), {{"announce_first", "declarer"}});
  ASSERT_TRUE(Do(t.s(), kDealFTwo));
  ASSERT_TRUE(PlayOut(t.s(), kDealFPrefs));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{190, 20})) << Tricks(t.s());
  const BonusResult* p = FindBonus(r, "pagat-ultimo");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->side, "defenders");
  EXPECT_FALSE(p->won);
  EXPECT_EQ(p->value, 25);
  EXPECT_EQ(r.scores, (std::vector<int>{95, 0, 0, 0}));

  // Announced by seat 1 (the holder) and lost: +50 for the declarer: 120.
  Table a = Start("slovenian-4p", DealF(), Dealt(3), {{"announce_first", "declarer"}});
  ASSERT_TRUE(Do(a.s(), kDealFTwo));
  ASSERT_TRUE(Do(a.s(), "pass, announce pagat-ultimo, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(a.s(), kDealFPrefs));
  r = a.s().Result();
  EXPECT_EQ(FindBonus(r, "pagat-ultimo")->announcer, 1);
  EXPECT_EQ(FindBonus(r, "pagat-ultimo")->value, 50);
  EXPECT_EQ(r.scores, (std::vector<int>{120, 0, 0, 0})) << Tricks(a.s());
}

// Deal M: deal F with T22 (seat 0) and T12 (seat 3) swapped.
Deal DealM() {
  return MakeDeal({"HK HJ DK DQ CK CQ SK SQ T12 T19 T20 T21",
                   "T1 T2 T3 T4 H4 H3 D4 D3 C7 C8 S7 S8",
                   "T5 T6 T7 T8 H2 H1 D2 D1 C9 C10 S9 S10",
                   "T9 T10 T11 T22 HQ HN DJ DN CJ CN SJ SN"},
                  "T13 T14 T15 T16 T17 T18");
}
const std::vector<std::string> kDealMPrefs = {"SK SQ CK CQ DK DQ HK HJ T19 T20 T12 T21",
                                              "S7 S8 C7 C8 D4 D3 H4 H3 T2 T3 T4 T1", "",
                                              "SJ SN CJ CN DJ DN HN HQ T9 T10 T11 T22"};

TEST(Scoring, ImperatorMondfangAndTheDefendersSilentPagatUltimo) {
  // Deal M, Two by seat 0 (own king, alone). Tricks 1-11 as in deal F except
  // tricks 9-11: s3 T9 / s0 T19, s0 T20, s0 T12 (beats s3's T11). Trick 12: s0
  // T21, s1 T1, s2 T8, s3 T22: the Imperator, the Pagat takes it for seat 1.
  // Defenders: trick 8 (16) + trick 12 (13+13+1+13 = 40) + T13..T16 (4) = 60
  // thirds; seat 0: 150 = 50 points, difference 15: Two = 20 + 15 = 35. Trula with
  // the defenders -10; kings +10; the defenders' silent Pagat Ultimo -25: 35 - 10 +
  // 10 - 25 = 10. Mondfang: seat 0's Mond fell with the Skis: -20 -> -10.
  Table t = Start("slovenian-4p", DealM(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), kDealFTwo));
  ASSERT_TRUE(PlayOut(t.s(), kDealMPrefs));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{10, 1, 0, 1})) << Tricks(t.s());
  EXPECT_EQ(r.card_thirds, (std::vector<int>{150, 60}));
  EXPECT_EQ(FindBonus(r, "pagat-ultimo")->value, -25);
  EXPECT_EQ(FindBonus(r, "trula")->value, -10);
  ASSERT_EQ(r.penalties.size(), 1u);
  EXPECT_EQ(r.penalties[0].seat, 0);
  EXPECT_EQ(r.penalties[0].points, -20);
  EXPECT_EQ(r.penalties[0].reason, "mondfang");
  EXPECT_EQ(r.scores, (std::vector<int>{-10, 0, 0, 0}));

  // Without the Imperator the Skis takes trick 12 for seat 3; the piles are the
  // same, but seat 1's Pagat now fails in the last trick: +25 instead of -25:
  // 35 - 10 + 10 + 25 = 60, Mondfang -20 -> 40.
  Table u = Start("slovenian-4p", DealM(), Dealt(3), {{"imperator", "off"}});
  ASSERT_TRUE(Do(u.s(), kDealFTwo));
  ASSERT_TRUE(PlayOut(u.s(), kDealMPrefs));
  r = u.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{10, 0, 0, 2})) << Tricks(u.s());
  EXPECT_EQ(r.scores, (std::vector<int>{40, 0, 0, 0}));
}

TEST(Scoring, ValatReplacesEverythingElse) {
  // Deal A, but seat 0 lays away S7 and keeps T11..T22: he takes all 12 tricks.
  // A silent valat is worth 250 and replaces the game and every other bonus.
  const char* script = "pass, pass, pass, bid three, call H, talon 0, discard H4, discard H3, discard S7";
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), script));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{12, 0, 0, 0})) << Tricks(t.s());
  ASSERT_EQ(r.bonuses.size(), 1u);
  EXPECT_EQ(r.bonuses[0].name, "valat");
  EXPECT_EQ(r.scores, (std::vector<int>{250, 0, 0, 250}));
  // Announced: 500; announced and kontra'd by a defender: 1000.
  Table a = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(a.s(), script));
  ASSERT_TRUE(Do(a.s(), "announce valat, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(a.s()));
  EXPECT_EQ(a.s().Result().scores, (std::vector<int>{500, 0, 0, 500}));
  Table k = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(k.s(), script));
  ASSERT_TRUE(Do(k.s(), "announce valat, kontra valat, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(k.s()));
  EXPECT_EQ(k.s().Result().scores, (std::vector<int>{1000, 0, 0, 1000}));
}

TEST(Scoring, AnnouncedValatMissedCosts500) {
  // Deal A as in ThreeWonDifferenceRoundedToFive (25), valat announced but trick
  // 12 lost: 25 - 500 = -475.
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(Do(t.s(), "announce valat, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(FindBonus(r, "valat")->value, -500);
  EXPECT_EQ(r.scores, (std::vector<int>{-475, 0, 0, -475}));
}

TEST(Scoring, DefendersValatAndAFailedAnnouncedValat) {
  // Deal B with SK and S7 swapped between seats 1 and 2: seat 1 leads T12..T22
  // and then SK (seat 2 must follow with SQ), so the defenders take all twelve
  // tricks: their silent valat, -250 for seats 0 and 2, replaces the game (-70:
  // 3 thirds = 1 point, lost by 34 -> 35) and the trula.
  Deal d = DealB();
  d.hands[1] = Cards("T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 SK");
  d.hands[2] = Cards("T5 T6 T7 C7 CK S7 S8 S9 S10 SJ SN SQ");
  const char* script = "pass, pass, pass, bid three, call C, talon 0, discard H4, discard H3, discard H2";
  Table t = Start("slovenian-4p", d, Dealt(0));
  ASSERT_TRUE(Do(t.s(), script));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{0, 12, 0, 0})) << Tricks(t.s());
  ASSERT_EQ(r.bonuses.size(), 1u);
  EXPECT_EQ(r.bonuses[0].side, "defenders");
  EXPECT_EQ(r.scores, (std::vector<int>{-250, 0, -250, 0}));
  // The declarer announced valat (dealer 0 = declarer opens the announcements)
  // and the defenders take every trick. 003 is silent on this corner; we charge
  // the failed announcement only, as for every announced bonus (an opposing
  // silent success of the same bonus is not counted): -500; §3.1's valat still
  // cancels the game and the trula. The radl doubles (§5.1): -1000, and stays
  // (negative).
  Table a = Start("slovenian-4p", d, Dealt(0, {1, 0, 0, 0}));
  ASSERT_TRUE(Do(a.s(), script));
  ASSERT_TRUE(Do(a.s(), "announce valat, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(a.s()));
  r = a.s().Result();
  ASSERT_EQ(r.bonuses.size(), 1u);
  EXPECT_EQ(r.bonuses[0].side, "declarer");
  EXPECT_FALSE(r.bonuses[0].won);
  EXPECT_EQ(r.bonuses[0].value, -500);
  EXPECT_EQ(r.scores, (std::vector<int>{-1000, 0, -1000, 0}));
  EXPECT_EQ(r.radli, (std::vector<int>{1, 0, 0, 0}));
  // failed_valat_charge=both (the engine before issue 11): the defenders' silent
  // valat and the failed announcement: -250 - 500 = -750, doubled -1500.
  Table b = Start("slovenian-4p", d, Dealt(0, {1, 0, 0, 0}), {{"failed_valat_charge", "both"}});
  ASSERT_TRUE(Do(b.s(), script));
  ASSERT_TRUE(Do(b.s(), "announce valat, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(b.s()));
  r = b.s().Result();
  EXPECT_EQ(r.bonuses.size(), 2u);
  EXPECT_EQ(r.scores, (std::vector<int>{-1500, 0, -1500, 0}));
}

// Deal SW (4p, dealer 3): Solo Without by seat 0 with T10..T20 and SN; the four
// kings, the Mond and the Skis lie in the talon, which goes to the defenders.
Deal DealSW(bool lose) {
  return MakeDeal({"T10 T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 SN",
                   "T1 T2 T3 S7 S8 S9 S10 SJ SQ H4 H3 H2",
                   lose ? "T4 T5 T6 D4 D3 D2 D1 DJ CJ DQ HJ HN" : "T4 T5 T6 D4 D3 D2 D1 DJ DN DQ HJ HN",
                   lose ? "T7 T8 T9 C7 C8 C9 C10 DN CN CQ H1 HQ" : "T7 T8 T9 C7 C8 C9 C10 CJ CN CQ H1 HQ"},
                  "HK DK CK SK T21 T22");
}

TEST(Scoring, PositiveContractNeedsThirtyFiveAndTwoThirds) {
  // Seat 0 leads T10..T20 and wins tricks 1-11 (the others hold T1..T9); in trick
  // 12 he leads SN, seat 1 keeps SQ to the end and takes it, seats 2 and 3 keep
  // DJ and CJ: 7+10+4+4 = 25 thirds. Defenders: talon 6 x 13 = 78 + 25 = 103;
  // seat 0: 107 thirds = 35 2/3, won: +80 (no difference in Solo Without).
  // Preference lists: each defender keeps the named card for the last trick.
  const std::vector<std::string> prefs = {"", "T1 T2 T3 S7 S8 S9 S10 SJ H4 H3 H2 SQ",
                                          "T4 T5 T6 D4 D3 D2 D1 DN DQ HJ HN DJ",
                                          "T7 T8 T9 C7 C8 C9 C10 CN CQ H1 HQ CJ"};
  Table t = Start("slovenian-4p", DealSW(false), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid solo-without, pass, pass, pass, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s(), prefs));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{11, 1, 0, 0})) << Tricks(t.s());
  EXPECT_EQ(r.card_thirds, (std::vector<int>{107, 103}));
  EXPECT_TRUE(r.declarer_won);
  EXPECT_EQ(r.scores, (std::vector<int>{80, 0, 0, 0}));
  // Seat 3 keeps DN instead of CJ: trick 12 is 7+10+4+7 = 28, seat 0 has 104
  // thirds = 34 2/3, which rounds to 35 points but is less than 35 2/3: lost, -80.
  Table u = Start("slovenian-4p", DealSW(true), Dealt(3));
  ASSERT_TRUE(Do(u.s(), "bid solo-without, pass, pass, pass, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(u.s(), {"", prefs[1], "T4 T5 T6 D4 D3 D2 D1 CJ DQ HJ HN DJ", "T7 T8 T9 C7 C8 C9 C10 CN CQ H1 HQ DN"}));
  r = u.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{104, 106})) << Tricks(u.s());
  EXPECT_FALSE(r.declarer_won);
  EXPECT_EQ(r.scores, (std::vector<int>{-80, 0, 0, 0}));
}

TEST(Scoring, TappLost21CapturedInPlay) {
  // Deal T with T2 and T22 swapped between seats 0 and 1. Seat 0 takes row 0 (the
  // Mond) and leads it; seat 1's Skis captures it: -21 for seat 0.
  Deal d = DealT();
  d.hands[0] = Cards("T2 T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 S7");
  d.hands[1] = Cards("T22 T3 T4 S8 S9 S10 SJ SN SQ SK H2 H1 HJ HN HQ HK");
  Table t = Start("slovenian-tapp", d, Dealt(0));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass, bid three, talon 0, discard H4, discard H3, discard T7, pass, pass, pass"));
  ASSERT_TRUE(Do(t.s(), "play T21, play T22, play T5"));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  ASSERT_EQ(r.penalties.size(), 1u);
  EXPECT_EQ(r.penalties[0].seat, 0);
  EXPECT_EQ(r.penalties[0].points, -21);
  // The rest of the score follows the ordinary rules (Tapp: exact difference).
  const int dt = r.card_thirds[0];
  int want = (dt >= 107 ? 1 : -1) * (10 + std::abs((dt + 1) / 3 - 35)) - 21;
  for (const BonusResult& b : r.bonuses) want += b.value;
  EXPECT_EQ(r.scores[0], want) << Tricks(t.s());
  EXPECT_EQ(r.scores[1], 0);
  // Deal T with T2 and T21 swapped (seat 1 holds the Mond): seat 0 leads the Skis,
  // seat 1 must follow with a tarock and gives up the Mond: -21 for the defender
  // seat 1, his only score; the declarer is not charged.
  Deal e = DealT();
  e.hands[1] = Cards("T21 T3 T4 S8 S9 S10 SJ SN SQ SK H2 H1 HJ HN HQ HK");
  e.talon = CardList("T2 H4 H3 T1 D4 D3");
  Table u = Start("slovenian-tapp", e, Dealt(0));
  ASSERT_TRUE(Do(u.s(), "bid three, pass, pass, bid three, talon 1, discard D4, discard D3, discard T7, pass, pass, pass"));
  ASSERT_TRUE(Do(u.s(), "play T22, play T21, play T5"));
  ASSERT_TRUE(PlayOut(u.s()));
  r = u.s().Result();
  ASSERT_EQ(r.penalties.size(), 1u);
  EXPECT_EQ(r.penalties[0].seat, 1);
  EXPECT_EQ(r.scores[1], -21);
  EXPECT_EQ(r.scores[2], 0);
}

// Deal A2: deal A with T21 (seat 0) and D4 (talon group 1) swapped.
Deal DealA2() {
  return MakeDeal({"T12 T13 T14 T15 T16 T17 T18 T19 T20 T22 D4 S7",
                   "T2 T3 T4 S8 S9 S10 SJ SN SQ SK H2 H1",
                   "T5 T6 T7 C7 C8 C9 C10 CJ CN CQ CK HJ",
                   "T8 T9 T10 HN HQ HK D2 D1 DJ DN DQ DK"},
                  "T11 H4 H3 T1 T21 D3");
}

TEST(Scoring, MondLeftInTheTalonCostsTheDeclarer20) {
  // Deal A2: seat 0 takes T11 H4 H3 (leaving T1 T21 D3) and lays away H4 H3 D4.
  // Play as deal A (s0 wins trick 1 with T11, leads T12..T20, T22, loses S7 to SK).
  // Defenders: 40 + 27 (T1 T21 D3) = 67; seat 0's side 143 thirds = 47 2/3 -> 48,
  // difference 13 -> 15: 10 + 15 = 25. Seat 0 left the Mond in the exposed talon:
  // -20 for him alone, not for his partner: 5 and 25.
  Table t = Start("slovenian-4p", DealA2(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call H, talon 0, discard H4, discard H3, discard D4"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{143, 67})) << Tricks(t.s());
  ASSERT_EQ(r.penalties.size(), 1u);
  EXPECT_EQ(r.penalties[0].seat, 0);
  EXPECT_EQ(r.penalties[0].points, -20);
  EXPECT_EQ(r.scores, (std::vector<int>{5, 0, 0, 25}));
  // Taking the Mond (group 1) costs nothing.
  Table u = Start("slovenian-4p", DealA2(), Dealt(0));
  ASSERT_TRUE(Do(u.s(), "pass, pass, pass, bid three, call H, talon 1"));
  ASSERT_TRUE(PlayOut(u.s()));
  EXPECT_TRUE(u.s().Result().penalties.empty());
}

TEST(Scoring, TappThreeLost21AndSilentBonuses) {
  // Deal T, Tapp Three by the dealer (seat 0), who takes row 1 (T1 D4 D3), lays
  // away D4 D3 T7 and leaves the Mond in row 0. The dealer leads:
  //   tricks 1-14  s0 leads T8..T20, T22; s1 T2 T3 T4 then H2 H1 HJ HN HQ HK S8 S9
  //                S10 SJ SN; s2 T5 T6 then D2 D1 DJ DN DQ DK C7 C8 C9 C10 CJ CN -> s0
  //   trick 15     s0 S7, s1 SQ, s2 CQ -> s1 (1+10+10 = 21 thirds)
  //   trick 16     s1 SK, s2 CK, s0 T1 -> s0: silent Pagat Ultimo
  // Defenders: 21 + row 0 (T21 H4 H3: 13+1+1) = 36; seat 0: 174 thirds = 58,
  // difference 23 (Tapp does not round it): 10 + 23 = 33. Kings +10 (all four his),
  // Pagat Ultimo +25, Lost 21 -21: 33 + 10 + 25 - 21 = 47. Only the declarer scores.
  const char* script = "bid three, pass, pass, bid three, talon 1, discard D4, discard D3, discard T7";
  const std::vector<std::string> prefs = {"T8 T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T22 S7 T1"};
  Table t = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), script));
  EXPECT_EQ(Legal(t.s()), "pass, announce trula, announce kings, announce pagat-ultimo, announce valat");
  ASSERT_TRUE(PlayOut(t.s(), prefs));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{174, 36})) << Tricks(t.s());
  ASSERT_EQ(r.penalties.size(), 1u);
  EXPECT_EQ(r.penalties[0].points, -21);
  EXPECT_EQ(r.penalties[0].reason, "lost-21");
  EXPECT_EQ(r.scores, (std::vector<int>{47, 0, 0}));
  // Pagat Ultimo announced (and kept, as 000 requires): 50 instead of 25: 72.
  Table a = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(Do(a.s(), script));
  ASSERT_TRUE(Do(a.s(), "announce pagat-ultimo, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(a.s(), prefs));
  EXPECT_EQ(a.s().Result().scores, (std::vector<int>{72, 0, 0})) << Tricks(a.s());
}

TEST(Scoring, TappSoloWithoutHasNoTalonPenaltyAndNoBonuses) {
  Table t = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass, bid solo-without"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  ASSERT_TRUE(PlayOut(t.s(), {"T8 T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T22 T7 S7"}));
  const HandResult r = t.s().Result();
  EXPECT_TRUE(r.penalties.empty());  // the Mond lay in the unexposed talon
  EXPECT_TRUE(r.bonuses.empty());
  EXPECT_EQ(r.radli, (std::vector<int>{0, 0, 0}));  // no radli in Tapp
  // Declarer's pile without the talon: 210 - talon (T21 H4 H3 T1 D4 D3 = 30) - lost tricks.
  const int thirds = Thirds(t.st().won(0));
  EXPECT_EQ(r.card_thirds[0], thirds);
  EXPECT_EQ(r.scores[0], thirds >= 107 ? 80 : -80) << Tricks(t.s());
}

TEST(Scoring, KlopOnePlayerTakesEverything) {
  // Deal KL: seat 1 leads T11..T22 and nobody can beat him: he takes all 12
  // tricks and the six talon cards, 210 thirds > 35 points: -70. The three others
  // took no trick: +70 each.
  Table t = Start("slovenian-4p", DealKL(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid klop"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.contract, "klop");
  EXPECT_EQ(r.card_thirds, (std::vector<int>{0, 210, 0, 0})) << Tricks(t.s());
  EXPECT_EQ(r.scores, (std::vector<int>{70, -70, 70, 70}));
  EXPECT_EQ(r.radli, (std::vector<int>{1, 1, 1, 1}));
}

// Two Klop deals (4p, dealer 0) taken from seeded deals (slovenian-4p seeds 4 and
// 7), written out here.
Deal DealKlopMinus() {
  return MakeDeal({"T5 T11 T12 T15 H4 H3 HK D3 CJ CN S9 S10",
                   "T1 T8 T10 T19 T22 HQ DN DK C7 C8 S8 SJ",
                   "T4 T6 T9 T17 T21 H2 H1 D1 C10 S7 SQ SK",
                   "T2 T3 T7 T14 T16 HJ D4 DJ C9 CQ CK SN"},
                  "DQ HN T20 T13 T18 D2");
}
Deal DealKlopNoTrick() {
  return MakeDeal({"T2 T4 T12 T15 T16 H4 DJ DK CJ CN S10 SJ",
                   "T1 T6 T8 T9 T17 HN D2 D1 DN C7 C9 S7",
                   "T10 T13 T18 T22 H2 HJ DQ C8 CQ CK SN SQ",
                   "T3 T5 T7 T19 T21 H3 HQ D4 D3 C10 S8 S9"},
                  "T11 T20 SK T14 HK H1");
}

TEST(Scoring, KlopEveryoneLosesHisRoundedPoints) {
  // First-legal play of DealKlopMinus (trick: cards in play order, winner):
  //   1 s1 T8 s2 T9 s3 T14 s0 T15 -> s0 (+DQ)   7 s3 D4 s0 D3 s1 DN s2 D1 -> s1
  //   2 s0 T5 s1 T10 s2 T17 s3 T2 -> s2 (+HN)   8 s1 DK s2 T21 s3 DJ s0 H3 -> s2
  //   3 s2 T4 s3 T7 s0 T11 s1 T19 -> s1 (+T20)  9 s2 C10 s3 CQ s0 CJ s1 C7 -> s3
  //   4 s1 T22 s2 T6 s3 T3 s0 T12 -> s1 (+T13) 10 s3 C9 s0 CN s1 C8 s2 S7 -> s0
  //   5 s1 HQ s2 H2 s3 HJ s0 HK -> s0 (+T18)   11 s0 S9 s1 SJ s2 SQ s3 SN -> s2
  //   6 s0 H4 s1 T1 s2 H1 s3 T16 -> s3 (+D2)   12 s2 SK s3 CK s0 S10 s1 S8 -> s2
  // Seat 1: tricks 3 (4 thirds), 4 (13+1+1+1 = 16), 7 (1+1+7+1 = 10) and T20, T13
  // (2) = 32 thirds = 10 2/3 -> 11. The piles are 53, 32, 92, 33 thirds: everyone
  // took a trick, nobody more than 35 points: -18, -11, -31, -11.
  Table t = Start("slovenian-4p", DealKlopMinus(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid klop"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{3, 3, 4, 2})) << Tricks(t.s());
  EXPECT_EQ(r.card_thirds, (std::vector<int>{53, 32, 92, 33}));
  EXPECT_EQ(r.scores, (std::vector<int>{-18, -11, -31, -11}));
  EXPECT_EQ(r.scores, ExpectedKlop(t.st(), 4, 107));
  // With radli on seats 0 and 1: both negative, doubled, kept (+1 new each).
  Table u = Start("slovenian-4p", DealKlopMinus(), Dealt(0, {1, 2, 0, 0}));
  ASSERT_TRUE(Do(u.s(), "pass, pass, pass, bid klop"));
  ASSERT_TRUE(PlayOut(u.s()));
  EXPECT_EQ(u.s().Result().scores, (std::vector<int>{-36, -22, -31, -11}));
  EXPECT_EQ(u.s().Result().radli, (std::vector<int>{2, 3, 1, 1}));
}

TEST(Scoring, KlopPlayerWithoutATrickAloneScores70) {
  // DealKlopNoTrick, first-legal play: seat 1 takes no trick (+70); the others
  // hold 52, 92 and 66 thirds, none more than 35 points, and score nothing.
  // Traced with red pips 1 > 2 > 3 > 4 (red_pip_order=traditional).
  Table t = Start("slovenian-4p", DealKlopNoTrick(), Dealt(0), {{"red_pip_order", "traditional"}});
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid klop"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks[1], 0) << Tricks(t.s());
  EXPECT_EQ(r.card_thirds, (std::vector<int>{52, 0, 92, 66}));
  EXPECT_EQ(r.scores, (std::vector<int>{0, 70, 0, 0}));
  EXPECT_EQ(r.scores, ExpectedKlop(t.st(), 4, 107));
  // The other hand-built deals, checked against the rule computed from the piles.
  for (const Deal& d : {DealA(), DealB(), DealK(), DealOT(), DealBG(), DealCV()}) {
    Table k = Start("slovenian-4p", d, Dealt(0));
    ASSERT_TRUE(Do(k.s(), "pass, pass, pass, bid klop"));
    ASSERT_TRUE(PlayOut(k.s()));
    EXPECT_EQ(k.s().Result().scores, ExpectedKlop(k.st(), 4, 107)) << Tricks(k.s());
  }
}

TEST(Scoring, TappKlopLosesOnlyAboveThirtyFiveTwoThirds) {
  for (const Deal& d : {DealT()}) {
    for (int dealer = 0; dealer < 3; ++dealer) {
      Table t = Start("slovenian-tapp", d, Dealt(dealer));
      ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
      ASSERT_TRUE(PlayOut(t.s()));
      EXPECT_EQ(t.s().Result().scores, ExpectedKlop(t.st(), 3, 108)) << Tricks(t.s());
      EXPECT_TRUE(t.s().Result().penalties.empty());  // no Lost 21 in Klop
    }
  }
  EXPECT_EQ(MakeRules("slovenian-tapp", {}).klop_lose_thirds, 108);
  EXPECT_EQ(MakeRules("slovenian-4p", {}).klop_lose_thirds, 107);
}

TEST(Scoring, BeggarWonPlaysAllTricks) {
  // Deal BG: seat 0 holds T2..T5 and the lowest card of every suit; whoever leads,
  // he can never beat the table (others must beat him where they can). He takes
  // no trick in twelve: +70.
  Table t = Start("slovenian-4p", DealBG(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid beggar, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(t.s().History().size(), 4u + 4u + 48u);
  EXPECT_EQ(r.tricks[0], 0) << Tricks(t.s());
  EXPECT_TRUE(r.declarer_won);
  EXPECT_EQ(r.scores, (std::vector<int>{70, 0, 0, 0}));
  EXPECT_EQ(r.radli, (std::vector<int>{0, 0, 0, 0}));  // Beggar gives no radl by default
  EXPECT_TRUE(r.bonuses.empty());
}

TEST(Scoring, BeggarLostEndsAtTheDeclarersFirstTrick) {
  Deal d = DealBG();  // seat 0 gets T22 for T5
  d.hands[0] = Cards("T2 T3 T4 T22 H4 H3 H2 D4 D3 D2 C7 S7");
  d.talon = CardList("T5 T20 T21 CK SQ SK");
  Table t = Start("slovenian-4p", d, Dealt(3), {{"announce_first", "declarer"}});
  ASSERT_TRUE(Do(t.s(), "bid beggar, pass, pass, pass, pass, pass, pass, pass, play T22"));
  EXPECT_EQ(Legal(t.s()), "play T6, play T7, play T8, play T9");  // cannot beat the Skis
  ASSERT_TRUE(Do(t.s(), "play T6, play T10, play T15"));
  ASSERT_TRUE(t.s().IsTerminal());
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{1, 0, 0, 0}));
  EXPECT_EQ(r.scores, (std::vector<int>{-70, 0, 0, 0}));
  // With a kontra on the game: -140.
  Table k = Start("slovenian-4p", d, Dealt(3), {{"announce_first", "declarer"}});
  ASSERT_TRUE(Do(k.s(), "bid beggar, pass, pass, pass, pass, kontra game, pass, pass, pass, pass"));
  ASSERT_TRUE(Do(k.s(), "play T22, play T6, play T10, play T15"));
  EXPECT_EQ(k.s().Result().scores, (std::vector<int>{-140, 0, 0, 0}));
}

TEST(Scoring, OpenBeggarIsWorth90AndGivesRadli) {
  Table t = Start("slovenian-4p", DealBG(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid open-beggar, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.scores, (std::vector<int>{90, 0, 0, 0})) << Tricks(t.s());
  EXPECT_EQ(r.radli, (std::vector<int>{1, 1, 1, 1}));
}

TEST(Scoring, ValatContractWonOrLostAtTheFirstLostTrick) {
  // Deal A with seat 0 holding T11..T22 (S7 in the talon): Valat, 500.
  Deal d = DealA();
  d.hands[0] = Cards("T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22");
  d.talon = CardList("S7 H4 H3 T1 D4 D3");
  Table t = Start("slovenian-4p", d, Dealt(3), {{"announce_first", "declarer"}});
  ASSERT_TRUE(Do(t.s(), "bid valat, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{12, 0, 0, 0}));
  EXPECT_EQ(r.scores, (std::vector<int>{500, 0, 0, 0}));
  EXPECT_EQ(r.radli, (std::vector<int>{1, 1, 1, 1}));
  // Deal A itself: seat 0 leads S7 and loses the first trick; kontra'd: -1000.
  Table l = Start("slovenian-4p", DealA(), Dealt(3), {{"announce_first", "declarer"}});
  ASSERT_TRUE(Do(l.s(), "bid valat, pass, pass, pass, pass, kontra game, pass, pass, pass, pass"));
  EXPECT_EQ(l.s().CurrentSeat(), 0);  // the declarer leads Valat
  ASSERT_TRUE(Do(l.s(), "play S7, play SK, play T5, play T8"));
  ASSERT_TRUE(l.s().IsTerminal());
  r = l.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{0, 0, 0, 1}));
  EXPECT_EQ(r.scores, (std::vector<int>{-1000, 0, 0, 0}));
}

// ---------------------------------------------------------------------------
// 5b. Radli (003 §5.1).

TEST(Radl, DeclarersRadlDoublesAndIsStruckWhenPositive) {
  // Deal A, Three worth 25: the declarer's radl doubles his side: 50 each; one
  // radl struck. A Three creates no new radli. Seat 2's radli are untouched.
  Table t = Start("slovenian-4p", DealA(), Dealt(0, {1, 0, 2, 0}));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.scores, (std::vector<int>{50, 0, 0, 50}));
  EXPECT_EQ(r.radli, (std::vector<int>{0, 0, 2, 0}));
  // With radl=declarer-only (the pre-issue-11 reading) the partner's radl alone
  // does not double and is not struck.
  Table p = Start("slovenian-4p", DealA(), Dealt(0, {0, 0, 0, 1}), {{"radl", "declarer-only"}});
  ASSERT_TRUE(Do(p.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(p.s()));
  EXPECT_EQ(p.s().Result().scores, (std::vector<int>{25, 0, 0, 25}));
  EXPECT_EQ(p.s().Result().radli, (std::vector<int>{0, 0, 0, 1}));
}

TEST(Radl, PartnersRadlDoublesTheSideAsWell) {
  // 003 §5.1: "Hat ein Spieler ein Radl neben seinem Namen, wird ... seine
  // erreichte Punktzahl (und die seines ev. Partners) verdoppelt. Ist die
  // Punktzahl negativ verbleibt das Radl, bei positiver Punktzahl wird es
  // gestrichen." Deal A, Three by seat 0 with seat 3 (HK) as partner, worth 25
  // (ThreeWonDifferenceRoundedToFive). Seat 3 holds the radl: his score and his
  // partner's, 25, are doubled: 50 each; positive, so seat 3's radl is struck.
  Table t = Start("slovenian-4p", DealA(), Dealt(0, {0, 0, 0, 1}));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(t.s()));
  EXPECT_EQ(t.s().Result().scores, (std::vector<int>{50, 0, 0, 50}));
  EXPECT_EQ(t.s().Result().radli, (std::vector<int>{0, 0, 0, 0}));
  // Both hold one: the side's one score is doubled once (§5.1 speaks of one
  // doubling; both score the same amount, §5): 50; each strikes his radl.
  Table b = Start("slovenian-4p", DealA(), Dealt(0, {1, 0, 0, 1}));
  ASSERT_TRUE(Do(b.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(b.s()));
  EXPECT_EQ(b.s().Result().scores, (std::vector<int>{50, 0, 0, 50}));
  EXPECT_EQ(b.s().Result().radli, (std::vector<int>{0, 0, 0, 0}));
}

TEST(Radl, PartnersRadlStaysWithHimWhenTheScoreIsNegative) {
  // Deal B, Three by seat 0 with seat 2 (CK) as partner, lost: -45
  // (NegativeScoreKeepsTheRadl). Seat 2's radl doubles the side: -90 each. The
  // score is negative, so "verbleibt das Radl" (§5.1): it stays where it is,
  // beside seat 2's name; the declarer gets none.
  const char* script = "pass, pass, pass, bid three, call C, talon 0, discard H4, discard H3, discard H2";
  Table t = Start("slovenian-4p", DealB(), Dealt(0, {0, 0, 1, 0}));
  ASSERT_TRUE(Do(t.s(), script));
  ASSERT_TRUE(PlayOut(t.s()));
  EXPECT_EQ(t.s().Result().scores, (std::vector<int>{-90, 0, -90, 0}));
  EXPECT_EQ(t.s().Result().radli, (std::vector<int>{0, 0, 1, 0}));
  // Both hold one: -90 once, both radli stay.
  Table b = Start("slovenian-4p", DealB(), Dealt(0, {1, 0, 1, 0}));
  ASSERT_TRUE(Do(b.s(), script));
  ASSERT_TRUE(PlayOut(b.s()));
  EXPECT_EQ(b.s().Result().scores, (std::vector<int>{-90, 0, -90, 0}));
  EXPECT_EQ(b.s().Result().radli, (std::vector<int>{1, 0, 1, 0}));
  // radl=declarer-only: the partner's radl plays no part: -45.
  Table o = Start("slovenian-4p", DealB(), Dealt(0, {0, 0, 1, 0}), {{"radl", "declarer-only"}});
  ASSERT_TRUE(Do(o.s(), script));
  ASSERT_TRUE(PlayOut(o.s()));
  EXPECT_EQ(o.s().Result().scores, (std::vector<int>{-45, 0, -45, 0}));
  EXPECT_EQ(o.s().Result().radli, (std::vector<int>{0, 0, 1, 0}));
}

TEST(Radl, NegativeScoreKeepsTheRadl) {
  // Deal B, Three lost, -45 doubled: -90 for seats 0 and 2; the radl stays.
  Table t = Start("slovenian-4p", DealB(), Dealt(0, {1, 0, 0, 0}));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call C, talon 0, discard H4, discard H3, discard H2"));
  ASSERT_TRUE(PlayOut(t.s()));
  EXPECT_EQ(t.s().Result().scores, (std::vector<int>{-90, 0, -90, 0}));
  EXPECT_EQ(t.s().Result().radli, (std::vector<int>{1, 0, 0, 0}));
}

TEST(Radl, MondfangIsNotDoubled) {
  // Deal A2 with a radl: the side's 25 doubles to 50; seat 0's -20 stays -20: 30.
  Table t = Start("slovenian-4p", DealA2(), Dealt(0, {1, 0, 0, 0}));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call H, talon 0, discard H4, discard H3, discard D4"));
  ASSERT_TRUE(PlayOut(t.s()));
  EXPECT_EQ(t.s().Result().scores, (std::vector<int>{30, 0, 0, 50}));
}

TEST(Radl, KlopDoublesEachPlayersOwnScoreAndAddsARadl) {
  // Deal KL (70, -70, 70, 70) with radli 1, 1, 0, 0: seat 0 +140 (radl struck,
  // then the Klop's new one), seat 1 -140 (kept, plus the new one).
  Table t = Start("slovenian-4p", DealKL(), Dealt(0, {1, 1, 0, 0}));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid klop"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.scores, (std::vector<int>{140, -140, 70, 70}));
  EXPECT_EQ(r.radli, (std::vector<int>{1, 2, 1, 1}));
}

TEST(Radl, NewRadliAfterContractsAboveBeggarAndOptionallyBeggar) {
  // Solo Without (above Beggar): a radl for everyone, not applied to this hand.
  Table t = Start("slovenian-4p", DealA(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid solo-without, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  EXPECT_EQ(std::abs(r.scores[0]), 80);
  EXPECT_EQ(r.radli, (std::vector<int>{1, 1, 1, 1}));
  // Beggar: none by default (BeggarWonPlaysAllTricks), one each with the option.
  Table b = Start("slovenian-4p", DealBG(), Dealt(3), {{"radl_for_beggar", "yes"}});
  ASSERT_TRUE(Do(b.s(), "bid beggar, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(b.s()));
  r = b.s().Result();
  EXPECT_EQ(r.scores, (std::vector<int>{70, 0, 0, 0}));
  EXPECT_EQ(r.radli, (std::vector<int>{1, 1, 1, 1}));
}

// ---------------------------------------------------------------------------
// 5d. Where 003 is clear, its text is the default (issue 11). Each earlier
// reading is an option; house=real-play sets them all.

TEST(Document003, TheDealerOpensTheAnnouncements) {
  // 003 §4.5: "Angefangen beim Geber kann jeder Spieler seine Ankündigungen
  // abgeben ... Erst wenn alle Spieler passen, sind die Ankündigungen beendet."
  // Deal BG, dealer 3: seat 0 bids Beggar, seats 1-3 pass. The dealer, seat 3 (a
  // defender), speaks first and may kontra the game; then seat 0 (the declarer:
  // Rekontra), 1, 2; four passes in a row end the phase.
  Table t = Start("slovenian-4p", DealBG(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid beggar, pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "announce");
  EXPECT_EQ(t.s().CurrentSeat(), 3);
  EXPECT_EQ(Legal(t.s()), "pass, kontra game");
  ASSERT_TRUE(Do(t.s(), "kontra game"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  EXPECT_EQ(Legal(t.s()), "pass, kontra game");  // Rekontra
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "announce");  // seat 3 has not passed yet
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // the declarer leads Beggar (§4.6)
  // announce_first=declarer restores the earlier reading: the declarer first,
  // with nothing to say but pass (no bonuses in Beggar, no kontra on his game).
  Table d = Start("slovenian-4p", DealBG(), Dealt(3), {{"announce_first", "declarer"}});
  ASSERT_TRUE(Do(d.s(), "bid beggar, pass, pass, pass"));
  EXPECT_EQ(d.s().CurrentSeat(), 0);
  EXPECT_EQ(Legal(d.s()), "pass");
}

TEST(Document003, TheDealersRoleOpensIn5pAndTheDealerIn3p) {
  // 5p (003 §6): the dealer, seat 4, sits out; his positional roles fall to the
  // last playing seat, seat 3 (as for the Klop/Three choice and the Colour Valat
  // lead). Seat 0 bids Solo Without, seats 1-3 pass: seat 3 opens.
  Deal d = DealA();
  d.hands.push_back(CardSet());
  Table five = Start("slovenian-5p", d, Dealt(4));
  ASSERT_TRUE(Do(five.s(), "bid solo-without, pass, pass, pass"));
  EXPECT_EQ(five.s().CurrentSeat(), 3);
  Table five_d = Start("slovenian-5p", d, Dealt(4), {{"announce_first", "declarer"}});
  ASSERT_TRUE(Do(five_d.s(), "bid solo-without, pass, pass, pass"));
  EXPECT_EQ(five_d.s().CurrentSeat(), 0);
  // 3p (003 §7): deal T, dealer 0: seat 1 bids Two, seats 2 and 0 pass; after
  // the talon the dealer, seat 0, opens.
  Table three = Start("slovenian-3p", DealT(), Dealt(0));
  ASSERT_TRUE(Do(three.s(), "bid two, pass, pass"));
  ASSERT_TRUE(Do(three.s(), "talon 0"));
  while (three.s().PhaseName() == "discard") {
    ActionList legal;
    three.s().LegalActions(&legal);
    three.s().Apply(legal.items[0]);
  }
  EXPECT_EQ(three.s().PhaseName(), "announce");
  EXPECT_EQ(three.s().CurrentSeat(), 0);
}

TEST(Document003, ColourValatRaiseStaysOpenUntilTheDeclarerSpeaks) {
  // 003 §5.2.3: the Solo declarer may raise to Colour Valat after the exchange.
  // Deal A, dealer 3: seat 0 bids Solo Three; the dealer opens (§4.5) and
  // passes; the declarer's first turn still offers the raise.
  Table t = Start("slovenian-4p", DealA(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid solo-three, pass, pass, pass, talon 0, discard H4, discard H3, discard T11"));
  EXPECT_EQ(t.s().CurrentSeat(), 3);
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_TRUE(absl::StrContains(Legal(t.s()), "bid colour-valat")) << Legal(t.s());
  ASSERT_TRUE(Do(t.s(), "announce trula"));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  EXPECT_FALSE(absl::StrContains(Legal(t.s()), "colour-valat")) << Legal(t.s());
}

TEST(Document003, RaisedColourValatIsNotChargedForAMondLeftInTheTalon) {
  // Issue 27's hand. 003 §4.6.2 opens with "Diese Zusatzregel kommt nur in den
  // Geboten bis und mit Solo Einer zur Geltung" and its second paragraph, a
  // Mond left in the talon, is part of that Zusatzregel. §5.2.3: "Der Ausrufer
  // darf nach dem Wechseln der Karten das Gebot auf farbiger Valat erhöhen":
  // after the raise the bid played is Colour Valat, above Solo One, so no -20.
  // Dealer 2; seat 1 bids Solo Two and takes group 1 (C7 T11) of T10 SN | C7
  // T11 | HQ T21, leaving the Mond; lays away T14 T3. The dealer opens the
  // announcements (§4.5): seats 2, 3, 0 pass; seat 1 raises; four passes. The
  // dealer leads Colour Valat (§4.6 "Ausnahme"): D2, DJ, D3, D4: seat 3's Jack
  // takes the first trick, the declarer has lost: -125 (§5.2.7), nothing else.
  const Deal deal = MakeDeal({"S8 H1 H4 T20 SQ SK T18 T22 DK D3 T1 C8",
                              "H3 DN T7 SJ T3 CQ HN DQ C9 T14 T15 D4",
                              "T16 CK HK D2 T6 T17 CN T12 S9 CJ T2 S10",
                              "T9 S7 HJ T5 D1 T19 T8 C10 T13 DJ H2 T4"},
                             "T10 SN C7 T11 HQ T21");
  const char* script =
      "pass, pass, bid solo-two, pass, talon 1, discard T14, discard T3, pass, pass, pass, "
      "bid colour-valat, pass, pass, pass, pass, play D2, play DJ, play D3, play D4";
  Table t = Start("slovenian-4p", deal, Dealt(2));
  ASSERT_TRUE(Do(t.s(), script));
  ASSERT_TRUE(t.s().IsTerminal());
  HandResult r = t.s().Result();
  EXPECT_EQ(r.contract, "colour-valat");
  EXPECT_TRUE(r.penalties.empty());
  EXPECT_EQ(r.scores, (std::vector<int>{0, -125, 0, 0}));
  // Not raised, the same Solo Two is charged: "erhält er ebenfalls einen
  // Punktabzug von 20 Punkten" (the hand is then played out; only the
  // penalty is checked here).
  Table u = Start("slovenian-4p", deal, Dealt(2));
  ASSERT_TRUE(Do(u.s(), "pass, pass, bid solo-two, pass, talon 1, discard T14, discard T3, "
                        "pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(u.s()));
  r = u.s().Result();
  ASSERT_EQ(r.penalties.size(), 1u);
  EXPECT_EQ(r.penalties[0].seat, 1);
  EXPECT_EQ(r.penalties[0].points, -20);
}

TEST(Document003, RaisedColourValatVoidsEarlierBonusesAndKeepsTheGameKontra) {
  // Deal A, dealer 3, seat 0 bids Solo Three. The dealer opens (§4.5) with
  // "announce trula" for the defenders, then seat 0 raises to Colour Valat.
  // §5 "Bei höheren Geboten (Bettler und höher) werden keine Bonuspunkte
  // ausgeschüttet": the trula announcement is void and can no longer be
  // kontra'd. A Kontra on the game said before the raise (seat 3 here, in a
  // second hand) doubles the Colour Valat by default (silent; option
  // raise_kontra=void starts the chain afresh).
  Table t = Start("slovenian-4p", DealA(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid solo-three, pass, pass, pass, talon 0, discard H4, discard H3, discard T11"));
  ASSERT_TRUE(Do(t.s(), "announce trula"));
  ASSERT_TRUE(Do(t.s(), "bid colour-valat"));
  EXPECT_EQ(Legal(t.s()), "pass, kontra game");  // seat 1: no "kontra trula"
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.contract, "colour-valat");
  EXPECT_TRUE(r.bonuses.empty());
  const int plain = r.scores[0];
  EXPECT_EQ(std::abs(plain), 125);

  Table k = Start("slovenian-4p", DealA(), Dealt(3));
  ASSERT_TRUE(Do(k.s(), "bid solo-three, pass, pass, pass, talon 0, discard H4, discard H3, discard T11"));
  ASSERT_TRUE(Do(k.s(), "kontra game, bid colour-valat, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(k.s()));
  r = k.s().Result();
  EXPECT_EQ(r.game_kontra_level, 1);
  EXPECT_EQ(r.scores[0], 2 * plain);

  Table v = Start("slovenian-4p", DealA(), Dealt(3), {{"raise_kontra", "void"}});
  ASSERT_TRUE(Do(v.s(), "bid solo-three, pass, pass, pass, talon 0, discard H4, discard H3, discard T11"));
  ASSERT_TRUE(Do(v.s(), "kontra game, bid colour-valat"));
  // The chain starts again: seat 1 (a defender) may say Kontra afresh.
  EXPECT_EQ(Legal(v.s()), "pass, kontra game");
  ASSERT_TRUE(Do(v.s(), "pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(v.s()));
  r = v.s().Result();
  EXPECT_EQ(r.game_kontra_level, 0);
  EXPECT_EQ(r.scores[0], plain);
}

TEST(Document003, MondfangAppliesInKlop) {
  // 003 §4.6.2: "Diese Zusatzregel kommt nur in den Geboten bis und mit Solo
  // Einer zur Geltung. Falls Škis und Mond (XXI) gleichzeitig auf dem Tisch
  // liegen, erhält der Spieler, der den Mond (XXI) ausgespielt hat einen
  // Punktabzug von 20 Punkten. Dieser Abzug ist unabhängig davon, wer den Stich
  // gewinnt". Klop is the lowest bid of §3, so it is among those "bis und mit
  // Solo Einer". Deal CV as Klop, dealer 3: trick 1 is s0 T22, s1 T21, s2 T1
  // (forced to beat: the Imperator), s3 T5 -> s2. Seat 1's Mond lay on the table
  // with the Skis: -20 for seat 1, although seat 2 took the trick.
  // The Klop itself (§5.2.1): seat 0 takes more than 35 points: -70; seats 1
  // and 3 take no trick: +70 each; seat 2 scores 0 because others scored ±70.
  // Seat 1: 70 - 20 = 50 (§5 Ausnahme 2: the deduction is his alone).
  const char* script = "pass, pass, pass, bid klop, play T22, play T21, play T1, play T5";
  Table t = Start("slovenian-4p", DealCV(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), script));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks[1], 0) << Tricks(t.s());
  EXPECT_EQ(r.tricks[3], 0) << Tricks(t.s());
  ASSERT_EQ(r.penalties.size(), 1u);
  EXPECT_EQ(r.penalties[0].seat, 1);
  EXPECT_EQ(r.penalties[0].points, -20);
  EXPECT_EQ(r.penalties[0].reason, "mondfang");
  EXPECT_EQ(r.scores, (std::vector<int>{-70, 50, 0, 70})) << Tricks(t.s());
  // mondfang_in_klop=no: no deduction in Klop.
  Table o = Start("slovenian-4p", DealCV(), Dealt(3), {{"mondfang_in_klop", "no"}});
  ASSERT_TRUE(Do(o.s(), script));
  ASSERT_TRUE(PlayOut(o.s()));
  r = o.s().Result();
  EXPECT_TRUE(r.penalties.empty());
  EXPECT_EQ(r.scores, (std::vector<int>{-70, 70, 0, 70}));
}

TEST(Document003, GameKontraByAnyoneButTheDeclarer) {
  // 003 §4.5.2: "Während den Ankündigungen kann jeder Spieler ausser dem
  // Ausrufer ein Kontra ankündigen ... Der Ausrufer kann einem Kontra ein
  // Rekontra entgegen halten ... Ein Subkontra erhöht den Faktor auf 8 und sollte
  // der Ausrufer schliesslich ein Mordkontra ankündigen ...". Deal A, Three by
  // seat 0 (the dealer, who opens) with seat 3 (HK) as partner, worth 25.
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));  // seats 0, 1, 2
  // Seat 3, the partner, is a player other than the declarer: Kontra is his too.
  EXPECT_TRUE(absl::StrContains(Legal(t.s()), "kontra game")) << Legal(t.s());
  ASSERT_TRUE(Do(t.s(), "kontra game"));  // x2
  EXPECT_TRUE(absl::StrContains(Legal(t.s()), "kontra game"));  // seat 0: Rekontra
  ASSERT_TRUE(Do(t.s(), "kontra game"));  // x4
  EXPECT_TRUE(absl::StrContains(Legal(t.s()), "kontra game"));  // seat 1: Subkontra
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, pass"));  // seats 1, 2, 3, 0
  EXPECT_EQ(t.s().PhaseName(), "play");
  ASSERT_TRUE(PlayOut(t.s()));
  // 25 x 2^2 = 100 for seats 0 and 3.
  EXPECT_EQ(t.s().Result().game_kontra_level, 2);
  EXPECT_EQ(t.s().Result().scores, (std::vector<int>{100, 0, 0, 100}));
  // Rekontra is the declarer's: after seat 1's Kontra the partner may not.
  Table r = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(r.s(), kDealAThree));
  ASSERT_TRUE(Do(r.s(), "pass, kontra game, pass"));
  EXPECT_EQ(r.s().CurrentSeat(), 3);
  EXPECT_FALSE(absl::StrContains(Legal(r.s()), "kontra game")) << Legal(r.s());
  // game_kontra=side-against-side: the partner rekontras with his side, and may
  // not kontra his own side's game.
  Table s = Start("slovenian-4p", DealA(), Dealt(0), kSideAgainstSide);
  ASSERT_TRUE(Do(s.s(), kDealAThree));
  ASSERT_TRUE(Do(s.s(), "pass, kontra game, pass"));
  EXPECT_TRUE(absl::StrContains(Legal(s.s()), "kontra game")) << Legal(s.s());
  Table s2 = Start("slovenian-4p", DealA(), Dealt(0), kSideAgainstSide);
  ASSERT_TRUE(Do(s2.s(), kDealAThree));
  ASSERT_TRUE(Do(s2.s(), "pass, pass, pass"));
  EXPECT_FALSE(absl::StrContains(Legal(s2.s()), "kontra game")) << Legal(s2.s());
}

TEST(Document003, RealPlayOptionSetRestoresEveryEarlierReading) {
  const Registry& reg = Registry::Global();
  absl::StatusOr<Options> real = reg.CompleteOptions("slovenian-4p", {{"house", "real-play"}});
  ASSERT_TRUE(real.ok()) << real.status();
  EXPECT_EQ(real->count("house"), 0u);
  EXPECT_EQ(real->at("announce_first"), "declarer");
  EXPECT_EQ(real->at("mondfang_in_klop"), "no");
  EXPECT_EQ(real->at("radl"), "declarer-only");
  EXPECT_EQ(real->at("game_kontra"), "side-against-side");
  EXPECT_EQ(real->at("red_pip_order"), "traditional");
  EXPECT_EQ(real->at("failed_valat_charge"), "announcement");
  absl::StatusOr<Options> legacy = reg.CompleteOptions("slovenian-5p", {{"house", "legacy"}});
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_EQ(legacy->at("failed_valat_charge"), "both");
  EXPECT_EQ(legacy->at("radl"), "declarer-only");
  // An option named beside the set overrides it.
  absl::StatusOr<Options> mixed =
      reg.CompleteOptions("slovenian-4p", {{"house", "real-play"}, {"announce_first", "dealer"}});
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(mixed->at("announce_first"), "dealer");
  // 3p has no partner: no radl or game_kontra option.
  absl::StatusOr<Options> three = reg.CompleteOptions("slovenian-3p", {{"house", "real-play"}});
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_EQ(three->at("announce_first"), "declarer");
  EXPECT_EQ(three->count("radl"), 0u);
  // The set in play: the declarer opens (BG as in TheDealerOpensTheAnnouncements).
  Table t = Start("slovenian-4p", DealBG(), Dealt(3), {{"house", "real-play"}});
  ASSERT_TRUE(Do(t.s(), "bid beggar, pass, pass, pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);
}

TEST(Document003, BadOptionsAreOneLineErrorsNamingTheValidOnes) {
  const Registry& reg = Registry::Global();
  struct Case {
    const char* variant;
    Options options;
    const char* names;
  };
  const Case cases[] = {
      {"slovenian-4p", {{"announce_first", "forehand"}}, "dealer, declarer"},
      {"slovenian-5p", {{"radl", "everyone"}}, "declarer-and-partner, declarer-only"},
      {"slovenian-3p", {{"mondfang_in_klop", "maybe"}}, "yes, no"},
      {"slovenian-4p", {{"game_kontra", "x"}}, "any-but-declarer, side-against-side"},
      {"slovenian-4p", {{"house", "club"}}, "real-play, legacy"},
      {"slovenian-3p", {{"radl", "declarer-only"}}, "announce_first"},
      {"slovenian-tapp", {{"announce_first", "dealer"}}, "red_pip_order"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Options> o = reg.CompleteOptions(c.variant, c.options);
    ASSERT_FALSE(o.ok()) << c.variant;
    EXPECT_TRUE(absl::StrContains(o.status().message(), c.names)) << o.status();
    EXPECT_FALSE(absl::StrContains(o.status().message(), "\n")) << o.status();
    EXPECT_FALSE(reg.Create(c.variant, c.options).ok());
  }
}

// ---------------------------------------------------------------------------
// 5c. Five and three players, void deals.

TEST(FivePlayers, ThreeWithTheDealerSittingOut) {
  // Deal A on seats 0-3 with seat 4 dealing (sitting out): seat 3 has the
  // dealer's choice, takes Three and calls spades (partner seat 1). Only the
  // declarer side scores (the same amount); the dealer scores 0 and keeps his radli.
  Deal d = DealA();
  d.hands.push_back(CardSet());
  Table t = Start("slovenian-5p", d, Dealt(4, {0, 0, 0, 0, 3}));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three, call S"));
  EXPECT_EQ(t.st().partner(), 1);
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.declarer, 3);
  EXPECT_EQ(r.scores[4], 0);
  EXPECT_EQ(r.radli[4], 3);
  EXPECT_EQ(r.scores[0], 0);
  EXPECT_EQ(r.scores[2], 0);
  EXPECT_EQ(r.scores[1], r.scores[3]);
  EXPECT_TRUE(t.s().Observe(4).hand.empty());
}

TEST(VoidDeal, AHandWithoutTarocksIsRedealtAndForcesKlop) {
  // Deal A with seat 2's tarocks swapped for seat 1's S8 S9 S10: seat 2 has none.
  Deal d = MakeDeal({"T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 S7",
                     "T2 T3 T4 T5 T6 T7 SJ SN SQ SK H2 H1",
                     "S8 S9 S10 C7 C8 C9 C10 CJ CN CQ CK HJ",
                     "T8 T9 T10 HN HQ HK D2 D1 DJ DN DQ DK"},
                    "T11 H4 H3 T1 D4 D3");
  Table t = Start("slovenian-4p", d, Dealt(0, {1, 0, 0, 0}));
  ASSERT_TRUE(t.s().IsTerminal());
  EXPECT_EQ(Legal(t.s()), "");
  const HandResult r = t.s().Result();
  EXPECT_TRUE(r.redeal);
  EXPECT_TRUE(r.next_forced_klop);
  EXPECT_EQ(r.scores, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(r.radli, (std::vector<int>{1, 0, 0, 0}));
  // The same in Tapp.
  Deal e = MakeDeal({"T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T22 S7",
                     "T2 T3 T4 T5 T6 S8 S9 S10 SJ SN SQ SK H2 H1 HJ HN",
                     "HQ HK D2 D1 DJ DN DQ DK C7 C8 C9 C10 CJ CN CQ CK"},
                    "T21 H4 H3 T1 D4 D3");
  Table u = Start("slovenian-tapp", e, Dealt(0));
  ASSERT_TRUE(u.s().IsTerminal());
  EXPECT_TRUE(u.s().Result().redeal);
  EXPECT_TRUE(u.s().Result().next_forced_klop);
  // A hand without tarocks for the 5p dealer who sits out is no void deal.
  Deal f = DealA();
  f.hands.push_back(CardSet());
  Table v = Start("slovenian-5p", f, Dealt(4));
  EXPECT_FALSE(v.s().IsTerminal());
}

// ---------------------------------------------------------------------------
// 6. Observation security.

TEST(Observation, NoSeatEverSeesAnotherSeatsHiddenCards) {
  struct Case { std::string variant; Deal deal; int dealer; std::string script; std::vector<std::string> prefs; };
  const std::vector<Case> cases = {
      {"slovenian-4p", DealA(), 0, kDealAThree, {}},
      {"slovenian-4p", DealA(), 0, "pass, pass, pass, bid three, call H, talon 0, discard H4, discard H3, discard S7", {}},
      {"slovenian-4p", DealK(), 0, "pass, pass, pass, bid three, call S, talon 0, discard C7, discard C8, discard C9", kDealKPrefs},
      {"slovenian-4p", DealF(), 3, kDealFTwo, kDealFPrefs},
      {"slovenian-4p", DealOT(), 0, "pass, pass, pass, bid klop", {}},
      {"slovenian-4p", DealBG(), 3, "bid beggar, pass, pass, pass", {}},
      {"slovenian-4p", DealBG(), 3, "bid open-beggar, pass, pass, pass", {}},
      {"slovenian-tapp", DealT(), 0, "bid three, pass, pass, bid two, talon 2, discard H3, discard D3", {}},
      {"slovenian-tapp", DealT(), 1, "pass, pass, pass", {}},
  };
  for (const Case& c : cases) {
    Table t = Start(c.variant, c.deal, Dealt(c.dealer));
    ASSERT_TRUE(t.state);
    EXPECT_TRUE(NoLeaks(t.st())) << c.script;
    for (absl::string_view a : absl::StrSplit(c.script, ',', absl::SkipWhitespace())) {
      ASSERT_TRUE(Do(t.s(), a));
      EXPECT_TRUE(NoLeaks(t.st())) << c.script << " at " << a;
    }
    bool ok = true;
    ASSERT_TRUE(PlayOutWith(t.s(), c.prefs, [&] {
      if (!ok) return;
      ::testing::AssertionResult res = NoLeaks(t.st());
      if (!res) {
        ok = false;
        ADD_FAILURE() << c.variant << " " << c.script << ": " << res.message() << "\n" << HistoryText(t.s());
      }
    }));
    // Legal actions are only ever given to the seat to act.
    for (int s = 0; s < t.game->num_seats(); ++s) EXPECT_TRUE(t.s().Observe(s).legal.empty());
  }
}

TEST(Observation, PartnerKnownOnlyToHimselfUntilTheCalledKingIsPlayed) {
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  const Action hk = MakeAction(Verb::kPlay, C("HK"));
  bool played = false;
  int checked_before = 0, checked_after = 0;
  ASSERT_TRUE(PlayOutWith(t.s(), {}, [&] {
    const std::vector<Action> h = t.s().History();
    played = std::find(h.begin(), h.end(), hk) != h.end();
    for (int s = 0; s < 4; ++s) {
      const Observation o = t.s().Observe(s);
      EXPECT_EQ(o.called_king, "HK");
      EXPECT_EQ(o.declarer, 0);
      if (played || s == 3) EXPECT_EQ(o.partner, 3) << s;
      else EXPECT_EQ(o.partner, -1) << s;
    }
    (played ? checked_after : checked_before)++;
  }));
  EXPECT_GT(checked_before, 10);  // HK falls in trick 6
  EXPECT_GT(checked_after, 10);
}

TEST(Observation, OpenBeggarHandIsShownToAllDuringPlay) {
  Table t = Start("slovenian-4p", DealBG(), Dealt(3));
  ASSERT_TRUE(Do(t.s(), "bid open-beggar, pass, pass, pass, pass, pass, pass"));
  EXPECT_TRUE(t.s().Observe(2).shown[0].empty());  // not before the play
  ASSERT_TRUE(Do(t.s(), "pass, play T2"));
  for (int s = 1; s < 4; ++s) {
    EXPECT_EQ(t.s().Observe(s).shown[0], t.st().hand(0)) << s;
    EXPECT_TRUE(CardsNamedIn(ObservationToJson(t.s().Observe(s))).ContainsAll(t.st().hand(0)));
  }
  // An ordinary Beggar shows nothing.
  Table b = Start("slovenian-4p", DealBG(), Dealt(3));
  ASSERT_TRUE(Do(b.s(), "bid beggar, pass, pass, pass, pass, pass, pass, pass, play T2"));
  EXPECT_TRUE(b.s().Observe(1).shown[0].empty());
  EXPECT_FALSE(CardsNamedIn(ObservationToJson(b.s().Observe(1))).Contains(C("S7")));
}

TEST(Observation, TalonHiddenUntilExposedAndKlopGiftsShownInFourPlayer) {
  const std::vector<std::string> hidden(6, "?");
  Table t = Start("slovenian-4p", DealA(), Dealt(0));
  EXPECT_EQ(t.s().Observe(1).talon, hidden);
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, bid three"));
  EXPECT_EQ(t.s().PhaseName(), "king-call");
  EXPECT_EQ(t.s().Observe(1).talon, hidden);  // not before the talon phase
  // Solo Without: the talon is never shown.
  Table s = Start("slovenian-4p", DealA(), Dealt(3));
  ASSERT_TRUE(Do(s.s(), "bid solo-without, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(s.s()));
  EXPECT_EQ(s.s().Observe(1).talon, hidden);
  // 4p Klop: each trick winner's talon card is turned up (first trick: T11).
  Table k = Start("slovenian-4p", DealA(), Dealt(0));
  ASSERT_TRUE(Do(k.s(), "pass, pass, pass, bid klop"));
  EXPECT_EQ(k.s().Observe(2).talon, hidden);
  ASSERT_TRUE(Do(k.s(), "play T2, play T5, play T8, play T12"));
  EXPECT_EQ(k.s().Observe(2).talon, (std::vector<std::string>{"T11", "?", "?", "?", "?", "?"}));
  EXPECT_TRUE(k.st().won(0).Contains(C("T11")));
  // Tapp Klop: the talon cards go face down.
  Table p = Start("slovenian-tapp", DealT(), Dealt(0));
  ASSERT_TRUE(Do(p.s(), "pass, pass, pass"));
  ASSERT_TRUE(PlayOut(p.s()));
  for (int seat = 0; seat < 3; ++seat) EXPECT_EQ(p.s().Observe(seat).talon, hidden);
}

// ---------------------------------------------------------------------------
// 7. Records.

::testing::AssertionResult RoundTrip(const Game& game, const State& state) {
  const std::string json = HandRecordToJson(RecordOf(game, state));
  absl::StatusOr<HandRecord> parsed = ParseHandRecord(json);
  if (!parsed.ok()) return ::testing::AssertionFailure() << parsed.status();
  if (HandRecordToJson(*parsed) != json) return ::testing::AssertionFailure() << "JSON changed";
  absl::StatusOr<Replay> replay = ReplayRecord(*parsed);
  if (!replay.ok()) return ::testing::AssertionFailure() << replay.status() << "\n" << json;
  if (!replay->state->IsTerminal()) return ::testing::AssertionFailure() << "replay not finished";
  const HandResult a = state.Result(), b = replay->state->Result();
  if (a.scores != b.scores || a.radli != b.radli || a.redeal != b.redeal)
    return ::testing::AssertionFailure() << "replay scores differ\n" << json;
  if (!parsed->scores || *parsed->scores != a.scores)
    return ::testing::AssertionFailure() << "recorded scores missing or wrong";
  return ::testing::AssertionSuccess();
}

TEST(Record, RecordJsonReplayGivesTheSameScores) {
  struct Case { std::string variant; Deal deal; HandSetup setup; std::string script; std::vector<std::string> prefs; Options options; };
  const std::vector<Case> cases = {
      {"slovenian-4p", DealA(), Dealt(0, {1, 0, 2, 0}), std::string(kDealAThree) + ", pass, kontra game", {}, {}},
      {"slovenian-4p", DealK(), Dealt(0), "pass, pass, pass, bid three, call S, talon 0, discard C7, discard C8, discard C9, announce trula", kDealKPrefs, {}},
      {"slovenian-4p", DealM(), Dealt(3), kDealFTwo, kDealMPrefs, {{"imperator", "off"}}},
      {"slovenian-4p", DealKL(), Dealt(0, {1, 1, 0, 0}), "pass, pass, pass, bid klop", {}, {}},
      {"slovenian-4p", DealA(), Dealt(0, {}, true), "pass, pass, pass, bid klop", {}, {}},
      {"slovenian-tapp", DealT(), Dealt(0), "bid three, pass, pass, bid three, talon 1, discard D4, discard D3, discard T7", {}, {}},
      {"slovenian-tapp", DealT(), Dealt(1, {}, true), "", {}, {}},
      {"slovenian-3p", DealT(), Dealt(2), "", {}, {{"red_pip_order", "numeric"}}},
  };
  for (const Case& c : cases) {
    Table t = Start(c.variant, c.deal, c.setup, c.options);
    ASSERT_TRUE(t.state);
    ASSERT_TRUE(Do(t.s(), c.script));
    ASSERT_TRUE(PlayOut(t.s(), c.prefs));
    EXPECT_TRUE(RoundTrip(*t.game, t.s())) << c.variant << ": " << c.script;
  }
  // A five-player hand (empty dealer array) and a void deal.
  Deal d = DealA();
  d.hands.push_back(CardSet());
  Table five = Start("slovenian-5p", d, Dealt(4));
  ASSERT_TRUE(PlayOut(five.s()));
  EXPECT_TRUE(RoundTrip(*five.game, five.s()));
}

// Deal A, Three, played as traced at DealA(): 25 for seats 0 and 3. Written out
// by hand from the trace.
constexpr const char* kRecordDealAThree = R"({
  "variant": "slovenian-4p", "dealer": 0,
  "hands": [["T12","T13","T14","T15","T16","T17","T18","T19","T20","T21","T22","S7"],
            ["T2","T3","T4","S8","S9","S10","SJ","SN","SQ","SK","H2","H1"],
            ["T5","T6","T7","C7","C8","C9","C10","CJ","CN","CQ","CK","HJ"],
            ["T8","T9","T10","HN","HQ","HK","D2","D1","DJ","DN","DQ","DK"]],
  "talon": ["T11","H4","H3","T1","D4","D3"],
  "actions": ["pass","pass","pass","bid three","call H","talon 0",
              "discard H4","discard H3","discard T11","pass","pass","pass","pass",
              "play T2","play T5","play T8","play T12",
              "play T13","play T3","play T6","play T9",
              "play T14","play T4","play T7","play T10",
              "play T15","play H2","play HJ","play HN",
              "play T16","play H1","play C7","play HQ",
              "play T17","play S8","play C8","play HK",
              "play T18","play S9","play C9","play D2",
              "play T19","play S10","play C10","play D1",
              "play T20","play SJ","play CJ","play DJ",
              "play T21","play SN","play CN","play DN",
              "play T22","play SQ","play CQ","play DQ",
              "play S7","play SK","play CK","play DK"]})";

// Deal BG with T22 for seat 0, Beggar lost in the first trick: -70.
constexpr const char* kRecordBeggarLost = R"({"variant":"slovenian-4p","dealer":3,
  "hands":[["T2","T3","T4","T22","H4","H3","H2","D4","D3","D2","C7","S7"],
           ["T1","T6","T7","T8","T9","H1","HJ","HN","D1","DJ","C8","C9"],
           ["T10","T11","T12","T13","T14","HQ","HK","DN","C10","CJ","S8","S9"],
           ["T15","T16","T17","T18","T19","DQ","DK","CN","CQ","S10","SJ","SN"]],
  "talon":["T5","T20","T21","CK","SQ","SK"], "radli": [1,0,0,0],
  "actions":["bid beggar","pass","pass","pass","pass","pass","pass","pass",
             "play T22","play T6","play T10","play T15"]})";

// Deal T in Tapp: an auction (s0 three, s1 two, s0 holds, s1 passes, s2 passes,
// s0 declares One) followed by a card play that is illegal in the talon phase.
constexpr const char* kRecordTappPartial = R"({"variant":"slovenian-tapp","dealer":0,
  "hands":[["T7","T8","T9","T10","T11","T12","T13","T14","T15","T16","T17","T18","T19","T20","T22","S7"],
           ["T2","T3","T4","S8","S9","S10","SJ","SN","SQ","SK","H2","H1","HJ","HN","HQ","HK"],
           ["T5","T6","D2","D1","DJ","DN","DQ","DK","C7","C8","C9","C10","CJ","CN","CQ","CK"]],
  "talon":["T21","H4","H3","T1","D4","D3"],
  "actions":["bid three","bid two","bid two","pass","pass","bid one",
             "play T22","play T2","play T5"]})";

TEST(Record, HandWrittenRecordsReplayToKnownScores) {
  absl::StatusOr<HandRecord> a = ParseHandRecord(kRecordDealAThree);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<Replay> ra = ReplayRecord(*a);
  ASSERT_TRUE(ra.ok()) << ra.status();
  ASSERT_TRUE(ra->state->IsTerminal());
  EXPECT_EQ(ra->state->Result().scores, (std::vector<int>{25, 0, 0, 25}));
  EXPECT_EQ(ra->state->Result().card_thirds, (std::vector<int>{155, 55}));

  absl::StatusOr<HandRecord> b = ParseHandRecord(kRecordBeggarLost);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<Replay> rb = ReplayRecord(*b);
  ASSERT_TRUE(rb.ok()) << rb.status();
  ASSERT_TRUE(rb->state->IsTerminal());
  // -70 doubled by seat 0's radl, which stays (negative score).
  EXPECT_EQ(rb->state->Result().scores, (std::vector<int>{-140, 0, 0, 0}));
  EXPECT_EQ(rb->state->Result().radli, (std::vector<int>{1, 0, 0, 0}));

  // Tapp: s0 three, s1 two, s0 holds two, s1 passes, s2 passes; s0 declares One;
  // a record of a hand in progress replays to the talon phase.
  absl::StatusOr<HandRecord> c = ParseHandRecord(kRecordTappPartial);
  ASSERT_TRUE(c.ok()) << c.status();
  c->actions.resize(6);
  absl::StatusOr<Replay> rc = ReplayRecord(*c);
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(rc->state->PhaseName(), "talon");
  EXPECT_EQ(Legal(*rc->state), "talon 0, talon 1, talon 2, talon 3, talon 4, talon 5");
  // The full action list plays a card in the talon phase: an error naming it.
  absl::StatusOr<HandRecord> c2 = ParseHandRecord(kRecordTappPartial);
  absl::StatusOr<Replay> bad = ReplayRecord(*c2);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "action 6 ('play T22')")) << bad.status();
}

}  // namespace
}  // namespace tarock::slovenian
