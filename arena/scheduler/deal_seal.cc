#include "arena/scheduler/deal_seal.h"

#include <openssl/sha.h>

#include "absl/strings/str_cat.h"
#include "referee/net/secure_random.h"

namespace tarock::arena {
namespace {

std::string Hex(const unsigned char* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[p[i] >> 4];
    out[2 * i + 1] = kDigits[p[i] & 15];
  }
  return out;
}

}  // namespace

std::string SeedCommitment(uint64_t seed, absl::string_view salt) {
  const std::string text = absl::StrCat("tarock-seed:v1:", seed, ":", salt);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return Hex(digest, sizeof digest);
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

absl::StatusOr<SealedSeed> NewSealedSeed() {
  absl::StatusOr<uint64_t> seed = net::SecureRandomSeed();
  if (!seed.ok()) return seed.status();
  return SealSeed(*seed);
}

}  // namespace tarock::arena
