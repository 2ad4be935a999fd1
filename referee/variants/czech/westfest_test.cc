// Rule-by-rule unit tests of `westfest` (rule document 004) against
// rules-westfest.md.
//
// Every deal here is built by hand as a deck: the talon (six cards, top first),
// then the povinnost's twelve cards, the next seat's, the next seat's and the
// dealer's; the script starts with `tap 12`, which deals exactly those twelves
// (004: the povinnost receives the first twelve). Hands are played with a
// hand-traceable policy (PlayOut): each seat plays the first card of its own
// preference list that is legal, else the first legal action. The scoring tests
// trace the hand trick by trick in a comment and work the chips out by hand.
// Card points are raw: Skys, Mond, Pagat and kings 5, queens 4, riders (N) 3,
// walkers (J) 2, every other card 1; 106 in all.

#include "referee/variants/czech/westfest.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "referee/engine/match.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/record.h"
#include "referee/engine/registry.h"
#include "referee/variants/variant_test_util.h"

namespace tarock::czech {
namespace {

using variant_test::C;
using variant_test::CardList;
using variant_test::Cards;
using variant_test::Do;
using variant_test::HistoryText;
using variant_test::Legal;

// ---------------------------------------------------------------------------
// Helpers.

// A deck whose `tap 12` deal gives hands[seat] to each seat (hands per seat
// index) and `talon` as the talon (top first).
Deal DeckDeal(int dealer, const std::vector<std::string>& hands, absl::string_view talon) {
  Deal d;
  d.talon = CardList(talon);
  d.deck = d.talon;
  for (int i = 1; i <= 4; ++i) {
    const std::vector<Card> h = CardList(hands[(dealer + i) % 4]);
    EXPECT_EQ(h.size(), 12u) << "seat " << (dealer + i) % 4;
    d.deck.insert(d.deck.end(), h.begin(), h.end());
  }
  d.hands.assign(4, CardSet());
  return d;
}

// The identity deck: card i of the deck is card index i (T1..T22, H4 H3 H2 H1
// HJ HN HQ HK, D.., C7 C8 C9 C10 CJ CN CQ CK, S..).
Deal IdentityDeal() {
  Deal d;
  for (int i = 0; i < kNumCards; ++i) d.deck.push_back(static_cast<Card>(i));
  d.talon.assign(d.deck.begin(), d.deck.begin() + 6);
  d.hands.assign(4, CardSet());
  return d;
}

struct Table {
  std::unique_ptr<Game> game;
  std::unique_ptr<State> state;
  const WestfestState& st() const { return static_cast<const WestfestState&>(*state); }
  State& s() { return *state; }
};

Table Start(const Deal& deal, int dealer, const Options& options = {}) {
  Table t;
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create("westfest", options);
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return t;
  t.game = std::move(*game);
  HandSetup setup;
  setup.dealer = dealer;
  absl::StatusOr<std::unique_ptr<State>> state = t.game->NewHand(deal, setup);
  EXPECT_TRUE(state.ok()) << state.status();
  if (state.ok()) t.state = std::move(*state);
  return t;
}

// Plays to the end: in the play phase each seat plays the first legal card of
// its preference list, else the first legal action; elsewhere the first legal
// action (pass where there is one).
::testing::AssertionResult PlayOut(State& s, const std::vector<std::string>& prefs = {}) {
  std::vector<std::vector<Card>> order;
  for (const std::string& p : prefs) order.push_back(CardList(p));
  for (int guard = 0; !s.IsTerminal(); ++guard) {
    if (guard > 400) return ::testing::AssertionFailure() << "the hand does not end";
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
  return ::testing::AssertionSuccess();
}

std::string Tricks(const State& s) {
  std::string out;
  int n = 0;
  for (Action a : s.History()) {
    if (VerbOf(a) != Verb::kPlay) continue;
    if (n % 4 == 0) absl::StrAppend(&out, "\ntrick ", n / 4 + 1, ":");
    absl::StrAppend(&out, " ", CardName(static_cast<Card>(ArgOf(a))));
    ++n;
  }
  return out;
}

int Sum(const std::vector<int>& v) {
  int s = 0;
  for (int x : v) s += x;
  return s;
}

const BonusResult* FindBonus(const HandResult& r, const std::string& name) {
  for (const BonusResult& b : r.bonuses)
    if (b.name == name) return &b;
  return nullptr;
}

// No seat's observation names a card of another seat's hand or a hidden
// discard, except cards played, tarock discards and the called tarock's name.
::testing::AssertionResult NoLeaks(const WestfestState& st) {
  CardSet public_cards, hidden_discards;
  for (Action a : st.History()) {
    const Card c = static_cast<Card>(ArgOf(a));
    if (VerbOf(a) == Verb::kPlay) public_cards.Add(c);
    if (VerbOf(a) == Verb::kDiscard) (IsTarock(c) ? public_cards : hidden_discards).Add(c);
  }
  if (st.called() != kNoCard) public_cards.Add(st.called());
  for (int seat = 0; seat < 4; ++seat) {
    const Observation obs = st.Observe(seat);
    const std::string json = ObservationToJson(obs);
    const CardSet seen = CardsNamedIn(json);
    if (obs.hand != st.hand(seat)) return ::testing::AssertionFailure() << "wrong own hand";
    CardSet own_seen = st.hand(seat);  // own hand and the talon cards this seat drew or looked at
    for (const std::string& t : obs.talon)
      if (t != "?") own_seen.Add(C(t));
    for (int other = 0; other < 4; ++other) {
      if (other == seat) continue;
      const CardSet leaked = (seen & st.hand(other)) - public_cards - own_seen;
      if (!leaked.empty())
        return ::testing::AssertionFailure() << "seat " << seat << " sees " << CardName(leaked.First())
                                             << " of seat " << other << ": " << json;
    }
    // Own discards are known to their owner; others' face-down discards are not.
    CardSet own_discards;
    for (size_t i = 0; i < obs.history.size(); ++i)
      if (obs.history[i].first == seat && absl::StartsWith(obs.history[i].second, "discard "))
        own_discards.Add(C(obs.history[i].second.substr(8)));
    const CardSet leaked = (seen & hidden_discards) - own_discards - own_seen;
    if (!leaked.empty())
      return ::testing::AssertionFailure() << "seat " << seat << " sees the hidden discard "
                                           << CardName(leaked.First()) << ": " << json;
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// The hand-built deals (dealer 0: seat 1 is the povinnost, seat 3 the cutter).

// Deal V: seat 1 holds ten high tarocks and four hearts, seat 2 the XIX and the
// diamonds, seat 3 the clubs, seat 0 the spades; talon T1 T15 H1 | H2 H3 H4.
const std::vector<std::string> kDealV = {
    "T5 T4 T3 T2 SK SQ SN SJ S10 S9 S8 S7",
    "T22 T21 T20 T18 T17 T16 T14 T13 HK HQ HN HJ",
    "T19 T12 T11 T10 DK DQ DN DJ D1 D2 D3 D4",
    "T9 T8 T7 T6 CK CQ CN CJ C10 C9 C8 C7"};
constexpr const char* kTalonV = "T1 T15 H1 H2 H3 H4";
const std::vector<std::string> kPrefsV = {
    "T2 T3 T4 T5 S7 S8 S9 S10 SJ SN SQ SK",
    "T22 T21 T20 T18 T17 T16 T15 T14 T13 T1 HK HQ HN HJ H1",
    "T10 T11 T12 T19 D4 D3 D2 D1 DJ DN DQ DK",
    "T6 T7 T8 T9 C7 C8 C9 C10 CJ CN CQ CK"};

// Deal C: four tarocks and one full suit each; the talon is T1..T6.
//   seat 1 (povinnost) T22 T18 T14 T10 + diamonds; seat 2 T21 T17 T13 T9 + clubs;
//   seat 3 T20 T16 T12 T8 + spades; seat 0 T19 T15 T11 T7 + hearts (the partner).
const std::vector<std::string> kDealC = {
    "T19 T15 T11 T7 H4 H3 H2 H1 HJ HN HQ HK",
    "T22 T18 T14 T10 D4 D3 D2 D1 DJ DN DQ DK",
    "T21 T17 T13 T9 C7 C8 C9 C10 CJ CN CQ CK",
    "T20 T16 T12 T8 S7 S8 S9 S10 SJ SN SQ SK"};
constexpr const char* kTalonC = "T1 T2 T3 T4 T5 T6";
const std::vector<std::string> kPrefsC = {
    "HK HQ HN HJ H1 H2 H3 H4 T7 T11 T15 T19",
    "DK DQ DN DJ T1 T2 T3 T4 T10 T14 T18 T22",
    "CK CQ CN CJ C10 C9 C8 T5 T9 T13 T17 T21",
    "SK SQ SN SJ S10 S9 S8 T6 T8 T12 T16 T20"};
constexpr const char* kExchangeC =
    "tap 12, pass, pass, pass, pass, discard D4, discard D3, discard D2, discard D1, "
    "talon 1, discard C7, talon 2, discard S7";

// Deal U: seat 1 holds twelve tarocks, seat 0 none (uni); the talon is six red
// pips, which a prever player lays away again whichever set he keeps.
const std::vector<std::string> kDealU = {
    "C7 C8 C9 C10 S7 S8 S9 S10 SJ SN SQ SK",
    "T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11",
    "T10 T9 T8 T7 T6 T5 HK HQ HN HJ D3 D4",
    "T4 T3 T2 T1 DK DQ DN DJ CK CQ CN CJ"};
constexpr const char* kTalonU = "H1 H2 H3 H4 D1 D2";
const std::vector<std::string> kPrefsU = {
    "S7 S8 S9 S10 SJ SN SQ SK C7 C8 C9 C10",
    "T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11",
    "T5 T6 T7 T8 T9 T10 HJ HN HQ HK D3 D4",
    "T1 T2 T3 T4 DJ DN DQ DK CJ CN CQ CK"};

// ---------------------------------------------------------------------------
// 1. The deal (004 first section).

TEST(Deal, TheCutterIsTheDealersLeftAndChoosesCutOrTap) {
  Table t = Start(IdentityDeal(), 0);
  EXPECT_EQ(t.s().PhaseName(), "cut");
  EXPECT_EQ(t.s().CurrentSeat(), 3);  // the dealer's left: the seat before him
  EXPECT_EQ(Legal(t.s()), "cut, tap 1, tap 2, tap 3, tap 4, tap 12, tap stacks");
  for (int s = 0; s < 4; ++s) EXPECT_TRUE(t.st().hand(s).empty());
  Table t2 = Start(IdentityDeal(), 2);
  EXPECT_EQ(t2.s().CurrentSeat(), 1);
  EXPECT_EQ(t2.st().povinnost(), 3);
}

TEST(Deal, CutDealsPacketsOfSixFromThePovinnost) {
  // Identity deck: the talon is T1..T6 (index 0..5); then packets of six from
  // seat 1 (the povinnost), seat 2, seat 3, seat 0, twice round.
  Table t = Start(IdentityDeal(), 0);
  ASSERT_TRUE(Do(t.s(), "cut"));
  auto block = [](int from, int n) {
    CardSet s;
    for (int i = from; i < from + n; ++i) s.Add(static_cast<Card>(i));
    return s;
  };
  EXPECT_EQ(t.st().hand(1), block(6, 6) | block(30, 6));
  EXPECT_EQ(t.st().hand(2), block(12, 6) | block(36, 6));
  EXPECT_EQ(t.st().hand(3), block(18, 6) | block(42, 6));
  EXPECT_EQ(t.st().hand(0), block(24, 6) | block(48, 6));
  EXPECT_EQ(t.s().PhaseName(), "prever");
  EXPECT_EQ(t.s().CurrentSeat(), 1);
}

TEST(Deal, TapPacketsOfOneTwoThreeFourAndTwelve) {
  for (int packet : {1, 2, 3, 4, 12}) {
    Table t = Start(IdentityDeal(), 1);  // dealer 1: povinnost 2, then 3, 0, 1
    ASSERT_TRUE(Do(t.s(), absl::StrCat("tap ", packet)));
    std::vector<CardSet> expected(4);
    int next = 6;
    for (int round = 0; round < 12 / packet; ++round)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < packet; ++j) expected[(2 + i) % 4].Add(static_cast<Card>(next++));
    for (int s = 0; s < 4; ++s) EXPECT_EQ(t.st().hand(s), expected[s]) << "packets of " << packet << " seat " << s;
  }
  // Packets of one, by hand: the povinnost (seat 2) gets deck cards 6, 10, 14, ...
  Table t = Start(IdentityDeal(), 1);
  ASSERT_TRUE(Do(t.s(), "tap 1"));
  EXPECT_TRUE(t.st().hand(2).Contains(6) && t.st().hand(2).Contains(10) && t.st().hand(2).Contains(50));
  EXPECT_TRUE(t.st().hand(1).Contains(9) && t.st().hand(1).Contains(53));
}

TEST(Deal, TapStacksThePovinnostChoosesFirstAndTheDealerGetsTheLast) {
  Table t = Start(IdentityDeal(), 0);
  ASSERT_TRUE(Do(t.s(), "tap stacks"));
  EXPECT_EQ(t.s().PhaseName(), "stacks");
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_EQ(Legal(t.s()), "stack 0, stack 1, stack 2, stack 3");
  ASSERT_TRUE(Do(t.s(), "stack 2"));
  EXPECT_EQ(t.s().CurrentSeat(), 2);
  EXPECT_EQ(Legal(t.s()), "stack 0, stack 1, stack 3");
  ASSERT_TRUE(Do(t.s(), "stack 0"));
  EXPECT_EQ(Legal(t.s()), "stack 1, stack 3");
  EXPECT_FALSE(t.s().ApplyText("stack 2").ok());
  ASSERT_TRUE(Do(t.s(), "stack 3"));
  auto stack = [](int k) {
    CardSet s;
    for (int i = 0; i < 12; ++i) s.Add(static_cast<Card>(6 + 12 * k + i));
    return s;
  };
  EXPECT_EQ(t.st().hand(1), stack(2));
  EXPECT_EQ(t.st().hand(2), stack(0));
  EXPECT_EQ(t.st().hand(3), stack(3));
  EXPECT_EQ(t.st().hand(0), stack(1));  // the dealer receives the remaining stack
  EXPECT_EQ(t.s().PhaseName(), "prever");
}

TEST(Deal, DealsNeedTheWholeDeckAndEmptyHands) {
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create("westfest");
  ASSERT_TRUE(game.ok());
  HandSetup setup;
  Deal d = IdentityDeal();
  d.deck.pop_back();
  EXPECT_FALSE((*game)->NewHand(d, setup).ok());
  d = IdentityDeal();
  d.deck[53] = d.deck[0];
  EXPECT_TRUE(absl::StrContains((*game)->NewHand(d, setup).status().message(), "dealt twice"));
  d = IdentityDeal();
  d.hands[0].Add(0);
  EXPECT_FALSE((*game)->NewHand(d, setup).ok());
  d = IdentityDeal();
  std::swap(d.talon[0], d.talon[1]);
  EXPECT_FALSE((*game)->NewHand(d, setup).ok());
  setup.dealer = 4;
  EXPECT_FALSE((*game)->NewHand(IdentityDeal(), setup).ok());
  // A seeded deal: the talon is the first six cards of the deck.
  const Deal seeded = (*game)->DealCards(7, 0);
  ASSERT_EQ(seeded.deck.size(), 54u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(seeded.talon[i], seeded.deck[i]);
}

// ---------------------------------------------------------------------------
// 2. Prever, the called tarock, the povinnost's draw and throw-in (004).

TEST(Prever, EachSeatFromThePovinnostMayBidPreverAndTheFirstBidPlays) {
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(t.s(), "tap 12"));
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_EQ(Legal(t.s()), "pass, bid prever");
  ASSERT_TRUE(Do(t.s(), "pass, pass"));
  EXPECT_EQ(t.s().CurrentSeat(), 3);
  ASSERT_TRUE(Do(t.s(), "bid prever"));
  EXPECT_EQ(t.st().declarer(), 3);
  EXPECT_EQ(t.st().contract(), kPrever);
  // The prever player has drawn the first set (T1 T15 H1).
  EXPECT_TRUE(t.st().hand(3).ContainsAll(Cards("T1 T15 H1")));
  EXPECT_EQ(t.s().PhaseName(), "prever-talon");
  EXPECT_EQ(Legal(t.s()), "pass, talon 1");
}

TEST(Prever, SecondSetDoublesAndGoingBackQuadruples) {
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(t.s(), "tap 12, bid prever"));
  EXPECT_EQ(t.st().draw_multiplier(), 1);
  ASSERT_TRUE(Do(t.s(), "talon 1"));
  EXPECT_EQ(t.st().draw_multiplier(), 2);
  EXPECT_TRUE(t.st().hand(1).ContainsAll(Cards("H2 H3 H4")));
  EXPECT_FALSE(t.st().hand(1).Contains(C("T15")));
  EXPECT_EQ(Legal(t.s()), "pass, talon 0");
  ASSERT_TRUE(Do(t.s(), "talon 0"));
  EXPECT_EQ(t.st().draw_multiplier(), 4);
  EXPECT_TRUE(t.st().hand(1).ContainsAll(Cards("T1 T15 H1")));
  EXPECT_EQ(t.s().PhaseName(), "discard");
  EXPECT_EQ(t.st().hand(1).size(), 15);
  ASSERT_TRUE(Do(t.s(), "discard HQ, discard HN, discard HJ"));
  EXPECT_EQ(t.s().PhaseName(), "announce");  // nobody else draws in prever
  EXPECT_EQ(t.s().CurrentSeat(), 1);         // the bidder announces first
}

TEST(Povinnost, TheXIXIsCalledOrTheHighestOfXVIIIToXVThePovinnostLacks) {
  struct Case { std::string povinnost_hand; std::string called; };
  // Seat 1's hand; the rest of the pack goes to the others and the talon.
  const std::vector<Case> cases = {
      {"T22 T18 T17 T16 T15 H4 H3 H2 H1 HJ HN HQ", "T19"},
      {"T22 T19 T17 T16 T15 H4 H3 H2 H1 HJ HN HQ", "T18"},
      {"T19 T18 T17 T16 T2 H4 H3 H2 H1 HJ HN HQ", "T15"},
      {"T19 T18 T17 T16 T15 H4 H3 H2 H1 HJ HN HQ", ""},  // none left to call: alone
  };
  for (const Case& c : cases) {
    const CardSet mine = Cards(c.povinnost_hand);
    std::vector<Card> rest;
    for (Card x : kAllCards - mine) rest.push_back(x);
    // talon = rest[0..5], seat 2 rest[6..17], seat 3 rest[18..29], seat 0 rest[30..41]
    Deal d;
    d.talon.assign(rest.begin(), rest.begin() + 6);
    d.deck = d.talon;
    for (Card x : CardList(c.povinnost_hand)) d.deck.push_back(x);
    d.deck.insert(d.deck.end(), rest.begin() + 6, rest.end());
    d.hands.assign(4, CardSet());
    Table t = Start(d, 0);
    ASSERT_TRUE(Do(t.s(), "tap 12, pass, pass, pass, pass"));
    EXPECT_EQ(t.st().called() == kNoCard ? "" : CardName(t.st().called()), c.called) << c.povinnost_hand;
    EXPECT_EQ(t.s().Observe(2).called_king, c.called);
    // The povinnost drew the top four talon cards (it cannot refuse them).
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(t.st().hand(1).Contains(d.talon[i]));
    EXPECT_EQ(t.st().hand(1).size(), 16);
  }
}

TEST(Povinnost, DrawingTheCalledTarockAllowsAThrowInThatCostsTwoChipsEach) {
  // Seat 1 lacks the XIX, which is the second talon card.
  Deal d = DeckDeal(0, kDealV, kTalonV);
  std::swap(d.deck[1], d.deck[6 + 12]);  // talon card 1 (T15) <-> seat 2's first card (T19)
  d.talon.assign(d.deck.begin(), d.deck.begin() + 6);
  Table t = Start(d, 0);
  ASSERT_TRUE(Do(t.s(), "tap 12, pass, pass, pass, pass"));
  EXPECT_EQ(CardName(t.st().called()), "T19");
  EXPECT_EQ(t.s().PhaseName(), "throw-in");
  EXPECT_EQ(Legal(t.s()), "pass, throw-in");
  Table thrown = Start(d, 0);
  ASSERT_TRUE(Do(thrown.s(), "tap 12, pass, pass, pass, pass, throw-in"));
  ASSERT_TRUE(thrown.s().IsTerminal());
  const HandResult r = thrown.s().Result();
  EXPECT_EQ(r.scores, (std::vector<int>{2, -6, 2, 2}));
  ASSERT_EQ(r.penalties.size(), 4u);
  EXPECT_EQ(r.penalties[1].reason, "throw-in");
  // Playing on: the povinnost has no partner and plays alone against three.
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(t.s().PhaseName(), "discard");
  ASSERT_TRUE(PlayOut(t.s(), kPrefsV));
  EXPECT_EQ(t.s().Result().partner, -1);
  EXPECT_EQ(Sum(t.s().Result().scores), 0);
}

TEST(Povinnost, NoThrowInWithoutDrawingTheCalledTarock) {
  // Deal V: seat 1 calls the XIX (held by seat 2) and draws T1 T15 H1 H2: it
  // drew the XV, not its called tarock, so it keeps its partner and plays.
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(t.s(), "tap 12, pass, pass, pass, pass"));
  EXPECT_EQ(CardName(t.st().called()), "T19");
  EXPECT_EQ(t.s().PhaseName(), "discard");
  EXPECT_EQ(t.s().CurrentSeat(), 1);
}

TEST(Povinnost, OptionThrowInXixToXvAllowsAThrowInAfterDrawingAnyOfThem) {
  // 004 ¶7 read card by card ("if he draws the XIX or any descending card, no
  // lower than XV"): with throw_in=xix-to-xv the XV drawn in deal V is enough.
  // Thrown in: seat 1 pays 2 to each other player: (+2, -6, +2, +2).
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0, {{"throw_in", "xix-to-xv"}});
  ASSERT_TRUE(Do(t.s(), "tap 12, pass, pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "throw-in");
  EXPECT_EQ(Legal(t.s()), "pass, throw-in");
  Table thrown = Start(DeckDeal(0, kDealV, kTalonV), 0, {{"throw_in", "xix-to-xv"}});
  ASSERT_TRUE(Do(thrown.s(), "tap 12, pass, pass, pass, pass, throw-in"));
  ASSERT_TRUE(thrown.s().IsTerminal());
  const HandResult r = thrown.s().Result();
  EXPECT_EQ(r.scores, (std::vector<int>{2, -6, 2, 2}));
  EXPECT_FALSE(r.redeal);  // a thrown-in hand is scored, one of the match's hands
  // Playing on, it keeps its partner: seat 2 holds the called XIX.
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(t.s().PhaseName(), "discard");
  ASSERT_TRUE(PlayOut(t.s(), kPrefsV));
  EXPECT_EQ(t.s().Result().partner, 2);
  // The default keeps the throw-in for the called tarock; a bad value is refused.
  EXPECT_EQ((*Registry::Global().Create("westfest"))->options().at("throw_in"), "called-tarock");
  absl::StatusOr<std::unique_ptr<Game>> bad = Registry::Global().Create("westfest", {{"throw_in", "bogus"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "called-tarock, xix-to-xv")) << bad.status();
}

// ---------------------------------------------------------------------------
// 3. Discards and the draws of the next two seats (004).

TEST(Discard, NoFivePointCardAndATarockOnlyFromTarocksAndKings) {
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(t.s(), "tap 12, pass, pass, pass, pass"));
  // Seat 1 holds T22 T21 T20 T18 T17 T16 T15 T14 T13 T1 HK HQ HN HJ H1 H2.
  EXPECT_EQ(Legal(t.s()), "discard H2, discard H1, discard HJ, discard HN, discard HQ");
  EXPECT_FALSE(t.s().ApplyText("discard HK").ok());
  EXPECT_FALSE(t.s().ApplyText("discard T13").ok());
  // With only tarocks and kings left, tarocks (not the trul) may be laid away.
  ASSERT_TRUE(Do(t.s(), "discard H2, discard H1, discard HJ, discard HN"));
  ASSERT_TRUE(Do(t.s(), "talon 1"));  // seat 2 draws H3
  Table u = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(u.s(), "tap 12, pass, pass, pass, pass, discard H2, discard H1, discard HJ, discard HQ"));
  EXPECT_EQ(u.st().hand(1), Cards("T22 T21 T20 T18 T17 T16 T15 T14 T13 T1 HK HN"));
  // Seat 1 keeps HN: not yet tarocks and kings only. Build that position directly:
  Table w = Start(DeckDeal(0, kDealU, "D1 D2 H1 H2 H3 H4"), 0);
  // Seat 1 draws D1 D2 H1 H2 and must lay away exactly those four suit cards.
  ASSERT_TRUE(Do(w.s(), "tap 12, pass, pass, pass, pass"));
  EXPECT_EQ(Legal(w.s()), "discard H2, discard H1, discard D2, discard D1");
  ASSERT_TRUE(Do(w.s(), "discard H2, discard H1, discard D2"));
  EXPECT_EQ(Legal(w.s()), "discard D1");
}

TEST(Discard, ATarockDiscardIsShownOthersAreFaceDown) {
  // Seat 1 lacks the XIX and draws T19 DK T2 T3: it holds tarocks and kings only
  // and plays on after the throw-in choice, laying away tarocks (not the trul).
  const std::vector<std::string> hands = {
      "C7 C8 C9 C10 S7 S8 S9 S10 SJ SN SQ SK",
      "T22 T21 T20 T18 T17 T16 T15 T14 T13 T12 T11 HK",
      "T10 T9 T8 T7 T6 T5 HQ HN HJ D3 D4 H4",
      "T4 H3 T1 DQ DN DJ CK CQ CN CJ H1 H2"};
  Table u = Start(DeckDeal(0, hands, "T19 DK T2 T3 D1 D2"), 0);
  ASSERT_TRUE(Do(u.s(), "tap 12, pass, pass, pass, pass"));
  ASSERT_EQ(u.s().PhaseName(), "throw-in");
  ASSERT_TRUE(Do(u.s(), "pass"));
  EXPECT_EQ(Legal(u.s()), "discard T2, discard T3, discard T11, discard T12, discard T13, discard T14, "
                          "discard T15, discard T16, discard T17, discard T18, discard T19, discard T20");
  ASSERT_TRUE(Do(u.s(), "discard T2, discard T3, discard T11, discard T12"));
  ASSERT_TRUE(Do(u.s(), "talon 1, discard H4"));  // seat 2 draws D1 and lays away H4 face down
  const Observation other = u.s().Observe(3);
  std::vector<std::string> texts;
  for (const auto& [seat, text] : other.history) texts.push_back(absl::StrCat(seat, ":", text));
  const std::string h = absl::StrJoin(texts, ",");
  EXPECT_TRUE(absl::StrContains(h, "1:discard T2,1:discard T3,1:discard T11,1:discard T12")) << h;
  EXPECT_TRUE(absl::StrContains(h, "2:talon 1,2:discard ?")) << h;
  EXPECT_TRUE(absl::StrContains(ObservationToJson(u.s().Observe(2)), "discard H4"));
  EXPECT_TRUE(NoLeaks(u.st()));
}

TEST(Draw, TheNextTwoSeatsEachDrawOneCardAndDiscardOne) {
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(t.s(), "tap 12, pass, pass, pass, pass, discard HQ, discard HN, discard HJ, discard H2"));
  EXPECT_EQ(t.s().PhaseName(), "draw");
  EXPECT_EQ(t.s().CurrentSeat(), 2);
  EXPECT_EQ(Legal(t.s()), "talon 1");  // four tarocks: no passing the draw card
  ASSERT_TRUE(Do(t.s(), "talon 1"));
  EXPECT_TRUE(t.st().hand(2).Contains(C("H3")));
  EXPECT_EQ(t.s().Observe(2).talon, (std::vector<std::string>{"?", "?", "?", "?", "H3", "?"}));
  EXPECT_EQ(t.s().Observe(1).talon, (std::vector<std::string>{"T1", "T15", "H1", "H2", "?", "?"}));
  ASSERT_TRUE(Do(t.s(), "discard H3"));
  EXPECT_EQ(t.s().CurrentSeat(), 3);
  EXPECT_EQ(Legal(t.s()), "talon 2");
  ASSERT_TRUE(Do(t.s(), "talon 2, discard H4"));
  EXPECT_EQ(t.s().PhaseName(), "announce");
  EXPECT_EQ(t.st().partner(), 2);  // the holder of the XIX
}

TEST(Draw, AUniOrBidaHandMayPassTheDrawCardWhichCountsForTheDefenders) {
  // Seat 1 holds T22..T11 (nothing to call: it plays alone); seat 2 (eight
  // tarocks) must draw; seat 3 (two tarocks, bida) may pass; seat 0 has uni.
  const std::vector<std::string> hands = {
      "C7 C8 C9 C10 S7 S8 S9 S10 SJ SN SQ SK",
      "T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11",
      "T10 T9 T8 T7 T6 T5 T4 T3 HK HQ HN HJ",
      "T2 T1 DK DQ DN DJ CK CQ CN CJ D3 D4"};
  Table t = Start(DeckDeal(0, hands, kTalonU), 0);
  ASSERT_TRUE(Do(t.s(), "tap 12, pass, pass, pass, pass"));
  EXPECT_EQ(t.st().called(), kNoCard);  // seat 1 holds XIX..XV: nothing to call
  ASSERT_TRUE(Do(t.s(), "discard H1, discard H2, discard H3, discard H4, talon 1, discard D1"));
  EXPECT_EQ(t.s().CurrentSeat(), 3);
  EXPECT_EQ(Legal(t.s()), "talon 2, pass");  // two tarocks: bida may be kept
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_FALSE(t.st().hand(3).Contains(C("D2")));
  EXPECT_EQ(t.s().Observe(3).talon[5], "?");  // passed unseen
  EXPECT_EQ(t.s().PhaseName(), "announce");
  ASSERT_TRUE(Do(t.s(), "pass, pass, announce bida"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  // The povinnost played alone; D2 stayed in the talon and counts for the defenders.
  EXPECT_EQ(r.partner, -1);
  const int declarer_points = r.card_thirds[0] / 3;
  EXPECT_EQ(declarer_points, WestfestState::Points(t.st().won(1)));
  EXPECT_EQ(declarer_points + r.card_thirds[1] / 3, 106);
  EXPECT_FALSE(t.st().won(1).Contains(C("D2")));
  ASSERT_NE(FindBonus(r, "bida"), nullptr);
  EXPECT_EQ(FindBonus(r, "bida")->announcer, 3);
  EXPECT_EQ(FindBonus(r, "uni")->announcer, 0);  // seat 0 holds no tarock: uni unannounced
  EXPECT_EQ(Sum(r.scores), 0);
}

// ---------------------------------------------------------------------------
// 4. Play (004 "Following Suit", "Card Values").

TEST(Play, FollowSuitElseTarockElseAnythingAndNoObligationToBeat) {
  Table t = Start(DeckDeal(0, kDealC, kTalonC), 0);
  ASSERT_TRUE(Do(t.s(), kExchangeC));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.s().CurrentSeat(), 1);  // the povinnost leads
  ASSERT_TRUE(Do(t.s(), "play DK"));
  // Seat 2 has no diamond: it must play a tarock, any tarock (no need to beat).
  EXPECT_EQ(Legal(t.s()), "play T5, play T9, play T13, play T17, play T21");
  ASSERT_TRUE(Do(t.s(), "play T5, play T6, play T7"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // T7 took the trick
  ASSERT_TRUE(Do(t.s(), "play HK"));
  // Seat 1 holds diamonds and tarocks, no heart: tarocks only.
  EXPECT_EQ(Legal(t.s()), "play T1, play T2, play T3, play T4, play T10, play T14, play T18, play T22");
}

TEST(Play, RedPipsRankAceFourThreeTwoAsTheDocumentSaysOrOptionallyAceTwoThreeFour) {
  // Seat 1 (prever, keeping T22 D4 D2 and laying away D4 D2 D3) leads H4; seat 2
  // plays H2, seat 3 H3, seat 0 (no heart, no tarock) C7. 004 "1 or Ace is high,
  // followed by 4, 3, 2": H4 wins; red_pip_order=traditional (1 2 3 4): H2 wins.
  const std::vector<std::string> hands = {
      "C7 C8 C9 C10 S7 S8 S9 S10 SJ SN SQ SK",
      "H4 D3 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12",
      "H2 T11 T10 T9 T8 T7 T6 T5 T4 T3 T2 T1",
      "H3 HK HQ HN HJ DK DQ DN DJ CK CQ CN"};
  const char* talon = "T22 D4 D2 D1 H1 CJ";
  for (const char* order : {"document", "traditional"}) {
    Table t = Start(DeckDeal(0, hands, talon), 0, {{"red_pip_order", order}});
    ASSERT_TRUE(Do(t.s(), "tap 12, bid prever, pass, discard D4, discard D2, discard D3"));
    ASSERT_TRUE(Do(t.s(), "pass, pass, pass, pass"));
    ASSERT_TRUE(Do(t.s(), "play H4, play H2, play H3, play C7"));
    EXPECT_EQ(t.s().CurrentSeat(), std::string(order) == "document" ? 1 : 2) << order;
    const auto& game = static_cast<const WestfestGame&>(*t.game);
    EXPECT_TRUE(game.beaters()[C("H4")].Contains(C("H1")));  // the ace is high either way
    EXPECT_TRUE(game.beaters()[C("H1")].Contains(C("HJ")));  // below the walker
    EXPECT_TRUE(game.beaters()[C("C10")].Contains(C("CJ")));
    EXPECT_FALSE(game.beaters()[C("C10")].Contains(C("C9")));
  }
}

TEST(Play, CardPointsAreRawAndTotal106) {
  EXPECT_EQ(WestfestState::Points(kAllCards), 106);
  EXPECT_EQ(WestfestState::Points(Cards("T22 T21 T1")), 15);
  EXPECT_EQ(WestfestState::Points(Cards("HK DQ CN SJ")), 5 + 4 + 3 + 2);
  EXPECT_EQ(WestfestState::Points(Cards("T2 T20 H1 C7")), 4);
  EXPECT_EQ(WestfestState::Points(kKingSet), 20);
}

// ---------------------------------------------------------------------------
// 5. Scoring (004 "Counting Of Score", "Calculating Prever Score", "Ties").

TEST(Scoring, TheDocumentsChipFormulas) {
  // 59 points: 59 - 53 = 6, + 10 = 16, x 2 = 32: 3 chips; the loser's 47 likewise.
  EXPECT_EQ(WestfestGame::GameChips(59), 3);
  EXPECT_EQ(WestfestGame::GameChips(47), 3);
  // Prever with 59: 16 x 3 = 48: "5 points from each player".
  EXPECT_EQ(WestfestGame::PreverChips(59), 5);
  // Rounding: 57 -> 4 + 10 = 14 x 2 = 28 -> 3; 55 -> 24 -> 2; 60 -> 34 -> 3; 61 -> 36 -> 4.
  EXPECT_EQ(WestfestGame::GameChips(57), 3);
  EXPECT_EQ(WestfestGame::GameChips(55), 2);
  EXPECT_EQ(WestfestGame::GameChips(60), 3);
  EXPECT_EQ(WestfestGame::GameChips(61), 4);
  // Three digits: 99 -> 46 + 10 = 56 x 2 = 112 -> 11 tens (not the "first digit" 1).
  EXPECT_EQ(WestfestGame::GameChips(99), 11);
  EXPECT_EQ(WestfestGame::GameChips(106), 13);
  EXPECT_EQ(WestfestGame::PreverChips(99), 17);  // 168 -> 17
  EXPECT_EQ(WestfestGame::PreverChips(95), 16);  // 156 -> 16
  EXPECT_EQ(WestfestGame::GameChips(53), 2);     // the tie's 2 chips
}

// Deal C, povinnost with partner seat 0 (the XIX), tarocky and Contra / Rhea Contra.
// Exchange: seat 1 draws T1 T2 T3 T4, lays away D4 D3 D2 D1 (4 points); seat 2
// draws T5 and lays away C7; seat 3 draws T6 and lays away S7.
//   trick 1   s1 DK, s2 T5, s3 T6, s0 T7          -> s0  (5+1+1+1 = 8)
//   trick 2   s0 HK, s1 T1, s2 T9, s3 T8          -> s2  (12)
//   trick 3   s2 CK, s3 T12, s0 T11, s1 T2        -> s3  (8)
//   trick 4   s3 SK, s0 T15, s1 T3, s2 T13        -> s0  (8)
//   trick 5   s0 HQ, s1 T4, s2 T17, s3 T16        -> s2  (7)
//   trick 6   s2 CQ, s3 T20, s0 T19, s1 T10       -> s3  (7)
//   trick 7   s3 SQ, s0 HN, s1 T14, s2 T21        -> s2  (4+3+1+5 = 13)
//   trick 8   s2 CN, s3 SN, s0 HJ, s1 T18         -> s1  (9)
//   trick 9   s1 DQ, s2 CJ, s3 SJ, s0 H1          -> s1  (9)
//   trick 10  s1 DN, s2 C10, s3 S10, s0 H2        -> s1  (6)
//   trick 11  s1 DJ, s2 C9, s3 S9, s0 H3          -> s1  (5)
//   trick 12  s1 T22, s2 C8, s3 S8, s0 H4         -> s1  (8)
// Declarer side: s1 37 + discards 4, s0 16 = 57; defenders 32 + 15 + 1 + 1 = 49.
// 57: 4 + 10 = 14 x 2 = 28 -> 3 chips, x 4 (Rhea Contra) = 12 each way.
// Tarocky (seat 1, eight tarocks): 2 from each other seat.
// Seat 0: +12 - 2 = 10; seat 1: +12 + 6 = 18; seats 2, 3: -12 - 2 = -14.
constexpr const char* kAnnounceC =
    "announce tarocky, kontra game, pass, kontra game, pass, pass, pass, pass";

TEST(Scoring, PovinnostWonOnCardPointsWithRheaContraAndTarocky) {
  Table t = Start(DeckDeal(0, kDealC, kTalonC), 0);
  ASSERT_TRUE(Do(t.s(), kExchangeC));
  EXPECT_EQ(t.st().partner(), 0);
  ASSERT_TRUE(Do(t.s(), kAnnounceC));
  ASSERT_TRUE(PlayOut(t.s(), kPrefsC));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{3 * 57, 3 * 49})) << Tricks(t.s());
  EXPECT_EQ(r.tricks, (std::vector<int>{2, 5, 3, 2}));
  EXPECT_TRUE(r.declarer_won);
  EXPECT_EQ(r.game_kontra_level, 2);
  EXPECT_EQ(r.contract, "povinnost");
  EXPECT_EQ(r.declarer, 1);
  EXPECT_EQ(r.partner, 0);
  EXPECT_EQ(r.scores, (std::vector<int>{10, 18, -14, -14})) << Tricks(t.s());
  ASSERT_NE(FindBonus(r, "tarocky"), nullptr);
  EXPECT_EQ(FindBonus(r, "tarocky")->value, 2);
  EXPECT_EQ(FindBonus(r, "pagat"), nullptr);  // the Pagat fell in trick 2
}

TEST(Scoring, ContraChainBelongsToTheSidesAndStopsAtSuprhea) {
  Table t = Start(DeckDeal(0, kDealC, kTalonC), 0);
  ASSERT_TRUE(Do(t.s(), kExchangeC));
  // Seat 1 (declarer) may not Contra its own game; seat 2 (defender) may.
  EXPECT_EQ(Legal(t.s()), "pass, announce tarocky, announce pagat, announce valat");
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(Legal(t.s()), "pass, kontra game");
  ASSERT_TRUE(Do(t.s(), "kontra game"));
  EXPECT_EQ(Legal(t.s()), "pass");  // seat 3, a defender: Rhea belongs to the other side
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(Legal(t.s()), "pass, announce valat, kontra game");  // seat 0, the partner (hidden)
  ASSERT_TRUE(Do(t.s(), "kontra game, pass, kontra game"));  // Rhea, seat 1 passes, seat 2 Suprhea
  EXPECT_EQ(t.st().kontra_level(kKontraGame), 3);
  ASSERT_TRUE(Do(t.s(), "pass, pass"));
  EXPECT_EQ(Legal(t.s()), "pass, announce tarocky, announce pagat, announce valat");  // nothing above Suprhea
}

TEST(Scoring, PreverWinsOnCardPointsAndTheSetMultiplierAppliesOnlyToLosses) {
  // Deal V, seat 1 bids prever and keeps the first set T1 T15 H1, lays away HQ HN HJ.
  //   tricks 1-3   s1 T22 T21 T20; s2 T10 T11 T12; s3 T6 T7 T8; s0 T2 T3 T4   -> s1
  //   trick 4      s1 T18, s2 T19, s3 T9, s0 T5                           -> s2 (4 points)
  //   trick 5      s2 D4, s3 C7, s0 S7, s1 T17                            -> s1
  //   tricks 6-10  s1 T16 T15 T14 T13 T1 over D3 D2 D1 DJ DN / C8.. / S8..  -> s1
  //   tricks 11-12 s1 HK, H1 over DQ DK / CQ CK / SQ SK                      -> s1
  // Prever: 106 - 4 - 3 (the unchosen set H2 H3 H4) = 99: 46 + 10 = 56 x 3 = 168
  // -> 17 chips from each player.
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(t.s(), "tap 12, bid prever, pass, discard HQ, discard HN, discard HJ"));
  ASSERT_TRUE(PlayOut(t.s(), kPrefsV));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{3 * 99, 3 * 7})) << Tricks(t.s());
  EXPECT_EQ(r.scores, (std::vector<int>{-17, 51, -17, -17}));
  // The second set (H2 H3 H4; T1 T15 H1 go to the defenders): 95 points, 16
  // chips; a win is not doubled.
  Table u = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(u.s(), "tap 12, bid prever, talon 1, pass, discard H2, discard H3, discard H4"));
  ASSERT_TRUE(PlayOut(u.s(), kPrefsV));
  r = u.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{3 * 95, 3 * 11})) << Tricks(u.s());
  EXPECT_EQ(r.scores, (std::vector<int>{-16, 48, -16, -16}));
  EXPECT_EQ(u.st().draw_multiplier(), 2);
}

