#include "arena/scheduler/deal_seal.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "referee/net/secure_random.h"

namespace tarock::arena {
std::string SeedCommitment(uint64_t seed, absl::string_view salt) {
  const std::string text = absl::StrCat("tarock-seed:v1:", seed, ":", salt);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

absl::StatusOr<SealedSeed> SealSeed(uint64_t seed) {
  absl::StatusOr<std::string> salt = net::SecureRandomHex(16);
  if (!salt.ok()) return salt.status();
  SealedSeed out;
  out.seed = seed;
  out.salt = std::move(*salt);
  out.commitment = SeedCommitment(seed, out.salt);
  return out;
}

SealedSeed SealDerivedSeed(uint64_t seed) {
  SealedSeed out;
  out.seed = seed;
  out.salt = SeedCommitment(seed, "salt").substr(0, 32);
  out.commitment = SeedCommitment(seed, out.salt);
  return out;
}

absl::StatusOr<SealedSeed> NewSealedSeed() {
  absl::StatusOr<uint64_t> seed = net::SecureRandomSeed();
  if (!seed.ok()) return seed.status();
  return SealSeed(*seed);
}

}  // namespace tarock::arena
