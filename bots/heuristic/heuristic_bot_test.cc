// Tests of the `heuristic` bot: hundreds of hands of every variant (the
// Slovenian family, tapp-tarock, tapp-tarock-classic, westfest) against
// `random` (and against itself) without an illegal action or a fallback; a
// deterministic duplicate strength check against `random`; and hand-built
// positions where the right decision is clear (bidding, king call, talon,
// discard, announcements, cheap wins, smearing, ducking, the Mond, Klop; the
// Austrian bids, tapp groups, bonuses and Bridscher; westfest's cut, prever,
// draw, hand bonuses and throw-in).
//
// Thread-safety: single-threaded tests.

#include "bots/heuristic/heuristic_bot.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"
#include "referee/protocol/convert.h"
#include "tarock/sdk/local_play.h"

namespace tarock::bots {
namespace {

const char* const kVariants[] = {"slovenian-4p", "slovenian-3p", "slovenian-5p", "slovenian-tapp"};
const char* const kOtherVariants[] = {"tapp-tarock", "tapp-tarock-classic", "westfest"};

// ---------------------------------------------------------------------------
// Bots for local matches.

class RandomBot : public sdk::Bot {
 public:
  explicit RandomBot(uint64_t seed) : rng_(seed) {}
  std::string Decide(const sdk::Situation& s) override {
    std::uniform_int_distribution<size_t> pick(0, s.legal().size() - 1);
    return s.legal()[pick(rng_)];
  }

 private:
  std::mt19937_64 rng_;
};

// Forwards to a HeuristicBot the test keeps, so its counters outlive the match.
class Borrowed : public sdk::Bot {
 public:
  explicit Borrowed(HeuristicBot* bot) : bot_(bot) {}
  std::string Decide(const sdk::Situation& s) override { return bot_->Decide(s); }

