#include "referee/logging/log.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tarock::logging {
namespace {

const absl::Time kTime = absl::FromUnixMillis(1795578067123);  // 2026-11-25T03:41:07.123Z

TEST(LogTest, TextLine) {
  EXPECT_EQ(FormatLine(Format::kText, kTime, Level::kInfo, "scheduler", "match finished",
                       {{"match", "m-12"}, {"ladder", 3}, {"ok", true}, {"ms", 1.5}, {"bots", "a,b"}}),
            "2026-11-25T03:41:07.123Z INFO scheduler msg=\"match finished\" match=m-12 ladder=3 "
            "ok=true ms=1.5 bots=a,b\n");
}

TEST(LogTest, TextQuotesAndEscapes) {
  EXPECT_EQ(FormatLine(Format::kText, kTime, Level::kWarning, "x", "ok",
                       {{"a", ""}, {"b", "say \"hi\"\nnow\\"}, {"c", "k=v"}}),
            "2026-11-25T03:41:07.123Z WARNING x msg=ok a=\"\" b=\"say \\\"hi\\\"\\nnow\\\\\" "
            "c=\"k=v\"\n");
}

TEST(LogTest, JsonLineParsesWithTypedFieldsInOrder) {
  const std::string line =
      FormatLine(Format::kJson, kTime, Level::kError, "referee", "quote \" and\nnewline",
                 {{"match", "m-1"}, {"seat", 2}, {"forfeited", false}, {"ms", 2.25},
                  {"bad", std::string("\xff\xfe")}, {"seed", uint64_t{18000000000000000000u}}});
  ASSERT_EQ(line.back(), '\n');
  ASSERT_EQ(line.find('\n'), line.size() - 1) << "one line per event";
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);
  std::vector<std::string> keys;
  for (auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"ts", "level", "component", "msg", "match", "seat",
                                            "forfeited", "ms", "bad", "seed"}));
  EXPECT_EQ(j["ts"], "2026-11-25T03:41:07.123Z");
  EXPECT_EQ(j["level"], "error");
  EXPECT_EQ(j["component"], "referee");
  EXPECT_EQ(j["msg"], "quote \" and\nnewline");
  EXPECT_EQ(j["seat"], 2);
  EXPECT_EQ(j["forfeited"], false);
  EXPECT_EQ(j["ms"], 2.25);
  EXPECT_TRUE(j["bad"].is_string());
  EXPECT_EQ(j["seed"].get<uint64_t>(), 18000000000000000000u);
}

TEST(LogTest, SecretKeysAreRedacted) {
  for (Format f : {Format::kText, Format::kJson}) {
    const std::string line =
        FormatLine(f, kTime, Level::kInfo, "api", "request",
                   {{"admin_token", "s3cr3t-admin"}, {"Authorization", "Bearer s3cr3t-bot"},
                    {"bot_secret", "s3cr3t"}, {"path", "/api/x"}});
    EXPECT_EQ(line.find("s3cr3t"), std::string::npos) << line;
    EXPECT_NE(line.find("[redacted]"), std::string::npos) << line;
    EXPECT_NE(line.find("/api/x"), std::string::npos) << line;
  }
}

TEST(LogTest, ParsesFlagValues) {
  Format f;
  Level l;
  EXPECT_TRUE(ParseLogFormat("json", &f).ok());
  EXPECT_EQ(f, Format::kJson);
  EXPECT_FALSE(ParseLogFormat("xml", &f).ok());
  EXPECT_TRUE(ParseLogLevel("warning", &l).ok());
  EXPECT_EQ(l, Level::kWarning);
  EXPECT_FALSE(ParseLogLevel("verbose", &l).ok());
}

TEST(LogTest, LevelFilterAndConcurrentLinesStayWhole) {
  std::vector<std::string> lines;
  SetLogSink([&](absl::string_view line) { lines.emplace_back(line); });
  SetLogFormat(Format::kJson);
  SetLogLevel(Level::kWarning);
  Info("t", "dropped");
  EXPECT_TRUE(lines.empty());
  EXPECT_FALSE(Enabled(Level::kInfo));
  constexpr int kThreads = 4, kEach = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < kEach; ++i) Warning("t", "event", {{"thread", t}, {"i", i}});
    });
  for (std::thread& t : threads) t.join();
  SetLogSink(nullptr);
  SetLogLevel(Level::kInfo);
  SetLogFormat(Format::kText);
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kEach));
  for (const std::string& line : lines) {
    nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["level"], "warning");
  }
}

}  // namespace
}  // namespace tarock::logging
