#include "arena/scheduler/record_split.h"

#include <gtest/gtest.h>

#include "nlohmann/json.hpp"

namespace tarock::arena {
namespace {

using Elements = std::vector<std::string_view>;

TEST(RecordSplitTest, FindsTheElementsAsWritten) {
  const std::string record =
      R"({"bots":["a","b"],"deals":[{"x":1,"s":"]}\"[{"},[1,[2]], 3 ,"q\\",null],"z":{"deals":[9]}})";
  std::optional<Elements> deals = TopLevelArrayElements(record, "deals");
  ASSERT_TRUE(deals.has_value());
  EXPECT_EQ(*deals, (Elements{R"({"x":1,"s":"]}\"[{"})", "[1,[2]]", "3", R"("q\\")", "null"}));
  std::optional<Elements> bots = TopLevelArrayElements(record, "bots");
  ASSERT_TRUE(bots.has_value());
  EXPECT_EQ(*bots, (Elements{R"("a")", R"("b")"}));
}

TEST(RecordSplitTest, WhitespaceAndEmptyArrays) {
  std::optional<Elements> deals =
      TopLevelArrayElements(" {\n \"seed\" : 7 ,\n \"deals\" : [ ] }", "deals");
  ASSERT_TRUE(deals.has_value());
  EXPECT_TRUE(deals->empty());
  deals = TopLevelArrayElements("{\"deals\":[ {\"a\" : [ 1 , 2 ] } ,\n{}\n]}", "deals");
  ASSERT_TRUE(deals.has_value());
  EXPECT_EQ(*deals, (Elements{"{\"a\" : [ 1 , 2 ] }", "{}"}));
}

TEST(RecordSplitTest, OnlyTheTopLevelKeyCounts) {
  EXPECT_FALSE(TopLevelArrayElements(R"({"x":{"deals":[1]}})", "deals").has_value());
  EXPECT_FALSE(TopLevelArrayElements(R"({"x":"\"deals\":[1]"})", "deals").has_value());
  EXPECT_FALSE(TopLevelArrayElements(R"({"deals":{"a":1}})", "deals").has_value());
  EXPECT_FALSE(TopLevelArrayElements("{}", "deals").has_value());
}

TEST(RecordSplitTest, MalformedInputIsRejected) {
  for (const char* bad : {"", "[]", "{", R"({"deals")", R"({"deals":[1,2)", R"({"deals":[1 2]})",
                          R"({"deals":["abc]})", R"({"a" 1,"deals":[]})", R"({"deals":[{]})"}) {
    EXPECT_FALSE(TopLevelArrayElements(bad, "deals").has_value()) << bad;
  }
}

TEST(RecordSplitTest, AgreesWithAJsonParserOnGeneratedDocuments) {
  // Records shaped like the referee's: the scanner's elements parse to exactly
  // the parser's elements.
  for (int n = 0; n < 50; ++n) {
    nlohmann::json record = {{"variant", "slovenian-4p"}, {"seed", n * 7919}};
    nlohmann::json deals = nlohmann::json::array();
    for (int d = 0; d < n % 6; ++d) {
      deals.push_back({{"actions", {"bid three", "play XXI", "say \"trula\" [x]"}},
                       {"scores", {d, -d, 2 * d, -2 * d}},
                       {"decision_ms", {0.25 * d, 1e-3, 12.5}},
                       {"note", std::string(d, '{') + "\\" + std::string(d, ']')}});
    }
    record["deals"] = deals;
    record["zz"] = {{"deals", {1, 2}}};
    const std::string text = record.dump(n % 2 ? 2 : -1);
    std::optional<Elements> split = TopLevelArrayElements(text, "deals");
    ASSERT_TRUE(split.has_value()) << text;
    ASSERT_EQ(split->size(), deals.size());
    for (size_t i = 0; i < deals.size(); ++i)
      EXPECT_EQ(nlohmann::json::parse((*split)[i]), deals[i]);
  }
}

}  // namespace
}  // namespace tarock::arena
