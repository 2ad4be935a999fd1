#include "referee/net/endpoint_policy.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tarock::net {
namespace {

using Bytes = std::array<uint8_t, 16>;

// IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d), so one comparison covers both.
bool ParseAddress(absl::string_view text, Bytes* out) {
  std::string s(text);
  in_addr v4;
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    *out = {};
    (*out)[10] = (*out)[11] = 0xff;
    std::memcpy(out->data() + 12, &v4, 4);
    return true;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
    std::memcpy(out->data(), &v6, 16);
    return true;
  }
  return false;
}

bool InRange(const Bytes& address, const AddressRange& range) {
  int bits = range.bits;
  for (int i = 0; i < 16 && bits > 0; ++i, bits -= 8) {
    uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((address[i] & mask) != (range.prefix[i] & mask)) return false;
  }
  return true;
}

const std::vector<AddressRange>& ForbiddenRanges() {
  static const auto* ranges = [] {
    auto* r = new std::vector<AddressRange>;
    for (const char* cidr :
         {"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
          "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/3",
          "::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8"}) {
      r->push_back(*ParseRange(cidr));
    }
    return r;
  }();
  return *ranges;
}

}  // namespace

absl::StatusOr<AddressRange> ParseRange(absl::string_view cidr) {
  AddressRange range;
  range.text = std::string(cidr);
  absl::string_view address = cidr;
  int bits = -1;
  if (size_t slash = cidr.find('/'); slash != absl::string_view::npos) {
    address = cidr.substr(0, slash);
    if (!absl::SimpleAtoi(cidr.substr(slash + 1), &bits))
      return absl::InvalidArgumentError(absl::StrCat("'", cidr, "' is not an address range (CIDR)"));
  }
  if (!ParseAddress(address, &range.prefix))
    return absl::InvalidArgumentError(absl::StrCat("'", cidr, "' is not an address range (CIDR)"));
  const bool v4 = address.find(':') == absl::string_view::npos;
  if (bits < 0) bits = v4 ? 32 : 128;
  if (bits > (v4 ? 32 : 128))
    return absl::InvalidArgumentError(absl::StrCat("'", cidr, "': prefix length too long"));
  range.bits = v4 ? bits + 96 : bits;
  return range;
}

bool RangeContains(const AddressRange& range, absl::string_view address) {
  Bytes bytes;
  return ParseAddress(address, &bytes) && InRange(bytes, range);
}

absl::StatusOr<EndpointPolicy> EndpointPolicy::Restrictive(const std::vector<std::string>& allowed) {
  EndpointPolicy policy;
  policy.restrictive_ = true;
  for (const std::string& cidr : allowed) {
    if (cidr.empty()) continue;
    absl::StatusOr<AddressRange> range = ParseRange(cidr);
    if (!range.ok()) return range.status();
    policy.allowed_.push_back(*std::move(range));
  }
  return policy;
}

absl::StatusOr<EndpointPolicy> EndpointPolicy::ForListener(std::vector<std::string> allowed,
                                                          bool listens_on_loopback) {
  if (listens_on_loopback) {
    allowed.push_back("127.0.0.0/8");
    allowed.push_back("::1");
  }
  return Restrictive(allowed);
}

absl::Status EndpointPolicy::CheckAddress(absl::string_view address) const {
  if (!restrictive_) return absl::OkStatus();
  Bytes bytes;
  if (!ParseAddress(address, &bytes))
    return absl::InvalidArgumentError(absl::StrCat("'", address, "' is not an IP address"));
  // A v4-mapped v6 address is its v4 address (the ranges are stored that way).
  for (const AddressRange& range : allowed_)
    if (InRange(bytes, range)) return absl::OkStatus();
  for (const AddressRange& range : ForbiddenRanges()) {
    if (InRange(bytes, range))
      return absl::PermissionDeniedError(absl::StrCat(
          "bot endpoints may not be in ", range.text, " (", address,
          "): loopback, private, link-local and metadata addresses are refused unless the "
          "operator allows the range (--allow_bot_ranges)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ResolvedEndpoint> EndpointPolicy::Check(absl::string_view endpoint) const {
  ResolvedEndpoint out;
  if (!restrictive_) {  // everything allowed, unchecked (tests dial "inproc:NAME")
    out.target = std::string(endpoint);
    return out;
  }
  size_t colon = endpoint.rfind(':');
  if (colon == absl::string_view::npos || colon == 0)
    return absl::InvalidArgumentError(absl::StrCat("'", endpoint, "' is not HOST:PORT"));
  absl::string_view host = endpoint.substr(0, colon);
  absl::string_view port = endpoint.substr(colon + 1);
  int port_number = 0;
  if (!absl::SimpleAtoi(port, &port_number) || port_number <= 0 || port_number > 65535)
    return absl::InvalidArgumentError(absl::StrCat("'", endpoint, "' has no valid port"));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  out.host = std::string(host);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string host_text(host);
  if (int rc = getaddrinfo(host_text.c_str(), nullptr, &hints, &found); rc != 0)
    return absl::InvalidArgumentError(
        absl::StrCat("bot host '", host, "' does not resolve: ", gai_strerror(rc)));
  std::vector<std::string> addresses;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    if (a->ai_family == AF_INET)
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr, text, sizeof text);
    else if (a->ai_family == AF_INET6)
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr, text,
                sizeof text);
    else
      continue;
    addresses.push_back(text);
  }
  freeaddrinfo(found);
  if (addresses.empty())
    return absl::InvalidArgumentError(absl::StrCat("bot host '", host, "' has no IP address"));
  for (const std::string& a : addresses) {
    if (absl::Status s = CheckAddress(a); !s.ok()) return s;
  }
  const std::string& first = addresses.front();
  out.target = first.find(':') == std::string::npos
                   ? absl::StrCat("ipv4:", first, ":", port_number)
                   : absl::StrCat("ipv6:[", first, "]:", port_number);
  return out;
}

}  // namespace tarock::net
