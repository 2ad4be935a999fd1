#include "arena/store/storage_quota.h"

#include "absl/strings/str_cat.h"
#include "referee/net/rate_limiter.h"

namespace tarock::arena {

std::string StorageNetworkOf(const std::string& address) {
  return address.empty() ? std::string() : net::PrefixKey(address);
}

namespace {

// The first bound of `who` that `use` plus the request would pass, or OK.
absl::Status Within(const StoredRow& use, const std::string& who, int64_t max_bots,
                    int64_t max_versions, int64_t max_bytes, int64_t bots, int64_t versions,
                    int64_t bytes) {
  auto refuse = [&who](const char* what, int64_t stored, int64_t max, const std::string& more) {
    return absl::ResourceExhaustedError(absl::StrCat(
        who, " stores ", stored, " ", what, " of at most ", max, more,
        ": nothing was stored; retire bots (a bot keeps its newest versions only) or ask the "
        "arena's operator"));
  };
  if (max_bots > 0 && bots > 0 && use.bots + bots > max_bots)
    return refuse("bots", use.bots, max_bots, "");
  if (max_versions > 0 && versions > 0 && use.versions + versions > max_versions)
    return refuse("versions", use.versions, max_versions, "");
  if (max_bytes > 0 && bytes > 0 && use.bytes + bytes > max_bytes)
    return refuse("bytes of versions", use.bytes, max_bytes,
                  absl::StrCat(" (this upload: ", bytes, " bytes)"));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckStorage(Store& store, const StorageLimits& limits, const std::string& owner,
                          const std::string& client_net, int64_t bots, int64_t versions,
                          int64_t bytes) {
  if (absl::Status s = Within(store.StoredByOwner(owner), absl::StrCat("owner '", owner, "'"),
                              limits.bots_per_owner, limits.versions_per_owner,
                              limits.bytes_per_owner, bots, versions, bytes);
      !s.ok())
    return s;
  if (!client_net.empty())
    if (absl::Status s = Within(store.StoredByNetwork(client_net),
                                absl::StrCat("your network ", client_net), limits.bots_per_network,
                                limits.versions_per_network, limits.bytes_per_network, bots,
                                versions, bytes);
        !s.ok())
      return s;
  if (limits.bytes_total > 0 && bytes > 0)
    return Within(store.StoredInAll(), "the arena", 0, 0, limits.bytes_total, 0, 0, bytes);
  return absl::OkStatus();
}

}  // namespace tarock::arena
