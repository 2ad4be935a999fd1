// Random bytes for secrets (tokens, seat capabilities, secret deal seeds)
// from the kernel's getrandom(2). Every function fails closed: an error,
// never zeros and never a short read. getrandom needs no file descriptor, so
// a process out of descriptors still gets its randomness.
//
// Thread-safety: thread-safe.

#ifndef TAROCK_REFEREE_NET_SECURE_RANDOM_H_
#define TAROCK_REFEREE_NET_SECURE_RANDOM_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tarock::net {

// Fills `out[0..n)`. Errors: UNAVAILABLE when the kernel gives no bytes.
absl::Status SecureRandomBytes(void* out, size_t n);

// `bytes` (1..256) random bytes as lowercase hex.
absl::StatusOr<std::string> SecureRandomHex(int bytes);

// A random 64-bit value, never 0 (0 means "no seed" in specs and flags).
absl::StatusOr<uint64_t> SecureRandomSeed();

}  // namespace tarock::net

#endif  // TAROCK_REFEREE_NET_SECURE_RANDOM_H_
