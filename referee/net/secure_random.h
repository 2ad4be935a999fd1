// Random bytes for secrets (tokens, seat capabilities, secret deal seeds)
// from the kernel's getrandom(2). Every function fails closed: an error,
// never zeros and never a short read. getrandom needs no file descriptor, so
// a process out of descriptors still gets its randomness.
//
// Thread-safety: thread-safe.

#ifndef TAROCK_REFEREE_NET_SECURE_RANDOM_H_
#define TAROCK_REFEREE_NET_SECURE_RANDOM_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tarock::net {

// Fills `out[0..n)`. Errors: UNAVAILABLE when the source fails, or returns
// only zeros for 16 or more bytes (a broken source, not luck); then `out` is
// zeroed but must not be used.
absl::Status SecureRandomBytes(void* out, size_t n);

// `bytes` (1..256) random bytes as lowercase hex.
absl::StatusOr<std::string> SecureRandomHex(int bytes);

// A random 64-bit value, never 0 (0 means "no seed" in specs and flags).
absl::StatusOr<uint64_t> SecureRandomSeed();

// Replaces the kernel as the source (nullptr: the kernel again), so tests can
// make it fail. Same contract as read(2): bytes written, or -1 with errno.
using RandomSource = ssize_t (*)(void* buffer, size_t size);
void SetRandomSourceForTesting(RandomSource source);

}  // namespace tarock::net

#endif  // TAROCK_REFEREE_NET_SECURE_RANDOM_H_