 private:
  HeuristicBot* bot_;
};

// Seatings of the duplicate design (as tarock-strength): all rotations of the
// alternating pattern and of its complement; true where the heuristic sits.
std::vector<std::vector<bool>> Seatings(int n) {
  std::set<std::vector<bool>> seen;
  std::vector<std::vector<bool>> out;
  for (int complement = 0; complement < 2; ++complement) {
    for (int r = 0; r < n; ++r) {
      std::vector<bool> s(n);
      for (int i = 0; i < n; ++i) s[i] = ((((i + r) % n) % 2) == 0) != (complement == 1);
      if (seen.insert(s).second) out.push_back(s);
    }
  }
  return out;
}

int NumSeats(const std::string& variant) {
  absl::StatusOr<std::unique_ptr<Game>> g = Registry::Global().Create(variant, {});
  return g.ok() ? (*g)->num_seats() : 0;
}

// ---------------------------------------------------------------------------
// Many hands: never an illegal action, never a fallback, fast.

class HeuristicInEveryVariant : public testing::TestWithParam<const char*> {};

TEST_P(HeuristicInEveryVariant, PlaysHundredsOfHandsLegallyAgainstRandomAndItself) {
  const std::string variant = GetParam();
  const int n = NumSeats(variant);
  ASSERT_GT(n, 0);
  std::vector<std::unique_ptr<HeuristicBot>> heuristics;
  int64_t decisions = 0;
  const auto start = std::chrono::steady_clock::now();
  // Heuristic on the even seats, then on the odd seats, then everywhere.
  for (int pattern = 0; pattern < 3; ++pattern) {
    std::vector<std::unique_ptr<sdk::Bot>> bots;
    for (int s = 0; s < n; ++s) {
      if (pattern == 2 || s % 2 == pattern) {
        heuristics.push_back(std::make_unique<HeuristicBot>());
        bots.push_back(std::make_unique<Borrowed>(heuristics.back().get()));
      } else {
        bots.push_back(std::make_unique<RandomBot>(1000 * pattern + s));
      }
    }
    const int hands = pattern == 2 ? 120 : 240;
    absl::StatusOr<sdk::LocalMatchResult> r =
        sdk::PlayLocalMatch(variant, {}, std::move(bots), hands, 77 + pattern);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->hand_scores.size(), static_cast<size_t>(hands));
    decisions += r->decisions;
  }
  for (const auto& h : heuristics) EXPECT_EQ(h->fallbacks(), 0);
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  // Well under a millisecond per decision (the random bots' share included).
  EXPECT_LT(us / decisions, 1000.0);
}

// Duplicate strength against random: 240 deals per variant (120 in 5p, which
// has ten seatings per deal), each played in every seating of the
// tarock-strength design (the same deals with the bots swapped through the
// seats), seeds fixed; the mean difference per deal (heuristic - random).
// Measured with this code: +739 (4p), +641 (3p), +866 (5p), +109 (tapp), with
// standard errors 71, 41, 53 and 4.8 (random loses most of it by bidding
// wildly); tapp-tarock +158 (2.6), tapp-tarock-classic +49 (1.3), westfest
// +259 chips (21). The asserted margins are about half of that and many
// standard errors away from zero.
TEST_P(HeuristicInEveryVariant, BeatsRandomInDuplicate) {
  const std::string variant = GetParam();
  const int n = NumSeats(variant);
  ASSERT_GT(n, 0);
  const std::vector<std::vector<bool>> seatings = Seatings(n);
  const int blocks = (n == 5 ? 120 : 240) / n;  // 5p: ten seatings per deal
  std::vector<double> diffs;
  double sum_h = 0, sum_r = 0;
  int cnt_h = 0, cnt_r = 0;
  for (int k = 0; k < blocks; ++k) {
    std::vector<double> dh(n, 0), dr(n, 0);
    std::vector<int> ch(n, 0), cr(n, 0);
    for (size_t si = 0; si < seatings.size(); ++si) {
      std::vector<std::unique_ptr<sdk::Bot>> bots;
      for (int s = 0; s < n; ++s) {
        if (seatings[si][s]) {
          bots.push_back(std::make_unique<HeuristicBot>());
        } else {
          bots.push_back(std::make_unique<RandomBot>(HandSeed(k, si * 8 + s)));
        }
      }
      absl::StatusOr<sdk::LocalMatchResult> r =
          sdk::PlayLocalMatch(variant, {}, std::move(bots), n, HandSeed(2024, k));
      ASSERT_TRUE(r.ok()) << r.status();
      for (int h = 0; h < n; ++h) {
        for (int s = 0; s < n; ++s) {
          if (variant == "slovenian-5p" && s == h) continue;  // the dealer sits out
          const double score = r->hand_scores[h][s];
          if (seatings[si][s]) {
            dh[h] += score;
            ++ch[h];
            sum_h += score;
            ++cnt_h;
          } else {
            dr[h] += score;
            ++cr[h];
            sum_r += score;
            ++cnt_r;
          }
        }
      }
    }
    for (int h = 0; h < n; ++h) diffs.push_back(dh[h] / ch[h] - dr[h] / cr[h]);
  }
  double mean = 0;
  for (double d : diffs) mean += d;
  mean /= diffs.size();
  double ss = 0;
  for (double d : diffs) ss += (d - mean) * (d - mean);
  const double se = std::sqrt(ss / (diffs.size() - 1) / diffs.size());
  const double margin = variant == "slovenian-tapp"        ? 50.0
                        : variant == "slovenian-3p"        ? 300.0
                        : variant == "tapp-tarock"         ? 80.0
                        : variant == "tapp-tarock-classic" ? 25.0
                        : variant == "westfest"            ? 120.0
                                                           : 400.0;
  EXPECT_GT(mean, margin) << variant << ": heuristic " << sum_h / cnt_h << " per hand, random "
                          << sum_r / cnt_r << ", standard error " << se;
  EXPECT_GT(mean, 5 * se) << variant;
  EXPECT_GT(sum_h / cnt_h, sum_r / cnt_r);
}

std::string VariantTestName(const testing::TestParamInfo<const char*>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}
INSTANTIATE_TEST_SUITE_P(Slovenian, HeuristicInEveryVariant, testing::ValuesIn(kVariants),
                         VariantTestName);
// tapp-tarock, tapp-tarock-classic and westfest (001, 002, 004).
INSTANTIATE_TEST_SUITE_P(Other, HeuristicInEveryVariant, testing::ValuesIn(kOtherVariants),
                         VariantTestName);

// ---------------------------------------------------------------------------
// Hand-built positions.

CardSet Cards(absl::string_view text) {
  CardSet out;
  for (absl::string_view name : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    absl::StatusOr<Card> c = ParseCard(name);
    EXPECT_TRUE(c.ok()) << name;
    if (c.ok()) {
      EXPECT_FALSE(out.Contains(*c)) << name << " twice";
      out.Add(*c);
    }
  }
  return out;
}

// A table with a hand-built deal. Hands may be partial: the missing cards go
// out in card-index order (tarocks first, so every seat gets one), round robin
// over the seats still short, and what is left makes the talon (when `talon`
// is empty). In westfest, whose hand begins with the deal, the hands are the
// ones the cutter's `cut` deals (packets of six from the povinnost): the test
// applies "cut" first.
class Table {
 public:
  Table(const std::string& variant, int dealer, const std::vector<std::string>& hands,
        const std::string& talon = "") {
    absl::StatusOr<std::unique_ptr<Game>> g = Registry::Global().Create(variant, {});
    EXPECT_TRUE(g.ok()) << g.status();
    game_ = std::shared_ptr<const Game>(std::move(*g));
    const int n = game_->num_seats();
    const int hand_size = game_->info().hand_size;
    const int sitout = variant == "slovenian-5p" ? dealer : -1;
    Deal deal;
    CardSet used;
    for (int s = 0; s < n; ++s) {
      CardSet h = s < static_cast<int>(hands.size()) ? Cards(hands[s]) : CardSet();
      EXPECT_TRUE((h & used).empty()) << "seat " << s << " repeats a card";
      used |= h;
      deal.hands.push_back(h);
    }
    const CardSet t = Cards(talon);
    EXPECT_TRUE((t & used).empty()) << "the talon repeats a card";
    used |= t;
    int seat = 0;
    for (Card c : kAllCards - used) {
      int tries = 0;
      while (tries < n && (seat == sitout || deal.hands[seat].size() >= hand_size)) {
        seat = (seat + 1) % n;
        ++tries;
      }
      if (tries < n) {
        deal.hands[seat].Add(c);
        seat = (seat + 1) % n;
      } else {
        deal.talon.push_back(c);
      }
    }
    if (!t.empty()) {
      deal.talon.clear();
      for (absl::string_view name : absl::StrSplit(talon, ' ', absl::SkipEmpty()))
        deal.talon.push_back(*ParseCard(name));
    }
    if (variant == "westfest") {
      deal.deck = deal.talon;
      const int povinnost = (dealer + 1) % n;
      for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < n; ++i) {
          std::vector<Card> cards;
          for (Card c : deal.hands[(povinnost + i) % n]) cards.push_back(c);
          for (int j = 0; j < 6; ++j) deal.deck.push_back(cards[6 * round + j]);
        }
      }
      deal.hands.assign(n, CardSet());
    }
    HandSetup setup;
    setup.dealer = dealer;
    absl::StatusOr<std::unique_ptr<State>> st = game_->NewHand(deal, setup);
    EXPECT_TRUE(st.ok()) << st.status();
    if (st.ok()) state_ = std::move(*st);
    for (int s = 0; s < n; ++s) {
      sdk::MatchInfo m;
      m.variant = variant;
      m.options = game_->options();
      m.seat = s;
      m.num_seats = n;
      m.game = game_;
      infos_.push_back(m);
    }
  }

  void Apply(const std::vector<std::string>& actions) {
    for (const std::string& a : actions) {
      absl::Status s = state_->ApplyText(a);
      ASSERT_TRUE(s.ok()) << s;
    }
  }
  // The heuristic's answer for the seat to act.
  std::string Ask() {
    const int seat = state_->CurrentSeat();
    const Observation obs = state_->Observe(seat);
    const v1::DecisionRequest req = MakeDecisionRequest(obs, 1, 0, 0);
    sdk::Situation sit(infos_[seat], req);
    HeuristicBot bot;
    std::string a = bot.Decide(sit);
    EXPECT_EQ(bot.fallbacks(), 0);
    return a;
  }
  int seat() const { return state_->CurrentSeat(); }
  std::string phase() const { return state_->PhaseName(); }
  // Applies the heuristic's own answers while `seat` is to act in `phase`.
  void AskWhile(int seat, const std::string& phase) {
    while (state_->CurrentSeat() == seat && state_->PhaseName() == phase) Apply({Ask()});
  }

 private:
  std::shared_ptr<const Game> game_;
  std::unique_ptr<State> state_;
  std::vector<sdk::MatchInfo> infos_;
};

