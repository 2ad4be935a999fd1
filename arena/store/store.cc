#include "arena/store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "arena/store/sqlite_store.h"
#ifdef TAROCK_HAVE_POSTGRES
#include "arena/store/postgres_store.h"
#endif

namespace tarock::arena {

absl::StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& url) {
  if (absl::StartsWith(url, "sqlite:")) {
    const std::string dir = url.substr(std::string("sqlite:").size());
    if (dir.empty()) return absl::InvalidArgumentError("sqlite: needs a directory, e.g. sqlite:arena-data");
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
    return SqliteStore::Open(absl::StrCat(dir, "/", SqliteStore::kFileName));
  }
  if (absl::StartsWith(url, "postgresql://") || absl::StartsWith(url, "postgres://")) {
#ifdef TAROCK_HAVE_POSTGRES
    return PostgresStore::Open(url);
#else
    return absl::UnimplementedError(
        "this arena was built without PostgreSQL (libpqxx-dev was missing at build time)");
#endif
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown database '", url, "': give sqlite:DIR or postgresql://USER@HOST:PORT/DATABASE"));
}

std::string HashToken(const std::string& token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(token.data(), token.size(), digest, &len, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) absl::StrAppend(&hex, absl::Hex(digest[i], absl::kZeroPad2));
  return hex;
}

namespace {

std::atomic<RandomSource> g_random_source{nullptr};

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

void SetRandomSourceForTesting(RandomSource source) { g_random_source.store(source); }

absl::Status FillRandom(void* buffer, size_t size) {
  RandomSource source = g_random_source.load();
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
          "): refusing to make a token"));
    }
    done += static_cast<size_t>(n);
  }
  // Sixteen or more zero bytes are a broken source, not luck: fail closed.
  if (size >= 16 && std::all_of(out, out + size, [](unsigned char b) { return b == 0; }))
    return absl::UnavailableError("the system's random source returned only zeros");
  return absl::OkStatus();
}

absl::StatusOr<std::string> NewToken() {
  unsigned char bytes[16] = {};
  if (absl::Status s = FillRandom(bytes, sizeof bytes); !s.ok()) return s;
  std::string hex;
  for (unsigned char b : bytes) absl::StrAppend(&hex, absl::Hex(b, absl::kZeroPad2));
  return hex;
}

}  // namespace tarock::arena
