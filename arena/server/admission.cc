#include "arena/server/admission.h"

#include <cmath>

#include "absl/hash/hash.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace tarock::arena {
namespace {

net::RateLimit PerSecond(double rate, double burst) {
  net::RateLimit limit;
  limit.per_second = rate;
  limit.burst = burst;
  return limit;
}

// Tokens are not kept in memory as they are: a dump of the process shows
// only their hashes.
std::string TokenKey(absl::string_view token) {
  return absl::StrCat("t", absl::Hash<absl::string_view>{}(token));
}

absl::Status Refuse(absl::string_view who, absl::Duration wait, absl::Duration* retry_after) {
  const int64_t seconds = std::max<int64_t>(1, std::ceil(absl::ToDoubleSeconds(wait)));
  if (retry_after != nullptr) *retry_after = absl::Seconds(seconds);
  return absl::ResourceExhaustedError(
      absl::StrCat("too many requests from ", who, ": retry in ", seconds, " s"));
}

}  // namespace

Admission::Admission(const AdmissionOptions& o)
    : calls_by_address_(PerSecond(o.calls_per_second, 2 * o.calls_per_second)),
      calls_by_token_(PerSecond(o.calls_per_second, 2 * o.calls_per_second)),
      registrations_(PerSecond(o.registrations_per_minute / 60, 5)) {}

absl::StatusOr<std::unique_ptr<Admission>> Admission::Create(const AdmissionOptions& options) {
  std::unique_ptr<Admission> a(new Admission(options));
  for (const std::string& text : options.exempt_ranges) {
    if (text.empty()) continue;
    absl::StatusOr<net::AddressRange> range = net::ParseRange(text);
    if (!range.ok()) return range.status();
    a->exempt_.push_back(*std::move(range));
  }
  return a;
}

bool Admission::Exempt(absl::string_view address) const {
  for (const net::AddressRange& range : exempt_)
    if (net::RangeContains(range, address)) return true;
  return false;
}

absl::Status Admission::Admit(absl::string_view address, absl::string_view token, Kind kind,
                              absl::Duration* retry_after, absl::Time now, bool proxied) {
  if (!proxied && !address.empty() && Exempt(address)) return absl::OkStatus();
  const std::string who = address.empty() ? "an unknown address" : std::string(address);
  // Registration first: a flood of registrations is refused before it can
  // use up the address's budget for ordinary calls.
  if (kind == Kind::kRegistration) {
    if (absl::Duration wait = registrations_.Take(who, now); wait > absl::ZeroDuration())
      return Refuse(absl::StrCat(who, " (bot registrations)"), wait, retry_after);
  }
  if (absl::Duration wait = calls_by_address_.Take(who, now); wait > absl::ZeroDuration())
    return Refuse(who, wait, retry_after);
  if (!token.empty()) {
    if (absl::Duration wait = calls_by_token_.Take(TokenKey(token), now);
        wait > absl::ZeroDuration())
      return Refuse("this token", wait, retry_after);
  }
  return absl::OkStatus();
}

std::string Admission::AddressOfGrpcPeer(absl::string_view peer) {
  if (absl::ConsumePrefix(&peer, "ipv4:")) {
    size_t colon = peer.rfind(':');
    return std::string(colon == absl::string_view::npos ? peer : peer.substr(0, colon));
  }
  if (absl::ConsumePrefix(&peer, "ipv6:")) {
    std::string decoded = absl::StrReplaceAll(peer, {{"%5B", "["}, {"%5D", "]"}, {"%25", "%"}});
    absl::string_view p = decoded;
    if (absl::ConsumePrefix(&p, "[")) {
      size_t close = p.find(']');
      if (close != absl::string_view::npos) p = p.substr(0, close);
    }
    // A zone ("fe80::1%eth0") is no part of the address.
    if (size_t zone = p.find('%'); zone != absl::string_view::npos) p = p.substr(0, zone);
    return std::string(p);
  }
  return "";
}

}  // namespace tarock::arena
