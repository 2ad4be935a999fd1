#include "referee/net/rate_limiter.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tarock::net {
namespace {

double Burst(const RateLimit& limit) { return std::max(1.0, limit.burst); }

}  // namespace

absl::Duration RateLimiter::Take(absl::string_view key, absl::Time now) {
  if (unlimited()) return absl::ZeroDuration();
  const double burst = Burst(limit_);
  absl::MutexLock lock(&mu_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    if (buckets_.size() >= std::max<size_t>(1, limit_.max_keys)) Evict(now);
    it = buckets_.emplace(std::string(key), Bucket{burst, now}).first;
  }
  Bucket& b = it->second;
  const double elapsed = std::max(0.0, absl::ToDoubleSeconds(now - b.updated));
  b.tokens = std::min(burst, b.tokens + elapsed * limit_.per_second);
  b.updated = std::max(b.updated, now);
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return absl::ZeroDuration();
  }
  const double wait = (1 - b.tokens) / limit_.per_second;
  // Never zero: a caller that retries at once must be refused again.
  return std::max(absl::Seconds(wait), absl::Milliseconds(1));
}

void RateLimiter::Evict(absl::Time now) {
  const double burst = Burst(limit_);
  // Full again: forgetting them loses nothing.
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const Bucket& b = it->second;
    const double tokens = b.tokens + absl::ToDoubleSeconds(now - b.updated) * limit_.per_second;
    if (tokens >= burst) {
      buckets_.erase(it++);
    } else {
      ++it;
    }
  }
  if (buckets_.size() < std::max<size_t>(1, limit_.max_keys)) return;
  // Still full of active clients: drop the least recently used half.
  std::vector<absl::Time> times;
  times.reserve(buckets_.size());
  for (const auto& [key, b] : buckets_) times.push_back(b.updated);
  auto middle = times.begin() + times.size() / 2;
  std::nth_element(times.begin(), middle, times.end());
  const absl::Time cut = *middle;
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    if (it->second.updated <= cut) {
      buckets_.erase(it++);
    } else {
      ++it;
    }
  }
}

void RateLimiter::Give(absl::string_view key) {
  if (unlimited()) return;
  absl::MutexLock lock(&mu_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) return;  // evicted meanwhile: full again anyway
  it->second.tokens = std::min(Burst(limit_), it->second.tokens + 1);
}

std::string PrefixKey(absl::string_view address) {
  const std::string text(address);
  in_addr v4;
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    const auto* b = reinterpret_cast<const unsigned char*>(&v4);
    return absl::StrCat(b[0], ".", b[1], ".", b[2], ".0/24");
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, text.c_str(), &v6) != 1) return "";
  const unsigned char* b = v6.s6_addr;
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(b, kMapped, sizeof kMapped) == 0)
    return absl::StrCat(b[12], ".", b[13], ".", b[14], ".0/24");
  std::string out;
  for (int i = 0; i < 8; i += 2) absl::StrAppend(&out, absl::Hex(b[i] << 8 | b[i + 1]), ":");
  return absl::StrCat(out, ":/64");
}

size_t RateLimiter::size() const {
  absl::MutexLock lock(&mu_);
  return buckets_.size();
}

}  // namespace tarock::net
