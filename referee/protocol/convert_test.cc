#include "referee/protocol/convert.h"

#include <gtest/gtest.h>
#include <google/protobuf/util/json_util.h>

#include <nlohmann/json.hpp>

#include "referee/engine/random.h"
#include "referee/engine/registry.h"

namespace tarock {
namespace {

// The protocol message carries exactly what the engine's observation JSON does:
// compare the two field by field through protobuf's JSON mapping.
TEST(ConvertTest, ObservationProtoMatchesTheEngineObservation) {
  auto game = *Registry::Global().Create("slovenian-4p");
  auto state = *game->NewHand(game->DealCards(5, 0), HandSetup{});
  Rng rng(9);
  int checked = 0;
  while (!state->IsTerminal()) {
    for (int seat = 0; seat < 4; ++seat) {
      const Observation obs = state->Observe(seat);
      nlohmann::json engine = nlohmann::json::parse(ObservationToJson(obs));
      std::string proto_json;
      google::protobuf::util::JsonPrintOptions options;
      options.always_print_primitive_fields = true;
      options.preserve_proto_field_names = true;
      ASSERT_TRUE(google::protobuf::util::MessageToJsonString(ObservationToProto(obs), &proto_json, options).ok());
      nlohmann::json proto = nlohmann::json::parse(proto_json);
      for (const char* key : {"variant", "seat", "num_seats", "dealer", "phase", "to_act", "hand",
                              "talon", "declarer", "contract", "called_king", "partner",
                              "trick_leader", "trick", "tricks_won", "radli"}) {
        EXPECT_EQ(proto[key], engine[key]) << key;
      }
      ASSERT_EQ(proto["history"].size(), engine["history"].size());
      for (size_t i = 0; i < engine["history"].size(); ++i) {
        EXPECT_EQ(proto["history"][i]["seat"], engine["history"][i]["seat"]);
        EXPECT_EQ(proto["history"][i]["action"], engine["history"][i]["action"]);
      }
      ASSERT_EQ(proto["shown"].size(), engine["shown"].size());
      for (size_t i = 0; i < engine["shown"].size(); ++i)
        EXPECT_EQ(proto["shown"][i]["cards"], engine["shown"][i]);
      ++checked;
    }
    ActionList legal;
    state->LegalActions(&legal);
    state->Apply(legal.items[rng.Below(legal.size)]);
  }
  EXPECT_GT(checked, 40);
}

TEST(ConvertTest, DecisionRequestCarriesLegalActionsAndNewEvents) {
  auto game = *Registry::Global().Create("slovenian-4p");
  auto state = *game->NewHand(game->DealCards(5, 0), HandSetup{});
  ASSERT_TRUE(state->ApplyText("pass").ok());
  ASSERT_TRUE(state->ApplyText("pass").ok());
  const Observation obs = state->Observe(state->CurrentSeat());
  const v1::DecisionRequest r = MakeDecisionRequest(obs, 77, 3, 1);
  EXPECT_EQ(r.request_id(), 77);
  EXPECT_EQ(r.hand_index(), 3);
  ASSERT_EQ(r.legal_actions_size(), static_cast<int>(obs.legal.size()));
  EXPECT_EQ(r.legal_actions(0), "pass");
  ASSERT_EQ(r.new_events_size(), 1);  // the second pass only
  EXPECT_EQ(r.new_events(0).action(), "pass");
  EXPECT_EQ(r.new_events(0).seat(), 2);
  EXPECT_EQ(r.observation().history_size(), 2);
}

}  // namespace
}  // namespace tarock
