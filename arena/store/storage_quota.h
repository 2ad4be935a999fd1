// Storage bounds: how many bots, stored versions and bytes of versions one
// owner, and one client network (net::PrefixKey: /24 IPv4, /64 IPv6), may
// keep in the arena's database, and how many bytes of versions all bots keep
// together (docs/security.md, "Limits and authority").
// Rate limits bound how fast a client stores; these bound how much, so a
// patient stranger cannot fill the disk. Registration (Scheduler::AddBot)
// and uploads (HostedBots::Upload) ask CheckStorage before storing anything.
//
// Thread-safety: CheckStorage is thread-safe (it only reads the store); two
// requests checked at once may both pass and overshoot a bound by one.

#ifndef TAROCK_ARENA_STORE_STORAGE_QUOTA_H_
#define TAROCK_ARENA_STORE_STORAGE_QUOTA_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "arena/store/store.h"

namespace tarock::arena {

// Each bound 0: none. The arena's flags set them (--max_bots_per_owner, ...).
struct StorageLimits {
  int64_t bots_per_owner = 100;          // bots registered under one owner (retired ones too)
  int64_t bots_per_network = 500;        // bots registered from one network
  int64_t versions_per_owner = 200;      // versions whose content is kept, over an owner's bots
  int64_t versions_per_network = 1000;   // the same, over the bots registered from one network
  int64_t bytes_per_owner = int64_t{256} << 20;     // bytes of those versions: 256 MiB
  int64_t bytes_per_network = int64_t{1} << 30;     // 1 GiB
  // Bytes of the kept versions of all bots together (uploads only): what
  // many owners and networks can add up to on the arena's disk.
  int64_t bytes_total = int64_t{8} << 30;           // 8 GiB
};

// The network key of a client address ("" for an unknown address: then the
// network bounds do not apply).
std::string StorageNetworkOf(const std::string& address);

// May `owner` (and the network `client_net`, "" unknown) store `bots` more
// bots, `versions` more versions and `bytes` more bytes (and the arena, all
// bots together, `bytes` more bytes)? OK, or
// RESOURCE_EXHAUSTED in one line naming the bound, what is stored and what
// to do (retire bots, or an operator raises the flag).
absl::Status CheckStorage(Store& store, const StorageLimits& limits, const std::string& owner,
                          const std::string& client_net, int64_t bots, int64_t versions,
                          int64_t bytes);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_STORE_STORAGE_QUOTA_H_
