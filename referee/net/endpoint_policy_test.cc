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
  for (const char* allowed : {"8.8.8.8", "172.32.0.1", "192.169.0.1", "2001:db8::1", "1.1.1.1"})
    EXPECT_TRUE(policy->CheckAddress(allowed).ok()) << allowed;
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
  for (const char* fine : {"64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "2001:db8::1"})
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
