// Token buckets keyed by client: the arena's defence against floods of
// registrations and API calls (docs/security.md). A key is whatever names a
// client to the caller: an address ("10.0.0.7"), its network (PrefixKey:
// "10.0.0.0/24", so ten addresses of one network do not get ten budgets), or
// a token. Each key's bucket
// holds at most `burst` tokens and refills at `per_second`; a call takes one
// token or is told how long until one is there (the Retry-After).
//
// Memory is bounded: at most `max_keys` buckets are kept; when a new key would
// exceed it, buckets that are full again (clients idle long enough to have
// lost nothing) are dropped first, then the least recently used.
//
// Thread-safety: thread-safe (one mutex; a call is a map look-up).

#ifndef TAROCK_REFEREE_NET_RATE_LIMITER_H_
#define TAROCK_REFEREE_NET_RATE_LIMITER_H_

#include <cstddef>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tarock::net {

struct RateLimit {
  double per_second = 0;  // refill rate; 0 or less: no limit at all
  double burst = 1;       // bucket size: calls allowed at once after idling (at least 1)
  size_t max_keys = 100000;  // buckets kept (see the file comment)
};

class RateLimiter {
 public:
  explicit RateLimiter(RateLimit limit) : limit_(limit) {}
  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  bool unlimited() const { return limit_.per_second <= 0; }

  // Takes one token from `key`'s bucket at `now`. Returns zero when the call
  // may go ahead; otherwise nothing is taken and the result is how long until
  // a token will be there (positive).
  absl::Duration Take(absl::string_view key, absl::Time now = absl::Now());

  // Gives back a token taken from `key` (a call refused by a later limit
  // uses up nothing); never more than the bucket holds.
  void Give(absl::string_view key);

  // Buckets currently kept (for tests).
  size_t size() const;

 private:
  struct Bucket {
    double tokens = 0;
    absl::Time updated;
  };
  void Evict(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const RateLimit limit_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Bucket> buckets_ ABSL_GUARDED_BY(mu_);
};

// The network an address belongs to, for limits per network: "a.b.c.0/24"
// for IPv4 (and IPv4-mapped IPv6), the first 64 bits "x:x:x:x::/64" for IPv6.
// A client with a /64 has 2^64 addresses, one with a /24 256: per-address
// budgets alone are no limit for them. "" for text that is not a numeric
// address.
std::string PrefixKey(absl::string_view address);

}  // namespace tarock::net

#endif  // TAROCK_REFEREE_NET_RATE_LIMITER_H_
