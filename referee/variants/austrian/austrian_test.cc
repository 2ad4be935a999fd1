// Rule-by-rule unit tests of tapp-tarock (rule document 001) and
// tapp-tarock-classic (rule document 002), against the rules pages beside this
// file.
//
// Every deal here is built by hand. The hands are played with a simple,
// hand-traceable policy (PlayOut): each seat plays the first card of its own
// preference list that is legal, else the first legal action. The deals are
// built so that the play is easy to follow: each comment traces the hand trick
// by trick and works the card points and the pay-out out by hand. Card points
// are counted in thirds (3v-2 per card: K, Skus, Mond, Pagat 13; Q 10; N 7; J 4;
// any other card 1), so a pile of 3k cards is worth exactly its traditional
// count (sum of values minus 2 per three cards) times 3.

#include "referee/variants/austrian/austrian.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
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

namespace tarock::austrian {
namespace {

using variant_test::C;
using variant_test::CardList;
using variant_test::Cards;
using variant_test::Do;
using variant_test::HistoryText;
using variant_test::Legal;

// ---------------------------------------------------------------------------
// Helpers.

Deal MakeDeal(const std::vector<std::string>& hands, absl::string_view talon) {
  Deal d;
  for (const std::string& h : hands) d.hands.push_back(Cards(h));
  d.talon = CardList(talon);
  return d;
}

HandSetup Dealt(int dealer) {
  HandSetup s;
  s.dealer = dealer;
  return s;
}

struct Table {
  std::unique_ptr<Game> game;
  std::unique_ptr<State> state;
  const AustrianState& st() const { return static_cast<const AustrianState&>(*state); }
  State& s() { return *state; }
};

Table Start(const std::string& variant, const Deal& deal, const HandSetup& setup, const Options& options = {}) {
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
// preference list that is legal, else the first legal card; in other phases
// the first legal action (pass, where there is one).
::testing::AssertionResult PlayOut(State& s, const std::vector<std::string>& prefs = {}) {
  std::vector<std::vector<Card>> order;
  for (const std::string& p : prefs) order.push_back(CardList(p));
  for (int guard = 0; !s.IsTerminal(); ++guard) {
    if (guard > 300) return ::testing::AssertionFailure() << "the hand does not end";
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

// The tricks of the hand as "leader: c1 c2 c3" lines, for failure messages and
// for checking a traced play.
std::vector<std::string> Tricks(const State& s) {
  std::vector<std::string> out;
  std::string cur;
  int n = 0;
  const std::vector<Action> h = s.History();
  for (Action a : h) {
    if (VerbOf(a) != Verb::kPlay) continue;
    absl::StrAppend(&cur, n % 3 == 0 ? "" : " ", CardName(static_cast<Card>(ArgOf(a))));
    if (++n % 3 == 0) {
      out.push_back(cur);
      cur.clear();
    }
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

const BonusResult* FindBonus(const HandResult& r, const std::string& name, bool won) {
  for (const BonusResult& b : r.bonuses)
    if (b.name == name && b.won == won) return &b;
  return nullptr;
}

std::string BonusText(const HandResult& r) {
  std::vector<std::string> out;
  for (const BonusResult& b : r.bonuses)
    out.push_back(absl::StrCat(b.name, "/seat ", b.seat, "/", b.won ? "won" : "lost", "/",
                               b.announcer >= 0 ? "announced" : "silent", "/", b.value));
  return absl::StrJoin(out, "; ");
}

// Every hand's scores sum to zero (001 Pay Outs).
int Sum(const std::vector<int>& v) {
  int s = 0;
  for (int x : v) s += x;
  return s;
}

// Checks that no seat's observation names a card it may not know: another
// seat's hand card, a face-down discard, a tapp card not shown to it.
::testing::AssertionResult NoLeaks(const AustrianState& st) {
  CardSet played, shown_discards;
  const bool all_discards_shown = st.game().info().name == "tapp-tarock-classic";
  for (Action a : st.History()) {
    const Card c = static_cast<Card>(ArgOf(a));
    if (VerbOf(a) == Verb::kPlay) played.Add(c);
    if (VerbOf(a) == Verb::kDiscard && (IsTarock(c) || all_discards_shown)) shown_discards.Add(c);
  }
  CardSet tapp;
  for (Card c : st.GetDeal().talon) tapp.Add(c);
  for (int seat = 0; seat < kSeats; ++seat) {
    const Observation obs = st.Observe(seat);
    const std::string json = ObservationToJson(obs);
    CardSet allowed = played | shown_discards | st.hand(seat);
    if (st.TalonExposed()) allowed |= tapp;
    if (seat == st.declarer()) allowed |= st.taken() | st.discards();
    const CardSet seen = CardsNamedIn(json);
    const CardSet leaked = seen - allowed;
    if (!leaked.empty())
      return ::testing::AssertionFailure() << "seat " << seat << " sees " << CardName(leaked.First()) << ": " << json;
    if (obs.hand != st.hand(seat)) return ::testing::AssertionFailure() << "wrong own hand";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult RoundTrip(const Game& game, const State& state) {
  const std::string json = HandRecordToJson(RecordOf(game, state));
  absl::StatusOr<HandRecord> parsed = ParseHandRecord(json);
  if (!parsed.ok()) return ::testing::AssertionFailure() << parsed.status();
  if (HandRecordToJson(*parsed) != json) return ::testing::AssertionFailure() << "JSON changed";
  absl::StatusOr<Replay> replay = ReplayRecord(*parsed);
  if (!replay.ok()) return ::testing::AssertionFailure() << replay.status() << "\n" << json;
  if (!replay->state->IsTerminal()) return ::testing::AssertionFailure() << "replay not finished";
  if (ReplayReportJson(game, state) != ReplayReportJson(*replay->game, *replay->state))
    return ::testing::AssertionFailure() << "replay report differs\n" << json;
  if (!parsed->scores || *parsed->scores != state.Result().scores)
    return ::testing::AssertionFailure() << "recorded scores missing or wrong";
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// The hand-built deals. Seat order is play order: seat i+1 (mod 3) plays after
// seat i. With dealer 2 the forehand (first to bid) is seat 0.

// Deal A. Seat 0 holds the twelve top tarocks T11..T22 and H1 H2 S7 S8; the
// tapp is pack 0 = [H4 H3 D4], pack 1 = [T1 D3 C7].
Deal DealA() {
  return MakeDeal({"T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 H1 H2 S7 S8",
                   "T2 T3 T4 T5 T6 DK CK SK DJ CJ SJ HJ HK HQ DQ CQ",
                   "T7 T8 T9 T10 D1 D2 C10 C9 C8 S10 S9 DN HN CN SQ SN"},
                  "H4 H3 D4 T1 D3 C7");
}
// Seat 0 declares Three, takes pack 0 and lays the same three cards away.
constexpr const char* kDealAThree = "bid three, pass, pass, talon 0, discard H4, discard H3, discard D4";
const std::vector<std::string> kDealAPrefs = {
    "T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 H1 H2 S7 S8",
    "T2 T3 T4 T5 T6 DK CK SK DJ CJ SJ HJ HK HQ DQ CQ",
    "T7 T8 T9 T10 D1 D2 C10 C9 C8 S10 S9 DN HN SN SQ CN"};
// Play of deal A (seat 0 leads):
//   tricks 1-4   s0 T22 T21 T20 T19; s1 T2..T5; s2 T7..T10           -> s0
//   trick 5      s0 T18, s1 T6, s2 D1 (out of tarocks)               -> s0
//   tricks 6-12  s0 T17..T11; s1 DK CK SK DJ CJ SJ HJ; s2 D2 C10 C9 C8 S10 S9 DN -> s0
//   trick 13     s0 H1, s1 HK, s2 HN                                 -> s1
//   trick 14     s1 HQ, s2 SN (void), s0 H2                          -> s1
//   trick 15     s1 DQ, s2 SQ, s0 S7                                 -> s1
//   trick 16     s1 CQ, s2 CN, s0 S8                                 -> s1
// Seat 0: discards H4 H3 D4 (3) + her tarocks (13+13+10 = 36) + T2..T10 (9) +
// s1's DK CK SK DJ CJ SJ HJ (39+16 = 55) + s2's D1 D2 C10 C9 C8 S10 S9 DN (7+7 = 14)
// = 117 thirds = 39 points. Seat 1: 21 + 18 + 21 + 18 = 78 thirds = 26 points;
// the defenders also have pack 1 (T1 D3 C7: 15) = 93. Trull: T22/T21 are seat
// 0's, T1 is in the defenders' pack (nobody's own); kings split; no Pagat played.

// Deal B: as A but with DK CK in the defenders' pack and more low cards for the
// defenders to throw: seat 0 loses Three.
Deal DealB() {
  return MakeDeal({"T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 H1 H2 S7 S8",
                   "T2 T3 T4 T5 T6 HJ DJ CJ SJ DN CN D1 HK HQ DQ CQ",
                   "T7 T8 T9 T10 D2 D3 C10 C9 C8 C7 S10 S9 HN SK SQ SN"},
                  "H4 H3 D4 T1 DK CK");
}
const std::vector<std::string> kDealBPrefs = {
    "T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 H1 H2 S7 S8",
    "T2 T3 T4 T5 T6 HJ DJ CJ SJ DN CN D1 HK HQ DQ CQ",
    "T7 T8 T9 T10 D2 D3 C10 C9 C8 C7 S10 S9 HN SK SQ SN"};
// Play of deal B (Three, seat 0 lays away H4 H3 D4): tricks 1-12 as in deal A,
// the defenders throwing s1 HJ DJ CJ SJ DN CN D1 and s2 D2 D3 C10 C9 C8 C7 S10 S9
// (16 + 14 + 1 + 8 = 39); tricks 13-16: s0 H1 s1 HK s2 HN; s1 HQ s2 SK s0 H2;
// s1 DQ s2 SQ s0 S7; s1 CQ s2 SN s0 S8, all to s1 (21 + 24 + 21 + 18 = 84).
// Seat 0: 3 + 36 + 9 + 39 = 87 thirds = 29 points: lost. Defenders 84 + pack 1
// (T1 DK CK: 39) = 123 thirds = 41.

// Deal C: seat 1 keeps the Pagat to the end behind T2..T11 and wins the last
// trick with it; seat 2 holds no tarock.
Deal DealC() {
  return MakeDeal({"T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 H1 H2 H3 S7 S8 S9",
                   "T1 T2 T3 T4 T5 T6 T7 T8 T9 T10 T11 HK HQ HN HJ SK",
                   "DK DQ DN DJ D1 D2 CK CQ CN CJ C10 C9 SQ SN SJ S10"},
                  "H4 D4 D3 T12 C7 C8");
}
const std::vector<std::string> kDealCPrefs = {
    "T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 H1 H2 H3 S7 S8 S9",
    "T2 T3 T4 T5 T6 T7 T8 T9 T10 T11 HK HQ HN HJ SK T1",
    "DK CK DQ CQ DN DJ CJ D1 D2 C10 C9 CN S10 SJ SN SQ"};
// Play of deal C, seat 0 declaring Three (pack 0 [H4 D4 D3] taken and laid away):
//   tricks 1-10  s0 T22..T13; s1 T2..T11; s2 DK CK DQ CQ DN DJ CJ D1 D2 C10 -> s0
//   trick 11     s0 H1, s1 HK, s2 C9          -> s1 (1+13+1 = 15)
//   trick 12     s1 HQ, s2 CN, s0 H2          -> s1 (10+7+1 = 18)
//   trick 13     s1 HN, s2 S10, s0 H3         -> s1 (7+1+1 = 9)
//   trick 14     s1 HJ, s2 SJ, s0 S7          -> s1 (4+4+1 = 9)
//   trick 15     s1 SK, s2 SN, s0 S8          -> s1 (13+7+1 = 21)
//   trick 16     s1 T1, s2 SQ, s0 S9          -> s1: the Pagat wins the last trick (13+10+1 = 24)
// Seat 0: 3 + (26 + 8) + 10 + (13+13+10+10+7+4+4+1+1+1 = 64) = 111 thirds = 37
// points. Seat 1: 96 thirds = 32 points; with pack 1 (T12 C7 C8: 3) 99.

// Deal D: seat 0 holds the sixteen tarocks T7..T22 and takes every trick.
Deal DealD() {
  return MakeDeal({"T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22",
                   "T1 T2 T3 T4 T5 T6 HK HQ HN HJ H1 H2 DK DQ DN DJ",
                   "D1 D2 CK CQ CN CJ C10 C9 SK SQ SN SJ S10 S9 S8 S7"},
                  "H4 H3 D4 D3 C7 C8");
}
// Whoever leads, seat 0 wins all 16 tricks: her tricks hold all 48 hand cards,
// 210 - 6 (the tapp, six one-pointers) = 204 thirds = 68 points, with T22 T21 T1
// and all four kings.

// Deal E: deal D with seats 0 and 1 exchanged: the defender seat 1 takes everything.
Deal DealE() {
  return MakeDeal({"T1 T2 T3 T4 T5 T6 HK HQ HN HJ H1 H2 DK DQ DN DJ",
                   "T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22",
                   "D1 D2 CK CQ CN CJ C10 C9 SK SQ SN SJ S10 S9 S8 S7"},
                  "H4 H3 D4 D3 C7 C8");
}

// Deal F (Bridscher tie): seats 0 and 1 each end with 96 thirds.
Deal DealF() {
  return MakeDeal({"T15 T16 T17 T18 T19 T20 T21 T22 H4 H3 H2 H1 S7 S8 S9 S10",
                   "T7 T8 T9 T10 T11 T12 T13 T14 HK HQ HN HJ SK SQ SN SJ",
                   "DK DQ DN DJ D1 D2 D3 D4 CK CQ CN CJ C10 C9 C8 C7"},
                  "T1 T2 T3 T4 T5 T6");
}
const std::vector<std::string> kDealFPrefs = {
    "T22 T21 T20 T19 T18 T17 T16 T15 H4 H3 H2 H1 S7 S8 S9 S10",
    "T7 T8 T9 T10 T11 T12 T13 T14 HK HQ HN HJ SK SQ SN SJ",
    "DK CK DQ CQ DN D1 D2 D3 CN DJ CJ D4 C10 C9 C8 C7"};
// Play of deal F (Bridscher, forehand seat 0 leads):
//   tricks 1-8   s0 T22..T15; s1 T7..T14; s2 DK CK DQ CQ DN D1 D2 D3   -> s0
//   trick 9      s0 H4, s1 HK, s2 CN          -> s1
//   tricks 10-12 s1 HQ HN HJ; s2 DJ CJ D4; s0 H3 H2 H1 -> s1
//   tricks 13-16 s1 SK SQ SN SJ; s2 C10 C9 C8 C7; s0 S7 S8 S9 S10 -> s1
// Seat 0: T22 T21 (26) + T15..T20 (6) + T7..T14 (8) + 13+13+10+10+7+1+1+1 (56) = 96.
// Seat 1: his hearts and spades honours (2 x 34 = 68) + s0's eight pips (8) + s2's
// CN DJ CJ D4 C10 C9 C8 C7 (7+4+4+5 = 20) = 96. Seat 2: 0. Tapp (T1..T6, 18) aside.

// ---------------------------------------------------------------------------
// Registry and deal.

TEST(AustrianVariants, BothAreRegisteredWithTheirContractsBonusesAndOptions) {
  absl::StatusOr<VariantInfo> tapp = Registry::Global().Info("tapp-tarock");
  ASSERT_TRUE(tapp.ok()) << tapp.status();
  EXPECT_EQ(tapp->num_seats, 3);
  EXPECT_EQ(tapp->hand_size, 16);
  EXPECT_EQ(tapp->talon_size, 6);
  EXPECT_EQ(absl::StrJoin(tapp->contracts, " "), "three two one solo bridscher");
  EXPECT_EQ(absl::StrJoin(tapp->bonuses, " "), "pagat-ultimo trull four-kings absolut grandpointe");
  ASSERT_EQ(tapp->options.size(), 3u);
  EXPECT_EQ(tapp->options[0].name, "counting");
  EXPECT_EQ(tapp->options[0].default_value, "traditional");
  EXPECT_EQ(tapp->options[1].name, "absolut");
  EXPECT_EQ(tapp->options[1].default_value, "40-49");
  EXPECT_EQ(absl::StrJoin(tapp->options[1].choices, " "), "40-49 at-least-40");
  EXPECT_EQ(tapp->options[2].name, "pagat_ultimo");
  EXPECT_EQ(tapp->options[2].default_value, "takes-pagat");
  EXPECT_EQ(absl::StrJoin(tapp->options[2].choices, " "), "takes-pagat pagat-wins");
  // house=traditional: the engine's former readings of 001, together.
  ASSERT_EQ(tapp->option_sets.size(), 1u);
  EXPECT_EQ(tapp->option_sets[0].name, "traditional");
  absl::StatusOr<std::unique_ptr<Game>> house = Registry::Global().Create("tapp-tarock", {{"house", "traditional"}});
  ASSERT_TRUE(house.ok()) << house.status();
  EXPECT_EQ((*house)->options().at("absolut"), "at-least-40");
  EXPECT_EQ((*house)->options().at("pagat_ultimo"), "pagat-wins");
  EXPECT_EQ((*house)->options().count("house"), 0u);
  const Rules& hr = static_cast<const AustrianGame&>(**house).rules();
  EXPECT_TRUE(hr.announced_absolut_open_ended);
  EXPECT_TRUE(hr.pagat_ultimo_pagat_wins);
  const Rules dr = MakeRules("tapp-tarock", *Registry::Global().CompleteOptions("tapp-tarock", {}));
  EXPECT_FALSE(dr.announced_absolut_open_ended);
  EXPECT_FALSE(dr.pagat_ultimo_pagat_wins);
  EXPECT_EQ(tapp->rules_page, "referee/variants/austrian/rules-tapp-tarock.md");

  absl::StatusOr<VariantInfo> classic = Registry::Global().Info("tapp-tarock-classic");
  ASSERT_TRUE(classic.ok()) << classic.status();
  EXPECT_EQ(classic->num_seats, 3);
  EXPECT_EQ(absl::StrJoin(classic->contracts, " "), "three bottom-three top-three solo");
  EXPECT_EQ(absl::StrJoin(classic->bonuses, " "), "pagat-ultimo valat");
  ASSERT_EQ(classic->options.size(), 1u);
  EXPECT_EQ(classic->options[0].name, "thrown_in");
  EXPECT_EQ(classic->options[0].default_value, "hand");
  EXPECT_EQ(absl::StrJoin(classic->options[0].choices, " "), "hand redeal");
  EXPECT_EQ(classic->rules_page, "referee/variants/austrian/rules-tapp-tarock-classic.md");
  // Match-level: no radli, no forced Klop.
  EXPECT_EQ(classic->radl_penalty, 0);
  EXPECT_FALSE(tapp->zero_total_forces_klop);
  EXPECT_FALSE(Registry::Global().Create("tapp-tarock", {{"counting", "roman"}}).ok());
  // An unknown value is an error that names the valid ones, and creates nothing.
  for (const auto& [variant, option] : std::vector<std::pair<std::string, std::string>>{
           {"tapp-tarock", "absolut"}, {"tapp-tarock", "pagat_ultimo"}, {"tapp-tarock-classic", "thrown_in"}}) {
    absl::StatusOr<std::unique_ptr<Game>> bad = Registry::Global().Create(variant, {{option, "bogus"}});
    ASSERT_FALSE(bad.ok()) << variant;
    const std::string msg(bad.status().message());
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_TRUE(absl::StrContains(msg, "bogus")) << msg;
    const std::vector<std::string> valid =
        option == "absolut"        ? std::vector<std::string>{"40-49", "at-least-40"}
        : option == "pagat_ultimo" ? std::vector<std::string>{"takes-pagat", "pagat-wins"}
                                   : std::vector<std::string>{"hand", "redeal"};
    for (const std::string& v : valid)
      EXPECT_TRUE(absl::StrContains(msg, v)) << msg;
  }
}

TEST(AustrianDeal, TappFirstThenFourPacketsOfFourFromForehand) {
  // 001 Setup, 002 Dealing: the six tapp cards first, then 16 each in packets of
  // four, starting with the seat after the dealer.
  for (const char* variant : {"tapp-tarock", "tapp-tarock-classic"}) {
    auto game = *Registry::Global().Create(variant);
    const uint64_t seed = 77;
    const int dealer = 1;
    Card deck[kNumCards];
    for (int i = 0; i < kNumCards; ++i) deck[i] = static_cast<Card>(i);
    Rng rng(seed);
    rng.Shuffle(deck, kNumCards);
    const Deal d = game->DealCards(seed, dealer);
    ASSERT_EQ(d.talon.size(), 6u);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(d.talon[i], deck[i]);
    ASSERT_EQ(d.hands.size(), 3u);
    int next = 6;
    for (int round = 0; round < 4; ++round) {
      for (int k = 1; k <= 3; ++k) {
        const int seat = (dealer + k) % 3;
        for (int i = 0; i < 4; ++i) EXPECT_TRUE(d.hands[seat].Contains(deck[next++])) << variant;
      }
    }
    for (int s = 0; s < 3; ++s) EXPECT_EQ(d.hands[s].size(), 16);
    EXPECT_EQ(game->DealCards(seed, dealer).hands, d.hands);  // deterministic
  }
}

TEST(AustrianDeal, BadDealsAreRejectedWithAReason) {
  auto game = *Registry::Global().Create("tapp-tarock");
  Deal d = DealA();
  EXPECT_TRUE(game->NewHand(d, Dealt(0)).ok());
  Deal twice = d;
  twice.talon[0] = C("T22");
  absl::StatusOr<std::unique_ptr<State>> st = game->NewHand(twice, Dealt(0));
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(absl::StrContains(st.status().message(), "dealt twice")) << st.status();
  EXPECT_FALSE(game->NewHand(d, Dealt(3)).ok());
  HandSetup radli = Dealt(0);
  radli.radli = {1, 0, 0};
  EXPECT_FALSE(game->NewHand(d, radli).ok());
  HandSetup klop = Dealt(0);
  klop.forced_klop = true;
  EXPECT_FALSE(game->NewHand(d, klop).ok());
}

// ---------------------------------------------------------------------------
// 001: bidding (Bidding Process).

TEST(TappBidding, ForehandOpensAndTheFirstBidIsAlwaysThree) {
  Table t = Start("tapp-tarock", DealA(), Dealt(0));
  EXPECT_EQ(t.s().CurrentSeat(), 1);  // the seat after the dealer
  EXPECT_EQ(t.s().PhaseName(), "bidding");
  EXPECT_EQ(Legal(t.s()), "pass, bid three");
  EXPECT_FALSE(t.s().ApplyText("bid two").ok());
  EXPECT_FALSE(t.s().ApplyText("bid bridscher").ok());
  // Also after a pass, until someone has bid.
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(Legal(t.s()), "pass, bid three");
}

TEST(TappBidding, EachBidHigherAPassIsFinalTheLastBidderDeclares) {
  Table t = Start("tapp-tarock", DealA(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "bid three"));  // seat 1
  EXPECT_EQ(Legal(t.s()), "pass, bid two, bid one, bid solo");  // any higher bid
  ASSERT_TRUE(Do(t.s(), "bid two, pass"));  // seat 2 two, seat 0 passes
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_EQ(Legal(t.s()), "pass, bid one, bid solo");
  ASSERT_TRUE(Do(t.s(), "bid one"));
  EXPECT_EQ(t.s().CurrentSeat(), 2);  // seat 0 passed for good
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(t.st().declarer(), 1);
  EXPECT_EQ(t.st().contract(), 2);  // one
  EXPECT_EQ(t.s().PhaseName(), "talon");
  EXPECT_EQ(t.s().CurrentSeat(), 1);
}

TEST(TappBidding, SoloEndsTheAuctionAtOnce) {
  Table t = Start("tapp-tarock", DealA(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "bid three, bid solo"));
  EXPECT_EQ(t.st().declarer(), 1);
  EXPECT_EQ(t.s().PhaseName(), "announce");  // no exchange in Solo
  EXPECT_EQ(t.s().CurrentSeat(), 1);
}

TEST(TappBidding, AllPassIsABridscherLedByForehandWithoutExchangeOrBonuses) {
  Table t = Start("tapp-tarock", DealA(), Dealt(1));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.s().CurrentSeat(), 2);  // forehand
  EXPECT_EQ(t.st().declarer(), -1);
  const Observation o = t.s().Observe(0);
  EXPECT_EQ(o.contract, "bridscher");
  for (const std::string& c : o.talon) EXPECT_EQ(c, "?");  // the tapp stays face down
}

// ---------------------------------------------------------------------------
// 001: the exchange (Exchanging Cards).

TEST(TappExchange, TheWholeTappIsTurnedUpAndThreeTakesEitherPack) {
  Table t = Start("tapp-tarock", DealA(), Dealt(2));
  for (int s = 0; s < 3; ++s)
    for (const std::string& c : t.s().Observe(s).talon) EXPECT_EQ(c, "?");
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass"));
  EXPECT_EQ(Legal(t.s()), "talon 0, talon 1");
  for (int s = 0; s < 3; ++s)
    EXPECT_EQ(absl::StrJoin(t.s().Observe(s).talon, " "), "H4 H3 D4 T1 D3 C7");
  ASSERT_TRUE(Do(t.s(), "talon 1"));
  EXPECT_EQ(t.st().taken(), Cards("T1 D3 C7"));
  EXPECT_TRUE(t.st().hand(0).ContainsAll(Cards("T1 D3 C7")));
  EXPECT_EQ(t.st().DefenderTapp(), Cards("H4 H3 D4"));  // the untouched pack
  EXPECT_EQ(t.s().PhaseName(), "discard");
}

TEST(TappExchange, TwoTakesAnAdjacentPairTheRestOfATouchedPackIsTheDeclarers) {
  // Pairs (0,1), (2,3), (4,5) of [H4 H3 D4 | T1 D3 C7].
  struct Case { int pair; const char* taken; const char* declarer; const char* defenders; };
  const Case cases[] = {
      {0, "H4 H3", "D4", "T1 D3 C7"},   // pack 0 touched, pack 1 untouched
      {1, "D4 T1", "H4 H3 D3 C7", ""},  // both packs touched
      {2, "D3 C7", "T1", "H4 H3 D4"},
  };
  for (const Case& c : cases) {
    Table t = Start("tapp-tarock", DealA(), Dealt(2));
    ASSERT_TRUE(Do(t.s(), "bid three, bid two, pass, pass"));  // seat 1 declares Two
    EXPECT_EQ(t.st().declarer(), 1);
    EXPECT_EQ(Legal(t.s()), "talon 0, talon 1, talon 2");
    ASSERT_TRUE(Do(t.s(), absl::StrCat("talon ", c.pair)));
    EXPECT_EQ(t.st().taken(), Cards(c.taken)) << c.pair;
    EXPECT_EQ(t.st().DefenderTapp(), Cards(c.defenders)) << c.pair;
    EXPECT_EQ(t.st().DeclarerPile(), Cards(c.declarer)) << c.pair;  // nothing laid away yet
  }
}


TEST(TappExchange, OneTakesASingleCardTheOtherTwoOfItsPackAreTheDeclarers) {
  Table t = Start("tapp-tarock", DealA(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "bid three, bid one, pass, pass"));  // seat 1 declares One
  EXPECT_EQ(Legal(t.s()), "talon 0, talon 1, talon 2, talon 3, talon 4, talon 5");
  ASSERT_TRUE(Do(t.s(), "talon 4"));  // D3
  EXPECT_EQ(t.st().taken(), Cards("D3"));
  EXPECT_EQ(t.st().DeclarerPile(), Cards("T1 C7"));     // the rest of pack 1
  EXPECT_EQ(t.st().DefenderTapp(), Cards("H4 H3 D4"));  // pack 0, untouched
  // The card just taken may be laid away again (001: "you may discard cards you just picked up").
  ASSERT_TRUE(Do(t.s(), "discard D3"));
  EXPECT_EQ(t.st().DeclarerPile(), Cards("T1 C7 D3"));
  EXPECT_EQ(t.s().PhaseName(), "announce");
}

// Deal G: seat 1 holds T7..T18 and the four kings; pack 1 of the tapp is
// T19 T20 T21.
Deal DealG() {
  return MakeDeal({"T1 T2 T3 T4 T5 T6 T22 HQ HN HJ H1 H2 DQ DN DJ D1",
                   "T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 HK DK CK SK",
                   "D2 D3 CQ CN CJ C10 C9 C8 C7 SQ SN SJ S10 S9 S8 S7"},
                  "H4 H3 D4 T19 T20 T21");
}

TEST(TappExchange, DiscardsNeverKingsOrTrullTarocksOnlyWhenNoSuitCardIsLeft) {
  // Seat 1 of deal D holds ten suit cards, two of them kings, and T1..T6.
  Table t = Start("tapp-tarock", DealD(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass, talon 0"));  // seat 1 takes H4 H3 D4
  EXPECT_EQ(Legal(t.s()), "discard H4, discard H3, discard H2, discard H1, discard HJ, discard HN, "
                          "discard HQ, discard D4, discard DJ, discard DN, discard DQ");
  EXPECT_FALSE(t.s().ApplyText("discard HK").ok());
  EXPECT_FALSE(t.s().ApplyText("discard T2").ok());
  // Seat 1 of deal G has only tarocks and kings once he takes T19 T20 T21: then
  // tarocks may be laid away, but never the Mond (nor Skus or Pagat) nor a king.
  Table g = Start("tapp-tarock", DealG(), Dealt(0));
  ASSERT_TRUE(Do(g.s(), "bid three, pass, pass, talon 1"));
  EXPECT_EQ(Legal(g.s()), "discard T7, discard T8, discard T9, discard T10, discard T11, discard T12, "
                          "discard T13, discard T14, discard T15, discard T16, discard T17, discard T18, "
                          "discard T19, discard T20");
  // Taking the suit pack instead, he must lay away exactly those three suit cards.
  Table h = Start("tapp-tarock", DealG(), Dealt(0));
  ASSERT_TRUE(Do(h.s(), "bid three, pass, pass, talon 0"));
  EXPECT_EQ(Legal(h.s()), "discard H4, discard H3, discard D4");
  ASSERT_TRUE(Do(h.s(), "discard H3, discard D4"));
  EXPECT_EQ(Legal(h.s()), "discard H4");
}

TEST(TappExchange, DiscardedTarocksAreShownSuitCardsFaceDown) {
  Table g = Start("tapp-tarock", DealG(), Dealt(0));
  ASSERT_TRUE(Do(g.s(), "bid three, pass, pass, talon 1, discard T20, discard T7"));
  for (int s : {0, 2}) {
    const Observation o = g.s().Observe(s);
    EXPECT_EQ(o.history[4].second, "discard T20");
    EXPECT_EQ(o.history[5].second, "discard T7");
  }
  Table a = Start("tapp-tarock", DealA(), Dealt(2));
  ASSERT_TRUE(Do(a.s(), kDealAThree));
  EXPECT_EQ(a.s().Observe(0).history[4].second, "discard H4");  // her own discard
  for (int s : {1, 2}) {
    const Observation o = a.s().Observe(s);
    EXPECT_EQ(o.history[4].second, "discard ?");
    EXPECT_EQ(o.history[5].second, "discard ?");
  }
  EXPECT_TRUE(NoLeaks(a.st()));
}

TEST(TappExchange, SoloPlaysWithoutTheTappWhichIsTheDefendersAndStaysFaceDown) {
  // 001: the first bid is always Three; seat 0 overbids seat 2's Three with Solo.
  Table t = Start("tapp-tarock", DealD(), Dealt(1));
  ASSERT_TRUE(Do(t.s(), "bid three, bid solo"));
  EXPECT_EQ(t.st().declarer(), 0);
  EXPECT_EQ(t.st().DefenderTapp(), Cards("H4 H3 D4 D3 C7 C8"));
  EXPECT_EQ(t.st().taken(), CardSet());
  ASSERT_TRUE(PlayOut(t.s()));
  for (int s = 0; s < 3; ++s)
    EXPECT_EQ(absl::StrJoin(t.s().Observe(s).talon, " "), "? ? ? ? ? ?");
}

// ---------------------------------------------------------------------------
// 001: announcements (Bonus).

TEST(TappAnnouncements, DeclarerFirstAnyPlayerAnyBonusOnceUntilThreePassesInARow) {
  Table t = Start("tapp-tarock", DealC(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass, talon 0, discard H4, discard D4, discard D3"));
  EXPECT_EQ(t.s().PhaseName(), "announce");
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // the declarer first
  // Pagat Ultimo only for the holder of the Pagat (seat 1).
  EXPECT_EQ(Legal(t.s()), "pass, announce trull, announce four-kings, announce absolut, announce grandpointe");
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(Legal(t.s()), "pass, announce pagat-ultimo, announce trull, announce four-kings, "
                          "announce absolut, announce grandpointe");
  ASSERT_TRUE(Do(t.s(), "announce pagat-ultimo"));
  EXPECT_EQ(t.s().CurrentSeat(), 2);
  ASSERT_TRUE(Do(t.s(), "pass"));
  // Seat 0 passed before but may still announce: a pass is final only after three in a row.
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  EXPECT_EQ(Legal(t.s()), "pass, announce trull, announce four-kings, announce absolut, announce grandpointe");
  ASSERT_TRUE(Do(t.s(), "announce absolut, pass, pass"));
  EXPECT_EQ(t.s().PhaseName(), "announce");
  EXPECT_EQ(Legal(t.s()), "pass, announce trull, announce four-kings, announce grandpointe");
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // 001 Trick Taking: the bid winner leads
  // Everyone sees the announcements.
  const Observation o = t.s().Observe(2);
  EXPECT_EQ(o.history[8].second, "announce pagat-ultimo");
  EXPECT_EQ(o.history[8].first, 1);
}

// ---------------------------------------------------------------------------
// Play (001 Following Suit, 002 Game Play).

// Deal R: pips against pips.
Deal DealR() {
  return MakeDeal({"T1 T2 T3 T4 T5 T6 T7 T8 T9 T10 T11 T12 H4 D1 C7 S10",
                   "T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 H1 D4 C10 S7 HK DK",
                   "H2 H3 HQ HN HJ D2 D3 DQ DN DJ C8 C9 CQ CN CJ CK"},
                  "SK SQ SN SJ S8 S9");
}

TEST(AustrianPlay, FollowSuitElseTarockElseAnythingAndTheRanks) {
  for (const char* variant : {"tapp-tarock", "tapp-tarock-classic"}) {
    SCOPED_TRACE(variant);
    // Deal R, all pass in tapp-tarock (Bridscher, forehand seat 0 leads); Solo by
    // seat 0 in the classic game (she leads).
    Table t = Start(variant, DealR(), Dealt(2));
    ASSERT_TRUE(Do(t.s(), std::string(variant) == "tapp-tarock" ? "pass, pass, pass" : "bid solo, pass"));
    ASSERT_EQ(t.s().PhaseName(), "play");
    ASSERT_EQ(t.s().CurrentSeat(), 0);
    ASSERT_TRUE(Do(t.s(), "play H4"));
    EXPECT_EQ(Legal(t.s()), "play H1, play HK");  // follow suit
    ASSERT_TRUE(Do(t.s(), "play H1"));
    ASSERT_TRUE(Do(t.s(), "play H2"));
    EXPECT_EQ(t.s().CurrentSeat(), 1);  // red pips: 1 beats 2 and 4
    ASSERT_TRUE(Do(t.s(), "play D4, play D2, play D1"));
    EXPECT_EQ(t.s().CurrentSeat(), 0);  // D1 > D2 > D4
    ASSERT_TRUE(Do(t.s(), "play C7, play C10, play C8"));
    EXPECT_EQ(t.s().CurrentSeat(), 1);  // black pips: 10 beats 8 and 7
    ASSERT_TRUE(Do(t.s(), "play S7"));
    // Seat 2 has neither spades nor tarocks: any card.
    EXPECT_EQ(Legal(t.s()), "play H3, play HJ, play HN, play HQ, play D3, play DJ, play DN, play DQ, "
                            "play C9, play CJ, play CN, play CQ, play CK");
    ASSERT_TRUE(Do(t.s(), "play CK, play S10"));
    EXPECT_EQ(t.s().CurrentSeat(), 0);  // S10 beats S7; CK does not count
    ASSERT_TRUE(Do(t.s(), "play T1"));
    EXPECT_EQ(Legal(t.s()).substr(0, 9), "play T13,");  // must follow with a tarock
    ASSERT_TRUE(Do(t.s(), "play T22, play H3"));
    EXPECT_EQ(t.s().CurrentSeat(), 1);
    ASSERT_TRUE(Do(t.s(), "play HK"));
    // Seat 2 follows hearts; seat 0 is void in hearts and must play a tarock.
    ASSERT_TRUE(Do(t.s(), "play HJ"));
    EXPECT_EQ(Legal(t.s()), "play T2, play T3, play T4, play T5, play T6, play T7, play T8, play T9, "
                            "play T10, play T11, play T12");
    ASSERT_TRUE(Do(t.s(), "play T2"));
    EXPECT_EQ(t.s().CurrentSeat(), 0);  // the lowest tarock beats the king
    ASSERT_TRUE(Do(t.s(), "play T3, play T21"));
    ASSERT_TRUE(Do(t.s(), "play HN"));
    EXPECT_EQ(t.s().CurrentSeat(), 1);  // Mond over the Pagat-less trick
  }
}

// ---------------------------------------------------------------------------
// 001 scoring: the four rows of the Pay Out Examples table, then the bonuses.

TEST(TappPayOuts, Row1PlayerOneIsPaidForAWonThree) {
  Table t = Start("tapp-tarock", DealA(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(t.s(), kDealAPrefs));
  const std::vector<std::string> tricks = Tricks(t.s());
  ASSERT_EQ(tricks.size(), 16u);
  EXPECT_EQ(tricks[4], "T18 T6 D1");
  EXPECT_EQ(tricks[12], "H1 HK HN");
  EXPECT_EQ(tricks[13], "HQ SN H2");
  EXPECT_EQ(tricks[15], "CQ CN S8");
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.contract, "three");
  EXPECT_EQ(r.declarer, 0);
  EXPECT_TRUE(r.declarer_won);
  EXPECT_EQ(r.card_thirds, (std::vector<int>{117, 93}));  // 39 : 31
  EXPECT_EQ(Thirds(t.st().DeclarerPile()), 117);
  EXPECT_EQ(r.tricks, (std::vector<int>{12, 4, 0}));
  EXPECT_TRUE(r.bonuses.empty()) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{20, -10, -10}));  // 001's first row
}

TEST(TappPayOuts, Row2PlayerTwoIsPaidForAWonTwo) {
  // Deal A turned one seat on: seat 1 holds the tarocks. Dealer 1: seat 2 opens
  // three, seat 0 passes, seat 1 bids two, seat 2 passes.
  const Deal a = DealA();
  Deal d;
  d.hands = {a.hands[2], a.hands[0], a.hands[1]};
  d.talon = a.talon;
  Table t = Start("tapp-tarock", d, Dealt(1));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, bid two, pass"));
  EXPECT_EQ(t.st().declarer(), 1);
  // Two: the pair H4 H3; D4, the rest of pack 0, counts for him; pack 1 is the defenders'.
  ASSERT_TRUE(Do(t.s(), "talon 0, discard H4, discard H3"));
  EXPECT_EQ(t.st().DefenderTapp(), Cards("T1 D3 C7"));
  ASSERT_TRUE(PlayOut(t.s(), {kDealAPrefs[2], kDealAPrefs[0], kDealAPrefs[1]}));
  const HandResult r = t.s().Result();
  // The same tricks as row 1; his pile H4 H3 (laid away) + D4 + tricks = 117 thirds.
  EXPECT_EQ(r.card_thirds, (std::vector<int>{117, 93}));
  EXPECT_TRUE(r.bonuses.empty()) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{-20, 40, -20}));  // 001's second row
}

TEST(TappPayOuts, Row3PlayerOnePaysOthersForALostThree) {
  Table t = Start("tapp-tarock", DealB(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(t.s(), kDealBPrefs));
  const std::vector<std::string> tricks = Tricks(t.s());
  EXPECT_EQ(tricks[13], "HQ SK H2");
  const HandResult r = t.s().Result();
  EXPECT_FALSE(r.declarer_won);
  EXPECT_EQ(r.card_thirds, (std::vector<int>{87, 123}));  // 29 : 41
  EXPECT_TRUE(r.bonuses.empty()) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{-20, 10, 10}));  // 001's third row
}

TEST(TappPayOuts, Row4PlayerOnePaidForThreePlayerTwoForPagatUltimo) {
  Table t = Start("tapp-tarock", DealC(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass, talon 0, discard H4, discard D4, discard D3"));
  ASSERT_TRUE(PlayOut(t.s(), kDealCPrefs));
  const std::vector<std::string> tricks = Tricks(t.s());
  EXPECT_EQ(tricks[10], "H1 HK C9");
  EXPECT_EQ(tricks[15], "T1 SQ S9");
  const HandResult r = t.s().Result();
  EXPECT_TRUE(r.declarer_won);
  EXPECT_EQ(r.card_thirds, (std::vector<int>{111, 99}));  // 37 : 33
  ASSERT_EQ(r.bonuses.size(), 1u) << BonusText(r);
  EXPECT_EQ(r.bonuses[0].name, "pagat-ultimo");
  EXPECT_EQ(r.bonuses[0].seat, 1);
  EXPECT_EQ(r.bonuses[0].side, "defenders");
  EXPECT_EQ(r.bonuses[0].announcer, -1);
  EXPECT_EQ(r.bonuses[0].value, 10);  // silent: 10 from each other player
  // 001's fourth row: (20, -10, -10) + (-10, 20, -10): seat 2, seat 1's partner
  // against the declarer, pays him too.
  EXPECT_EQ(r.scores, (std::vector<int>{10, 10, -20}));
}

TEST(TappScoring, ThirtySixWinsAndADefenderWinsTheFourKings) {
  // Deal A, but seat 1 throws his jacks and queens and keeps the four kings,
  // which he then wins in tricks 13-16:
  //   trick 13 s0 H1, s1 HK, s2 HN; 14 s1 DK, s2 SN, s0 H2; 15 s1 CK, s2 CN, s0 S7;
  //   16 s1 SK, s2 SQ, s0 S8 -> all s1.
  // Seat 0: 3 + 36 + 9 + (16 + 30) + 14 = 108 thirds = exactly 36: won.
  Table t = Start("tapp-tarock", DealA(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(t.s(), {kDealAPrefs[0], "T2 T3 T4 T5 T6 DJ CJ SJ HJ HQ DQ CQ HK DK CK SK", kDealAPrefs[2]}));
  EXPECT_EQ(Tricks(t.s())[14], "CK CN S7");
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{108, 102}));
  EXPECT_TRUE(r.declarer_won);
  const BonusResult* kings = FindBonus(r, "four-kings", true);
  ASSERT_NE(kings, nullptr) << BonusText(r);
  EXPECT_EQ(kings->seat, 1);
  EXPECT_EQ(kings->value, 10);
  EXPECT_EQ(r.scores, (std::vector<int>{10, 10, -20}));
}

TEST(TappScoring, AnnouncedPagatUltimoWonAndAMissedAnnouncementPaysEachOtherPlayer) {
  // Deal C as in row 4, seat 1 announcing the Pagat Ultimo and seat 2 the trull
  // (the trull is split: T22 T21 to seat 0, T1 to seat 1).
  Table t = Start("tapp-tarock", DealC(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass, talon 0, discard H4, discard D4, discard D3, "
                        "pass, announce pagat-ultimo, announce trull, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s(), kDealCPrefs));
  const HandResult r = t.s().Result();
  const BonusResult* pagat = FindBonus(r, "pagat-ultimo", true);
  ASSERT_NE(pagat, nullptr) << BonusText(r);
  EXPECT_EQ(pagat->announcer, 1);
  EXPECT_EQ(pagat->value, 20);
  const BonusResult* trull = FindBonus(r, "trull", false);
  ASSERT_NE(trull, nullptr) << BonusText(r);
  EXPECT_EQ(trull->seat, 2);
  EXPECT_EQ(trull->value, -20);
  // Game (20, -10, -10) + Pagat Ultimo announced (-20, 40, -20) + seat 2's
  // missed Trull (20, 20, -40).
  EXPECT_EQ(r.scores, (std::vector<int>{20, 50, -70}));
}

// Deal I: deal C with seat 0 keeping T12 (and a fourth heart) for the last
// trick, so that seat 1's Pagat, led to the last trick, is taken by seat 0.
Deal DealI() {
  return MakeDeal({"T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 H1 H2 H3 H4 S7",
                   "T1 T2 T3 T4 T5 T6 T7 T8 T9 T10 T11 HK HQ HN HJ SK",
                   "DK DQ DN DJ D1 D2 CK CQ CN CJ C10 C9 SQ SN SJ S10"},
                  "S8 S9 D4 D3 C7 C8");
}
constexpr const char* kDealIThree = "bid three, pass, pass, talon 0, discard S8, discard S9, discard D4";
const std::vector<std::string> kDealIPrefs = {
    "T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 H1 H2 H3 H4 S7 T12", kDealCPrefs[1], kDealCPrefs[2]};
// Play of deal I, seat 0 declaring Three (pack 0 [S8 S9 D4] taken and laid away):
//   tricks 1-10  s0 T22..T13; s1 T2..T11; s2 DK CK DQ CQ DN DJ CJ D1 D2 C10 -> s0
//   trick 11     s0 H1, s1 HK, s2 C9          -> s1 (1+13+1 = 15)
//   trick 12     s1 HQ, s2 CN, s0 H2          -> s1 (10+7+1 = 18)
//   trick 13     s1 HN, s2 S10, s0 H3         -> s1 (7+1+1 = 9)
//   trick 14     s1 HJ, s2 SJ, s0 H4          -> s1 (4+4+1 = 9)
//   trick 15     s1 SK, s2 SN, s0 S7          -> s1 (13+7+1 = 21)
//   trick 16     s1 T1, s2 SQ, s0 T12         -> s0 takes the Pagat in the last trick (13+10+1 = 24)
// Seat 0: discards 3 + tricks 1-10 (her T22 T21 26, T20..T13 8, T2..T11 10, s2's
// DK CK DQ CQ DN DJ CJ D1 D2 C10 64: 108) + trick 16 (24) = 135 thirds = 45
// points, with T22 T21 T1 (the trull). Seat 1: 72 + pack 1 (D3 C7 C8: 3) = 75.

TEST(TappScoring, PagatUltimoIsWonByWhoeverTakesThePagatInTheLastTrick) {
  // 001 Bonus Values: Pagat Ultimo "Win the Pagat (1) in the last trick",
  // silent 10 / announced 20. Seat 0 takes seat 1's Pagat in trick 16:
  //   Three won               +20 -10 -10   (seats 0, 1, 2)
  //   Pagat Ultimo, silent    +20 -10 -10   (seat 0 won the Pagat in the last trick)
  //   Trull, silent           +20 -10 -10   (T22 T21 T1 in her pile)
  //   Absolut, silent         +20 -10 -10   (45 points)
  //   total                   +80 -40 -40
  Table t = Start("tapp-tarock", DealI(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), kDealIThree));
  ASSERT_TRUE(PlayOut(t.s(), kDealIPrefs));
  const std::vector<std::string> tricks = Tricks(t.s());
  ASSERT_EQ(tricks.size(), 16u);
  EXPECT_EQ(tricks[13], "HJ SJ H4");
  EXPECT_EQ(tricks[15], "T1 SQ T12");
  HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{135, 75}));  // 45 : 25
  EXPECT_EQ(r.tricks, (std::vector<int>{11, 5, 0}));
  const BonusResult* pagat = FindBonus(r, "pagat-ultimo", true);
  ASSERT_NE(pagat, nullptr) << BonusText(r);
  EXPECT_EQ(pagat->seat, 0);
  EXPECT_EQ(pagat->announcer, -1);
  EXPECT_EQ(pagat->value, 10);
  EXPECT_NE(FindBonus(r, "trull", true), nullptr) << BonusText(r);
  EXPECT_NE(FindBonus(r, "absolut", true), nullptr) << BonusText(r);
  EXPECT_EQ(r.bonuses.size(), 3u) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{80, -40, -40}));
  EXPECT_TRUE(RoundTrip(*t.game, t.s()));

  // Seat 1 announced it (he holds the Pagat): he misses it and pays 20 to each;
  // seat 0 still wins it silently: (80, -40, -40) + (20, -40, 20) = (100, -80, -20).
  Table a = Start("tapp-tarock", DealI(), Dealt(2));
  ASSERT_TRUE(Do(a.s(), std::string(kDealIThree) + ", pass, announce pagat-ultimo, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(a.s(), kDealIPrefs));
  r = a.s().Result();
  const BonusResult* missed = FindBonus(r, "pagat-ultimo", false);
  ASSERT_NE(missed, nullptr) << BonusText(r);
  EXPECT_EQ(missed->seat, 1);
  EXPECT_EQ(missed->value, -20);
  EXPECT_EQ(r.scores, (std::vector<int>{100, -80, -20}));

  // Option pagat_ultimo=pagat-wins (the former reading, 002's "wins the last
  // trick with Trump I"): a captured Pagat is nobody's Pagat Ultimo:
  //   (20 + 20 + 20, -30, -30) = (60, -30, -30); announced by seat 1: + (20, -40, 20).
  Table o = Start("tapp-tarock", DealI(), Dealt(2), {{"pagat_ultimo", "pagat-wins"}});
  ASSERT_TRUE(Do(o.s(), kDealIThree));
  ASSERT_TRUE(PlayOut(o.s(), kDealIPrefs));
  r = o.s().Result();
  EXPECT_EQ(FindBonus(r, "pagat-ultimo", true), nullptr) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{60, -30, -30}));
  Table oa = Start("tapp-tarock", DealI(), Dealt(2), {{"pagat_ultimo", "pagat-wins"}});
  ASSERT_TRUE(Do(oa.s(), std::string(kDealIThree) + ", pass, announce pagat-ultimo, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(oa.s(), kDealIPrefs));
  EXPECT_EQ(oa.s().Result().scores, (std::vector<int>{80, -70, -10}));

  // Deal C (001's row 4): the holder's own Pagat wins the last trick: both
  // readings give seat 1 the silent Pagat Ultimo: (10, 10, -20).
  for (const char* v : {"takes-pagat", "pagat-wins"}) {
    Table c = Start("tapp-tarock", DealC(), Dealt(2), {{"pagat_ultimo", v}});
    ASSERT_TRUE(Do(c.s(), "bid three, pass, pass, talon 0, discard H4, discard D4, discard D3"));
    ASSERT_TRUE(PlayOut(c.s(), kDealCPrefs));
    EXPECT_EQ(c.s().Result().scores, (std::vector<int>{10, 10, -20})) << v;
  }
}

TEST(TappScoring, AbsolutSilentAndAnAnnouncedGrandpointeMissed) {
  // Deal A, seat 2 throwing SQ SN DN HN CN D1 D2 C10 (41) and keeping C9 C8 S10 S9:
  //   trick 13 s0 H1, s1 HK, s2 C9; 14 s1 HQ, s2 C8, s0 H2; 15 s1 DQ, s2 S10, s0 S7;
  //   16 s1 CQ, s2 S9, s0 S8 -> all s1.
  // Seat 0: 3 + 36 + 9 + 55 + 41 = 144 thirds = 48 points: Absolut (40-49).
  const std::vector<std::string> prefs = {kDealAPrefs[0], kDealAPrefs[1],
                                          "T7 T8 T9 T10 SQ SN DN HN CN D1 D2 C10 C9 C8 S10 S9"};
  Table t = Start("tapp-tarock", DealA(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(t.s(), prefs));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{144, 66}));
  const BonusResult* absolut = FindBonus(r, "absolut", true);
  ASSERT_NE(absolut, nullptr) << BonusText(r);
  EXPECT_EQ(absolut->seat, 0);
  EXPECT_EQ(absolut->value, 10);
  EXPECT_EQ(FindBonus(r, "grandpointe", true), nullptr);
  EXPECT_EQ(r.scores, (std::vector<int>{40, -20, -20}));
  // The same hand with Grandpointe announced by seat 0: missed (48 < 50), she
  // pays 40 to each; the silent Absolut still counts: (40,-20,-20) + (-80,40,40).
  Table u = Start("tapp-tarock", DealA(), Dealt(2));
  ASSERT_TRUE(Do(u.s(), std::string(kDealAThree) + ", announce grandpointe, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(u.s(), prefs));
  r = u.s().Result();
  EXPECT_NE(FindBonus(r, "grandpointe", false), nullptr) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{-40, 20, 20}));
}

TEST(TappScoring, SoloWithTrullFourKingsAndGrandpointe) {
  // Deal D, seat 2 opens Three and seat 0 bids Solo: she takes every trick: 204
  // thirds = 68 points, the tapp (6) is the defenders'. Solo 50 (100, -50, -50);
  // silent Trull 10, Four Kings 10, Grandpointe 20: (+80, -40, -40).
  Table t = Start("tapp-tarock", DealD(), Dealt(1));
  ASSERT_TRUE(Do(t.s(), "bid three, bid solo"));
  ASSERT_TRUE(PlayOut(t.s(), {"T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 T8 T7"}));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{16, 0, 0}));
  EXPECT_EQ(r.card_thirds, (std::vector<int>{204, 6}));
  EXPECT_EQ(r.bonuses.size(), 3u) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{180, -90, -90}));
  // Announced Grandpointe (40) and Absolut: 001 Bonus Values, Absolut "Win with
  // 40-49 points": with 68 the announced Absolut is missed, she pays 20 to each:
  // Solo 100 + Trull 20 + Four Kings 20 + Grandpointe 80 - Absolut 40 = 180.
  Table u = Start("tapp-tarock", DealD(), Dealt(1));
  ASSERT_TRUE(Do(u.s(), "bid three, bid solo, announce grandpointe, pass, pass, announce absolut, pass, pass, pass"));
  ASSERT_EQ(u.s().PhaseName(), "play");
  ASSERT_TRUE(PlayOut(u.s(), {"T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 T8 T7"}));
  r = u.s().Result();
  const BonusResult* missed = FindBonus(r, "absolut", false);
  ASSERT_NE(missed, nullptr) << BonusText(r);
  EXPECT_EQ(missed->value, -20);
  EXPECT_EQ(r.scores, (std::vector<int>{180, -90, -90}));
  // Option absolut=at-least-40 (the former reading): an announced Absolut is
  // made with 50 or more too (20 from each): 100 + 20 + 20 + 80 + 40 = 260.
  Table w = Start("tapp-tarock", DealD(), Dealt(1), {{"absolut", "at-least-40"}});
  ASSERT_TRUE(Do(w.s(), "bid three, bid solo, announce grandpointe, pass, pass, announce absolut, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(w.s(), {"T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 T8 T7"}));
  r = w.s().Result();
  const BonusResult* absolut = FindBonus(r, "absolut", true);
  ASSERT_NE(absolut, nullptr) << BonusText(r);
  EXPECT_EQ(absolut->value, 20);
  EXPECT_EQ(r.scores, (std::vector<int>{260, -130, -130}));
}

// Deal H (issue 19's worked example). Dealer 1: forehand seat 2 declares Three,
// takes pack 0 [D2 D3 D4] and lays it away; pack 1 [T1 C7 C8] is the
// defenders' (nobody's own pile: no Trull for anyone).
Deal DealH() {
  return MakeDeal({"T2 T3 T4 T5 HQ SQ HK DK CK SK DQ CQ DN CN H1 H2",
                   "T6 T7 T8 HN SN HJ DJ CJ SJ H3 D1 C9 C10 S8 S9 S10",
                   "T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 T22 H4 S7"},
                  "D2 D3 D4 T1 C7 C8");
}
constexpr const char* kDealHThree = "bid three, pass, pass, talon 0, discard D2, discard D3, discard D4";
const std::vector<std::string> kDealHPrefs = {
    "T2 T3 T4 T5 HK DK CK SK DQ CQ DN CN H1 H2 HQ SQ",
    "T6 T7 T8 HJ DJ CJ SJ H3 D1 C9 C10 S8 S9 S10 HN SN",
    "T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 H4 S7"};
// Play of deal H (seat 2 leads):
//   tricks 1-3   s2 T22 T21 T20; s0 T2 T3 T4; s1 T6 T7 T8                  -> s2
//   trick 4      s2 T19, s0 T5, s1 HJ                                      -> s2
//   tricks 5-14  s2 T18..T9; s0 HK DK CK SK DQ CQ DN CN H1 H2;
//                s1 DJ CJ SJ H3 D1 C9 C10 S8 S9 S10                        -> s2
//   trick 15     s2 H4, s0 HQ, s1 HN                                       -> s0
//   trick 16     s0 SQ, s1 SN, s2 S7                                       -> s0
// Seat 2's pile in thirds: discards D2 D3 D4 (3) + her tarocks T22 T21 (26) and
// T9..T20 (12) + T2..T8 (7) + the kings (52), DQ CQ (20), DN CN (14), the jacks
// (16), H1 H2 H3 D1 C9 C10 S8 S9 S10 (9) = 159 thirds = 53 points, with the
// four kings. Defenders: HQ SQ HN SN (34) + H4 S7 (2) + pack 1 (T1 C7 C8: 15)
// = 51 = 17 points; 159 + 51 = 210.

TEST(TappScoring, AnnouncedAbsolutMissedWithFiftyThreeIssue19) {
  // 001 Bonus Values: Absolut "Win with 40-49 points", silent 10, announced 20;
  // Grandpointe "Win with 50 or more points", silent 20. Seat 2 wins Three with
  // 53 points and announced Absolut; she holds the four kings in her tricks:
  //   Three won                  +20 -10 -10   (seat 2, seat 0, seat 1)
  //   Absolut announced, missed  -40 +20 +20   (53 is not 40-49: 20 to each)
  //   Grandpointe silent         +40 -20 -20
  //   Four Kings silent          +20 -10 -10
  //   total: seat 0 -20, seat 1 -20, seat 2 +40.
  Table t = Start("tapp-tarock", DealH(), Dealt(1));
  ASSERT_TRUE(Do(t.s(), std::string(kDealHThree) + ", announce absolut, pass, pass, pass"));
  ASSERT_EQ(t.s().PhaseName(), "play");
  ASSERT_TRUE(PlayOut(t.s(), kDealHPrefs));
  const std::vector<std::string> tricks = Tricks(t.s());
  ASSERT_EQ(tricks.size(), 16u);
  EXPECT_EQ(tricks[3], "T19 T5 HJ");
  EXPECT_EQ(tricks[14], "H4 HQ HN");
  EXPECT_EQ(tricks[15], "SQ SN S7");
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.declarer, 2);
  EXPECT_TRUE(r.declarer_won);
  EXPECT_EQ(r.card_thirds, (std::vector<int>{159, 51}));  // 53 : 17
  EXPECT_EQ(Thirds(t.st().DeclarerPile()), 159);
  EXPECT_EQ(r.tricks, (std::vector<int>{2, 0, 14}));
  const BonusResult* absolut = FindBonus(r, "absolut", false);
  ASSERT_NE(absolut, nullptr) << BonusText(r);
  EXPECT_EQ(absolut->seat, 2);
  EXPECT_EQ(absolut->announcer, 2);
  EXPECT_EQ(absolut->value, -20);
  EXPECT_EQ(FindBonus(r, "absolut", true), nullptr) << BonusText(r);
  const BonusResult* grand = FindBonus(r, "grandpointe", true);
  ASSERT_NE(grand, nullptr) << BonusText(r);
  EXPECT_EQ(grand->announcer, -1);
  EXPECT_EQ(grand->value, 20);
  const BonusResult* kings = FindBonus(r, "four-kings", true);
  ASSERT_NE(kings, nullptr) << BonusText(r);
  EXPECT_EQ(kings->value, 10);
  EXPECT_EQ(r.bonuses.size(), 3u) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{-20, -20, 40}));
  EXPECT_TRUE(RoundTrip(*t.game, t.s()));

  // Option absolut=at-least-40 restores the former reading: the announced
  // Absolut is made with 53 (+40 -20 -20):
  //   +20 +40 +40 +20 = seat 2 +120; seats 0, 1: -10 -20 -20 -10 = -60.
  Table u = Start("tapp-tarock", DealH(), Dealt(1), {{"absolut", "at-least-40"}});
  ASSERT_TRUE(Do(u.s(), std::string(kDealHThree) + ", announce absolut, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(u.s(), kDealHPrefs));
  const HandResult ru = u.s().Result();
  EXPECT_EQ(ru.card_thirds, (std::vector<int>{159, 51}));
  const BonusResult* made = FindBonus(ru, "absolut", true);
  ASSERT_NE(made, nullptr) << BonusText(ru);
  EXPECT_EQ(made->value, 20);
  EXPECT_EQ(ru.scores, (std::vector<int>{-60, -60, 120}));
  EXPECT_TRUE(RoundTrip(*u.game, u.s()));

  // Unannounced, both readings agree: Absolut is not won with 53 (silent 40-49):
  // +20 +40 +20 = +80, -40, -40.
  for (const char* v : {"40-49", "at-least-40"}) {
    Table w = Start("tapp-tarock", DealH(), Dealt(1), {{"absolut", v}});
    ASSERT_TRUE(Do(w.s(), kDealHThree));
    ASSERT_TRUE(PlayOut(w.s(), kDealHPrefs));
    const HandResult rw = w.s().Result();
    EXPECT_EQ(FindBonus(rw, "absolut", true), nullptr) << v << ": " << BonusText(rw);
    EXPECT_EQ(rw.scores, (std::vector<int>{-40, -40, 80})) << v;
  }
}

TEST(TappScoring, AnnouncedAbsolutMadeWithFortyEight) {
  // Deal A played as in AbsolutSilentAndAnAnnouncedGrandpointeMissed: seat 0
  // wins Three with 144 thirds = 48 points, now announcing Absolut (40-49: made).
  //   Three won                +20 -10 -10
  //   Absolut announced, made  +40 -20 -20
  //   total                    +60 -30 -30, under either value of the option.
  const std::vector<std::string> prefs = {kDealAPrefs[0], kDealAPrefs[1],
                                          "T7 T8 T9 T10 SQ SN DN HN CN D1 D2 C10 C9 C8 S10 S9"};
  for (const char* v : {"40-49", "at-least-40"}) {
    Table t = Start("tapp-tarock", DealA(), Dealt(2), {{"absolut", v}});
    ASSERT_TRUE(Do(t.s(), std::string(kDealAThree) + ", announce absolut, pass, pass, pass"));
    ASSERT_TRUE(PlayOut(t.s(), prefs));
    const HandResult r = t.s().Result();
    EXPECT_EQ(r.card_thirds, (std::vector<int>{144, 66})) << v;
    const BonusResult* absolut = FindBonus(r, "absolut", true);
    ASSERT_NE(absolut, nullptr) << v << ": " << BonusText(r);
    EXPECT_EQ(absolut->seat, 0);
    EXPECT_EQ(absolut->announcer, 0);
    EXPECT_EQ(absolut->value, 20);
    EXPECT_EQ(r.bonuses.size(), 1u) << BonusText(r);
    EXPECT_EQ(r.scores, (std::vector<int>{60, -30, -30})) << v;
  }
}

TEST(TappScoring, ADefendersBonusesArePaidByTheOtherDefenderToo) {
  // Deal E: seat 0 declares Three, seat 1 (sixteen tarocks) takes every trick:
  // 204 thirds = 68 points, the trull and the four kings. Seat 0 keeps only the
  // three cards she laid away (3 thirds).
  Table t = Start("tapp-tarock", DealE(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass, talon 0, discard H4, discard H3, discard D4"));
  ASSERT_TRUE(PlayOut(t.s()));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.tricks, (std::vector<int>{0, 16, 0}));
  EXPECT_EQ(r.card_thirds, (std::vector<int>{3, 207}));
  // Lost Three (-20, 10, 10); seat 1's Trull, Four Kings (10 each) and Grandpointe
  // (20) from each other player: (-40, 80, -40).
  EXPECT_EQ(r.scores, (std::vector<int>{-60, 90, -30}));
  for (const BonusResult& b : r.bonuses) EXPECT_EQ(b.seat, 1) << BonusText(r);
  // Seat 2 announcing the Trull: he misses it (-20 to each other player) and seat 1
  // still wins it silently.
  Table u = Start("tapp-tarock", DealE(), Dealt(2));
  ASSERT_TRUE(Do(u.s(), "bid three, pass, pass, talon 0, discard H4, discard H3, discard D4, "
                        "pass, pass, announce trull, pass, pass, pass"));
  ASSERT_TRUE(PlayOut(u.s()));
  r = u.s().Result();
  EXPECT_NE(FindBonus(r, "trull", true), nullptr) << BonusText(r);
  EXPECT_NE(FindBonus(r, "trull", false), nullptr) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{-40, 110, -70}));
}

TEST(TappScoring, BridscherTheMostPointsPaysEachOtherPlayer) {
  // Deal D, all pass: forehand seat 0 leads and takes every trick (204 thirds;
  // the tapp counts for nobody).
  Table t = Start("tapp-tarock", DealD(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s()));
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.contract, "bridscher");
  EXPECT_EQ(r.declarer, -1);
  EXPECT_EQ(r.card_thirds, (std::vector<int>{204, 0, 0}));
  EXPECT_TRUE(r.bonuses.empty());  // no bonuses in a Bridscher (even with the trull and kings)
  EXPECT_EQ(r.scores, (std::vector<int>{-20, 10, 10}));
}

TEST(TappScoring, BridscherTieBothLeadersPayTheThird) {
  Table t = Start("tapp-tarock", DealF(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "pass, pass, pass"));
  ASSERT_TRUE(PlayOut(t.s(), kDealFPrefs));
  const std::vector<std::string> tricks = Tricks(t.s());
  EXPECT_EQ(tricks[8], "H4 HK CN");
  EXPECT_EQ(tricks[15], "SJ C7 S10");
  const HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{96, 96, 0}));  // 32, 32, 0; the tapp's 18 aside
  EXPECT_EQ(r.scores, (std::vector<int>{-10, -10, 20}));
}

