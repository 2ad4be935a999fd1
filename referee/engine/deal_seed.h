// The deal of every hand of a match, from the match's secret: a keyed
// pseudo-random function, so that the deals a seat has seen (and any hand's
// own seed) say nothing about the deals still to come (docs/security.md,
// "Secret deals").
//
// Attempt k of hand i of a match played from (seed, salt) is dealt from the
// 64-bit hand seed
//
//   DealSeed(seed, salt, i, k) = the first 8 bytes, big-endian, of
//     HMAC-SHA256(key = "tarock-deal:v2:" + decimal(seed) + ":" + salt,
//                 message = decimal(i) + ":" + decimal(k))
//
// and its cards are Game::DealCards(DealSeed(...), dealer). The key is the
// match's whole secret: in the arena 64 random bits of seed and a salt of 128
// random bits (32 hex digits), published together once every table that plays
// the deals has finished; local tools (`tarock match --seed`) may leave the
// salt empty. A hand seed is not invertible to the key, and knowing one hand
// seed (or its deal) gives nothing about another: each is the PRF at another
// point. This function is the one definition of a match's deals: the
// referee, the records, the SDKs' replays and the Python engine use it.
//
// Thread-safety: pure functions; thread-safe (each thread keeps its own
// HMAC context, keyed afresh at every call).

#ifndef TAROCK_REFEREE_ENGINE_DEAL_SEED_H_
#define TAROCK_REFEREE_ENGINE_DEAL_SEED_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "referee/engine/game.h"

namespace tarock {

// The seed of attempt `attempt` (0, then 1, 2, ... after void deals dealt
// again) of hand `hand_index` of the match played from (match_seed, salt).
uint64_t DealSeed(uint64_t match_seed, absl::string_view salt, int64_t hand_index, int64_t attempt);

// The cards of attempt `attempt` of hand `hand_index` of the match played from
// (match_seed, salt), dealt by seat `dealer` (in a match: (first dealer +
// hand_index) mod the seats): game.DealCards(DealSeed(...), dealer). The one
// function from a published match seed to its deals (MatchProgress uses it).
Deal MatchDeal(const Game& game, uint64_t match_seed, absl::string_view salt, int64_t hand_index,
               int64_t attempt, int dealer);

// The seed of the referee's own choices for a seat that faulted (its fallback
// action at `action_index` of hand `hand_index`): the same key, another
// message ("fallback:" + hand + ":" + action), so independent of every deal.
uint64_t FallbackSeed(uint64_t match_seed, absl::string_view salt, int64_t hand_index,
                      int64_t action_index);

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_DEAL_SEED_H_
