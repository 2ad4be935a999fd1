#include "referee/engine/deal_seed.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace tarock {
namespace {

uint64_t Prf(uint64_t match_seed, absl::string_view salt, const std::string& message) {
  const std::string key = absl::StrCat("tarock-deal:v2:", match_seed, ":", salt);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
  uint64_t out = 0;
  for (int i = 0; i < 8; ++i) out = (out << 8) | digest[i];
  return out;
}

}  // namespace

uint64_t DealSeed(uint64_t match_seed, absl::string_view salt, int64_t hand_index, int64_t attempt) {
  return Prf(match_seed, salt, absl::StrCat(hand_index, ":", attempt));
}

Deal MatchDeal(const Game& game, uint64_t match_seed, absl::string_view salt, int64_t hand_index,
               int64_t attempt, int dealer) {
  return game.DealCards(DealSeed(match_seed, salt, hand_index, attempt), dealer);
}

uint64_t FallbackSeed(uint64_t match_seed, absl::string_view salt, int64_t hand_index,
                      int64_t action_index) {
  return Prf(match_seed, salt, absl::StrCat("fallback:", hand_index, ":", action_index));
}

}  // namespace tarock
