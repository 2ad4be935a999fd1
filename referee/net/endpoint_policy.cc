#include "referee/net/endpoint_policy.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
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

// The IPv4 address an IPv6 address carries, as IPv4-mapped IPv6, for the
// forms that reach an IPv4 host: IPv4-compatible (::a.b.c.d), IPv4-translated
// (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::/48).
// IPv4-mapped addresses are already held that way. False for the others.
bool EmbeddedIPv4(const Bytes& a, Bytes* out) {
  auto zero = [&](int from, int to) {
    for (int i = from; i < to; ++i)
      if (a[i] != 0) return false;
    return true;
  };
  int at = -1;
  if (zero(0, 12)) at = 12;                                                     // ::/96
  else if (zero(0, 8) && a[8] == 0xff && a[9] == 0xff && zero(10, 12)) at = 12;  // ::ffff:0:0/96
  else if (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b && zero(4, 12)) at = 12;
  else if (a[0] == 0x20 && a[1] == 0x02) at = 2;  // 2002::/16
  if (at < 0) return false;
  *out = {};
  (*out)[10] = (*out)[11] = 0xff;
  std::memcpy(out->data() + 12, a.data() + at, 4);
  return true;
}

// Whether `a` is an IPv4 address held as IPv4-mapped IPv6 (::ffff:a.b.c.d).
bool IsMappedIPv4(const Bytes& a) {
  for (int i = 0; i < 10; ++i)
    if (a[i] != 0) return false;
  return a[10] == 0xff && a[11] == 0xff;
}

// The ranges of IANA's special-purpose address registries (IPv4 and IPv6,
// as of 2025) that are not globally reachable, and the IPv6 space outside
// global unicast (2000::/3). The first range that holds an address names it
// in the refusal, so the narrower, better known ones come first. Two blocks
// are refused whole although the registry marks a few of their entries
// globally reachable: 192.0.0.0/24 and 2001::/23 (IETF protocol assignments:
// anycast service addresses such as PCP and TURN, AMT, AS112, ORCHIDv2,
// DETs; no bot's endpoint). Allowed: the rest, including AS112
// (192.31.196.0/24, 192.175.48.0/24, 2620:4f:8000::/48) and AMT
// (192.52.193.0/24), globally reachable by the registry.
const std::vector<AddressRange>& ForbiddenIPv4() {
  static const auto* ranges = [] {
    auto* r = new std::vector<AddressRange>;
    for (const char* cidr : {
             "0.0.0.0/8",        // "this network"
             "10.0.0.0/8",       // private
             "100.64.0.0/10",    // shared address space (carrier NAT; cloud metadata)
             "127.0.0.0/8",      // loopback
             "169.254.0.0/16",   // link-local (cloud metadata)
             "172.16.0.0/12",    // private
             "192.0.0.0/24",     // IETF protocol assignments
             "192.0.2.0/24",     // documentation (TEST-NET-1)
             "192.88.99.0/24",   // deprecated 6to4 relay anycast
             "192.168.0.0/16",   // private
             "198.18.0.0/15",    // benchmarking
             "198.51.100.0/24",  // documentation (TEST-NET-2)
             "203.0.113.0/24",   // documentation (TEST-NET-3)
             "224.0.0.0/3"}) {   // multicast, reserved (240/4), limited broadcast
      r->push_back(*ParseRange(cidr));
    }
    return r;
  }();
  return *ranges;
}

const std::vector<AddressRange>& ForbiddenIPv6() {
  static const auto* ranges = [] {
    auto* r = new std::vector<AddressRange>;
    for (const char* cidr : {
             "::/128",             // unspecified
             "::1/128",            // loopback
             // NAT64 for local use (RFC 8215; where the IPv4 part sits varies).
             "64:ff9b:1::/48",
             "::/8",               // reserved by the IETF (the forms carrying IPv4 are judged as IPv4)
             "100::/64",           // discard-only
             "100:0:0:1::/64",     // dummy prefix
             "2001::/32",          // Teredo (its IPv4 parts are obfuscated)
             "2001:2::/48",        // benchmarking
             "2001::/23",          // IETF protocol assignments
             "2001:db8::/32",      // documentation
             "3fff::/20",          // documentation
             "5f00::/16",          // segment routing (SRv6) SIDs
             "fc00::/7",           // unique local (private; cloud metadata)
             "fe80::/10",          // link-local
             "fec0::/10",          // site-local (deprecated; still routed inside some networks)
             "ff00::/8",           // multicast
             // Not global unicast: reserved by the IETF.
             "100::/8", "200::/7", "400::/6", "800::/5", "1000::/4", "4000::/2", "8000::/1"}) {
      r->push_back(*ParseRange(cidr));
    }
    return r;
  }();
  return *ranges;
}

