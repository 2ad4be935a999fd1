// Sealed deal seeds: the seed of every deal the arena schedules is secret
// until every table that plays it has finished it, and is committed to when
// it is scheduled, so anyone can check afterwards that the deal was not
// changed (docs/security.md, "Secret deals").
//
// A seed is 64 random bits from the kernel (getrandom), never a function of a
// public value (a match id, a ladder number). Its commitment is
//
//   hex(SHA-256("tarock-seed:v1:" + decimal(seed) + ":" + salt))
//
// with a fresh 128-bit salt (32 hex digits), published from the moment the
// match is scheduled; the seed and the salt are published with the record once
// the deal is public. Check one with
//
//   printf 'tarock-seed:v1:%s:%s' SEED SALT | sha256sum
//
// Every table of a duplicate set shares one seed and one salt, so one
// commitment. The seed and the salt together are the key of the match's deals
// (referee/engine/deal_seed.h): 192 secret bits.
//
// Thread-safety: every function is thread-safe.

#ifndef TAROCK_ARENA_SCHEDULER_DEAL_SEAL_H_
#define TAROCK_ARENA_SCHEDULER_DEAL_SEAL_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tarock::arena {

struct SealedSeed {
  uint64_t seed = 0;
  std::string salt;        // 32 lowercase hex digits
  std::string commitment;  // 64 lowercase hex digits (SeedCommitment)
};

// A fresh random seed with its salt and commitment.
absl::StatusOr<SealedSeed> NewSealedSeed();

// A seed chosen by the caller, sealed with a fresh salt.
absl::StatusOr<SealedSeed> SealSeed(uint64_t seed);

// A seed derived from an organiser's --seed, sealed with a salt derived from
// it too (the first 32 hex digits of SeedCommitment(seed, "salt")), so that
// the organiser's seed reproduces every deal (the salt is half of the deals'
// key, referee/engine/deal_seed.h). Such deals are as secret as that seed.
SealedSeed SealDerivedSeed(uint64_t seed);

// The commitment to `seed` under `salt` (see above).
std::string SeedCommitment(uint64_t seed, absl::string_view salt);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_DEAL_SEAL_H_