TEST(TappScoring, SimplifiedCountingAddsTheValuesSeventyOneInAll) {
  // Deal A (row 1) counted simply: seat 0 has T22 T21 (10), DK CK SK (15), DJ CJ
  // SJ HJ (8), DN (3) = 36 of 71: won. Seat 1: HK HN (8), HQ SN (7), DQ SQ (8),
  // CQ CN (7) + T1 in the defenders' pack (5) = 35.
  Table t = Start("tapp-tarock", DealA(), Dealt(2), {{"counting", "simplified"}});
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(t.s(), kDealAPrefs));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{108, 105}));  // thirds = 3 x points
  EXPECT_TRUE(r.declarer_won);
  EXPECT_EQ(r.scores, (std::vector<int>{20, -10, -10}));
  // Deal B counted simply: T22 T21 (10) + HJ DJ CJ SJ (8) + DN CN (6) = 24: lost.
  Table u = Start("tapp-tarock", DealB(), Dealt(2), {{"counting", "simplified"}});
  ASSERT_TRUE(Do(u.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(u.s(), kDealBPrefs));
  r = u.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{72, 141}));
  EXPECT_EQ(r.scores, (std::vector<int>{-20, 10, 10}));
}

// ---------------------------------------------------------------------------
// 002: bidding, exchange, announcements.

