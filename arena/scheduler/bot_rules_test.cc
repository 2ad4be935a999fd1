// Issue 29: bot names and owner fields.

#include "arena/scheduler/bot_rules.h"

#include <gtest/gtest.h>

#include <string>

namespace tarock::arena {
namespace {

TEST(BotRulesTest, ReservedAndMalformedNamesAreRefused) {
  for (const char* bad : {"", ".", "..", "human", "HUMAN", "Human", "a b", "a/b", "ä",
                          "x\x1b[2J"}) {
    EXPECT_EQ(CheckNewBotName(bad).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_FALSE(CheckNewBotName(std::string(65, 'a')).ok());
  for (const char* good : {"rnd1", "RND1", "a.b", "...", "human2", "x-y_z"})
    EXPECT_TRUE(CheckNewBotName(good).ok()) << good;
  EXPECT_TRUE(CheckNewBotName(std::string(64, 'a')).ok());
  EXPECT_TRUE(SameBotName("RND1", "rnd1"));
  EXPECT_FALSE(SameBotName("rnd1", "rnd2"));
}

TEST(BotRulesTest, OwnersArePrintableAndBounded) {
  EXPECT_TRUE(CheckOwner("Ana Novak <ana@example.org>").ok());
  EXPECT_TRUE(CheckOwner("Žiga Čuk").ok());  // UTF-8 is fine
  EXPECT_TRUE(CheckOwner(std::string(kMaxOwnerBytes, 'o')).ok());
  EXPECT_EQ(CheckOwner("").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckOwner(std::string(kMaxOwnerBytes + 1, 'o')).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckOwner(std::string(100 << 10, 'o')).code(), absl::StatusCode::kInvalidArgument);
  for (const std::string bad : {std::string("a\x1b[31mred"), std::string("line\nbreak"),
                                std::string("tab\there"), std::string("nul\0x", 5),
                                std::string("del\x7f"), std::string("c1\xc2\x9b" "2J"),
                                std::string("bad\xff utf8"), std::string("overlong\xc0\xaf")}) {
    EXPECT_EQ(CheckOwner(bad).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(BotRulesTest, OlderRowsArePrintedWithoutControlCharacters) {
  EXPECT_EQ(ForTerminal("plain Žiga"), "plain Žiga");
  EXPECT_EQ(ForTerminal("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(ForTerminal("back\\slash"), "back\\\\slash");
  EXPECT_EQ(ForTerminal("c1\xc2\x9b"), "c1\\xc2\\x9b");
  EXPECT_EQ(ForTerminal("x\xffy"), "x\\xffy");
  EXPECT_EQ(ForTerminal(std::string(300, 'o'), 10), "oooooooooo...");
  const std::string printed = ForTerminal(std::string(100 << 10, '\x07'));
  for (char c : printed) EXPECT_GE(static_cast<unsigned char>(c), 0x20);
  EXPECT_LT(printed.size(), 1000u);
}

// Issue 44 (low): look-alike names are the same name; invisible characters
// are refused.
TEST(BotRulesTest, LookAlikeNamesAreOneNameAndInvisibleCharactersAreRefused) {
  EXPECT_TRUE(SamePersonName("Bea", "\xd0\x92""ea"));          // Cyrillic Ve
  EXPECT_TRUE(SamePersonName("Bea", "\xce\x92""e\xd0\xb0"));   // Greek Beta, Cyrillic a
  EXPECT_TRUE(SamePersonName("Bea", " BEA  "));
  EXPECT_TRUE(SamePersonName("Bill", "BiII"));                    // capital I for l
  EXPECT_TRUE(SamePersonName("Tom", "T0rn"));
  EXPECT_TRUE(SamePersonName("Ann Lee", "Ann\xc2\xa0 Lee"));     // no-break space
  EXPECT_TRUE(SamePersonName("ann", "\xef\xbd\x81nn"));          // fullwidth a
  EXPECT_FALSE(SamePersonName("Bea", "Ben"));
  EXPECT_FALSE(SamePersonName("Bea", "B\xc3\xa9""a"));            // an accent is another name
  EXPECT_TRUE(CheckPersonName("the name", "Bea", 64).ok());
  EXPECT_TRUE(CheckPersonName("the name", "\xd0\x91\xd0\xbe\xd1\x80\xd0\xb8\xd1\x81", 64).ok());
  for (const char* bad : {"B\xe2\x80\x8b""ea",   // zero-width space
                          "Bea\xe2\x80\x8d",    // zero-width joiner
                          "\xe2\x80\xae""aeB",  // right-to-left override
                          "Be\xe2\x81\xa6""a",  // left-to-right isolate
                          "\xef\xbb\xbf""Bea",  // BOM
                          "Be\xc2\xad""a",       // soft hyphen
                          "\xe3\x85\xa4"})      // Hangul filler alone
    EXPECT_EQ(CheckPersonName("the name", bad, 64).code(), absl::StatusCode::kInvalidArgument)
        << bad;
}

}  // namespace
}  // namespace tarock::arena
