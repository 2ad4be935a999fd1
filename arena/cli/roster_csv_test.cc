#include "arena/cli/roster_csv.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tarock::arena {
namespace {

using ::testing::ElementsAre;

TEST(RosterCsvTest, AnExcelCsvWithAByteOrderMarkQuotesAndCrlf) {
  // Excel's "CSV UTF-8": a BOM, CRLF, a quoted name with a comma, diacritics.
  const std::string text =
      "\xEF\xBB\xBFName,Class\r\n\"Novak, Ana\",1a\r\nFilip Kova\xC4\x8D,1a\r\n"
      "\"Jan \"\"Janko\"\" Kos\",1b\r\n\r\n";
  absl::StatusOr<std::vector<std::string>> names = RosterNames(text);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ElementsAre("Novak, Ana", "Filip Kova\xC4\x8D", "Jan \"Janko\" Kos"));
}

TEST(RosterCsvTest, TheHeaderNamesTheColumn) {
  const std::string text = "id;x,Student,mark\n1,\" Ana \",5\n2,Bor,4\n3,,3\n";
  absl::StatusOr<std::vector<std::string>> names = RosterNames(text, "student");
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ElementsAre("Ana", "Bor"));
  absl::StatusOr<std::vector<std::string>> missing = RosterNames(text, "pupil");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(missing.status().message()), ::testing::HasSubstr("Student"));
}

TEST(RosterCsvTest, APlainListHasNoHeader) {
  absl::StatusOr<std::vector<std::string>> names = RosterNames("Ana\nBor\rCene\n");
  ASSERT_TRUE(names.ok());
  EXPECT_THAT(*names, ElementsAre("Ana", "Bor", "Cene"));
}

TEST(RosterCsvTest, AQuotedFieldMayHoldALineBreakAndAnOpenQuoteIsRefused) {
  absl::StatusOr<std::vector<std::vector<std::string>>> rows = ParseCsv("\"a\nb\",c\nd");
  ASSERT_TRUE(rows.ok());
  EXPECT_THAT(*rows, ElementsAre(ElementsAre("a\nb", "c"), ElementsAre("d")));
  EXPECT_FALSE(ParseCsv("\"open,x\n").ok());
}

}  // namespace
}  // namespace tarock::arena
