#include "tarock/transport/referee_proof.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "absl/strings/str_cat.h"

namespace tarock::transport {

namespace {

std::string HmacSha256Hex(absl::string_view key, absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 15]);
  }
  return hex;
}

}  // namespace

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string RefereeProof(absl::string_view secret, absl::string_view match_id, int seat) {
  return HmacSha256Hex(secret, absl::StrCat(match_id, "/", seat));
}

bool RefereeProofMatches(absl::string_view secret, absl::string_view match_id, int seat,
                         absl::string_view proof) {
  return !proof.empty() && ConstantTimeEquals(RefereeProof(secret, match_id, seat), proof);
}

std::string BotRefereeSecret(absl::string_view arena_key, absl::string_view bot_name) {
  return HmacSha256Hex(arena_key, absl::StrCat("tarock-referee-secret/", bot_name));
}

}  // namespace tarock::transport
