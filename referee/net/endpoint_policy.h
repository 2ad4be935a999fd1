// Which addresses the arena's referees may dial for a bot: the defence
// against server-side request forgery. Anyone who can register a bot names an
// endpoint that a referee then connects to; without a policy that could be a
// cloud metadata service (169.254.169.254), the operator's own loopback
// services or the private network behind the referee.
//
// A restrictive policy refuses every address that is not globally reachable
// unless the operator allows its range (--allow_bot_ranges=CIDR,...): every
// entry of IANA's IPv4 and IPv6 special-purpose address registries whose
// "globally reachable" is False or N/A, and all IPv6 outside global unicast
// (2000::/3):
//   IPv4: 0.0.0.0/8, 10.0.0.0/8, 100.64.0.0/10 (shared, cloud metadata),
//         127.0.0.0/8, 169.254.0.0/16 (link-local, metadata), 172.16.0.0/12,
//         192.0.0.0/24 (IETF protocol assignments, whole), 192.0.2.0/24,
//         198.51.100.0/24, 203.0.113.0/24 (documentation), 192.88.99.0/24
//         (6to4 relays), 192.168.0.0/16, 198.18.0.0/15 (benchmarking),
//         224.0.0.0/3 (multicast, reserved, broadcast)
//   IPv6: ::/128, ::1/128, the rest of ::/8, 100::/64 (discard) and the rest
//         of 100::/8, 64:ff9b:1::/48 (local NAT64), 2001::/23 (IETF protocol
//         assignments, whole: Teredo 2001::/32, benchmarking 2001:2::/48, ...),
//         2001:db8::/32 and 3fff::/20 (documentation), 5f00::/16 (SRv6),
//         fc00::/7 (unique local, metadata), fe80::/10, fec0::/10 (site-local),
//         ff00::/8, and 200::/7 ... 1000::/4, 4000::/2, 8000::/1 (reserved);
//         the forms that carry an IPv4 address (IPv4-mapped ::ffff:0:0/96,
//         IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96, NAT64
//         64:ff9b::/96, 6to4 2002::/16) are judged as that IPv4 address.
// (The test EndpointPolicyTest.EveryEntryOfTheSpecialPurposeRegistries lists
// each registry entry with what the policy does with it.)
// A name is resolved and refused if ANY of its addresses is refused (a name
// that resolves to a public and a private address is how DNS rebinding
// attacks look). The arena checks at registration; the referee checks again
// when it dials and then dials the address it checked, not the name, so a
// name that changes in between cannot slip through.
//
// Thread-safety: immutable after construction; thread-safe.

#ifndef TAROCK_REFEREE_NET_ENDPOINT_POLICY_H_
#define TAROCK_REFEREE_NET_ENDPOINT_POLICY_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tarock::net {

// An IPv6 range (IPv4 addresses are held as IPv4-mapped IPv6).
struct AddressRange {
  std::array<uint8_t, 16> prefix{};
  int bits = 0;
  std::string text;  // as written
};

// "10.0.0.0/8", "fd00::/8", "127.0.0.1" (a single address). Errors:
// INVALID_ARGUMENT naming the text.
absl::StatusOr<AddressRange> ParseRange(absl::string_view cidr);

// Whether the numeric address (IPv4 or IPv6, no port) is in `range`; false
// for text that is not an address.
bool RangeContains(const AddressRange& range, absl::string_view address);

// HOST:PORT, strictly: HOST is a dotted-decimal IPv4 address, an IPv6
// address in [ ] (no zone), or a DNS name (letters, digits, '-', '.'; not
// ending in a number, so "127.1" or "0x7f000001" are no names); PORT is
// canonical decimal 1-65535 (no sign, no leading zero, no spaces). The one
// place endpoints of bots are parsed. Errors: INVALID_ARGUMENT saying why.
struct HostPort {
  std::string host;  // without the [ ]
  int port = 0;
};
absl::StatusOr<HostPort> ParseEndpoint(absl::string_view endpoint);

struct ResolvedEndpoint {
  std::string host;    // as given
  std::string target;  // what to dial: "ipv4:1.2.3.4:7801" or "ipv6:[2001:db8::1]:7801"
};

class EndpointPolicy {
 public:
  // Allows everything (tests of the scheduler, `tarock match`).
  EndpointPolicy() = default;
  // Refuses the special-purpose ranges except those in `allowed`.
  static absl::StatusOr<EndpointPolicy> Restrictive(const std::vector<std::string>& allowed);
  // The policy of a process by where it listens: Restrictive(allowed), and a
  // process listening on loopback (development, tests) also allows loopback.
  static absl::StatusOr<EndpointPolicy> ForListener(std::vector<std::string> allowed,
                                                    bool listens_on_loopback);

  bool allows_everything() const { return !restrictive_; }

  // Resolves HOST:PORT and checks every address. Errors: INVALID_ARGUMENT for
  // a malformed endpoint or a host that does not resolve, PERMISSION_DENIED
  // for a refused address (the message names it and the flag that allows
  // it). A policy that allows everything returns the endpoint unresolved.
  absl::StatusOr<ResolvedEndpoint> Check(absl::string_view endpoint) const;

  // The refusal of one address, or OK. `address` is numeric.
  absl::Status CheckAddress(absl::string_view address) const;

 private:
  bool restrictive_ = false;
  std::vector<AddressRange> allowed_;
};

}  // namespace tarock::net

#endif  // TAROCK_REFEREE_NET_ENDPOINT_POLICY_H_
