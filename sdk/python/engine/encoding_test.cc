// Tests of the learning encodings (encoding.h) and VecEnv (vec_env.h):
//  - leak-proof: pairs of states that differ only in cards a seat cannot see
//    (two unseen cards swapped in the deal, the same history replayed legally)
//    give that seat byte-identical observation tensor, information-state
//    tensor, history, mask and text, in every variant; the privileged tensor
//    does differ (so the pairs really differ);
//  - the mask equals the engine's legal actions; the history bound holds;
//  - golden hashes pin each variant's encodings (kEncodingVersion);
//  - VecEnv: the arena's deals, duplicate groups, bots in process, bad input.
#include "sdk/python/engine/encoding.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "referee/engine/match.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/registry.h"
#include "sdk/python/engine/vec_env.h"

namespace tarock::python {
namespace {

std::vector<std::string> Variants() {
  std::vector<std::string> out;
  for (const VariantInfo& v : Registry::Global().List()) out.push_back(v.name);
  return out;
}

struct Encoded {
  std::vector<float> obs, info, priv;
  std::vector<uint8_t> mask;
  std::vector<int16_t> history;
  std::string text;
};

template <typename T>
bool SameBytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// The tensors and history of `seat` from the compact observation
// (State::ObserveCompact, VecEnv's path) and from Observe()'s text, the
// reference: false, with a test failure naming the first that differs,
// unless they are byte for byte the same.
bool CompactMatchesText(const Encoder& e, const State& s, int seat, const std::string& where) {
  const Observation text = s.Observe(seat);
  Observation compact;
  if (!s.ObserveCompact(seat, &compact)) {
    ADD_FAILURE() << where << ": no compact observation";
    return false;
  }
  std::vector<float> a(e.info_state_size()), b(e.info_state_size());
  std::vector<float> oa(e.observation_size()), ob(e.observation_size());
  std::vector<int16_t> ha(2 * e.max_history()), hb(2 * e.max_history());
  e.EncodeObservation(text, oa.data());
  e.EncodeObservation(compact, ob.data());
  const bool fits = e.EncodeInfoState(text, a.data()).ok();
  EXPECT_EQ(fits, e.EncodeInfoState(compact, b.data()).ok()) << where;
  EXPECT_EQ(fits, e.EncodeHistory(text, ha.data()).ok()) << where;
  EXPECT_EQ(fits, e.EncodeHistory(compact, hb.data()).ok()) << where;
  if (!SameBytes(oa, ob)) {
    for (const Field& f : e.fields())
      for (int i = f.offset; i < f.offset + f.size; ++i)
        if (oa[i] != ob[i]) {
          ADD_FAILURE() << where << ": observation tensor differs in field " << f.name << " ["
                        << i - f.offset << "]: text " << oa[i] << ", compact " << ob[i];
          return false;
        }
  }
  if (!SameBytes(a, b)) {
    ADD_FAILURE() << where << ": information-state tensor differs";
    return false;
  }
  if (!SameBytes(ha, hb)) {
    ADD_FAILURE() << where << ": history differs";
    return false;
  }
  return true;
}

Encoded EncodeAll(const Encoder& e, const State& s, int seat) {
  const Observation o = s.Observe(seat);
  Encoded x;
  x.obs.resize(e.observation_size());
  x.info.resize(e.info_state_size());
  x.priv.resize(e.privileged_size());
  x.mask.resize(e.space().size());
  x.history.resize(2 * e.max_history());
  e.EncodeObservation(o, x.obs.data());
  EXPECT_TRUE(e.EncodeInfoState(o, x.info.data()).ok());
  EXPECT_TRUE(e.EncodeHistory(o, x.history.data()).ok());
  e.EncodeMask(o, x.mask.data());
  x.text = e.Text(o);
  e.EncodePrivileged(s, seat, x.priv.data());
  // Every encoding these tests pin is VecEnv's too (the compact path).
  EXPECT_TRUE(CompactMatchesText(e, s, seat, "EncodeAll"));
  return x;
}

// The places of every card in a deal: (hand seat, or -1 for the talon, or -2
// for the deck) and the position there.
struct Place {
  int where;
  int pos;
};

// Swaps cards x and y wherever they are in the deal.
Deal Swap(const Deal& d, Card x, Card y) {
  Deal out = d;
  for (CardSet& h : out.hands) {
    const bool hx = h.Contains(x), hy = h.Contains(y);
    if (hx != hy) {
      if (hx) { h.Remove(x); h.Add(y); } else { h.Remove(y); h.Add(x); }
    }
  }
  for (Card& c : out.talon) c = c == x ? y : c == y ? x : c;
  for (Card& c : out.deck) c = c == x ? y : c == y ? x : c;
  return out;
}

TEST(EncodingTest, LeakProofForEveryVariant) {
  for (const std::string& variant : Variants()) {
    SCOPED_TRACE(variant);
    auto game = Registry::Global().Create(variant);
    ASSERT_TRUE(game.ok()) << game.status();
    const Encoder enc(**game);
    Rng rng(12345);
    int pairs = 0, priv_differs = 0;
    for (int hand = 0; hand < 30; ++hand) {
      const int dealer = static_cast<int>(rng.Below((*game)->num_seats()));
      const Deal deal = (*game)->DealCards(rng.Next(), dealer);
      HandSetup setup;
      setup.dealer = dealer;
      auto start = (*game)->NewHand(deal, setup);
      ASSERT_TRUE(start.ok()) << start.status();
      std::unique_ptr<State> s = std::move(*start);
      // A random point of the hand.
      std::vector<Action> path;
      const int stop = static_cast<int>(rng.Below(60));
      while (!s->IsTerminal() && static_cast<int>(path.size()) < stop) {
        path.push_back(RandomLegalAction(*s, rng));
        s->Apply(path.back());
      }
      for (int seat = 0; seat < (*game)->num_seats(); ++seat) {
        const Observation o = s->Observe(seat);
        const std::string json = ObservationToJson(o);
        const CardSet unseen = kAllCards - CardsNamedIn(json) - o.hand;
        std::vector<Card> cards;
        for (Card c : unseen) cards.push_back(c);
        if (cards.size() < 2) continue;
        const Encoded base = EncodeAll(enc, *s, seat);
        for (int attempt = 0; attempt < 12; ++attempt) {
          const Card x = cards[rng.Below(cards.size())], y = cards[rng.Below(cards.size())];
          if (x == y) continue;
          const Deal other = Swap(deal, x, y);
          auto t = (*game)->NewHand(other, setup);
          if (!t.ok()) continue;
          bool legal = true;
          for (Action a : path)
            if (!(*t)->ApplyChecked(a).ok()) {
              legal = false;
              break;
            }
          if (!legal) continue;
          // A swap that changes what the seat sees (westfest's called tarock
          // follows from the povinnost's hand) does not make a pair.
          if (ObservationToJson((*t)->Observe(seat)) != json) continue;
          const Encoded alt = EncodeAll(enc, **t, seat);
          ASSERT_TRUE(SameBytes(base.obs, alt.obs)) << "observation tensor, seat " << seat;
          ASSERT_TRUE(SameBytes(base.info, alt.info)) << "information-state tensor";
          ASSERT_TRUE(SameBytes(base.history, alt.history)) << "history";
          ASSERT_TRUE(SameBytes(base.mask, alt.mask)) << "mask";
          ASSERT_EQ(base.text, alt.text);
          ++pairs;
          if (!SameBytes(base.priv, alt.priv)) ++priv_differs;
        }
      }
    }
    EXPECT_GE(pairs, 150) << "too few pairs to mean anything";
    // The pairs really differ in hidden cards: the privileged tensor sees it.
    EXPECT_GE(priv_differs, pairs / 2);
    std::cout << variant << ": " << pairs << " pairs, privileged differs in " << priv_differs
              << "\n";
  }
}

// VecEnv encodes from the compact observation: in every variant, with every
// value of every option, at every decision of random hands, for every seat
// (the one to act and the others), its observation tensor, information-state
// tensor and history are byte for byte those of Observe()'s text.
TEST(EncodingTest, CompactObservationEncodesAsTheText) {
  int compared = 0;
  for (const VariantInfo& info : Registry::Global().List()) {
    std::vector<Options> option_sets = {{}};
    for (const OptionSpec& spec : info.options)
      for (const std::string& value : spec.choices)
        if (value != spec.default_value) option_sets.push_back({{spec.name, value}});
    for (const Options& options : option_sets) {
      auto game = Registry::Global().Create(info.name, options);
      ASSERT_TRUE(game.ok()) << game.status();
      const Encoder enc(**game);
      const int n = (*game)->num_seats();
      Rng rng(4242);
      const int hands = options.empty() ? 20 : 3;
      for (int hand = 0; hand < hands; ++hand) {
        HandSetup setup;
        setup.dealer = hand % n;
        const Deal deal = (*game)->DealCards(rng.Next(), setup.dealer);
        HandSetup with_radli = setup;
        for (int p = 0; p < n; ++p) with_radli.radli.push_back(static_cast<int>(rng.Below(3)));
        auto s = (*game)->NewHand(deal, with_radli);
        if (!s.ok()) s = (*game)->NewHand(deal, setup);
        ASSERT_TRUE(s.ok()) << s.status();
        while (true) {
          for (int seat = 0; seat < n; ++seat) {
            ASSERT_TRUE(CompactMatchesText(
                enc, **s, seat,
                absl::StrCat(info.name, " hand ", hand, " action ", (*s)->History().size(),
                             " seat ", seat)));
            ++compared;
          }
          if ((*s)->IsTerminal()) break;
          (*s)->Apply(RandomLegalAction(**s, rng));
        }
      }
    }
  }
  std::cout << compared << " observations encoded both ways\n";
  EXPECT_GT(compared, 10000);
}

TEST(EncodingTest, MaskIsTheLegalActionsAndHistoryFits) {
  for (const std::string& variant : Variants()) {
    SCOPED_TRACE(variant);
    auto game = Registry::Global().Create(variant);
    ASSERT_TRUE(game.ok());
    const Encoder enc(**game);
    Rng rng(99);
    std::vector<uint8_t> a(enc.space().size()), b(enc.space().size());
    int longest = 0;
    for (int hand = 0; hand < 300; ++hand) {
      HandSetup setup;
      setup.dealer = hand % (*game)->num_seats();
      auto s = (*game)->NewHand((*game)->DealCards(rng.Next(), setup.dealer), setup);
      ASSERT_TRUE(s.ok());
      while (!(*s)->IsTerminal()) {
        const int seat = (*s)->CurrentSeat();
        const Observation o = (*s)->Observe(seat);
        ActionList legal;
        (*s)->LegalActions(&legal);
        enc.EncodeMask(o, a.data());
        enc.space().Mask(legal, b.data());
        ASSERT_EQ(a, b);
        int ones = 0;
        for (uint8_t m : a) ones += m;
        ASSERT_EQ(ones, legal.size);
        (*s)->Apply(legal.items[rng.Below(legal.size)]);
      }
      longest = std::max(longest, static_cast<int>((*s)->History().size()));
    }
    EXPECT_LE(longest, enc.max_history());
    std::cout << variant << ": longest history " << longest << " of " << enc.max_history()
              << ", observation " << enc.observation_size() << " floats, actions "
              << enc.space().size() << "\n";
  }
}

uint64_t Fnv(uint64_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// The golden file: one line per variant, "VARIANT VERSION HASH", the hash of
// every encoding of every seat at every decision of three fixed random hands.
// TAROCK_UPDATE_GOLDEN=1 rewrites it (after a deliberate change, with the
// version bumped and docs/python.md updated).
TEST(EncodingTest, GoldenFilesPinTheVersion) {
  const std::string path =
      std::string(TAROCK_SOURCE_DIR) + "/sdk/python/engine/testdata/encoding_golden.txt";
  std::ostringstream now;
  for (const std::string& variant : Variants()) {
    auto game = Registry::Global().Create(variant);
    ASSERT_TRUE(game.ok());
    const Encoder enc(**game);
    uint64_t h = 14695981039346656037ull;
    Rng rng(2024);
    for (int hand = 0; hand < 3; ++hand) {
      HandSetup setup;
      setup.dealer = hand % (*game)->num_seats();
      auto s = (*game)->NewHand((*game)->DealCards(1000 + hand, setup.dealer), setup);
      ASSERT_TRUE(s.ok());
      while (true) {
        for (int seat = 0; seat < (*game)->num_seats(); ++seat) {
          const Encoded x = EncodeAll(enc, **s, seat);
          h = Fnv(h, x.info.data(), x.info.size() * sizeof(float));
          h = Fnv(h, x.priv.data(), x.priv.size() * sizeof(float));
          h = Fnv(h, x.mask.data(), x.mask.size());
          h = Fnv(h, x.history.data(), x.history.size() * sizeof(int16_t));
          h = Fnv(h, x.text.data(), x.text.size());
        }
        if ((*s)->IsTerminal()) break;
        (*s)->Apply(RandomLegalAction(**s, rng));
      }
    }
    now << variant << " " << kEncodingVersion << " " << std::hex << h << std::dec << "\n";
  }
  if (std::getenv("TAROCK_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << now.str();
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path);
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(now.str(), want.str())
      << "an encoding changed: bump kEncodingVersion, update docs/python.md and rewrite the "
         "golden file with TAROCK_UPDATE_GOLDEN=1";
}

// --- VecEnv -----------------------------------------------------------------

std::vector<int32_t> RandomActions(const VecEnv& env, Rng& rng) {
  std::vector<int32_t> a(env.num_envs());
  for (int i = 0; i < env.num_envs(); ++i)
    a[i] = env.legal()[size_t(i) * VecEnv::kMaxLegal + rng.Below(env.num_legal()[i])];
  return a;
}

TEST(VecEnvTest, TablesDealTheArenasMatches) {
  VecEnvOptions o;
  o.variant = "slovenian-4p";
  o.num_envs = 3;
  o.seed = 500;
  auto env = VecEnv::Create(o);
  ASSERT_TRUE(env.ok()) << env.status();
  for (int i = 0; i < 3; ++i) {
    MatchOptions mo;
    mo.num_hands = 4;
    mo.seed = 500 + i;
    auto progress = MatchProgress::Start((*env)->game(), mo);
    ASSERT_TRUE(progress.ok());
    const Deal want = progress->Next().deal;
    const Deal got = (*env)->CloneState(i)->GetDeal();
    EXPECT_EQ(got.hands, want.hands);
    EXPECT_EQ(got.talon, want.talon);
    EXPECT_EQ((*env)->match_seed()[i], 500u + i);
  }
}

TEST(VecEnvTest, RandomPlayThroughMatchesWithScores) {
  VecEnvOptions o;
  o.variant = "slovenian-3p";
  o.num_envs = 8;
  o.seed = 1;
  auto env = VecEnv::Create(o);
  ASSERT_TRUE(env.ok());
  Rng rng(5);
  int hands = 0, matches = 0;
  for (int step = 0; step < 2000; ++step) {
    const std::vector<int32_t> a = RandomActions(**env, rng);
    ASSERT_TRUE((*env)->Step(a.data()).ok());
    for (int i = 0; i < 8; ++i) {
      hands += (*env)->hand_done()[i];
      matches += (*env)->match_done()[i];
      ASSERT_GE((*env)->seat()[i], 0);
      // The observation tensor is the encoder's for the seat to act.
      const Observation obs = (*env)->ObserveCurrent(i);
      std::vector<float> want((*env)->encoder().observation_size());
      (*env)->encoder().EncodeObservation(obs, want.data());
      ASSERT_EQ(0, std::memcmp(want.data(), (*env)->obs() + size_t(i) * want.size(),
                               want.size() * sizeof(float)));
    }
  }
  EXPECT_GT(hands, 100);
  EXPECT_GT(matches, 20);
  EXPECT_EQ((*env)->agent_decisions(), 2000 * 8);
}

// VecEnv's tensors (from the compact observation) are the text encoder's of
// the seat to act, in every variant, with the information state on.
TEST(VecEnvTest, TensorsAreTheTextEncodersInEveryVariant) {
  for (const std::string& variant : Variants()) {
    SCOPED_TRACE(variant);
    VecEnvOptions o;
    o.variant = variant;
    o.num_envs = 4;
    o.seed = 9;
    o.info_state = true;
    auto env = VecEnv::Create(o);
    ASSERT_TRUE(env.ok()) << env.status();
    const Encoder& enc = (*env)->encoder();
    Rng rng(17);
    std::vector<float> obs(enc.observation_size()), info(enc.info_state_size());
    for (int step = 0; step < 300; ++step) {
      for (int i = 0; i < 4; ++i) {
        const Observation want = (*env)->ObserveCurrent(i);
        enc.EncodeObservation(want, obs.data());
        ASSERT_TRUE(enc.EncodeInfoState(want, info.data()).ok());
        ASSERT_EQ(0, std::memcmp(obs.data(), (*env)->obs() + size_t(i) * obs.size(),
                                 obs.size() * sizeof(float)))
            << "step " << step << " table " << i;
        ASSERT_EQ(0, std::memcmp(info.data(), (*env)->info() + size_t(i) * info.size(),
                                 info.size() * sizeof(float)))
            << "step " << step << " table " << i;
      }
      const std::vector<int32_t> a = RandomActions(**env, rng);
      ASSERT_TRUE((*env)->Step(a.data()).ok());
    }
  }
}

TEST(VecEnvTest, BotsPlayTheirSeatsAndTheAgentOnlyItsOwn) {
  VecEnvOptions o;
  o.variant = "slovenian-4p";
  o.num_envs = 4;
  o.seed = 77;
  o.seat_bots = {"", "heuristic", "random", "heuristic"};
  o.duplicate = true;
  auto env = VecEnv::Create(o);
  ASSERT_TRUE(env.ok()) << env.status();
  // A duplicate group deals the same cards at its four tables.
  for (int i = 1; i < 4; ++i)
    EXPECT_EQ((*env)->CloneState(i)->GetDeal().hands, (*env)->CloneState(0)->GetDeal().hands);
  Rng rng(3);
  double dup_sum = 0;
  int dup_hands = 0;
  for (int step = 0; step < 600; ++step) {
    for (int i = 0; i < 4; ++i)
      ASSERT_EQ((*env)->Controller(i, (*env)->seat()[i]), "") << "table " << i;
    const std::vector<int32_t> a = RandomActions(**env, rng);
    ASSERT_TRUE((*env)->Step(a.data()).ok());
    for (int i = 0; i < 4; ++i)
      for (int p = 0; p < 4; ++p) {
        const float d = (*env)->dup_reward()[i * 4 + p];
        dup_sum += d;
        if (d != 0) ++dup_hands;
      }
  }
  EXPECT_GT((*env)->bot_decisions(), 0);
  EXPECT_GT(dup_hands, 0);
  // The adjusted scores of one set of cards sum to zero over the group.
  EXPECT_NEAR(dup_sum, 0, 1e-3);
}

TEST(VecEnvTest, BadInputChangesNothing) {
  VecEnvOptions o;
  o.variant = "tapp-tarock";
  o.num_envs = 2;
  auto env = VecEnv::Create(o);
  ASSERT_TRUE(env.ok());
  const int A = (*env)->space().size();
  std::vector<uint8_t> mask((*env)->mask(), (*env)->mask() + 2 * A);
  std::vector<float> obs((*env)->obs(), (*env)->obs() + 2 * (*env)->encoder().observation_size());
  int illegal = 0;
  while ((*env)->mask()[A + illegal]) ++illegal;
  std::vector<int32_t> a = {(*env)->legal()[0], illegal};
  absl::Status s = (*env)->Step(a.data());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("table 1"), std::string::npos) << s;
  a = {-1, (*env)->legal()[VecEnv::kMaxLegal]};
  EXPECT_FALSE((*env)->Step(a.data()).ok());
  a = {A, (*env)->legal()[VecEnv::kMaxLegal]};
  EXPECT_FALSE((*env)->Step(a.data()).ok());
  EXPECT_EQ(std::vector<uint8_t>((*env)->mask(), (*env)->mask() + 2 * A), mask);
  EXPECT_EQ(0, std::memcmp(obs.data(), (*env)->obs(), obs.size() * sizeof(float)));
  EXPECT_EQ((*env)->agent_decisions(), 0);
  o.seat_bots = {"heuristic", "heuristic", "heuristic"};
  EXPECT_EQ(VecEnv::Create(o).status().code(), absl::StatusCode::kInvalidArgument);
  o.seat_bots = {"", "nobody", ""};
  EXPECT_EQ(VecEnv::Create(o).status().code(), absl::StatusCode::kNotFound);
  o.seat_bots = {};
  o.variant = "no-such-game";
  EXPECT_FALSE(VecEnv::Create(o).ok());
}

}  // namespace
}  // namespace tarock::python
