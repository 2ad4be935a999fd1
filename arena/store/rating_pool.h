// Which ratings a match moves: a bot has one rating per variant in the open
// event, and one per variant in every other event it plays (a bot entered in
// two events has two ratings there). The store keeps them under one key,
// the pool: "VARIANT" for the open event (as before events existed) and
// "VARIANT@EVENT_ID" for event EVENT_ID.
//
// Thread-safety: pure functions.

#ifndef TAROCK_ARENA_STORE_RATING_POOL_H_
#define TAROCK_ARENA_STORE_RATING_POOL_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tarock::arena {

inline std::string RatingPool(const std::string& variant, int64_t event_id) {
  return event_id == 0 ? variant : absl::StrCat(variant, "@", event_id);
}

// {variant, event id} of a pool key; event 0 for a plain variant.
inline std::pair<std::string, int64_t> SplitRatingPool(const std::string& pool) {
  const size_t at = pool.rfind('@');
  int64_t id = 0;
  if (at == std::string::npos || !absl::SimpleAtoi(pool.substr(at + 1), &id)) return {pool, 0};
  return {pool.substr(0, at), id};
}

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_STORE_RATING_POOL_H_
