// Every match ends, whatever legal actions the bots choose (issue 18): the
// match runner with in-process bots that pass every bid in tapp-tarock-classic,
// where all passing throws the deal in.
//  - By default a thrown-in deal is one of the match's hands (scores 0, the deal
//    passes on), so a match of always-pass bots plays exactly its hands.
//  - Deal k is the same cards at every table of a duplicate set, whatever the
//    other table's bots chose on an earlier deal.
//  - Under thrown_in=redeal (the old behaviour) the deal is dealt again, and the
//    bound on void deals in a row ends the match normally with a reason, and
//    every recorded hand still replays.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "tests/inproc/in_process_connector.h"
#include "referee/core/match_runner.h"
#include "referee/engine/record.h"

namespace tarock {
namespace {

using json = nlohmann::json;

// Passes whenever it may, else plays the first legal action: the first bot a
// student writes.
class AlwaysPassBot : public sdk::Bot {
 public:
  std::string Decide(const sdk::Situation& s) override {
    for (const std::string& a : s.legal())
      if (a == "pass") return a;
    return s.legal().front();
  }
};

// Plays at random, except in the hand `special_hand`, where it either passes
// every bid (pass_out) or, as forehand, bids three so the deal is played.
class DuplicateTableBot : public sdk::Bot {
 public:
  DuplicateTableBot(int special_hand, bool pass_out)
      : special_hand_(special_hand), pass_out_(pass_out) {}
  void StartMatch(const sdk::MatchInfo& match) override { rng_.seed(match.seat + 7); }
  std::string Decide(const sdk::Situation& s) override {
    const std::vector<std::string>& legal = s.legal();
    auto has = [&legal](const std::string& a) {
      for (const std::string& l : legal)
        if (l == a) return true;
      return false;
    };
    if (s.hand_index() == special_hand_) {
      if (pass_out_ && has("pass")) return "pass";
      if (!pass_out_ && has("bid three")) return "bid three";
    }
    // Outside the special hand: someone bids now and then, or nobody ever
    // plays; a bid of three keeps the hands short of valat chaos.
    if (has("bid three") && rng_() % 2 == 0) return "bid three";
    if (has("pass")) return "pass";
    std::uniform_int_distribution<size_t> pick(0, legal.size() - 1);
    return legal[pick(rng_)];
  }

 private:
  int special_hand_;
  bool pass_out_;
  std::mt19937_64 rng_;
};

v1::MatchSpec ClassicSpec(const std::string& bot, int hands, uint64_t seed,
                          const std::map<std::string, std::string>& options = {}) {
  v1::MatchSpec spec;
  spec.set_match_id(absl::StrCat("end-", seed));
  spec.set_variant("tapp-tarock-classic");
  spec.set_num_hands(hands);
  spec.set_seed(seed);
  for (const auto& [k, v] : options) (*spec.mutable_options())[k] = v;
  for (int i = 0; i < 3; ++i) {
    v1::SeatSpec* s = spec.add_seats();
    s->set_name(absl::StrCat("seat", i));
    s->set_endpoint(absl::StrCat("inproc:", bot));
  }
  return spec;
}

class MatchEndTest : public ::testing::Test {
 protected:
  MatchEndTest() : runner_(RefereeOptions(), &connector_, nullptr) {
    connector_.Register("pass", [] { return std::make_unique<AlwaysPassBot>(); });
    connector_.Register("table-a", [] { return std::make_unique<DuplicateTableBot>(3, true); });
    connector_.Register("table-b", [] { return std::make_unique<DuplicateTableBot>(3, false); });
  }
  absl::StatusOr<v1::MatchFinished> Run(const v1::MatchSpec& spec) {
    return runner_.Run(spec, [](const v1::MatchEvent&) {});
  }

  InProcessConnector connector_;
  MatchRunner runner_;
};

TEST_F(MatchEndTest, AlwaysPassBotsPlayExactlyTheRequestedHandsWithTotalsZero) {
  absl::StatusOr<v1::MatchFinished> f = Run(ClassicSpec("pass", 9, 5));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->hands(), 9);
  EXPECT_TRUE(f->ended_early().empty());
  ASSERT_EQ(f->totals_size(), 3);
  for (int64_t t : f->totals()) EXPECT_EQ(t, 0);
  ASSERT_EQ(f->hand_results_size(), 9);
  json record = json::parse(f->record_json());
  ASSERT_EQ(record["deals"].size(), 9u);
  for (int i = 0; i < 9; ++i) {
    const json& deal = record["deals"][i];
    EXPECT_EQ(deal["hand_index"], i);
    EXPECT_EQ(deal["redeal"], true) << "hand " << i;
    EXPECT_EQ(deal["counts_as_hand"], true) << "hand " << i;
    EXPECT_EQ(deal["dealer"], i % 3) << "the deal passes on after a thrown-in hand";
    EXPECT_TRUE(f->hand_results(i).redeal());
    EXPECT_TRUE(f->hand_results(i).counts_as_hand());
  }
  EXPECT_FALSE(record.contains("ended_early"));
  // Every hand replays to its recorded scores.
  absl::StatusOr<std::vector<HandRecord>> hands = ParseRecords(f->record_json());
  ASSERT_TRUE(hands.ok()) << hands.status();
  for (const HandRecord& h : *hands) {
    absl::StatusOr<Replay> r = ReplayRecord(h);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->state->Result().scores, *h.scores);
  }
}

