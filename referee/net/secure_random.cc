#include "referee/net/secure_random.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace tarock::net {
namespace {

std::atomic<RandomSource> g_source{nullptr};

// getrandom(2) needs no descriptor, so a process out of descriptors still
// gets random bytes; /dev/urandom only where the kernel lacks it (ENOSYS).
ssize_t SystemRandom(void* buffer, size_t size) {
  ssize_t n = ::getrandom(buffer, size, 0);
  if (n >= 0 || errno != ENOSYS) return n;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  n = ::read(fd, buffer, size);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return n;
}

}  // namespace

void SetRandomSourceForTesting(RandomSource source) { g_source.store(source); }

absl::Status SecureRandomBytes(void* buffer, size_t size) {
  RandomSource source = g_source.load();
  if (source == nullptr) source = SystemRandom;
  auto* out = static_cast<unsigned char*>(buffer);
  size_t done = 0;
  while (done < size) {
    errno = 0;
    const ssize_t n = source(out + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::memset(buffer, 0, size);
      return absl::UnavailableError(absl::StrCat(
          "no random bytes from the system (", n < 0 ? std::strerror(errno) : "end of data",
          "): refusing to make a secret"));
    }
    done += static_cast<size_t>(n);
  }
  if (size >= 16 && std::all_of(out, out + size, [](unsigned char b) { return b == 0; }))
    return absl::UnavailableError("the system's random source returned only zeros");
  return absl::OkStatus();
}

absl::StatusOr<std::string> SecureRandomHex(int bytes) {
  if (bytes <= 0 || bytes > 256) return absl::InvalidArgumentError("1..256 random bytes");
  unsigned char buf[256];
  if (absl::Status s = SecureRandomBytes(buf, static_cast<size_t>(bytes)); !s.ok()) return s;
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(buf), static_cast<size_t>(bytes)));
}

absl::StatusOr<uint64_t> SecureRandomSeed() {
  uint64_t v = 0;
  while (v == 0)
    if (absl::Status s = SecureRandomBytes(&v, sizeof v); !s.ok()) return s;
  return v;
}

}  // namespace tarock::net
