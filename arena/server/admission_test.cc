#include "arena/server/admission.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace tarock::arena {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(2000000);

std::unique_ptr<Admission> Make(AdmissionOptions o) {
  absl::StatusOr<std::unique_ptr<Admission>> a = Admission::Create(o);
  EXPECT_TRUE(a.ok()) << a.status();
  return std::move(*a);
}

TEST(AdmissionTest, CallsPerAddressThenRetryAfter) {
  AdmissionOptions o;
  o.calls_per_second = 2;  // bursts of 4
  o.exempt_ranges = {};
  auto a = Make(o);
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(a->Admit("10.0.0.7", false, "", Admission::Kind::kCall, nullptr, kT0).ok()) << i;
  absl::Duration retry;
  absl::Status s = a->Admit("10.0.0.7", false, "", Admission::Kind::kCall, &retry, kT0);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("10.0.0.7"), std::string::npos) << s;
  EXPECT_EQ(retry, absl::Seconds(1));  // half a second, rounded up
  // Another address is not affected.
  EXPECT_TRUE(a->Admit("10.0.0.8", false, "", Admission::Kind::kCall, nullptr, kT0).ok());
}

TEST(AdmissionTest, ATokenIsLimitedAcrossAddresses) {
  AdmissionOptions o;
  o.calls_per_second = 1;  // bursts of 2
  o.exempt_ranges = {};
  auto a = Make(o);
  EXPECT_TRUE(a->Admit("10.0.0.1", false, "tok", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_TRUE(a->Admit("10.0.0.2", false, "tok", Admission::Kind::kCall, nullptr, kT0).ok());
  absl::Status s = a->Admit("10.0.0.3", false, "tok", Admission::Kind::kCall, nullptr, kT0);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("this token"), std::string::npos) << s;
  EXPECT_EQ(s.message().find("tok"), s.message().find("token"));  // the token is not shown
}

TEST(AdmissionTest, RegistrationsHaveTheirOwnStricterLimit) {
  AdmissionOptions o;
  o.registrations_per_minute = 6;  // bursts of 5, then one every 10 s
  o.exempt_ranges = {};
  auto a = Make(o);
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(a->Admit("192.0.2.9", false, "", Admission::Kind::kRegistration, nullptr, kT0).ok());
  absl::Duration retry;
  absl::Status s = a->Admit("192.0.2.9", false, "", Admission::Kind::kRegistration, &retry, kT0);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("registrations"), std::string::npos) << s;
  EXPECT_EQ(retry, absl::Seconds(10));
  // Ordinary calls from that address still go through.
  EXPECT_TRUE(a->Admit("192.0.2.9", false, "", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_TRUE(
      a->Admit("192.0.2.9", false, "", Admission::Kind::kRegistration, nullptr, kT0 + absl::Seconds(10))
          .ok());
}

TEST(AdmissionTest, ExemptRangesAreNeverLimited) {
  AdmissionOptions o;
  o.calls_per_second = 1;
  o.registrations_per_minute = 1;
  auto a = Make(o);  // default: loopback exempt
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(a->Admit("127.0.0.1", false, "", Admission::Kind::kRegistration, nullptr, kT0).ok());
    EXPECT_TRUE(a->Admit("::1", false, "t", Admission::Kind::kCall, nullptr, kT0).ok());
  }
  EXPECT_FALSE(Admission::Create({.exempt_ranges = {"not-a-range"}}).ok());
}

TEST(AdmissionTest, NoLimitMeansNoLimit) {
  AdmissionOptions o;
  o.calls_per_second = 0;
  o.registrations_per_minute = 0;
  o.prefix_calls_per_second = 0;
  o.prefix_registrations_per_minute = 0;
  o.exempt_ranges = {};
  auto a = Make(o);
  for (int i = 0; i < 1000; ++i)
    EXPECT_TRUE(a->Admit("10.0.0.7", false, "t", Admission::Kind::kRegistration, nullptr, kT0).ok());
}

// Issue 29: ten addresses of one network do not get ten budgets, and an
// IPv6 /64 is one client.
TEST(AdmissionTest, AddressesOfOneNetworkShareThePrefixBudget) {
  AdmissionOptions o;
  o.calls_per_second = 100;
  o.prefix_calls_per_second = 2;  // bursts of 4 per /24 or /64
  o.exempt_ranges = {};
  auto a = Make(o);
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(a->Admit(absl::StrCat("198.51.100.", i + 1), false, "", Admission::Kind::kCall,
                         nullptr, kT0).ok()) << i;
  absl::Status s = a->Admit("198.51.100.77", false, "", Admission::Kind::kCall, nullptr, kT0);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("198.51.100.0/24"), std::string::npos) << s;
  EXPECT_TRUE(a->Admit("198.51.101.1", false, "", Admission::Kind::kCall, nullptr, kT0).ok());
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(a->Admit(absl::StrCat("2001:db8:5:6::", i + 1), false, "",
                         Admission::Kind::kCall, nullptr, kT0).ok()) << i;
  s = a->Admit("2001:db8:5:6:ffff::9", false, "", Admission::Kind::kCall, nullptr, kT0);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("2001:db8:5:6::/64"), std::string::npos) << s;
  EXPECT_TRUE(a->Admit("2001:db8:5:7::1", false, "", Admission::Kind::kCall, nullptr, kT0).ok());

  // Registrations too.
  o.prefix_registrations_per_minute = 6;  // bursts of 15
  o.registrations_per_minute = 60;
  o.prefix_calls_per_second = 100;
  auto r = Make(o);
  for (int i = 0; i < 15; ++i)
    EXPECT_TRUE(r->Admit(absl::StrCat("203.0.113.", i), false, "", Admission::Kind::kRegistration,
                         nullptr, kT0).ok()) << i;
  s = r->Admit("203.0.113.200", false, "", Admission::Kind::kRegistration, nullptr, kT0);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("registrations"), std::string::npos) << s;
}

