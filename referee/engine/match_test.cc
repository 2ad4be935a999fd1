#include "referee/engine/match.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "referee/engine/deal_seed.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/registry.h"

namespace tarock {
namespace {

HandResult Plain(std::vector<int> scores, std::vector<int> radli) {
  HandResult r;
  r.scores = std::move(scores);
  r.radli = std::move(radli);
  return r;
}

TEST(MatchTest, HandsMustBeAMultipleOfTheSeats) {
  auto game = *Registry::Global().Create("slovenian-4p");
  EXPECT_FALSE(MatchProgress::Start(*game, {.num_hands = 6}).ok());
  EXPECT_FALSE(MatchProgress::Start(*game, {.num_hands = 0}).ok());
  EXPECT_TRUE(MatchProgress::Start(*game, {.num_hands = 8}).ok());
}

TEST(MatchTest, DealerRotatesRadliCarryAndTheyCostAtTheEnd) {
  auto game = *Registry::Global().Create("slovenian-3p");
  MatchProgress m = *MatchProgress::Start(*game, {.num_hands = 3, .seed = 5, .first_dealer = 1});
  EXPECT_EQ(m.Next().setup.dealer, 1);
  ASSERT_TRUE(m.Record(Plain({-70, 0, 0}, {1, 1, 1})).ok());  // a Klop: radli for all
  MatchProgress::NextHand h = m.Next();
  EXPECT_EQ(h.setup.dealer, 2);
  EXPECT_EQ(h.setup.radli, (std::vector<int>{1, 1, 1}));
  ASSERT_TRUE(m.Record(Plain({0, 50, 0}, {1, 0, 1})).ok());
  EXPECT_EQ(m.Next().setup.dealer, 0);
  ASSERT_TRUE(m.Record(Plain({0, 0, -20}, {1, 0, 1})).ok());
  ASSERT_TRUE(m.Finished());
  // 003 §5.1: 100 off for every radl left.
  EXPECT_EQ(m.Totals(), (std::vector<int64_t>{-170, 50, -120}));
  EXPECT_FALSE(m.Record(Plain({0, 0, 0}, {0, 0, 0})).ok());
}

TEST(MatchTest, VoidDealIsDealtAgainBySameDealerWithForcedKlop) {
  auto game = *Registry::Global().Create("slovenian-4p");
  MatchProgress m = *MatchProgress::Start(*game, {.num_hands = 4, .seed = 1});
  const MatchProgress::NextHand first = m.Next();
  HandResult void_deal = Plain({0, 0, 0, 0}, {0, 0, 0, 0});
  void_deal.redeal = true;
  void_deal.next_forced_klop = true;
  ASSERT_TRUE(m.Record(void_deal).ok());
  const MatchProgress::NextHand again = m.Next();
  EXPECT_EQ(again.hand_index, 0);
  EXPECT_EQ(again.setup.dealer, first.setup.dealer);
  EXPECT_NE(again.seed, first.seed);
  EXPECT_TRUE(again.setup.forced_klop);
  ASSERT_TRUE(m.Record(Plain({0, 10, 0, 10}, {0, 0, 0, 0})).ok());
  EXPECT_FALSE(m.Next().setup.forced_klop);
  EXPECT_EQ(m.redeals(), 1);
}

TEST(MatchTest, ZeroTotalForcesKlopIn003ButNotInTapp) {
  for (const char* variant : {"slovenian-4p", "slovenian-tapp"}) {
    auto game = *Registry::Global().Create(variant);
    const int n = game->num_seats();
    MatchProgress m = *MatchProgress::Start(*game, {.num_hands = n, .seed = 1});
    std::vector<int> zeros(n, 0), up(n, 0), down(n, 0);
    up[1] = 30;
    down[1] = -30;
    ASSERT_TRUE(m.Record(Plain(up, zeros)).ok());
    EXPECT_FALSE(m.Next().setup.forced_klop);
    ASSERT_TRUE(m.Record(Plain(down, zeros)).ok());  // seat 1 is back at exactly 0
    EXPECT_EQ(m.Next().setup.forced_klop, std::string(variant) == "slovenian-4p") << variant;
  }
}

// Whole matches with random players: every hand is played, every seat deals
// equally, totals are the sums, and void deals are dealt again.
TEST(MatchTest, RandomMatchesAddUp) {
  for (const VariantInfo& info : Registry::Global().List()) {
    auto game = *Registry::Global().Create(info.name);
    const int n = game->num_seats();
    MatchProgress m = *MatchProgress::Start(*game, {.num_hands = 300 * n, .seed = 99});
    Rng rng(4);
    std::vector<int64_t> sums(n, 0);
    std::vector<int> deals(n, 0);
    while (!m.Finished()) {
      MatchProgress::NextHand h = m.Next();
      auto state = *game->NewHand(h.deal, h.setup);
      PlayOutRandomly(*state, rng);
      const HandResult r = state->Result();
      if (!r.redeal || r.counts_as_hand) {  // a thrown-in deal that counts scores 0
        ++deals[h.setup.dealer];
        for (int s = 0; s < n; ++s) sums[s] += r.scores[s];
      }
      ASSERT_TRUE(m.Record(r).ok());
    }
    for (int s = 0; s < n; ++s) {
      EXPECT_EQ(deals[s], 300) << info.name;
      EXPECT_EQ(m.Totals()[s], sums[s] - int64_t{info.radl_penalty} * m.radli()[s]) << info.name;
    }
  }
}

// Issue 18: three players who pass every bid in tapp-tarock-classic. Under
// thrown_in=hand (the default) every deal is thrown in and counts as one of the
// match's hands (scores 0, the deal passes on, hand i gets DealSeed(seed, salt, i, 0)):
// the match ends with exactly num_hands hands and totals 0. Under
// thrown_in=redeal the first hand is dealt again and again until max_redeals
// ends the match early, with the reason in ended_early().
TEST(MatchTest, AllPassClassicMatchEndsWithItsHandsOrEarlyUnderRedeal) {
  for (const char* mode : {"hand", "redeal"}) {
    auto game = *Registry::Global().Create("tapp-tarock-classic", {{"thrown_in", mode}});
    MatchProgress m = *MatchProgress::Start(*game, {.num_hands = 6, .seed = 11, .max_redeals = 7});
    int played = 0;
    std::vector<int> dealers;
    std::vector<uint64_t> seeds;
    while (!m.Finished()) {
      MatchProgress::NextHand h = m.Next();
      dealers.push_back(h.setup.dealer);
      seeds.push_back(h.seed);
      auto state = *game->NewHand(h.deal, h.setup);
      for (int i = 0; i < 3; ++i) ASSERT_TRUE(state->ApplyText("pass").ok()) << mode;
      ASSERT_TRUE(state->IsTerminal()) << mode;
      const HandResult r = state->Result();
      EXPECT_TRUE(r.redeal) << mode;
      EXPECT_EQ(r.counts_as_hand, std::string(mode) == "hand");
      EXPECT_EQ(r.scores, (std::vector<int>{0, 0, 0})) << mode;
      ASSERT_TRUE(m.Record(r).ok()) << mode;
      ASSERT_LT(++played, 1000) << mode;
    }
    EXPECT_EQ(m.Totals(), (std::vector<int64_t>{0, 0, 0})) << mode;
    if (std::string(mode) == "hand") {
      EXPECT_EQ(played, 6);
      EXPECT_EQ(m.hand_index(), 6);
      EXPECT_TRUE(m.ended_early().empty()) << m.ended_early();
      EXPECT_EQ(m.redeals(), 6);
      for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(dealers[i], i % 3) << i;               // the deal passes on
        EXPECT_EQ(seeds[i], DealSeed(11, "", i, 0)) << i;  // the match's deal sequence
      }
    } else {
      EXPECT_EQ(played, 7);
      EXPECT_EQ(m.hand_index(), 0);
      for (int d : dealers) EXPECT_EQ(d, 0);  // the same hand, the same dealer
      EXPECT_EQ(m.ended_early(), "7 void deals in a row (the limit is 7)");
    }
  }
}

// deal_seed.h: the definition pinned (the Python engine and the published
// records depend on it; values from Python's hmac), the salt and every
// coordinate change the seed, and the match deals attempt k of hand i from it.
TEST(DealSeedTest, IsHmacSha256OfTheKeyAndTheHand) {
  EXPECT_EQ(DealSeed(42, "", 0, 0), 15964215859783419059ULL);
  EXPECT_EQ(DealSeed(42, "00112233445566778899aabbccddeeff", 3, 1), 7475915338060282057ULL);
  EXPECT_EQ(FallbackSeed(42, "", 0, 5), 15207884193646862879ULL);
  EXPECT_NE(DealSeed(42, "a", 0, 0), DealSeed(42, "b", 0, 0));
  EXPECT_NE(DealSeed(42, "", 0, 1), DealSeed(42, "", 1, 0));
  EXPECT_NE(DealSeed(42, "", 1, 0), DealSeed(43, "", 1, 0));
  auto game = *Registry::Global().Create("slovenian-4p");
  MatchOptions o;
  o.num_hands = 4;
  o.seed = 42;
  o.salt = "00112233445566778899aabbccddeeff";
  MatchProgress m = *MatchProgress::Start(*game, o);
  const MatchProgress::NextHand h = m.Next();
  EXPECT_EQ(h.seed, DealSeed(42, o.salt, 0, 0));
  EXPECT_EQ(h.deal.hands, game->DealCards(DealSeed(42, o.salt, 0, 0), h.setup.dealer).hands);
  EXPECT_EQ(h.deal.hands, MatchDeal(*game, 42, o.salt, 0, 0, h.setup.dealer).hands);
}

// The arena's keys are longer than SHA-256's block (20 digits of seed and 32
// of salt: 68 bytes, hashed first); the context each thread reuses is keyed
// afresh at every call, short and long keys in turn, on several threads at
// once. Values from Python's hmac.
TEST(DealSeedTest, LongKeysAndKeysInTurnOnEveryThread) {
  const std::string salt1 = "ffeeddccbbaa99887766554433221100";
  const std::string salt2 = "0123456789abcdef0123456789abcdef";
  auto check = [&] {
    for (int i = 0; i < 50; ++i) {
      EXPECT_EQ(DealSeed(18446744073709551615ULL, salt1, 7, 2), 6375069731439422371ULL);
      EXPECT_EQ(DealSeed(42, "", 0, 0), 15964215859783419059ULL);
      EXPECT_EQ(DealSeed(12345678901234567890ULL, salt2, 0, 0), 63459525361109821ULL);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) threads.emplace_back(check);
  check();
  for (std::thread& t : threads) t.join();
}

}  // namespace
}  // namespace tarock
