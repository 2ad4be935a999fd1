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

}  // namespace
}  // namespace tarock::net