// ---- Bidding ----

TEST(HeuristicBidding, PassesWithAHopelessHand) {
  Table t("slovenian-4p", 3, {"T2 T3 T4 HQ H3 D4 D3 C7 C8 C9 S7 SQ"});
  ASSERT_EQ(t.seat(), 0);
  EXPECT_EQ(t.Ask(), "pass");
}

TEST(HeuristicBidding, BidsBeggarWithNothingThatMustWin) {
  Table t("slovenian-4p", 3, {"T2 T3 H4 H3 D4 D3 C7 C8 C9 S7 S8 S9"});
  ASSERT_EQ(t.seat(), 0);
  EXPECT_EQ(t.Ask(), "bid beggar");
}

TEST(HeuristicBidding, BidsWithAMonster) {
  Table t("slovenian-4p", 3, {"T22 T21 T20 T19 T18 T17 T16 T15 HK DK CK SK"});
  ASSERT_EQ(t.seat(), 0);
  EXPECT_TRUE(absl::StartsWith(t.Ask(), "bid ")) << "a monster must bid";
}

TEST(HeuristicBidding, ForcedDealerTakesKlopWithAWeakHand) {
  // Weak, and no Beggar either (two queens).
  Table t("slovenian-4p", 3, {"", "", "", "T2 T12 T13 HQ H3 D4 D3 D2 C7 C8 S7 SQ"});
  t.Apply({"pass", "pass", "pass"});
  ASSERT_EQ(t.seat(), 3);
  EXPECT_EQ(t.Ask(), "bid klop");
}

