#include "referee/engine/deal_seed.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace tarock {
namespace {

// One HMAC-SHA256 context per thread, its algorithm fetched once: the one-shot
// HMAC() fetches HMAC and SHA-256 from the provider, under its locks, on every
// call (a sixth of VecEnv's time with tensors off, which deals a hand every
// few dozen decisions). Each use keys it afresh. Null if OpenSSL refuses.
EVP_MAC_CTX* ThreadHmacSha256() {
  struct Holder {
    EVP_MAC_CTX* ctx = nullptr;
    Holder() {
      EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
      if (mac == nullptr) return;
      ctx = EVP_MAC_CTX_new(mac);
      EVP_MAC_free(mac);  // the context keeps its own reference
      char digest[] = "SHA256";
      const OSSL_PARAM params[] = {
          OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
          OSSL_PARAM_construct_end()};
      if (ctx != nullptr && EVP_MAC_CTX_set_params(ctx, params) != 1) {
        EVP_MAC_CTX_free(ctx);
        ctx = nullptr;
      }
    }
    ~Holder() { EVP_MAC_CTX_free(ctx); }
  };
  thread_local Holder holder;
  return holder.ctx;
}

uint64_t Prf(uint64_t match_seed, absl::string_view salt, const std::string& message) {
  const std::string key = absl::StrCat("tarock-deal:v2:", match_seed, ":", salt);
  unsigned char digest[EVP_MAX_MD_SIZE];
  const auto* k = reinterpret_cast<const unsigned char*>(key.data());
  const auto* m = reinterpret_cast<const unsigned char*>(message.data());
  EVP_MAC_CTX* ctx = ThreadHmacSha256();
  size_t length = 0;
  if (ctx == nullptr || EVP_MAC_init(ctx, k, key.size(), nullptr) != 1 ||
      EVP_MAC_update(ctx, m, message.size()) != 1 ||
      EVP_MAC_final(ctx, digest, &length, sizeof(digest)) != 1 || length < 8) {
    unsigned int one_shot = 0;  // the same function, the slow way
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), m, message.size(), digest,
         &one_shot);
  }
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
