#include "referee/net/rate_limiter.h"

#include <gtest/gtest.h>

#include <string>

namespace tarock::net {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1000000);

TEST(RateLimiterTest, BurstThenTheRefillRate) {
  RateLimiter limiter({.per_second = 2, .burst = 3});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.Take("a", kT0), absl::ZeroDuration()) << i;
  // Empty: the next token is half a second away.
  EXPECT_EQ(limiter.Take("a", kT0), absl::Milliseconds(500));
  EXPECT_EQ(limiter.Take("a", kT0 + absl::Milliseconds(250)), absl::Milliseconds(250));
  EXPECT_EQ(limiter.Take("a", kT0 + absl::Milliseconds(500)), absl::ZeroDuration());
  EXPECT_GT(limiter.Take("a", kT0 + absl::Milliseconds(500)), absl::ZeroDuration());
  // After a long idle time the bucket is full again, not fuller.
  const absl::Time later = kT0 + absl::Hours(1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.Take("a", later), absl::ZeroDuration()) << i;
  EXPECT_GT(limiter.Take("a", later), absl::ZeroDuration());
}

TEST(RateLimiterTest, KeysAreIndependent) {
  RateLimiter limiter({.per_second = 1, .burst = 1});
  EXPECT_EQ(limiter.Take("a", kT0), absl::ZeroDuration());
  EXPECT_GT(limiter.Take("a", kT0), absl::ZeroDuration());
  EXPECT_EQ(limiter.Take("b", kT0), absl::ZeroDuration());
}

TEST(RateLimiterTest, RefusedCallsTakeNothing) {
  RateLimiter limiter({.per_second = 1, .burst = 1});
  EXPECT_EQ(limiter.Take("a", kT0), absl::ZeroDuration());
  // A client hammering while empty does not push its next token further away.
  for (int i = 1; i <= 100; ++i) limiter.Take("a", kT0 + absl::Milliseconds(i));
  EXPECT_EQ(limiter.Take("a", kT0 + absl::Seconds(1)), absl::ZeroDuration());
}

TEST(RateLimiterTest, NoLimitAllowsEverything) {
  RateLimiter limiter({.per_second = 0});
  EXPECT_TRUE(limiter.unlimited());
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(limiter.Take("a", kT0), absl::ZeroDuration());
  EXPECT_EQ(limiter.size(), 0u);
}

TEST(RateLimiterTest, MemoryIsBoundedAndIdleClientsGoFirst) {
  RateLimiter limiter({.per_second = 1, .burst = 2, .max_keys = 100});
  // A busy client, then a flood of one-call clients from many addresses.
  limiter.Take("busy", kT0);
  limiter.Take("busy", kT0);
  for (int i = 0; i < 1000; ++i) {
    limiter.Take("client" + std::to_string(i), kT0 + absl::Milliseconds(i));
    ASSERT_LE(limiter.size(), 100u);
  }
  // The flood could not reset the busy client's bucket by pushing it out
  // while it was recent... but it may go once least recently used: bounded
  // memory wins. What must hold: a fresh key still gets its burst.
  EXPECT_EQ(limiter.Take("new", kT0 + absl::Seconds(2)), absl::ZeroDuration());
  // Idle buckets are full again and are dropped first.
  RateLimiter idle({.per_second = 10, .burst = 1, .max_keys = 2});
  idle.Take("old", kT0);
  idle.Take("recent", kT0 + absl::Seconds(1));
  idle.Take("recent", kT0 + absl::Seconds(1) + absl::Milliseconds(1));
  idle.Take("third", kT0 + absl::Seconds(1) + absl::Milliseconds(2));
  // "recent" is still empty: it kept its state.
  EXPECT_GT(idle.Take("recent", kT0 + absl::Seconds(1) + absl::Milliseconds(3)),
            absl::ZeroDuration());
}

TEST(RateLimiterTest, GiveReturnsATokenButNeverOverfills) {
  RateLimiter limiter({.per_second = 1, .burst = 2});
  EXPECT_EQ(limiter.Take("a", kT0), absl::ZeroDuration());
  EXPECT_EQ(limiter.Take("a", kT0), absl::ZeroDuration());
  EXPECT_GT(limiter.Take("a", kT0), absl::ZeroDuration());
  limiter.Give("a");
  EXPECT_EQ(limiter.Take("a", kT0), absl::ZeroDuration());
  for (int i = 0; i < 10; ++i) limiter.Give("a");
  EXPECT_EQ(limiter.Take("a", kT0), absl::ZeroDuration());
  EXPECT_EQ(limiter.Take("a", kT0), absl::ZeroDuration());
  EXPECT_GT(limiter.Take("a", kT0), absl::ZeroDuration());  // two at most, the burst
}

// Issue 29: limits per network as well as per address.
TEST(PrefixKeyTest, IPv4By24AndIPv6By64) {
  EXPECT_EQ(PrefixKey("10.1.2.3"), "10.1.2.0/24");
  EXPECT_EQ(PrefixKey("10.1.2.250"), "10.1.2.0/24");
  EXPECT_EQ(PrefixKey("::ffff:10.1.2.3"), "10.1.2.0/24");  // IPv4-mapped is IPv4
  EXPECT_EQ(PrefixKey("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  EXPECT_EQ(PrefixKey("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
  EXPECT_NE(PrefixKey("2001:db8:1:3::1"), PrefixKey("2001:db8:1:2::1"));
  EXPECT_EQ(PrefixKey("::1"), "0:0:0:0::/64");
  EXPECT_EQ(PrefixKey("not an address"), "");
  EXPECT_EQ(PrefixKey(""), "");
}

}  // namespace
}  // namespace tarock::net