TEST(HeuristicBidding, TappWeakHandPassesStrongHandOpens) {
  // slovenian-tapp: the dealer speaks first.
  Table weak("slovenian-tapp", 0, {"T2 T3 H4 H3 H2 D4 D3 D2 C7 C8 C9 S7 S8 S9 S10 C10"});
  ASSERT_EQ(weak.seat(), 0);
  EXPECT_EQ(weak.Ask(), "pass");
  Table strong("slovenian-tapp", 0, {"T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 HK DK CK SK H4 D4"});
  ASSERT_EQ(strong.seat(), 0);
  EXPECT_EQ(strong.Ask(), "bid three");
}

// ---- King call, talon, discard, announcements ----

TEST(HeuristicKingCall, CallsTheShortestSuitAndNeverItsOwnKing) {
  // Hearts holds its own king; diamonds void, spades one card, clubs two.
  Table t("slovenian-4p", 3, {"T22 T21 T20 T19 T18 T17 T16 HK H4 C7 C8 S7"});
  t.Apply({"bid two", "pass", "pass", "pass"});
  ASSERT_EQ(t.seat(), 0);
  EXPECT_EQ(t.Ask(), "call D");
}

// slovenian-3p: seat 2 (the dealer) plays Three; the talon's first group holds
// the Mond, whose loss would cost the declarer 20 if left behind.
TEST(HeuristicTalon, TakesTheGroupWithTheMond) {
  Table t("slovenian-3p", 2,
          {"T1 T2 T3 T5 T6 T7 T8 C9 C10 CJ CN S7 S8 S9 S10 SJ",
           "T9 T4 H4 H3 H2 H1 HJ HN D4 D3 D2 D1 DJ DN C7 C8",
           "T22 T20 T19 T18 T17 T16 T15 T14 T13 HK HQ DK DQ CK CQ SK"},
          "T21 SN SQ T10 T11 T12");
  t.Apply({"pass", "pass", "bid three"});
  ASSERT_EQ(t.seat(), 2);
  EXPECT_EQ(t.Ask(), "talon 0");
}

TEST(HeuristicDiscard, LaysAwayASingletonToMakeAVoid) {
  Table t("slovenian-3p", 2, {"", "", "T22 T20 T19 T18 T17 T16 T15 T14 T13 HK HQ HN DK DQ CK S7"},
          "T21 T12 T11 T10 T9 T8");
  t.Apply({"pass", "pass", "bid three", "talon 0"});
  ASSERT_EQ(t.seat(), 2);
  EXPECT_EQ(t.Ask(), "discard S7");
}

TEST(HeuristicAnnounce, AnnouncesTrulaOnlyWhenItHoldsIt) {
  Table t("slovenian-4p", 3,
          {"T22 T21 T1 T20 T19 T18 T17 T16 HK DK C7 S7", "T2 T3 H4 H3 D4 D3 C8 C9 S8 S9 S10 C10"});
  t.Apply({"bid two", "pass", "pass", "pass", "call C"});
  // Take a talon group and lay away whatever the bot likes.
  t.Apply({t.Ask()});
  while (t.seat() == 0) {
    const std::string a = t.Ask();
    if (!absl::StartsWith(a, "discard ")) break;
    t.Apply({a});
  }
  // 003 §4.5: the dealer (seat 3) opens the announcements; he passes here.
  ASSERT_EQ(t.seat(), 3);
  t.Apply({"pass"});
  ASSERT_EQ(t.seat(), 0);
  EXPECT_EQ(t.Ask(), "announce trula");
  t.Apply({"announce trula"});
  ASSERT_EQ(t.seat(), 1);
  EXPECT_EQ(t.Ask(), "pass");  // a weak defender neither announces nor kontras
}