TEST(ClassicBidding, AnyOpeningBidEachBidHigherSoloEndsAllPassThrowsIn) {
  Table t = Start("tapp-tarock-classic", DealA(), Dealt(0));
  EXPECT_EQ(t.s().CurrentSeat(), 1);
  EXPECT_EQ(Legal(t.s()), "pass, bid three, bid bottom-three, bid top-three, bid solo");
  ASSERT_TRUE(Do(t.s(), "bid bottom-three"));
  EXPECT_EQ(Legal(t.s()), "pass, bid top-three, bid solo");
  ASSERT_TRUE(Do(t.s(), "pass, bid solo"));  // seat 2 passes, seat 0 bids solo: the end
  EXPECT_EQ(t.st().declarer(), 0);
  EXPECT_EQ(t.s().PhaseName(), "announce");
  EXPECT_EQ(t.st().DefenderTapp(), Cards("H4 H3 D4 T1 D3 C7"));  // Solo: the whole talon

  Table p = Start("tapp-tarock-classic", DealA(), Dealt(0));
  ASSERT_TRUE(Do(p.s(), "pass, pass, pass"));
  ASSERT_TRUE(p.s().IsTerminal());
  const HandResult r = p.s().Result();
  EXPECT_TRUE(r.redeal);
  // Option thrown_in=hand (the default): the thrown-in deal is one of the
  // match's hands, every seat scoring 0.
  EXPECT_TRUE(r.counts_as_hand);
  EXPECT_FALSE(r.next_forced_klop);
  EXPECT_EQ(r.scores, (std::vector<int>{0, 0, 0}));
  EXPECT_TRUE(RoundTrip(*p.game, p.s()));
  // thrown_in=redeal (the former behaviour): the hand is dealt again.
  Table q = Start("tapp-tarock-classic", DealA(), Dealt(0), {{"thrown_in", "redeal"}});
  ASSERT_TRUE(Do(q.s(), "pass, pass, pass"));
  ASSERT_TRUE(q.s().IsTerminal());
  const HandResult rq = q.s().Result();
  EXPECT_TRUE(rq.redeal);
  EXPECT_FALSE(rq.counts_as_hand);
  EXPECT_EQ(rq.scores, (std::vector<int>{0, 0, 0}));
}

