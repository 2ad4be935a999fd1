#include "arena/play/visitor_cookie.h"

#include <gtest/gtest.h>

#include <set>

namespace tarock::arena::play {
namespace {

TEST(VisitorCookiesTest, IssuedCookiesVerifyAndAreEachDifferent) {
  auto cookies = VisitorCookies::Create();
  ASSERT_TRUE(cookies.ok()) << cookies.status();
  std::set<std::string> ids;
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<std::string> value = (*cookies)->Issue();
    ASSERT_TRUE(value.ok());
    std::optional<std::string> id = (*cookies)->Verify(*value);
    ASSERT_TRUE(id.has_value()) << *value;
    EXPECT_EQ(id->size(), 32u);
    EXPECT_NE(*id, std::string(32, '0'));
    ids.insert(*id);
  }
  EXPECT_EQ(ids.size(), 50u);
}

TEST(VisitorCookiesTest, ForgedTamperedAndOtherArenasCookiesAreRefused) {
  auto mine = VisitorCookies::Create();
  auto other = VisitorCookies::Create();
  ASSERT_TRUE(mine.ok() && other.ok());
  std::string value = *(*mine)->Issue();
  EXPECT_FALSE((*other)->Verify(value).has_value());  // another arena's key
  std::string tampered = value;
  tampered[5] = tampered[5] == 'a' ? 'b' : 'a';  // the id, MAC unchanged
  EXPECT_FALSE((*mine)->Verify(tampered).has_value());
  for (const char* bad : {"", "v1", "v1..", "v2.0123456789abcdef0123456789abcdef.0123456789abcdef0123456789abcdef",
                          "v1.zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz.0123456789abcdef0123456789abcdef",
                          "v1.0123456789abcdef0123456789abcdef.0123456789abcdef0123456789abcdef"})
    EXPECT_FALSE((*mine)->Verify(bad).has_value()) << bad;
  EXPECT_FALSE((*mine)->Verify(value + "0").has_value());
}

TEST(VisitorCookiesTest, TheCookieIsFoundAmongOthersInTheHeader) {
  auto cookies = VisitorCookies::Create();
  ASSERT_TRUE(cookies.ok());
  std::string value = *(*cookies)->Issue();
  std::optional<std::string> id = (*cookies)->Verify(value);
  std::map<std::string, std::string> headers;
  EXPECT_FALSE((*cookies)->VisitorOf(headers).has_value());
  headers["cookie"] = "a=1; tarock_play=v1.junk; b=2; tarock_play=" + value + "; c=3";
  EXPECT_EQ((*cookies)->VisitorOf(headers), id);
  headers["cookie"] = "xtarock_play=" + value;  // another cookie's name
  EXPECT_FALSE((*cookies)->VisitorOf(headers).has_value());
}

TEST(VisitorCookiesTest, SetCookieIsHttpOnlyStrictAndSecureWhenAsked) {
  std::string plain = VisitorCookies::SetCookie("v", absl::Hours(1), false);
  EXPECT_EQ(plain, "tarock_play=v; Path=/; Max-Age=3600; HttpOnly; SameSite=Strict");
  EXPECT_EQ(VisitorCookies::SetCookie("v", absl::Hours(1), true), plain + "; Secure");
}

}  // namespace
}  // namespace tarock::arena::play