// ---- Play in positive contracts ----

// slovenian-4p, seat 0 plays Solo Three (alone; seats 1-3 defend together).
// Talon: T1 T11 T12 | T13 T14 HJ.
constexpr char kSoloTalon[] = "T1 T11 T12 T13 T14 HJ";

TEST(HeuristicPlay, TakesATrickWithItsLowestWinningTarock) {
  Table t("slovenian-4p", 3,
          {"T21 T20 T19 T18 T17 T16 HK HQ HN CK CQ SK", "T22 T2 T3 T4 H4 H3 C7 C8 C9 S7 S8 S9",
           "T5 T6 T7 T8 H2 H1 C10 CJ S10 SJ D4 D3", "T9 T10 T15 DK DQ DN DJ D2 D1 CN SN SQ"},
          kSoloTalon);
  t.Apply({"bid solo-three", "pass", "pass", "pass", "talon 1", "discard HJ", "discard HN",
           "discard CQ", "pass", "pass", "pass", "pass"});
  t.Apply({"play HQ", "play H3", "play H1"});
  ASSERT_EQ(t.seat(), 3);  // last, void in hearts
  EXPECT_EQ(t.Ask(), "play T9");
}

constexpr char kDuckHand0[] = "T21 T20 T19 T18 T17 T16 HK HQ HN CK CQ S7";
constexpr char kDuckHand1[] = "T22 T2 T3 T4 H4 H3 C7 C8 C9 D4 D3 D2";
constexpr char kDuckHand2[] = "T5 T6 T7 T8 H2 H1 C10 S8 S9 SN SQ D1";
constexpr char kDuckHand3[] = "T9 T10 T15 SK S10 SJ DK DQ DN DJ CN CJ";

TEST(HeuristicPlay, SmearsADeadKingOntoAPartnersSureTrick) {
  // Seat 0 plays Solo Three and shows a spade void; seat 3 then has no heart
  // and no tarock left, and its partner seat 1 holds the trick: the spade king
  // can never win (the declarer trumps spades), so onto the trick it goes.
  Table t("slovenian-4p", 3,
          {"T21 T20 T19 T18 T17 T16 HK HQ HN CK CQ C7", "T22 T2 T4 T9 T10 T11 S9 S7 D4 D3 D2 C8",
           "T5 T6 T7 T8 T12 H1 H2 H3 S8 SJ SN CJ", "T3 H4 SK S10 SQ DK DQ DN DJ C9 C10 CN"},
          "T1 T13 T14 T15 HJ D1");
  t.Apply({"bid solo-three", "pass", "pass", "pass", "talon 1", "discard HJ", "discard D1",
           "discard C7", "pass", "pass", "pass", "pass"});
  t.Apply({"play HQ", "play T22", "play H1", "play H4"});   // seat 1 wins
  t.Apply({"play S9", "play S8", "play S10", "play T16"});  // the declarer is void in spades
  t.Apply({"play T21", "play T2", "play T5", "play T3"});   // seat 3 has no tarock left
  t.Apply({"play HK", "play T4", "play H2"});               // seat 1's T4 holds the trick
  ASSERT_EQ(t.seat(), 3);
  EXPECT_EQ(t.Ask(), "play SK");
}

TEST(HeuristicPlay, DucksItsCheapestCardWhenItCannotWin) {
  Table t("slovenian-4p", 3, {kDuckHand0, kDuckHand1, kDuckHand2, kDuckHand3}, kSoloTalon);
  t.Apply({"bid solo-three", "pass", "pass", "pass", "talon 1", "discard HJ", "discard HN",
           "discard HQ", "pass", "pass", "pass", "pass"});
  t.Apply({"play CK", "play C7", "play C10"});
  ASSERT_EQ(t.seat(), 3);  // CN and CJ cannot beat the king
  EXPECT_EQ(t.Ask(), "play CJ");
}