TEST_F(MatchEndTest, ADealPassedOutAtOneTableKeepsLaterDealsIdenticalAtBoth) {
  for (const bool old_way : {false, true}) {
    SCOPED_TRACE(old_way ? "thrown_in=redeal" : "default");
    std::map<std::string, std::string> options;
    if (old_way) options["thrown_in"] = "redeal";
    absl::StatusOr<v1::MatchFinished> a = Run(ClassicSpec("table-a", 9, 21, options));
    absl::StatusOr<v1::MatchFinished> b = Run(ClassicSpec("table-b", 9, 21, options));
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    // The cards of each hand index as finally played (the last deal under that
    // index: a deal dealt again replaces the thrown-in one).
    const json ra = json::parse(a->record_json()), rb = json::parse(b->record_json());
    auto deals_by_hand = [](const json& record) {
      std::map<int, json> by_hand;
      for (const json& d : record["deals"]) by_hand[d["hand_index"].get<int>()] = d["hands"];
      return by_hand;
    };
    std::map<int, json> da = deals_by_hand(ra);
    std::map<int, json> db = deals_by_hand(rb);
    // The first deal of hand 3 at each table.
    json a3, b3;
    for (const json& d : ra["deals"])
      if (d["hand_index"] == 3 && !a3.is_object()) a3 = d;
    for (const json& d : rb["deals"])
      if (d["hand_index"] == 3 && !b3.is_object()) b3 = d;
    ASSERT_TRUE(a3.is_object() && b3.is_object());
    // Table A passed deal 3 out, table B played it, from the same cards.
    EXPECT_EQ(a3.value("redeal", false), true);
    EXPECT_EQ(b3.value("redeal", false), false);
    EXPECT_EQ(a3["hands"], b3["hands"]);
    if (!old_way) {
      for (int k = 4; k < 9; ++k) EXPECT_EQ(da[k], db[k]) << "deal " << k;
    } else {
      // Dealt again under the same index: table A's hand 3 is a different deal.
      EXPECT_NE(da[3], db[3]);
    }
  }
}

TEST_F(MatchEndTest, UnderThrownInRedealTheBoundEndsTheMatchWithItsReason) {
  absl::StatusOr<v1::MatchFinished> f = Run(ClassicSpec("pass", 6, 8, {{"thrown_in", "redeal"}}));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->hands(), 0);
  EXPECT_NE(f->ended_early().find("void deals in a row"), std::string::npos) << f->ended_early();
  for (int64_t t : f->totals()) EXPECT_EQ(t, 0);
  json record = json::parse(f->record_json());
  EXPECT_EQ(record["ended_early"], f->ended_early());
  EXPECT_EQ(record["hands_played"], 0);
  ASSERT_EQ(record["deals"].size(), 100u);  // MatchOptions::max_redeals
  absl::StatusOr<std::vector<HandRecord>> hands = ParseRecords(f->record_json());
  ASSERT_TRUE(hands.ok()) << hands.status();
  ASSERT_EQ(hands->size(), 100u);
  for (const HandRecord& h : *hands) {
    absl::StatusOr<Replay> r = ReplayRecord(h);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->state->Result().redeal);
    EXPECT_EQ(r->state->Result().scores, *h.scores);
  }
}

TEST_F(MatchEndTest, UnknownThrownInValueIsAOneLineErrorNamingTheValidOnes) {
  absl::StatusOr<v1::MatchFinished> f = Run(ClassicSpec("pass", 3, 1, {{"thrown_in", "never"}}));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(f.status().message());
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_NE(message.find("hand"), std::string::npos) << message;
  EXPECT_NE(message.find("redeal"), std::string::npos) << message;
  absl::StatusOr<v1::MatchFinished> g = Run(ClassicSpec("pass", 3, 1, {{"thrown_on", "hand"}}));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(std::string(g.status().message()).find("thrown_in"), std::string::npos)
      << "the error lists the variant's options: " << g.status().message();
}

}  // namespace
}  // namespace tarock