TEST(Scoring, PreverLosingPaysOnceTwiceOrFourTimesAndUniIsPaidUnannounced) {
  // Deal U, seat 3 bids prever; the talon is six red pips, so whichever set it
  // keeps it lays the three away again and holds T4 T3 T2 T1 DK DQ DN DJ CK CQ
  // CN CJ. Seat 1 (twelve tarocks) takes every trick:
  //   tricks 1-4   s1 T22..T19; s2 T5..T8; s3 T1..T4; s0 S7..S10            -> s1
  //   tricks 5-12  s1 T18..T11; s2 T9 T10 HJ HN HQ HK D3 D4; s3 DJ DN DQ DK CJ CN
  //                CQ CK; s0 SJ SN SQ SK C7 C8 C9 C10                        -> s1
  // The prever player takes no trick: the defenders' valat, 20 chips from it to
  // each, x 1 / x 2 / x 4 for the first set, the second, and back to the first.
  // Seat 0 holds no tarock: uni, 4 chips from each other seat without a word.
  struct Case { const char* exchange; int mult; };
  for (const Case& c : {Case{"pass, discard H1, discard H2, discard H3", 1},
                        Case{"talon 1, pass, discard H4, discard D1, discard D2", 2},
                        Case{"talon 1, talon 0, discard H1, discard H2, discard H3", 4}}) {
    Table t = Start(DeckDeal(0, kDealU, kTalonU), 0);
    ASSERT_TRUE(Do(t.s(), "tap 12, pass, pass, bid prever"));
    ASSERT_TRUE(Do(t.s(), c.exchange));
    ASSERT_TRUE(PlayOut(t.s(), kPrefsU));
    const HandResult r = t.s().Result();
    EXPECT_EQ(r.tricks, (std::vector<int>{0, 12, 0, 0})) << Tricks(t.s());
    EXPECT_FALSE(r.declarer_won);
    const int x = 20 * c.mult;
    EXPECT_EQ(r.scores, (std::vector<int>{x + 12, x - 4, x - 4, -3 * x - 4})) << c.exchange;
    ASSERT_NE(FindBonus(r, "valat"), nullptr);
    EXPECT_EQ(FindBonus(r, "valat")->side, "defenders");
    ASSERT_NE(FindBonus(r, "uni"), nullptr);
    EXPECT_EQ(FindBonus(r, "uni")->announcer, 0);
  }
}