TEST(HeuristicPlay, KeepsTheMondAwayFromTheSkis) {
  // slovenian-3p: seat 2 plays Three; seat 0 leads a low tarock; seat 1 holds
  // the Mond and a low tarock, and the declarer (still to play) may hold the Skis.
  Table t("slovenian-3p", 2,
          {"T1 T2 T3 T5 T6 T7 T8 T9 C9 C10 CJ CN S7 S8 S9 S10",
           "T21 T4 H4 H3 H2 H1 HJ HN D4 D3 D2 D1 DJ DN C7 C8",
           "T22 T20 T19 T18 T17 T16 T15 T14 T13 HK HQ DK DQ CK CQ SK"},
          "T10 T11 T12 SJ SN SQ");
  t.Apply({"pass", "pass", "bid three", "talon 0", "discard HQ", "discard DQ", "discard CQ", "pass",
           "pass", "pass"});
  t.Apply({"play T3"});
  ASSERT_EQ(t.seat(), 1);
  EXPECT_EQ(t.Ask(), "play T4");
}

// ---- Klop ----

TEST(HeuristicKlop, ShedsPointsOntoSomeoneElsesTrick) {
  Table t("slovenian-4p", 3, {"HK", "T2 T3 HQ H4 D4 D3 C7 C8 S7 S8 S9 C9"});
  t.Apply({"pass", "pass", "pass", "bid klop", "play HK"});
  ASSERT_EQ(t.seat(), 1);  // cannot beat the king: free to drop the queen
  EXPECT_EQ(t.Ask(), "play HQ");
}

TEST(HeuristicKlop, KeepsTheMondOffTheSkisForMondfang) {
  // 003 §4.6.2 (Mondfang also in Klop since issue 11): the Mond falling with the
  // Skis costs 20: with T21 and T20, both about as dangerous to keep, the bot
  // sheds T20 under the Skis rather than the Mond.
  Table t("slovenian-4p", 3, {"T22", "T21 T20 H4 H3 D4 D3 C7 C8 S7 S8 S9 C9"});
  t.Apply({"pass", "pass", "pass", "bid klop", "play T22"});
  ASSERT_EQ(t.seat(), 1);
  EXPECT_EQ(t.Ask(), "play T20");
}

TEST(HeuristicKlop, BeatsAsLowAsItCanWhenItMustBeat) {
  Table t("slovenian-4p", 3, {"H4", "T2 T3 HK HN D4 D3 C7 C8 S7 S8 S9 C9"});
  t.Apply({"pass", "pass", "pass", "bid klop", "play H4"});
  ASSERT_EQ(t.seat(), 1);  // must beat; the knight leaves room for the others
  EXPECT_EQ(t.Ask(), "play HN");
}

TEST(HeuristicEvaluate, CountsTheHand) {
  const HandEval e = EvaluateHand(Cards("T22 T21 T1 T20 T5 HK DK C7 C8 C9 C10 S7"));
  EXPECT_EQ(e.tarocks, 5);
  EXPECT_EQ(e.high_tarocks, 3);
  EXPECT_EQ(e.kings, 2);
  EXPECT_EQ(e.voids, 0);
  EXPECT_TRUE(e.skis && e.mond && e.pagat);
  EXPECT_FALSE(e.beggar);
  EXPECT_GT(e.strength, EvaluateHand(Cards("T2 T3 H4 H3 D4 D3 C7 C8 C9 S7 S8 S9")).strength);
  EXPECT_TRUE(EvaluateHand(Cards("T2 H4 H3 H2 D4 D3 D2 C7 C8 C9 S7 S8")).beggar);
}

// ---------------------------------------------------------------------------
// tapp-tarock (001). Dealer 0: seat 1 is forehand, then 2, then 0.

constexpr char kWeak16[] = "T2 T3 T4 T6 H4 H3 H2 D4 D3 C7 C8 C9 S7 S8 S9 SQ";         // 4.3
constexpr char kGood16[] = "T22 T20 T18 T16 T14 T12 T10 HK HQ H4 DK D4 C7 C8 S7 S8";  // 15.8
constexpr char kStrong16[] = "T22 T21 T20 T19 T18 T17 T16 T15 T14 HK HQ DK CK C7 S7 S8";  // 22.5
// Fourteen tarocks from the top and two kings: every trick is hers.
constexpr char kValat16[] = "T22 T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 HK DK";

TEST(HeuristicTappTarock, OpensWithThreeOnlyWithAGoodHand) {
  Table weak("tapp-tarock", 0, {"", kWeak16});
  ASSERT_EQ(weak.seat(), 1);
  EXPECT_EQ(weak.Ask(), "pass");
  Table good("tapp-tarock", 0, {"", kGood16});
  EXPECT_EQ(good.Ask(), "bid three");  // 001: the first bid is always three
}

