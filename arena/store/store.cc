#include "arena/store/store.h"

#include <openssl/evp.h>

#include <algorithm>
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

absl::StatusOr<std::string> NewToken() { return net::SecureRandomHex(16); }

}  // namespace tarock::arena
