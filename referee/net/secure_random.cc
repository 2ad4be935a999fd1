#include "referee/net/secure_random.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tarock::net {

absl::Status SecureRandomBytes(void* out, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  size_t got = 0;
  while (got < n) {
    const ssize_t r = getrandom(p + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(
          absl::StrCat("no random bytes from the kernel: ", std::strerror(errno)));
    }
    got += static_cast<size_t>(r);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> SecureRandomHex(int bytes) {
  if (bytes <= 0 || bytes > 256) return absl::InvalidArgumentError("1..256 random bytes");
  unsigned char buf[256];
  if (absl::Status s = SecureRandomBytes(buf, static_cast<size_t>(bytes)); !s.ok()) return s;
  static const char kDigits[] = "0123456789abcdef";
  std::string out(2 * static_cast<size_t>(bytes), '0');
  for (int i = 0; i < bytes; ++i) {
    out[2 * i] = kDigits[buf[i] >> 4];
    out[2 * i + 1] = kDigits[buf[i] & 15];
  }
  return out;
}

absl::StatusOr<uint64_t> SecureRandomSeed() {
  uint64_t v = 0;
  while (v == 0)
    if (absl::Status s = SecureRandomBytes(&v, sizeof v); !s.ok()) return s;
  return v;
}

}  // namespace tarock::net