TEST(HeuristicTappTarock, OverbidsAThreeByWhatTheHandCarries) {
  Table good("tapp-tarock", 0, {"", "", kGood16});
  good.Apply({"bid three"});
  ASSERT_EQ(good.seat(), 2);
  EXPECT_EQ(good.Ask(), "bid two");
  Table strong("tapp-tarock", 0, {"", "", kStrong16});
  strong.Apply({"bid three"});
  EXPECT_EQ(strong.Ask(), "bid one");
  Table weak("tapp-tarock", 0, {"", "", kWeak16});
  weak.Apply({"bid three"});
  EXPECT_EQ(weak.Ask(), "pass");
}

TEST(HeuristicTappTarock, TakesThePackWithTheTarocksAndDiscardsLegally) {
  Table t("tapp-tarock", 0, {"", kGood16}, "T21 T19 T17 H3 C9 S9");
  t.Apply({"bid three", "pass", "pass"});
  ASSERT_EQ(t.seat(), 1);
  EXPECT_EQ(t.Ask(), "talon 0");
  t.Apply({"talon 0"});
  // Three discards: never a king or a tarock while other suit cards are left.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(t.phase(), "discard");
    const std::string a = t.Ask();
    const Card c = *ParseCard(a.substr(8));
    EXPECT_FALSE(IsTarock(c) || kKingSet.Contains(c)) << a;
    t.Apply({a});
  }
}

TEST(HeuristicTappTarock, TwoTakesThePairThatBringsTheWholeTapp) {
  // 001: with talon 1 (cards 2 and 3) both packs are touched, so all six
  // cards count for her; the pair itself is two good tarocks.
  Table t("tapp-tarock", 0, {"", "", kGood16}, "HN DQ T21 T19 CQ SQ");
  t.Apply({"bid three", "bid two", "pass", "pass"});
  ASSERT_EQ(t.seat(), 2);
  EXPECT_EQ(t.Ask(), "talon 1");
}

TEST(HeuristicTappTarock, AnnouncesGrandpointeOnlyWithEveryTrickSure) {
  Table t("tapp-tarock", 0, {"", kValat16});
  t.Apply({"bid three", "pass", "pass"});
  t.AskWhile(1, "talon");
  t.AskWhile(1, "discard");
  ASSERT_EQ(t.phase(), "announce");
  ASSERT_EQ(t.seat(), 1);
  EXPECT_EQ(t.Ask(), "announce grandpointe");
  t.Apply({"announce grandpointe"});
  EXPECT_EQ(t.Ask(), "pass");  // seat 2, a defender, announces nothing
  Table modest("tapp-tarock", 0, {"", kGood16});
  modest.Apply({"bid three", "pass", "pass"});
  modest.AskWhile(1, "talon");
  modest.AskWhile(1, "discard");
  ASSERT_EQ(modest.phase(), "announce");
  EXPECT_EQ(modest.Ask(), "pass");
}

TEST(HeuristicTappTarock, BridscherDucksUnderTheTrick) {
  // All pass: each for himself, the most points lose. Seat 2 follows the
  // heart lead with its lowest heart rather than taking the trick with the king.
  Table t("tapp-tarock", 0, {"", "H3 T2", "HK H4 HQ"});
  t.Apply({"pass", "pass", "pass"});
  ASSERT_EQ(t.phase(), "play");
  ASSERT_EQ(t.seat(), 1);
  t.Apply({"play H3"});
  EXPECT_EQ(t.Ask(), "play H4");
}

// ---------------------------------------------------------------------------
// tapp-tarock-classic (002). Dealer 0: seat 1 opens.

TEST(HeuristicTappClassic, BidsFromThePointCount) {
  Table weak("tapp-tarock-classic", 0, {"", kWeak16});
  EXPECT_EQ(weak.Ask(), "pass");  // all pass only throws the deal in
  Table good("tapp-tarock-classic", 0, {"", kGood16});
  EXPECT_EQ(good.Ask(), "bid top-three");  // three unseen cards, and 5 rather than 4
  Table sure("tapp-tarock-classic", 0, {"", kValat16});
  EXPECT_EQ(sure.Ask(), "bid solo");
}

TEST(HeuristicTappClassic, AnnouncesValatOnlyWhenEveryTrickIsSure) {
  Table sure("tapp-tarock-classic", 0, {"", kValat16});
  sure.Apply({"bid solo"});
  ASSERT_EQ(sure.phase(), "announce");
  EXPECT_EQ(sure.Ask(), "announce valat");
  Table strong("tapp-tarock-classic", 0, {"", kStrong16});
  strong.Apply({"bid solo"});
  ASSERT_EQ(strong.phase(), "announce");
  EXPECT_EQ(strong.Ask(), "pass");
}

