#include "referee/net/endpoint_policy.h"

#include <gtest/gtest.h>

namespace tarock::net {
namespace {

TEST(EndpointPolicyTest, DefaultAllowsEverythingUnresolved) {
  EndpointPolicy policy;
  EXPECT_TRUE(policy.allows_everything());
  absl::StatusOr<ResolvedEndpoint> r = policy.Check("127.0.0.1:7801");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->target, "127.0.0.1:7801");
}

TEST(EndpointPolicyTest, RefusesSpecialRanges) {
  absl::StatusOr<EndpointPolicy> policy = EndpointPolicy::Restrictive({});
  ASSERT_TRUE(policy.ok());
  for (const char* refused :
       {"127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "169.254.169.254", "100.100.100.200", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1",
        "::", "fe80::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"}) {
    absl::Status s = policy->CheckAddress(refused);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << refused;
    EXPECT_NE(s.message().find("--allow_bot_ranges"), absl::string_view::npos) << s;
  }
  for (const char* allowed : {"8.8.8.8", "172.32.0.1", "192.169.0.1", "2606:4700:4700::1111", "1.1.1.1"})
    EXPECT_TRUE(policy->CheckAddress(allowed).ok()) << allowed;
}

// Issue 44 (the review of 2026-11-29): every entry of IANA's special-purpose
// address registries (IPv4 and IPv6, as of 2025; iana.org/assignments/
// iana-ipv4-special-registry and iana-ipv6-special-registry), each with an
// address at its start and at its end, against the policy: refused when the
// registry says the range is not globally reachable (False or N/A), and the
// whole IETF protocol assignment blocks 192.0.0.0/24 and 2001::/23 although a
// few anycast entries in them are (no bot is an anycast service). IPv6
// outside global unicast (2000::/3) is reserved, refused too.
TEST(EndpointPolicyTest, EveryEntryOfTheSpecialPurposeRegistries) {
  absl::StatusOr<EndpointPolicy> policy = EndpointPolicy::Restrictive({});
  ASSERT_TRUE(policy.ok());
  struct Entry {
    const char* range;
    const char* first;
    const char* last;
    bool refused;
  };
  const Entry entries[] = {
      // IPv4 special-purpose registry.
      {"0.0.0.0/8 this network", "0.0.0.0", "0.255.255.255", true},
      {"10.0.0.0/8 private", "10.0.0.0", "10.255.255.255", true},
      {"100.64.0.0/10 shared", "100.64.0.0", "100.127.255.255", true},
      {"127.0.0.0/8 loopback", "127.0.0.0", "127.255.255.255", true},
      {"169.254.0.0/16 link-local", "169.254.0.0", "169.254.255.255", true},
      {"172.16.0.0/12 private", "172.16.0.0", "172.31.255.255", true},
      {"192.0.0.0/24 IETF protocol assignments", "192.0.0.0", "192.0.0.255", true},
      {"192.0.0.0/29 IPv4 service continuity", "192.0.0.0", "192.0.0.7", true},
      {"192.0.0.8/32 dummy", "192.0.0.8", "192.0.0.8", true},
      {"192.0.0.9/32 PCP anycast (reachable; its block refused)", "192.0.0.9", "192.0.0.9", true},
      {"192.0.0.10/32 TURN anycast (reachable; its block refused)", "192.0.0.10", "192.0.0.10", true},
      {"192.0.0.170/32 NAT64 discovery", "192.0.0.170", "192.0.0.171", true},
      {"192.0.2.0/24 documentation", "192.0.2.0", "192.0.2.255", true},
      {"192.31.196.0/24 AS112 (reachable)", "192.31.196.0", "192.31.196.255", false},
      {"192.52.193.0/24 AMT (reachable)", "192.52.193.0", "192.52.193.255", false},
      {"192.88.99.0/24 deprecated 6to4 relay anycast", "192.88.99.0", "192.88.99.255", true},
      {"192.168.0.0/16 private", "192.168.0.0", "192.168.255.255", true},
      {"192.175.48.0/24 AS112 direct delegation (reachable)", "192.175.48.0", "192.175.48.255", false},
      {"198.18.0.0/15 benchmarking", "198.18.0.0", "198.19.255.255", true},
      {"198.51.100.0/24 documentation", "198.51.100.0", "198.51.100.255", true},
      {"203.0.113.0/24 documentation", "203.0.113.0", "203.0.113.255", true},
      {"240.0.0.0/4 reserved", "240.0.0.0", "255.255.255.254", true},
      {"255.255.255.255/32 limited broadcast", "255.255.255.255", "255.255.255.255", true},
      {"224.0.0.0/4 multicast (not in the registry)", "224.0.0.0", "239.255.255.255", true},
      // IPv6 special-purpose registry.
      {"::1/128 loopback", "::1", "::1", true},
      {"::/128 unspecified", "::", "::", true},
      {"::ffff:0:0/96 IPv4-mapped (as IPv4)", "::ffff:10.0.0.1", "::ffff:192.0.2.1", true},
      {"64:ff9b::/96 NAT64 (reachable; as IPv4)", "64:ff9b::808:808", "64:ff9b::101:101", false},
      {"64:ff9b::/96 NAT64 of a documentation address", "64:ff9b::c000:201", "64:ff9b::cb00:71ff", true},
      {"64:ff9b:1::/48 local NAT64", "64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", true},
      {"100::/64 discard-only", "100::", "100::ffff:ffff:ffff:ffff", true},
      {"100:0:0:1::/64 dummy", "100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff", true},
      {"2001::/23 IETF protocol assignments", "2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", true},
      {"2001::/32 Teredo", "2001::", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", true},
      {"2001:1::1/128 PCP anycast (reachable; its block refused)", "2001:1::1", "2001:1::1", true},
      {"2001:1::2/128 TURN anycast (reachable; its block refused)", "2001:1::2", "2001:1::2", true},
      {"2001:1::3/128 DNS-SD SRP anycast (reachable; its block refused)", "2001:1::3", "2001:1::3", true},
      {"2001:2::/48 benchmarking", "2001:2::", "2001:2:0:ffff:ffff:ffff:ffff:ffff", true},
      {"2001:3::/32 AMT (reachable; its block refused)", "2001:3::", "2001:3:ffff::1", true},
      {"2001:4:112::/48 AS112-v6 (reachable; its block refused)", "2001:4:112::", "2001:4:112::1", true},
      {"2001:10::/28 deprecated ORCHID", "2001:10::", "2001:1f:ffff::1", true},
      {"2001:20::/28 ORCHIDv2 (reachable; its block refused)", "2001:20::", "2001:2f:ffff::1", true},
      {"2001:30::/28 DETs (reachable; its block refused)", "2001:30::", "2001:3f:ffff::1", true},
      {"2001:db8::/32 documentation", "2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true},
      {"2002::/16 6to4 (as its IPv4 address)", "2002:a00:1::", "2002:c000:201::1", true},
      {"2002::/16 6to4 of a public address", "2002:808:808::1", "2002:101:101::1", false},
      {"2620:4f:8000::/48 AS112 direct delegation (reachable)", "2620:4f:8000::", "2620:4f:8000::1", false},
      {"3fff::/20 documentation", "3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", true},
      {"5f00::/16 SRv6 SIDs", "5f00::", "5f00:ffff::1", true},
      {"fc00::/7 unique local", "fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
      {"fe80::/10 link-local", "fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
      // IPv6 address space registry: only 2000::/3 is global unicast.
      {"fec0::/10 site-local (deprecated)", "fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
      {"ff00::/8 multicast", "ff00::", "ff02::1", true},
      {"::/8 reserved", "1::", "ff:ffff::1", true},
      {"100::/8 reserved", "100:1::", "1ff::1", true},
      {"200::/7 .. 1000::/4 reserved", "200::", "1fff:ffff::1", true},
      {"4000::/3 .. f800::/6 reserved", "4000::", "fbff::1", true},
      {"2000::/3 global unicast", "2a00:1450:4001::1", "2606:4700:4700::1111", false},
  };
  for (const Entry& e : entries) {
    for (const char* address : {e.first, e.last}) {
      absl::Status s = policy->CheckAddress(address);
      if (e.refused) {
        EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << e.range << ": " << address;
        EXPECT_NE(s.message().find("--allow_bot_ranges"), absl::string_view::npos) << s;
      } else {
        EXPECT_TRUE(s.ok()) << e.range << ": " << address << ": " << s;
      }
    }
  }
  // The refusal names the range; the operator can allow any of them.
  EXPECT_NE(policy->CheckAddress("fec0::1").message().find("fec0::/10"), absl::string_view::npos);
  EXPECT_NE(policy->CheckAddress("2001:db8::1").message().find("2001:db8::/32"), absl::string_view::npos);
  EXPECT_NE(policy->CheckAddress("100::1").message().find("100::/64"), absl::string_view::npos);
  EXPECT_NE(policy->CheckAddress("2001:2::1").message().find("2001:2::/48"), absl::string_view::npos);
  absl::StatusOr<EndpointPolicy> lab =
      EndpointPolicy::Restrictive({"fec0::/10", "198.18.0.0/15", "2001:db8::/32"});
  ASSERT_TRUE(lab.ok());
  for (const char* address : {"fec0::1", "198.18.0.1", "2001:db8::1", "::ffff:198.18.0.1"})
    EXPECT_TRUE(lab->CheckAddress(address).ok()) << address;
  EXPECT_FALSE(lab->CheckAddress("192.0.2.1").ok());
}

TEST(EndpointPolicyTest, OperatorAllowsRanges) {
  absl::StatusOr<EndpointPolicy> policy =
      EndpointPolicy::Restrictive({"127.0.0.0/8", "10.99.0.0/16", "fd00::/8"});
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_TRUE(policy->CheckAddress("127.0.0.1").ok());
  EXPECT_TRUE(policy->CheckAddress("::ffff:127.0.0.1").ok());
  EXPECT_TRUE(policy->CheckAddress("10.99.3.4").ok());
  EXPECT_FALSE(policy->CheckAddress("10.98.3.4").ok());
  EXPECT_TRUE(policy->CheckAddress("fd12::1").ok());
  EXPECT_FALSE(policy->CheckAddress("169.254.169.254").ok());
  EXPECT_FALSE(EndpointPolicy::Restrictive({"10.0.0.0/33"}).ok());
  EXPECT_FALSE(EndpointPolicy::Restrictive({"ten/8"}).ok());
}

TEST(EndpointPolicyTest, ResolvesNamesAndDialsTheCheckedAddress) {
  absl::StatusOr<EndpointPolicy> strict = EndpointPolicy::Restrictive({});
  ASSERT_TRUE(strict.ok());
  // localhost resolves to loopback: refused, whatever else it resolves to.
  EXPECT_EQ(strict->Check("localhost:7801").status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(strict->Check("[::1]:7801").status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(strict->Check("no-port").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(strict->Check("host:99999").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(strict->Check("no-such-host.invalid:7801").status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<EndpointPolicy> loopback = EndpointPolicy::Restrictive({"127.0.0.0/8", "::1"});
  ASSERT_TRUE(loopback.ok());
  absl::StatusOr<ResolvedEndpoint> r = loopback->Check("127.0.0.1:7801");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->target, "ipv4:127.0.0.1:7801");
  EXPECT_EQ(r->host, "127.0.0.1");
  r = loopback->Check("[::1]:7801");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->target, "ipv6:[::1]:7801");
}

// Issue 29: IPv6 forms that carry an IPv4 address are judged as that address.
TEST(EndpointPolicyTest, IPv6FormsCarryingIPv4AreJudgedAsIPv4) {
  absl::StatusOr<EndpointPolicy> strict = EndpointPolicy::Restrictive({});
  ASSERT_TRUE(strict.ok());
  for (const char* endpoint :
       {"[64:ff9b::a9fe:a9fe]:80", "[::a9fe:a9fe]:80", "[2002:a9fe:a9fe::1]:80",
        "[::ffff:0:a9fe:a9fe]:80", "[::7f00:1]:80", "[::ffff:7f00:1]:80", "[64:ff9b::a00:1]:80",
        "[2002:c0a8:101::5]:80", "[64:ff9b:1::a9fe:a9fe]:80", "[2001:0:4136:e378::1]:80"}) {
    absl::StatusOr<ResolvedEndpoint> r = strict->Check(endpoint);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kPermissionDenied) << endpoint;
  }
  absl::Status s = strict->CheckAddress("64:ff9b::a9fe:a9fe");
  EXPECT_NE(s.message().find("169.254.169.254"), absl::string_view::npos) << s;
  // The same forms of a public IPv4 address are fine (NAT64 is how IPv6-only
  // networks reach IPv4 hosts).
  for (const char* fine : {"64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "2a00:1450:4001::1"})
    EXPECT_TRUE(strict->CheckAddress(fine).ok()) << fine;
  // An operator's allowed IPv4 range covers them too.
  absl::StatusOr<EndpointPolicy> lab = EndpointPolicy::Restrictive({"10.0.0.0/8"});
  ASSERT_TRUE(lab.ok());
  EXPECT_TRUE(lab->CheckAddress("64:ff9b::a00:1").ok());
  EXPECT_FALSE(lab->CheckAddress("64:ff9b::a9fe:a9fe").ok());
}

TEST(EndpointPolicyTest, EndpointsAreParsedStrictly) {
  for (const char* bad :
       {"8.8.8.8:+36641", "8.8.8.8:036641", "8.8.8.8: 36641", "8.8.8.8:36641 ", " 8.8.8.8:1",
        "8.8.8.8:0", "8.8.8.8:65536", "8.8.8.8:", ":80", "8.8.8.8:-1", "8.8.8.8:1e3",
        "8.8.8.8:0x50", "[::1:80", "::1:80", "[fe80::1%eth0]:80", "[nothing]:80", "127.1:80",
        "0x7f000001:80", "2130706433:80", "0177.0.0.1:80", "host name:80", "a..b:80",
        "-a.example:80", "name.123:80", "a_b.example:80"}) {
    EXPECT_EQ(ParseEndpoint(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  struct Good {
    const char* text;
    const char* host;
    int port;
  };
  for (const Good& g : {Good{"8.8.8.8:36641", "8.8.8.8", 36641}, Good{"[2001:db8::1]:1", "2001:db8::1", 1},
                        Good{"bots.example.org:65535", "bots.example.org", 65535},
                        Good{"bot-1:7801", "bot-1", 7801}, Good{"example.org.:80", "example.org.", 80}}) {
    absl::StatusOr<HostPort> p = ParseEndpoint(g.text);
    ASSERT_TRUE(p.ok()) << g.text << ": " << p.status();
    EXPECT_EQ(p->host, g.host);
    EXPECT_EQ(p->port, g.port);
  }
  absl::StatusOr<EndpointPolicy> strict = EndpointPolicy::Restrictive({});
  ASSERT_TRUE(strict.ok());
  EXPECT_EQ(strict->Check("8.8.8.8:+36641").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(strict->Check("127.1:80").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tarock::net