TEST(AdmissionTest, ARefusalByALaterLimitUsesUpNothing) {
  AdmissionOptions o;
  o.calls_per_second = 1;  // bursts of 2 per address
  o.prefix_calls_per_second = 100;
  o.exempt_ranges = {};
  auto a = Make(o);
  // The token's budget (2) runs out; the address's budget must not go with it.
  EXPECT_TRUE(a->Admit("10.9.0.1", false, "tok", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_TRUE(a->Admit("10.9.0.2", false, "tok", Admission::Kind::kCall, nullptr, kT0).ok());
  for (int i = 0; i < 5; ++i)
    EXPECT_FALSE(a->Admit("10.9.0.3", false, "tok", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_TRUE(a->Admit("10.9.0.3", false, "", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_TRUE(a->Admit("10.9.0.3", false, "", Admission::Kind::kCall, nullptr, kT0).ok());
}

// Behind a local reverse proxy every client is loopback: the exemption only
// holds for requests that did not come through a proxy.
TEST(AdmissionTest, LoopbackIsExemptOnlyWhenNotProxied) {
  AdmissionOptions o;
  o.calls_per_second = 1;  // bursts of 2
  auto a = Make(o);        // default: loopback exempt
  for (int i = 0; i < 10; ++i)
    EXPECT_TRUE(a->Admit("127.0.0.1", false, "", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_TRUE(a->Admit("127.0.0.1", true, "", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_TRUE(a->Admit("127.0.0.1", true, "", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_EQ(a->Admit("127.0.0.1", true, "", Admission::Kind::kCall, nullptr, kT0).code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(AdmissionTest, AddressesOfGrpcPeers) {
  EXPECT_EQ(Admission::AddressOfGrpcPeer("ipv4:10.0.0.7:5123"), "10.0.0.7");
  EXPECT_EQ(Admission::AddressOfGrpcPeer("ipv6:[::1]:5123"), "::1");
  EXPECT_EQ(Admission::AddressOfGrpcPeer("ipv6:%5B2001:db8::1%5D:80"), "2001:db8::1");
  EXPECT_EQ(Admission::AddressOfGrpcPeer("ipv6:[fe80::1%25eth0]:80"), "fe80::1");
  EXPECT_EQ(Admission::AddressOfGrpcPeer("unix:/tmp/s"), "");
}

}  // namespace
}  // namespace tarock::arena