TEST(ClassicExchange, ThreeCardsExposesTheTalonAndAllDiscardsAreShown) {
  Table t = Start("tapp-tarock-classic", DealA(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass"));
  EXPECT_EQ(Legal(t.s()), "talon 0, talon 1");  // the first or the last three
  for (int s = 0; s < 3; ++s)
    EXPECT_EQ(absl::StrJoin(t.s().Observe(s).talon, " "), "H4 H3 D4 T1 D3 C7");
  ASSERT_TRUE(Do(t.s(), "talon 0, discard H4, discard H3, discard D4"));
  EXPECT_EQ(t.st().DefenderTapp(), Cards("T1 D3 C7"));  // the remaining cards
  for (int s = 1; s < 3; ++s) {
    const Observation o = t.s().Observe(s);
    EXPECT_EQ(o.history[4].second, "discard H4");  // 002: all discards shown
    EXPECT_EQ(o.history[6].second, "discard D4");
  }
  EXPECT_TRUE(NoLeaks(t.st()));
}

TEST(ClassicExchange, BottomAndTopThreeTakeTheirHalfUnexposed) {
  Table b = Start("tapp-tarock-classic", DealA(), Dealt(2));
  ASSERT_TRUE(Do(b.s(), "bid bottom-three, pass, pass"));
  EXPECT_EQ(b.s().PhaseName(), "discard");  // no choice, no talon action
  EXPECT_EQ(b.st().taken(), Cards("H4 H3 D4"));
  EXPECT_EQ(b.st().DefenderTapp(), Cards("T1 D3 C7"));
  EXPECT_EQ(absl::StrJoin(b.s().Observe(0).talon, " "), "H4 H3 D4 ? ? ?");
  EXPECT_EQ(absl::StrJoin(b.s().Observe(1).talon, " "), "? ? ? ? ? ?");
  EXPECT_EQ(absl::StrJoin(b.s().Observe(2).talon, " "), "? ? ? ? ? ?");
  EXPECT_TRUE(NoLeaks(b.st()));

  Table t = Start("tapp-tarock-classic", DealA(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "bid top-three, pass, pass"));
  EXPECT_EQ(t.st().taken(), Cards("T1 D3 C7"));
  EXPECT_EQ(t.st().DefenderTapp(), Cards("H4 H3 D4"));
  EXPECT_EQ(absl::StrJoin(t.s().Observe(0).talon, " "), "? ? ? T1 D3 C7");
  // Never the Pagat (trull); her other suit cards are there, so no tarock either.
  EXPECT_EQ(Legal(t.s()), "discard H2, discard H1, discard D3, discard C7, discard S7, discard S8");
  ASSERT_TRUE(Do(t.s(), "discard D3, discard C7, discard H1"));
  // A shown discard names no hidden card; the taken T1 stays in her hand unseen by the others.
  EXPECT_TRUE(NoLeaks(t.st()));
  for (int s = 1; s < 3; ++s) EXPECT_EQ(t.s().Observe(s).history[3].second, "discard D3");
}

TEST(ClassicAnnouncements, OnlyTheDeclarerAnnouncesPagatUltimoOnlyWithThePagat) {
  Table t = Start("tapp-tarock-classic", DealA(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), std::string(kDealAThree)));
  EXPECT_EQ(t.s().PhaseName(), "announce");
  EXPECT_EQ(t.s().CurrentSeat(), 0);
  EXPECT_EQ(Legal(t.s()), "pass, announce valat");  // no Pagat in her hand
  ASSERT_TRUE(Do(t.s(), "announce valat"));
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // still her turn
  EXPECT_EQ(Legal(t.s()), "pass");
  ASSERT_TRUE(Do(t.s(), "pass"));
  EXPECT_EQ(t.s().PhaseName(), "play");
  EXPECT_EQ(t.s().CurrentSeat(), 0);  // 002 Game Play: starting with the declarer

  Table c = Start("tapp-tarock-classic", DealC(), Dealt(0));  // seat 1 holds T1
  ASSERT_TRUE(Do(c.s(), "bid three, pass, pass, talon 0, discard H4, discard D4, discard D3"));
  EXPECT_EQ(c.s().CurrentSeat(), 1);
  EXPECT_EQ(Legal(c.s()), "pass, announce pagat-ultimo, announce valat");
  ASSERT_TRUE(Do(c.s(), "pass"));
  EXPECT_EQ(c.s().PhaseName(), "play");  // the defenders never announce
  EXPECT_EQ(c.s().CurrentSeat(), 1);
}

// ---------------------------------------------------------------------------
// 002 scoring.

TEST(ClassicScoring, GameValuesThreeFourFiveFromEachDefenderPaidBackOnALoss) {
  // Deal A: 39 points for seat 0 with Three cards (3 each) or Bottom 3 (4 each,
  // the same cards taken unexposed).
  Table t = Start("tapp-tarock-classic", DealA(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(t.s(), kDealAPrefs));
  HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{117, 93}));
  EXPECT_TRUE(r.bonuses.empty()) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{6, -3, -3}));

  Table b = Start("tapp-tarock-classic", DealA(), Dealt(2));
  ASSERT_TRUE(Do(b.s(), "bid bottom-three, pass, pass, discard H4, discard H3, discard D4"));
  ASSERT_TRUE(PlayOut(b.s(), kDealAPrefs));
  EXPECT_EQ(b.s().Result().scores, (std::vector<int>{8, -4, -4}));

  // Deal B: 29 points, Three cards lost: 3 to each defender.
  Table l = Start("tapp-tarock-classic", DealB(), Dealt(2));
  ASSERT_TRUE(Do(l.s(), kDealAThree));
  ASSERT_TRUE(PlayOut(l.s(), kDealBPrefs));
  EXPECT_EQ(l.s().Result().card_thirds, (std::vector<int>{87, 123}));
  EXPECT_EQ(l.s().Result().scores, (std::vector<int>{-6, 3, 3}));

  // Deal A, Top 3: she takes T1 D3 C7 and lays away D3 C7 H1.
  //   tricks 1-12 as in row 1 (114 thirds to her);
  //   trick 13 s0 H2, s1 HK, s2 HN -> s1; trick 14 s1 HQ, s2 SN, s0 T1 (void in
  //   hearts: must trump) -> s0 (30); trick 15 s0 S7, s1 DQ, s2 SQ -> s2;
  //   trick 16 s2 CN, s0 S8, s1 CQ -> s1.
  // Seat 0: 3 + 114 + 30 = 147 thirds = 49: won, 5 from each defender.
  Table u = Start("tapp-tarock-classic", DealA(), Dealt(2));
  ASSERT_TRUE(Do(u.s(), "bid top-three, pass, pass, discard D3, discard C7, discard H1"));
  ASSERT_TRUE(PlayOut(u.s(), {"T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 H2 T1 S7 S8", kDealAPrefs[1],
                              kDealAPrefs[2]}));
  EXPECT_EQ(Tricks(u.s())[13], "HQ SN T1");
  EXPECT_EQ(u.s().Result().card_thirds, (std::vector<int>{147, 63}));
  EXPECT_EQ(u.s().Result().scores, (std::vector<int>{10, -5, -5}));
}

