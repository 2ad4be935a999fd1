#include "referee/engine/record.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "referee/engine/registry.h"

namespace tarock {
namespace {

HandRecord Dealt(const std::string& variant, uint64_t seed) {
  absl::StatusOr<HandRecord> r = DealRecord(variant, {}, seed, 0);
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

// Changing the generator, the shuffle or the dealing order changes this deal:
// a regression signature for the record format.
TEST(RecordTest, SeededDealIsFixed) {
  const std::string json = HandRecordToJson(Dealt("slovenian-4p", 1));
  EXPECT_EQ(json,
            R"({"actions":[],"dealer":0,"hands":[["T2","T4","T15","H1","HN","HQ","DJ","DK","C8","CJ","S7","SK"],["T6","T9","T18","T20","T21","D4","D3","DQ","C7","CQ","S10","SJ"],["T3","T11","T13","T14","T16","H4","H3","HJ","C9","CN","CK","SQ"],["T1","T7","T10","T19","T22","D2","D1","DN","C10","S8","S9","SN"]],"options":{"announce_first":"dealer","difference_rounding":"5","failed_valat_charge":"announcement","game_kontra":"any-but-declarer","imperator":"on","mondfang_in_klop":"yes","radl":"declarer-and-partner","radl_for_beggar":"no","raise_kontra":"keep","red_pip_order":"numeric"},"seed":1,"talon":["HK","T17","T12","H2","T5","T8"],"variant":"slovenian-4p"})");
}

TEST(RecordTest, RoundTrip) {
  HandRecord r = Dealt("slovenian-5p", 9);
  r.actions = {"pass", "pass"};
  r.setup.radli = {0, 1, 0, 2, 0};
  absl::StatusOr<HandRecord> back = ParseHandRecord(HandRecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(HandRecordToJson(*back), HandRecordToJson(r));
  EXPECT_TRUE(back->deal.hands[0].empty());  // the 5p dealer sits out
}

TEST(RecordTest, PartialReplayReportsWhoActsAndTheLegalActions) {
  HandRecord r = Dealt("slovenian-4p", 3);
  r.actions = {"pass"};
  absl::StatusOr<Replay> replay = ReplayRecord(r);
  ASSERT_TRUE(replay.ok()) << replay.status();
  const std::string report = ReplayReportJson(*replay->game, *replay->state);
  EXPECT_TRUE(absl::StrContains(report, "\"to_act\":2")) << report;
  EXPECT_TRUE(absl::StrContains(report, "\"legal\":[\"pass\",\"bid two\"")) << report;
}

void ExpectError(absl::string_view json, absl::string_view fragment) {
  absl::StatusOr<std::vector<HandRecord>> records = ParseRecords(json);
  absl::Status status = records.status();
  if (records.ok()) {
    ASSERT_EQ(records->size(), 1u);
    absl::StatusOr<Replay> replay = ReplayRecord((*records)[0]);
    status = replay.status();
  }
  ASSERT_FALSE(status.ok()) << json;
  EXPECT_TRUE(absl::StrContains(status.message(), fragment)) << status.message();
  EXPECT_EQ(status.message().find('\n'), std::string::npos) << "error must be one line";
}

TEST(RecordTest, BadInputGetsAClearError) {
  HandRecord good = Dealt("slovenian-4p", 3);
  std::string json = HandRecordToJson(good);
  ExpectError("{\"variant\": ", "malformed JSON");
  // A number too large for a double (found by tests/fuzz/record_fuzz: it ended the process).
  ExpectError("144444444e444444444444444444444", "malformed JSON");
  ExpectError("{\"dealer\": 1e999999}", "malformed JSON");
  ExpectError("[1,2]", "must be a JSON object");
  ExpectError("{}", "missing \"variant\"");
  std::string unknown = json;
  unknown.replace(unknown.find("\"T"), 4, "\"T99");
  ExpectError(unknown, "unknown card");
  // Duplicate: the talon's first card replaced by a card of seat 0.
  HandRecord dup = good;
  dup.deal.talon[0] = good.deal.hands[0].First();
  ExpectError(HandRecordToJson(dup), "twice");
  HandRecord short_hand = good;
  short_hand.deal.hands[1].Remove(short_hand.deal.hands[1].First());
  ExpectError(HandRecordToJson(short_hand), "seat 1 has 11 cards");
  HandRecord bad_variant = good;
  bad_variant.variant = "nope";
  ExpectError(HandRecordToJson(bad_variant), "unknown variant 'nope'");
  HandRecord illegal = good;
  illegal.actions = {"pass", "play HK"};
  ExpectError(HandRecordToJson(illegal), "action 1 ('play HK'): illegal action 'play HK'");
  HandRecord garbage = good;
  garbage.actions = {"fly away"};
  ExpectError(HandRecordToJson(garbage), "action 0 ('fly away'): bad action 'fly away': unknown verb");
  HandRecord bad_option = good;
  bad_option.options["imperator"] = "maybe";
  ExpectError(HandRecordToJson(bad_option), "imperator=maybe");
}

}  // namespace
}  // namespace tarock