TEST(Scoring, SilentValatAndPersonalBonuses) {
  // Deal V, povinnost: seat 1 draws T1 T15 H1 H2, lays away HQ HN HJ H2; seat 2
  // draws H3 and lays it away; seat 3 draws H4 and lays it away. Seat 1
  // announces taroky (ten tarocks) and trul-honery (the trul and HK).
  //   tricks 1-3   s1 T22 T21 T20 over T10.. T6.. T2..                      -> s1
  //   trick 4      s1 T18, s2 T19 (its partner), s3 T9, s0 T5              -> s2
  //   trick 5      s2 D4, s3 C7, s0 S7, s1 T17                             -> s1
  //   tricks 6-12  s1 T16 T15 T14 T13 T1 HK H1                              -> s1
  // The declarer side takes every trick: silent valat, 20 chips a player in
  // place of the count. Taroky 4 and trul-honery 4: 8 from each other seat.
  // Seat 0: -20 - 8; seat 1: 20 + 24; seat 2: 20 - 8; seat 3: -20 - 8.
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(t.s(), "tap 12, pass, pass, pass, pass, discard HQ, discard HN, discard HJ, discard H2, "
                        "talon 1, discard H3, talon 2, discard H4"));
  const std::string legal = Legal(t.s());
  EXPECT_EQ(legal, "pass, announce tarocky, announce taroky, announce trul, announce honery, "
                   "announce trul-honery, announce pagat, announce valat");
  ASSERT_TRUE(Do(t.s(), "announce taroky"));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  // One bonus of each group: no tarocky after taroky, one honours bonus.
  EXPECT_EQ(Legal(t.s()), "pass, announce trul, announce honery, announce trul-honery, announce pagat, announce valat");
  ASSERT_TRUE(Do(t.s(), "announce trul-honery"));
  EXPECT_EQ(Legal(t.s()), "pass, announce valat");  // seat 2, the partner: no Contra on its own side
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(Legal(t.s()), "pass, announce pagat, announce valat");
  ASSERT_TRUE(Do(t.s(), "pass"));
  ASSERT_TRUE(PlayOut(t.s(), kPrefsV));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{0, 11, 1, 0})) << Tricks(t.s());
  EXPECT_EQ(r.card_thirds, (std::vector<int>{3 * 105, 3 * 1}));
  EXPECT_EQ(r.scores, (std::vector<int>{-28, 44, 12, -28}));
  ASSERT_NE(FindBonus(r, "valat"), nullptr);
  EXPECT_EQ(FindBonus(r, "valat")->announcer, -1);
  EXPECT_EQ(FindBonus(r, "valat")->value, 20);
}