TEST(ClassicScoring, ADefendersPagatUltimoScoresNothing) {
  // Deal C as 001's row 4: seat 1, a defender, wins the last trick with the
  // Pagat. 002 knows Pagat Ultimo only as the declarer's.
  Table t = Start("tapp-tarock-classic", DealC(), Dealt(2));
  ASSERT_TRUE(Do(t.s(), "bid three, pass, pass, talon 0, discard H4, discard D4, discard D3"));
  ASSERT_TRUE(PlayOut(t.s(), kDealCPrefs));
  const HandResult r = t.s().Result();
  EXPECT_TRUE(r.bonuses.empty()) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{6, -3, -3}));
}

// Deal C with seat 1 as the declarer (dealer 0): he leads T2, seat 0 overtakes
// with T22 and leads T21..T13 (tricks 2-10), seat 1 following T3..T11 and seat 2
// throwing DK CK DQ CQ DN DJ CJ D1 D2 C10; tricks 11-16 go as in 001's row 4, the
// Pagat winning the last trick for seat 1. Seat 1: 3 (H4 D4 D3 laid away) + 96 =
// 99 thirds = 33 points: the game is lost.
const std::vector<std::string> kDealCDeclarerPrefs = {
    kDealCPrefs[0], "T2 T3 T4 T5 T6 T7 T8 T9 T10 T11 HK HQ HN HJ SK T1", kDealCPrefs[2]};
