#include "arena/server/admission.h"

#include <gtest/gtest.h>

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
    EXPECT_TRUE(a->Admit("10.0.0.7", "", Admission::Kind::kCall, nullptr, kT0).ok()) << i;
  absl::Duration retry;
  absl::Status s = a->Admit("10.0.0.7", "", Admission::Kind::kCall, &retry, kT0);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("10.0.0.7"), std::string::npos) << s;
  EXPECT_EQ(retry, absl::Seconds(1));  // half a second, rounded up
  // Another address is not affected.
  EXPECT_TRUE(a->Admit("10.0.0.8", "", Admission::Kind::kCall, nullptr, kT0).ok());
}

TEST(AdmissionTest, ATokenIsLimitedAcrossAddresses) {
  AdmissionOptions o;
  o.calls_per_second = 1;  // bursts of 2
  o.exempt_ranges = {};
  auto a = Make(o);
  EXPECT_TRUE(a->Admit("10.0.0.1", "tok", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_TRUE(a->Admit("10.0.0.2", "tok", Admission::Kind::kCall, nullptr, kT0).ok());
  absl::Status s = a->Admit("10.0.0.3", "tok", Admission::Kind::kCall, nullptr, kT0);
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
    EXPECT_TRUE(a->Admit("192.0.2.9", "", Admission::Kind::kRegistration, nullptr, kT0).ok());
  absl::Duration retry;
  absl::Status s = a->Admit("192.0.2.9", "", Admission::Kind::kRegistration, &retry, kT0);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("registrations"), std::string::npos) << s;
  EXPECT_EQ(retry, absl::Seconds(10));
  // Ordinary calls from that address still go through.
  EXPECT_TRUE(a->Admit("192.0.2.9", "", Admission::Kind::kCall, nullptr, kT0).ok());
  EXPECT_TRUE(
      a->Admit("192.0.2.9", "", Admission::Kind::kRegistration, nullptr, kT0 + absl::Seconds(10))
          .ok());
}

TEST(AdmissionTest, ExemptRangesAreNeverLimited) {
  AdmissionOptions o;
  o.calls_per_second = 1;
  o.registrations_per_minute = 1;
  auto a = Make(o);  // default: loopback exempt
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(a->Admit("127.0.0.1", "", Admission::Kind::kRegistration, nullptr, kT0).ok());
    EXPECT_TRUE(a->Admit("::1", "t", Admission::Kind::kCall, nullptr, kT0).ok());
  }
  EXPECT_FALSE(Admission::Create({.exempt_ranges = {"not-a-range"}}).ok());
}

TEST(AdmissionTest, ProxiedCallsAreNotExempt) {
  AdmissionOptions o;
  o.calls_per_second = 1;
  auto a = Make(o);  // default: loopback exempt
  // Behind a local reverse proxy every client is 127.0.0.1: limited then.
  EXPECT_TRUE(a->Admit("127.0.0.1", "", Admission::Kind::kCall, nullptr, kT0, true).ok());
  EXPECT_TRUE(a->Admit("127.0.0.1", "", Admission::Kind::kCall, nullptr, kT0, true).ok());
  EXPECT_FALSE(a->Admit("127.0.0.1", "", Admission::Kind::kCall, nullptr, kT0, true).ok());
  EXPECT_TRUE(a->Admit("127.0.0.1", "", Admission::Kind::kCall, nullptr, kT0).ok());
}

TEST(AdmissionTest, NoLimitMeansNoLimit) {
  AdmissionOptions o;
  o.calls_per_second = 0;
  o.registrations_per_minute = 0;
  o.exempt_ranges = {};
  auto a = Make(o);
  for (int i = 0; i < 1000; ++i)
    EXPECT_TRUE(a->Admit("10.0.0.7", "t", Admission::Kind::kRegistration, nullptr, kT0).ok());
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