TEST(HeuristicTappClassic, ThreeTakesTheBetterShownHalf) {
  Table t("tapp-tarock-classic", 0, {"", kGood16}, "H3 C9 S9 T21 T19 T17");
  t.Apply({"bid three", "pass", "pass"});
  ASSERT_EQ(t.phase(), "talon");
  EXPECT_EQ(t.Ask(), "talon 1");
}

// ---------------------------------------------------------------------------
// westfest (004). Dealer 0: seat 1 is the povinnost, seat 3 the cutter.

constexpr char kMonster12[] = "T22 T21 T19 T18 T17 T16 T15 T14 T13 T12 HK DK";  // 22.7
constexpr char kUni12[] = "HK HQ H4 DK DQ D4 CK CQ C7 S7 S8 S9";                 // no tarock
constexpr char kWeak12[] = "T2 T3 H4 H3 H2 D4 D3 C7 C8 C9 S7 SQ";

TEST(HeuristicWestfest, CutsBlindAndBidsPreverOnlyWithAMonster) {
  Table t("westfest", 0, {"", kMonster12});
  ASSERT_EQ(t.phase(), "cut");
  ASSERT_EQ(t.seat(), 3);
  EXPECT_EQ(t.Ask(), "cut");
  t.Apply({"cut"});
  ASSERT_EQ(t.phase(), "prever");
  ASSERT_EQ(t.seat(), 1);
  EXPECT_EQ(t.Ask(), "bid prever");
  Table weak("westfest", 0, {"", kWeak12});
  weak.Apply({"cut"});
  EXPECT_EQ(weak.Ask(), "pass");
}

TEST(HeuristicWestfest, PassesTheDrawToKeepUni) {
  // Seat 1 (povinnost, holding the XIX) calls the XVIII; the talon's first
  // four cards do not hold it.
  Table t("westfest", 0, {"", "T19 T2 T3 H3 H2 H1 D3 D2 C8 C9 C10 S10", kUni12},
          "T5 T6 T7 T8 T9 T10");
  t.Apply({"cut", "pass", "pass", "pass", "pass"});
  t.AskWhile(1, "discard");
  ASSERT_EQ(t.phase(), "draw");
  ASSERT_EQ(t.seat(), 2);
  EXPECT_EQ(t.Ask(), "pass");  // uni: 4 from each other player, a drawn tarock would spoil it
  t.Apply({"pass"});
  ASSERT_EQ(t.seat(), 3);
  EXPECT_EQ(t.Ask(), "talon 2");  // an ordinary hand draws
}

TEST(HeuristicWestfest, AnnouncesTheHandBonusesItHolds) {
  Table t("westfest", 0, {"", kMonster12});
  t.Apply({"cut", "bid prever"});
  t.AskWhile(1, "prever-talon");
  t.AskWhile(1, "discard");
  ASSERT_EQ(t.phase(), "announce");
  ASSERT_EQ(t.seat(), 1);
  EXPECT_EQ(t.Ask(), "announce taroky");  // ten tarocks: taroky (4), not tarocky (2)
  t.Apply({"announce taroky"});
  t.AskWhile(2, "announce");
  t.AskWhile(3, "announce");
  t.AskWhile(0, "announce");
  ASSERT_EQ(t.seat(), 1);
  EXPECT_EQ(t.Ask(), "announce honery");  // T22, T21, HK, DK
}

TEST(HeuristicWestfest, ThrowsInAWeakHandThatDrewItsPartnerCard) {
  // Seat 1 lacks the XIX and draws it among the talon's first four cards.
  Table weak("westfest", 0, {"", kWeak12}, "T19 H1 C10 S10 T20 T21");
  weak.Apply({"cut", "pass", "pass", "pass", "pass"});
  ASSERT_EQ(weak.phase(), "throw-in");
  EXPECT_EQ(weak.Ask(), "throw-in");
  Table strong("westfest", 0, {"", "T22 T21 T20 T18 T17 T16 T15 HK DK CK SK S7"},
               "T19 H1 C10 S10 T2 T3");
  strong.Apply({"cut", "pass", "pass", "pass", "pass"});
  ASSERT_EQ(strong.phase(), "throw-in");
  EXPECT_EQ(strong.Ask(), "pass");  // alone against three
}

}  // namespace
}  // namespace tarock::bots