constexpr const char* kDealCSeat1Three = "bid three, pass, pass, talon 0, discard H4, discard D4, discard D3";

TEST(ClassicScoring, DeclarersPagatUltimoFourSilentEightAnnounced) {
  Table t = Start("tapp-tarock-classic", DealC(), Dealt(0));
  ASSERT_TRUE(Do(t.s(), kDealCSeat1Three));
  ASSERT_TRUE(PlayOut(t.s(), kDealCDeclarerPrefs));
  EXPECT_EQ(Tricks(t.s())[0], "T2 DK T22");
  EXPECT_EQ(Tricks(t.s())[15], "T1 SQ S9");
  HandResult r = t.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{99, 111}));
  EXPECT_FALSE(r.declarer_won);
  // Lost: 3 to each defender; silent Pagat Ultimo: 4 from each: net 1 from each.
  EXPECT_EQ(r.scores, (std::vector<int>{-1, 2, -1}));
  const BonusResult* pagat = FindBonus(r, "pagat-ultimo", true);
  ASSERT_NE(pagat, nullptr);
  EXPECT_EQ(pagat->value, 4);
  EXPECT_EQ(pagat->seat, 1);

  Table a = Start("tapp-tarock-classic", DealC(), Dealt(0));
  ASSERT_TRUE(Do(a.s(), std::string(kDealCSeat1Three) + ", announce pagat-ultimo, pass"));
  ASSERT_TRUE(PlayOut(a.s(), kDealCDeclarerPrefs));
  EXPECT_EQ(a.s().Result().scores, (std::vector<int>{-5, 10, -5}));  // -3 + 8 from each defender

  // Announced and failed: he leads the Pagat at once and seat 0 takes it with
  // T22 (T1 DK T22); tricks 2-10 as before with T2..T10, trick 16 is his T11.
  // Seat 1: 3 + 84 = 87 thirds: lost (3) and the Pagat Ultimo missed (8 to each).
  Table f = Start("tapp-tarock-classic", DealC(), Dealt(0));
  ASSERT_TRUE(Do(f.s(), std::string(kDealCSeat1Three) + ", announce pagat-ultimo, pass"));
  ASSERT_TRUE(PlayOut(f.s(), {kDealCPrefs[0], "T1 T2 T3 T4 T5 T6 T7 T8 T9 T10 HK HQ HN HJ SK T11", kDealCPrefs[2]}));
  EXPECT_EQ(Tricks(f.s())[0], "T1 DK T22");
  r = f.s().Result();
  EXPECT_EQ(r.card_thirds, (std::vector<int>{87, 123}));
  EXPECT_NE(FindBonus(r, "pagat-ultimo", false), nullptr) << BonusText(r);
  EXPECT_EQ(r.scores, (std::vector<int>{11, -22, 11}));
}

