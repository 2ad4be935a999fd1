#include "arena/scheduler/deal_seal.h"

#include <gtest/gtest.h>

#include <set>

#include "referee/net/secure_random.h"

namespace tarock::arena {
namespace {

TEST(DealSeal, CommitmentIsTheDocumentedSha256) {
  // printf 'tarock-seed:v1:%s:%s' 12345 00112233445566778899aabbccddeeff | sha256sum
  EXPECT_EQ(SeedCommitment(12345, "00112233445566778899aabbccddeeff"),
            "5d5128798d57878e3bfbb88e1d0f1a9b98897ffb40eeea895bfd0ffc56f40ee1");
}

TEST(DealSeal, FreshSeedsAreRandomAndOpenTheirCommitment) {
  std::set<uint64_t> seeds;
  std::set<std::string> salts;
  for (int i = 0; i < 64; ++i) {
    absl::StatusOr<SealedSeed> s = NewSealedSeed();
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_NE(s->seed, 0u);
    EXPECT_EQ(s->salt.size(), 32u);
    EXPECT_NE(s->salt, std::string(32, '0'));
    EXPECT_EQ(s->commitment, SeedCommitment(s->seed, s->salt));
    seeds.insert(s->seed);
    salts.insert(s->salt);
  }
  EXPECT_EQ(seeds.size(), 64u);
  EXPECT_EQ(salts.size(), 64u);
}

TEST(DealSeal, AGivenSeedGetsAFreshSalt) {
  absl::StatusOr<SealedSeed> a = SealSeed(7);
  absl::StatusOr<SealedSeed> b = SealSeed(7);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->seed, 7u);
  EXPECT_NE(a->salt, b->salt);
  EXPECT_NE(a->commitment, b->commitment);
}

TEST(DealSeal, RandomHexFailsOnlyOnBadSizes) {
  EXPECT_FALSE(net::SecureRandomHex(0).ok());
  EXPECT_FALSE(net::SecureRandomHex(257).ok());
  absl::StatusOr<std::string> h = net::SecureRandomHex(32);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->size(), 64u);
}

}  // namespace
}  // namespace tarock::arena
