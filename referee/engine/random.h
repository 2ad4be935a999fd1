// The project's specified pseudo-random generator and shuffle.
//
// A (variant, options, seed) triple must give the same deal on every machine and
// compiler, so nothing here uses <random>'s distributions or std::shuffle, whose
// output differs between standard libraries. The generator is xoshiro256**
// (Blackman and Vigna) seeded through SplitMix64; integers below a bound use
// Lemire's multiply-and-reject method on 32-bit words, each 64-bit output giving
// its high half first and then its low half; the shuffle is Fisher-Yates from
// the top.
// These three definitions are part of the record format: changing any of them
// changes every seeded deal.
//
// Thread-safety: a Rng is a value; use one per thread.

#ifndef TAROCK_REFEREE_ENGINE_RANDOM_H_
#define TAROCK_REFEREE_ENGINE_RANDOM_H_

#include <cstdint>
#include <utility>

namespace tarock {

// One step of SplitMix64; also a good 64-bit mixer for deriving seeds.
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t sm = seed;
    for (auto& word : s_) word = SplitMix64(sm);
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // The next 32-bit word: the high half of a fresh output, then its low half.
  uint32_t Next32() {
    if (has_low_) {
      has_low_ = false;
      return low_;
    }
    const uint64_t x = Next();
    low_ = static_cast<uint32_t>(x);
    has_low_ = true;
    return static_cast<uint32_t>(x >> 32);
  }

  // Uniform in [0, bound); bound must be > 0.
  uint32_t Below(uint32_t bound) {
    uint64_t m = uint64_t{Next32()} * bound;
    uint32_t low = static_cast<uint32_t>(m);
    if (low < bound) {
      const uint32_t threshold = static_cast<uint32_t>(-bound) % bound;
      while (low < threshold) {
        m = uint64_t{Next32()} * bound;
        low = static_cast<uint32_t>(m);
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }

  // Fisher-Yates: for i from n-1 down to 1, swap item i with item Below(i+1).
  template <typename T>
  void Shuffle(T* items, int n) {
    for (int i = n - 1; i > 0; --i) std::swap(items[i], items[Below(static_cast<uint32_t>(i + 1))]);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
  uint32_t low_ = 0;
  bool has_low_ = false;
};

// Seed of the i-th hand of a match played from `match_seed`.
inline uint64_t HandSeed(uint64_t match_seed, uint64_t hand_index) {
  uint64_t s = match_seed ^ (0xD1B54A32D192ED03ULL * (hand_index + 1));
  return SplitMix64(s);
}

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_RANDOM_H_