bool AllDigits(absl::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

absl::StatusOr<HostPort> ParseEndpoint(absl::string_view endpoint) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("'", endpoint, "' is not HOST:PORT: ", why));
  };
  const size_t colon = endpoint.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) return bad("no host or no port");
  absl::string_view host = endpoint.substr(0, colon);
  const absl::string_view port = endpoint.substr(colon + 1);
  // Canonical decimal only: no sign, no leading zero, no spaces.
  int port_number = 0;
  if (!AllDigits(port) || port.size() > 5 || port.front() == '0' ||
      !absl::SimpleAtoi(port, &port_number) || port_number < 1 || port_number > 65535)
    return bad("the port must be a number 1-65535 written plainly");
  HostPort out;
  out.port = port_number;
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return bad("an unclosed [");
    host = host.substr(1, host.size() - 2);
    in6_addr v6;
    if (inet_pton(AF_INET6, std::string(host).c_str(), &v6) != 1)
      return bad("not an IPv6 address in [ ] (zones are not accepted)");
    out.host = std::string(host);
    return out;
  }
  if (host.find(':') != absl::string_view::npos) return bad("write an IPv6 address in [ ]");
  const std::string text(host);
  in_addr v4;
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    out.host = text;
    return out;
  }
  // Numbers the resolver would read as an address ("127.1", "0x7f000001",
  // "2130706433", "0177.0.0.1") but that are not dotted decimal.
  if (inet_aton(text.c_str(), &v4) != 0) return bad("write an IPv4 address as a.b.c.d");
  if (host.size() > 253) return bad("the host name is too long");
  std::vector<absl::string_view> labels = absl::StrSplit(host, '.');
  if (!labels.empty() && labels.back().empty() && labels.size() > 1) labels.pop_back();  // "name."
  for (absl::string_view label : labels) {
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-' ||
        !std::all_of(label.begin(), label.end(), [](char c) {
          return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-';
        }))
      return bad("a host name is letters, digits, '-' and '.'");
  }
  if (AllDigits(labels.back())) return bad("a host name does not end in a number");
  out.host = text;
  return out;
}

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
  // A v4-mapped v6 address is its v4 address (the ranges are stored that way);
  // an IPv6 form that carries an IPv4 address is judged as that IPv4 address.
  auto allowed = [&](const Bytes& b) {
    for (const AddressRange& range : allowed_)
      if (InRange(b, range)) return true;
    return false;
  };
  if (allowed(bytes)) return absl::OkStatus();
  Bytes v4;
  const bool carries_v4 = EmbeddedIPv4(bytes, &v4);
  if (carries_v4 && allowed(v4)) return absl::OkStatus();
  // An IPv4 address (and an IPv6 form that carries one) is judged by the
  // IPv4 ranges alone, any other IPv6 address by the IPv6 ranges.
  const bool is_v4 = carries_v4 || IsMappedIPv4(bytes);
  const Bytes& judged = carries_v4 ? v4 : bytes;
  const AddressRange* range = nullptr;
  for (const AddressRange& r : is_v4 ? ForbiddenIPv4() : ForbiddenIPv6()) {
    if (InRange(judged, r)) {
      range = &r;
      break;
    }
  }
  if (range == nullptr) return absl::OkStatus();
  std::string why = absl::StrCat(address);
  if (carries_v4) {
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, v4.data() + 12, text, sizeof text);
    why = absl::StrCat(address, ", which carries the IPv4 address ", text);
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "bot endpoints may not be in ", range->text, " (", why,
      "): addresses that are not globally reachable (loopback, private, link-local, "
      "metadata, documentation, benchmarking, reserved: IANA's special-purpose registries) "
      "are refused unless the operator allows the range (--allow_bot_ranges)"));
}

absl::StatusOr<ResolvedEndpoint> EndpointPolicy::Check(absl::string_view endpoint) const {
  ResolvedEndpoint out;
  if (!restrictive_) {  // everything allowed, unchecked (tests dial "inproc:NAME")
    out.target = std::string(endpoint);
    return out;
  }
  absl::StatusOr<HostPort> parsed = ParseEndpoint(endpoint);
  if (!parsed.ok()) return parsed.status();
  const std::string& host = parsed->host;
  const int port_number = parsed->port;
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