TEST(Scoring, CalledValatWonPays40AndMissedCosts40) {
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0);
  const char* exchange = "tap 12, pass, pass, pass, pass, discard HQ, discard HN, discard HJ, discard H2, "
                         "talon 1, discard H3, talon 2, discard H4";
  ASSERT_TRUE(Do(t.s(), exchange));
  ASSERT_TRUE(Do(t.s(), "announce valat"));
  // No Pagat on a called valat hand.
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(Legal(t.s()), "pass, announce tarocky, announce taroky, announce trul, announce honery, announce trul-honery");
  ASSERT_TRUE(Do(t.s(), "pass"));
  ASSERT_TRUE(PlayOut(t.s(), kPrefsV));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.scores, (std::vector<int>{-40, 40, 40, -40}));
  EXPECT_EQ(FindBonus(r, "valat")->announcer, 1);
  // Deal C with a called valat and Contra: the povinnost's side loses tricks (see
  // the trace at kAnnounceC): 40 x 2 = 80 from each of its players, no count.
  Table u = Start(DeckDeal(0, kDealC, kTalonC), 0);
  ASSERT_TRUE(Do(u.s(), kExchangeC));
  ASSERT_TRUE(Do(u.s(), "announce valat, kontra game, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(u.s(), kPrefsC));
  r = u.s().Result();
  EXPECT_FALSE(r.declarer_won);
  EXPECT_EQ(r.scores, (std::vector<int>{-80, -80, 80, 80})) << Tricks(u.s());
}

TEST(Scoring, SilentAndCalledPagatOnTheLastTrick) {
  // Deal V, prever by seat 1 with the first set; seat 1 keeps the Pagat for the
  // last trick (tricks as in the prever test, T1 and H1 swapped in its order):
  //   trick 11  s1 H1 ... trick 12  s1 T1 over DK CK SK: the Pagat wins the last trick.
  std::vector<std::string> prefs = kPrefsV;
  prefs[1] = "T22 T21 T20 T18 T17 T16 T15 T14 T13 HK H1 T1";
  Table t = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(t.s(), "tap 12, bid prever, pass, discard HQ, discard HN, discard HJ, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s(), prefs));
  HandResult r = t.s().Result();
  // 17 chips for the game as before, 2 more each for the silent Pagat.
  EXPECT_EQ(r.scores, (std::vector<int>{-19, 57, -19, -19})) << Tricks(t.s());
  ASSERT_NE(FindBonus(r, "pagat"), nullptr);
  EXPECT_TRUE(FindBonus(r, "pagat")->won);
  // Called, with Contra by seat 2: 4 x 2 = 8 each.
  Table u = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(u.s(), "tap 12, bid prever, pass, discard HQ, discard HN, discard HJ, announce pagat"));
  EXPECT_EQ(Legal(u.s()), "pass, kontra game, kontra pagat");
  ASSERT_TRUE(Do(u.s(), "kontra pagat, pass, pass"));
  // Rhea Contra on the Pagat is the caller's side's; the hand bonuses are still open.
  EXPECT_EQ(Legal(u.s()), "pass, announce tarocky, announce taroky, announce trul, announce honery, "
                          "announce trul-honery, kontra pagat");
  ASSERT_TRUE(Do(u.s(), "pass, pass"));  // four passes in a row after the Contra
  ASSERT_TRUE(PlayOut(u.s(), prefs));
  r = u.s().Result();
  EXPECT_EQ(r.scores, (std::vector<int>{-25, 75, -25, -25}));
  EXPECT_EQ(FindBonus(r, "pagat")->announcer, 1);
  EXPECT_EQ(FindBonus(r, "pagat")->kontra_level, 1);
  // A called Pagat played before the last trick is lost: -4 from the caller to each.
  Table w = Start(DeckDeal(0, kDealV, kTalonV), 0);
  ASSERT_TRUE(Do(w.s(), "tap 12, bid prever, pass, discard HQ, discard HN, discard HJ, announce pagat, pass, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(w.s(), kPrefsV));  // T1 in trick 10
  r = w.s().Result();
  EXPECT_FALSE(FindBonus(r, "pagat")->won);
  EXPECT_EQ(r.scores, (std::vector<int>{-17 + 4, 51 - 12, -17 + 4, -17 + 4}));
}

TEST(Scoring, TieLosesTwoChipsForTheBidderOrTheLastChallenger) {
  // Random hands until 53-53 comes up with no bonus, at Contra levels 0, 1, 2.
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create("westfest");
  ASSERT_TRUE(game.ok());
  std::vector<bool> found(3, false);
  for (uint64_t seed = 1; seed < 200000 && !(found[0] && found[1] && found[2]); ++seed) {
    HandSetup setup;
    absl::StatusOr<std::unique_ptr<State>> st = (*game)->NewHand((*game)->DealCards(seed, 0), setup);
    ASSERT_TRUE(st.ok());
    Rng rng(seed);
    while (!(*st)->IsTerminal()) {
      ActionList legal;
      (*st)->LegalActions(&legal);
      Action a = legal.items[rng.Below(legal.size)];
      if (VerbOf(a) == Verb::kAnnounce || VerbOf(a) == Verb::kBid || VerbOf(a) == Verb::kCustom)
        if (legal.Contains(kPassAction)) a = kPassAction;
      (*st)->Apply(a);
    }
    const HandResult r = (*st)->Result();
    if (r.card_thirds.empty() || r.card_thirds[0] != 3 * 53 || !r.bonuses.empty() || r.game_kontra_level > 2) continue;
    if (found[r.game_kontra_level]) continue;
    found[r.game_kontra_level] = true;
    const int x = 2 << r.game_kontra_level;
    const bool declarer_wins = r.game_kontra_level == 1;  // Contra: the defenders challenged last
    EXPECT_EQ(r.declarer_won, declarer_wins);
    for (int s = 0; s < 4; ++s) {
      const bool decl = s == r.declarer || s == r.partner;
      int expected = (decl == declarer_wins) ? x : -x;
      if (r.partner < 0 && s == r.declarer) expected *= 3;
      EXPECT_EQ(r.scores[s], expected) << "seed " << seed << " level " << r.game_kontra_level;
    }
  }
  EXPECT_TRUE(found[0] && found[1] && found[2]);
}

// ---------------------------------------------------------------------------
// 6. Observations, records, the match.

TEST(Observation, NoSeatEverSeesAnotherSeatsHiddenCardsAndThePartnerIsHidden) {
  Table t = Start(DeckDeal(0, kDealC, kTalonC), 0);
  ASSERT_TRUE(NoLeaks(t.st()));
  for (absl::string_view a : absl::StrSplit(std::string(kExchangeC) + ", " + kAnnounceC, ',', absl::SkipWhitespace())) {
    ASSERT_TRUE(Do(t.s(), a));
    ASSERT_TRUE(NoLeaks(t.st())) << a;
  }
  EXPECT_EQ(t.s().Observe(0).partner, 0);   // the partner knows himself
  EXPECT_EQ(t.s().Observe(1).partner, -1);  // the povinnost does not yet
  EXPECT_EQ(t.s().Observe(2).partner, -1);
  EXPECT_EQ(t.s().Observe(2).called_king, "T19");
  std::vector<std::vector<Card>> order;
  while (!t.s().IsTerminal()) {
    ActionList legal;
    t.s().LegalActions(&legal);
    Action pick = legal.items[0];
    for (Card c : CardList(kPrefsC[t.s().CurrentSeat()]))
      if (legal.Contains(MakeAction(Verb::kPlay, c))) { pick = MakeAction(Verb::kPlay, c); break; }
    t.s().Apply(pick);
    ASSERT_TRUE(NoLeaks(t.st()));
    if (t.st().hand(0).Contains(C("T19"))) {
      EXPECT_EQ(t.s().Observe(2).partner, -1);
    }
  }
  EXPECT_EQ(t.s().Observe(2).partner, 0);  // the XIX fell in trick 6
  // Random hands, every seat at every step.
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create("westfest");
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    auto st = *(*game)->NewHand((*game)->DealCards(seed, seed % 4), HandSetup{static_cast<int>(seed % 4), {}, false});
    Rng rng(seed * 7);
    while (!st->IsTerminal()) {
      ASSERT_TRUE(NoLeaks(static_cast<const WestfestState&>(*st))) << seed;
      st->Apply(RandomLegalAction(*st, rng));
    }
  }
}

::testing::AssertionResult RoundTrip(const Game& game, const State& st) {
  const std::string json = HandRecordToJson(RecordOf(game, st, 5));
  absl::StatusOr<HandRecord> parsed = ParseHandRecord(json);
  if (!parsed.ok()) return ::testing::AssertionFailure() << parsed.status();
  absl::StatusOr<Replay> replay = ReplayRecord(*parsed);
  if (!replay.ok()) return ::testing::AssertionFailure() << replay.status() << "\n" << json;
  if (replay->state->History() != st.History()) return ::testing::AssertionFailure() << "history differs";
  if (st.IsTerminal() && replay->state->Result().scores != st.Result().scores)
    return ::testing::AssertionFailure() << "scores differ";
  for (int s = 0; s < 4; ++s)
    if (ObservationToJson(replay->state->Observe(s)) != ObservationToJson(st.Observe(s)))
      return ::testing::AssertionFailure() << "observation of seat " << s << " differs";
  return ::testing::AssertionSuccess();
}

TEST(Record, RecordJsonReplayIsIdentical) {
  Table t = Start(DeckDeal(0, kDealC, kTalonC), 0);
  ASSERT_TRUE(Do(t.s(), kExchangeC));
  EXPECT_TRUE(RoundTrip(*t.game, t.s()));  // a hand in progress
  ASSERT_TRUE(Do(t.s(), kAnnounceC));
  ASSERT_TRUE(PlayOut(t.s(), kPrefsC));
  EXPECT_TRUE(RoundTrip(*t.game, t.s()));
  // Every dealing method replays to the same deal.
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create("westfest", {{"red_pip_order", "traditional"}});
  for (const char* deal : {"cut", "tap 1", "tap 2", "tap 3", "tap 4", "tap 12", "tap stacks, stack 3, stack 1, stack 0"}) {
    auto st = *(*game)->NewHand((*game)->DealCards(11, 2), HandSetup{2, {}, false});
    ASSERT_TRUE(Do(*st, deal));
    Rng rng(3);
    PlayOutRandomly(*st, rng);
    EXPECT_TRUE(RoundTrip(**game, *st)) << deal;
    const HandRecord rec = RecordOf(**game, *st);
    EXPECT_TRUE(absl::StartsWith(deal, rec.actions[0])) << deal;
  }
}

// Deal C as a hand-written record: the deck (talon, then the twelves of seats 1,
// 2, 3, 0), `tap 12`, and the hand traced above: 10, 18, -14, -14.
constexpr const char* kRecordDealC = R"({
  "variant": "westfest", "dealer": 0, "hands": [[], [], [], []],
  "talon": ["T1","T2","T3","T4","T5","T6"],
  "deck": ["T1","T2","T3","T4","T5","T6",
           "T22","T18","T14","T10","D4","D3","D2","D1","DJ","DN","DQ","DK",
           "T21","T17","T13","T9","C7","C8","C9","C10","CJ","CN","CQ","CK",
           "T20","T16","T12","T8","S7","S8","S9","S10","SJ","SN","SQ","SK",
           "T19","T15","T11","T7","H4","H3","H2","H1","HJ","HN","HQ","HK"],
  "actions": ["tap 12","pass","pass","pass","pass",
              "discard D4","discard D3","discard D2","discard D1",
              "talon 1","discard C7","talon 2","discard S7",
              "announce tarocky","kontra game","pass","kontra game","pass","pass","pass","pass",
              "play DK","play T5","play T6","play T7",
              "play HK","play T1","play T9","play T8",
              "play CK","play T12","play T11","play T2",
              "play SK","play T15","play T3","play T13",
              "play HQ","play T4","play T17","play T16",
              "play CQ","play T20","play T19","play T10",
              "play SQ","play HN","play T14","play T21",
              "play CN","play SN","play HJ","play T18",
              "play DQ","play CJ","play SJ","play H1",
              "play DN","play C10","play S10","play H2",
              "play DJ","play C9","play S9","play H3",
              "play T22","play C8","play S8","play H4"],
  "scores": [10, 18, -14, -14]})";