TEST(ClassicScoring, ValatMultipliesTheBidByFourSilentAndEightAnnounced) {
  // Deal D, Solo (8) by seat 0, every trick hers: unannounced 8 x 4 = 32 from each
  // defender; announced 8 x 8 = 64 ("the Solo bid's 8 points multiplied by 8 for
  // 64 bonus points from each defender", 002 Contracts).
  const std::vector<std::string> prefs = {"T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 T8 T7"};
  Table s = Start("tapp-tarock-classic", DealD(), Dealt(2));
  ASSERT_TRUE(Do(s.s(), "bid solo, pass"));
  ASSERT_TRUE(PlayOut(s.s(), prefs));
  HandResult r = s.s().Result();
  EXPECT_EQ(r.scores, (std::vector<int>{64, -32, -32}));
  ASSERT_NE(FindBonus(r, "valat", true), nullptr);
  EXPECT_EQ(FindBonus(r, "valat", true)->value, 32);

  Table a = Start("tapp-tarock-classic", DealD(), Dealt(2));
  ASSERT_TRUE(Do(a.s(), "bid solo, announce valat, pass"));
  ASSERT_TRUE(PlayOut(a.s(), prefs));
  EXPECT_EQ(a.s().Result().scores, (std::vector<int>{128, -64, -64}));

  // Deal A, Three cards with Valat announced: seat 0 loses tricks 13-16. She has
  // 39 points, but the announced Valat replaces the game: 3 x 8 = 24 to each defender.
  Table f = Start("tapp-tarock-classic", DealA(), Dealt(2));
  ASSERT_TRUE(Do(f.s(), std::string(kDealAThree) + ", announce valat, pass"));
  ASSERT_TRUE(PlayOut(f.s(), kDealAPrefs));
  r = f.s().Result();
  EXPECT_EQ(r.card_thirds[0], 117);
  EXPECT_FALSE(r.declarer_won);
  EXPECT_EQ(r.scores, (std::vector<int>{-48, 24, 24}));
}

