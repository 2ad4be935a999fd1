#include "arena/play/visitor_cookie.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "referee/net/secure_random.h"
#include "tarock/transport/referee_proof.h"

namespace tarock::arena::play {

absl::StatusOr<std::unique_ptr<VisitorCookies>> VisitorCookies::Create() {
  std::string key(32, '\0');
  if (absl::Status s = net::SecureRandomBytes(key.data(), key.size()); !s.ok()) return s;
  return std::unique_ptr<VisitorCookies>(new VisitorCookies(std::move(key)));
}

std::string VisitorCookies::Mac(absl::string_view id) const {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(id.data()), id.size(), digest, &length);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), std::min(length, 16u)));
}

absl::StatusOr<std::string> VisitorCookies::Issue() const {
  absl::StatusOr<std::string> id = net::SecureRandomHex(16);
  if (!id.ok()) return id.status();
  return absl::StrCat("v1.", *id, ".", Mac(*id));
}

std::optional<std::string> VisitorCookies::Verify(absl::string_view value) const {
  std::vector<absl::string_view> parts = absl::StrSplit(value, '.');
  if (parts.size() != 3 || parts[0] != "v1" || parts[1].size() != 32 || parts[2].size() != 32)
    return std::nullopt;
  for (char c : parts[1])
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  if (!transport::ConstantTimeEquals(Mac(parts[1]), parts[2])) return std::nullopt;
  return std::string(parts[1]);
}

std::optional<std::string> VisitorCookies::VisitorOf(
    const std::map<std::string, std::string>& headers) const {
  auto it = headers.find("cookie");
  if (it == headers.end()) return std::nullopt;
  // "a=b; tarock_play=v1...; c=d" (several Cookie headers arrive joined by ", ").
  for (absl::string_view pair : absl::StrSplit(it->second, absl::ByAnyChar(";,"))) {
    pair = absl::StripAsciiWhitespace(pair);
    if (!absl::ConsumePrefix(&pair, kVisitorCookieName) || !absl::ConsumePrefix(&pair, "="))
      continue;
    if (std::optional<std::string> id = Verify(pair)) return id;
  }
  return std::nullopt;
}

std::string VisitorCookies::SetCookie(absl::string_view value, absl::Duration max_age, bool secure) {
  return absl::StrCat(kVisitorCookieName, "=", value, "; Path=/; Max-Age=",
                      absl::ToInt64Seconds(max_age), "; HttpOnly; SameSite=Strict",
                      secure ? "; Secure" : "");
}

}  // namespace tarock::arena::play