TEST(Record, HandWrittenRecordReplaysToKnownScores) {
  absl::StatusOr<HandRecord> rec = ParseHandRecord(kRecordDealC);
  ASSERT_TRUE(rec.ok()) << rec.status();
  absl::StatusOr<Replay> replay = ReplayRecord(*rec);
  ASSERT_TRUE(replay.ok()) << replay.status();
  ASSERT_TRUE(replay->state->IsTerminal());
  EXPECT_EQ(replay->state->Result().scores, *rec->scores);
  EXPECT_EQ(replay->state->Result().card_thirds, (std::vector<int>{171, 147}));
  // An illegal action (revoking: seat 2 holds no diamond but T5 is forced... here
  // seat 2 tries a club on the diamond lead) is rejected with its index.
  HandRecord bad = *rec;
  bad.actions[22] = "play C8";
  absl::StatusOr<Replay> r2 = ReplayRecord(bad);
  ASSERT_FALSE(r2.ok());
  EXPECT_TRUE(absl::StrContains(r2.status().message(), "action 22 ('play C8')")) << r2.status();
  // A five-point discard is rejected too.
  bad = *rec;
  bad.actions[8] = "discard DK";
  EXPECT_FALSE(ReplayRecord(bad).ok());
}

TEST(Match, ChipAccountsStartAt100AndMayBorrowFromTheBank) {
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create("westfest");
  ASSERT_TRUE(game.ok());
  EXPECT_EQ((*game)->info().starting_account, 100);
  MatchOptions mo;
  mo.num_hands = 400;
  mo.seed = 9;
  absl::StatusOr<MatchProgress> match = MatchProgress::Start(**game, mo);
  ASSERT_TRUE(match.ok());
  EXPECT_EQ(match->Accounts(), (std::vector<int64_t>{100, 100, 100, 100}));
  Rng rng(4);
  bool borrowed = false;
  while (!match->Finished()) {
    MatchProgress::NextHand h = match->Next();
    auto st = *(*game)->NewHand(h.deal, h.setup);
    PlayOutRandomly(*st, rng);
    ASSERT_TRUE(match->Record(st->Result()).ok());
    int64_t sum = 0;
    const std::vector<int64_t> acc = match->Accounts(), owed = match->Borrowed();
    for (int s = 0; s < 4; ++s) {
      sum += acc[s];
      EXPECT_EQ(owed[s], acc[s] < 0 ? -acc[s] : 0);
      borrowed |= owed[s] > 0;
    }
    ASSERT_EQ(sum, 400);  // chips only change hands
  }
  EXPECT_TRUE(borrowed);  // random play runs someone out of chips in 400 hands
  EXPECT_EQ(match->redeals(), 0);  // no hand is redealt (uni: "the hand is not redealt")
}

}  // namespace
}  // namespace tarock::czech