// ---------------------------------------------------------------------------
// Observations, records, matches.

TEST(AustrianObservation, NoSeatEverSeesAHiddenCard) {
  struct Case { const char* variant; Deal deal; int dealer; const char* script; };
  const std::vector<Case> cases = {
      {"tapp-tarock", DealA(), 2, kDealAThree},
      {"tapp-tarock", DealA(), 2, "bid three, bid one, pass, pass, talon 3, discard HJ"},
      {"tapp-tarock", DealG(), 0, "bid three, pass, pass, talon 1, discard T20, discard T7, discard T8"},
      {"tapp-tarock", DealD(), 1, "bid three, bid solo"},
      {"tapp-tarock", DealF(), 2, "pass, pass, pass"},
      {"tapp-tarock-classic", DealA(), 2, "bid bottom-three, pass, pass, discard H4, discard H1, discard S7"},
      {"tapp-tarock-classic", DealA(), 2, "bid top-three, pass, pass, discard D3, discard C7, discard H1"},
      {"tapp-tarock-classic", DealA(), 2, kDealAThree},
      {"tapp-tarock-classic", DealD(), 1, "pass, pass, bid solo"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.variant, ": ", c.script));
    Table t = Start(c.variant, c.deal, Dealt(c.dealer));
    for (absl::string_view a : absl::StrSplit(c.script, ',', absl::SkipWhitespace())) {
      ASSERT_TRUE(NoLeaks(t.st()));
      ASSERT_TRUE(t.s().ApplyText(absl::StripAsciiWhitespace(a)).ok()) << a;
    }
    for (int guard = 0; !t.s().IsTerminal() && guard < 200; ++guard) {
      ASSERT_TRUE(NoLeaks(t.st()));
      ActionList legal;
      t.s().LegalActions(&legal);
      t.s().Apply(legal.items[legal.size - 1]);
    }
    ASSERT_TRUE(NoLeaks(t.st()));
    // The legal actions go only to the seat to act.
    for (int s = 0; s < 3; ++s) EXPECT_TRUE(t.s().Observe(s).legal.empty());
  }
}

TEST(AustrianRecord, RecordJsonReplayGivesTheSameResult) {
  struct Case { const char* variant; Deal deal; int dealer; std::string script; std::vector<std::string> prefs; Options options; };
  const std::vector<Case> cases = {
      {"tapp-tarock", DealA(), 2, kDealAThree, kDealAPrefs, {}},
      {"tapp-tarock", DealA(), 2, kDealAThree, kDealAPrefs, {{"counting", "simplified"}}},
      {"tapp-tarock", DealC(), 2, "bid three, pass, pass, talon 0, discard H4, discard D4, discard D3, pass, announce pagat-ultimo", kDealCPrefs, {}},
      {"tapp-tarock", DealF(), 2, "pass, pass, pass", kDealFPrefs, {}},
      {"tapp-tarock", DealD(), 1, "bid three, bid solo, announce grandpointe", {}, {}},
      {"tapp-tarock-classic", DealC(), 0, std::string(kDealCSeat1Three) + ", announce pagat-ultimo", kDealCDeclarerPrefs, {}},
      {"tapp-tarock-classic", DealD(), 2, "bid solo, announce valat", {}, {}},
      {"tapp-tarock-classic", DealA(), 2, "pass, pass, pass", {}, {}},
  };
  for (const Case& c : cases) {
    Table t = Start(c.variant, c.deal, Dealt(c.dealer), c.options);
    ASSERT_TRUE(Do(t.s(), c.script));
    ASSERT_TRUE(PlayOut(t.s(), c.prefs));
    EXPECT_TRUE(RoundTrip(*t.game, t.s())) << c.variant << ": " << c.script;
  }
}

// 001's fourth pay-out row as a whole hand record, written out from the trace
// at DealC().
constexpr const char* kRecordRow4 = R"({
  "variant": "tapp-tarock", "dealer": 2,
  "hands": [["T13","T14","T15","T16","T17","T18","T19","T20","T21","T22","H1","H2","H3","S7","S8","S9"],
            ["T1","T2","T3","T4","T5","T6","T7","T8","T9","T10","T11","HK","HQ","HN","HJ","SK"],
            ["DK","DQ","DN","DJ","D1","D2","CK","CQ","CN","CJ","C10","C9","SQ","SN","SJ","S10"]],
  "talon": ["H4","D4","D3","T12","C7","C8"],
  "actions": ["bid three","pass","pass","talon 0","discard H4","discard D4","discard D3",
              "pass","pass","pass",
              "play T22","play T2","play DK",  "play T21","play T3","play CK",
              "play T20","play T4","play DQ",  "play T19","play T5","play CQ",
              "play T18","play T6","play DN",  "play T17","play T7","play DJ",
              "play T16","play T8","play CJ",  "play T15","play T9","play D1",
              "play T14","play T10","play D2", "play T13","play T11","play C10",
              "play H1","play HK","play C9",   "play HQ","play CN","play H2",
              "play HN","play S10","play H3",  "play HJ","play SJ","play S7",
              "play SK","play SN","play S8",   "play T1","play SQ","play S9"],
  "scores": [10, 10, -20]})";

TEST(AustrianRecord, HandWrittenRecordOfPayOutRow4) {
  absl::StatusOr<std::vector<HandRecord>> records = ParseRecords(kRecordRow4);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 1u);
  absl::StatusOr<Replay> replay = ReplayRecord((*records)[0]);
  ASSERT_TRUE(replay.ok()) << replay.status();
  ASSERT_TRUE(replay->state->IsTerminal());
  EXPECT_EQ(replay->state->Result().scores, (std::vector<int>{10, 10, -20}));
  const std::string report = ReplayReportJson(*replay->game, *replay->state);
  EXPECT_TRUE(absl::StrContains(report, R"("name":"pagat-ultimo","seat":1,"side":"defenders","value":10,"won":true)"))
      << report;
  EXPECT_TRUE(absl::StrContains(report, R"("card_points":[37,33])")) << report;

  // Cut after the exchange: a hand in progress, seat 0 to announce.
  HandRecord partial = (*records)[0];
  partial.actions.resize(7);
  absl::StatusOr<Replay> rp = ReplayRecord(partial);
  ASSERT_TRUE(rp.ok()) << rp.status();
  EXPECT_EQ(rp->state->PhaseName(), "announce");
  EXPECT_EQ(rp->state->CurrentSeat(), 0);

  // An illegal action is named with its index.
  HandRecord bad = (*records)[0];
  bad.actions[4] = "discard T22";
  absl::StatusOr<Replay> rb = ReplayRecord(bad);
  ASSERT_FALSE(rb.ok());
  EXPECT_TRUE(absl::StrContains(rb.status().message(), "action 4 ('discard T22')")) << rb.status();
}

TEST(AustrianMatch, AGameIsAMultipleOfThreeHandsAndThrownInDealsCountAsHands) {
  auto game = *Registry::Global().Create("tapp-tarock");
  MatchOptions mo;
  mo.num_hands = 4;
  EXPECT_FALSE(MatchProgress::Start(*game, mo).ok());  // 001 End of Game
  for (const char* variant : {"tapp-tarock", "tapp-tarock-classic"}) {
    auto g = *Registry::Global().Create(variant);
    mo.num_hands = 30;
    mo.seed = 5;
    absl::StatusOr<MatchProgress> m = MatchProgress::Start(*g, mo);
    ASSERT_TRUE(m.ok());
    Rng rng(9);
    int64_t hands = 0;
    while (!m->Finished()) {
      MatchProgress::NextHand h = m->Next();
      EXPECT_EQ(h.setup.dealer, h.hand_index % 3);
      auto st = *g->NewHand(h.deal, h.setup);
      while (!st->IsTerminal()) {
        ActionList legal;
        st->LegalActions(&legal);
        Action a = legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
        if (legal.Contains(kPassAction) && rng.Below(2) == 0) a = kPassAction;
        st->Apply(a);
      }
      const HandResult r = st->Result();
      EXPECT_EQ(Sum(r.scores), 0);
      ASSERT_TRUE(m->Record(r).ok());
      ++hands;
    }
    const std::vector<int64_t> totals = m->Totals();
    EXPECT_EQ(totals[0] + totals[1] + totals[2], 0) << variant;
    if (std::string(variant) == "tapp-tarock-classic") {
      EXPECT_GT(m->redeals(), 0);  // thrown in, and still one of the 30 hands
    }
    EXPECT_EQ(hands, 30) << variant;
    EXPECT_TRUE(m->ended_early().empty()) << m->ended_early();
  }
}

}  // namespace
}  // namespace tarock::austrian
