#include "arena/scheduler/referee_resolver.h"

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tarock::arena {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A resolver answering from a table the test changes; absent names fail.
struct FakeDns {
  std::map<std::string, std::vector<std::string>> table;
  int lookups = 0;
  HostResolver resolver() {
    return [this](const std::string& host) -> absl::StatusOr<std::vector<std::string>> {
      ++lookups;
      auto it = table.find(host);
      if (it == table.end()) return absl::UnavailableError("SERVFAIL");
      return it->second;
    };
  }
};

TEST(RefereeResolverTest, PlainEntriesPassUnchangedAndNeedNoLookup) {
  FakeDns dns;
  auto r = RefereeResolver::Create({"127.0.0.1:7701", "referee-b:7702", "127.0.0.1:7701"},
                                   dns.resolver());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->has_names());
  EXPECT_THAT(r->Resolve(), ElementsAre("127.0.0.1:7701", "referee-b:7702"));
  EXPECT_EQ(dns.lookups, 0);
}

TEST(RefereeResolverTest, ANameStandsForAllItsAddressesSortedWithThePort) {
  FakeDns dns;
  dns.table["referee.example"] = {"10.0.0.3", "10.0.0.2", "fd00::7"};
  auto r = RefereeResolver::Create({"dns:///referee.example:7701", "127.0.0.1:7800"}, dns.resolver());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->has_names());
  EXPECT_THAT(r->Resolve(),
              ElementsAre("127.0.0.1:7800", "10.0.0.2:7701", "10.0.0.3:7701", "[fd00::7]:7701"));
}

TEST(RefereeResolverTest, ThePoolFollowsTheNameAndKeepsItWhenALookupFails) {
  FakeDns dns;
  dns.table["ref"] = {"10.0.0.2"};
  auto r = RefereeResolver::Create({"dns:ref:1"}, dns.resolver());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->Resolve(), ElementsAre("10.0.0.2:1"));
  dns.table["ref"] = {"10.0.0.2", "10.0.0.4"};  // scaled up
  EXPECT_THAT(r->Resolve(), ElementsAre("10.0.0.2:1", "10.0.0.4:1"));
  dns.table.erase("ref");  // the DNS server fails: keep what we had, say so
  std::vector<std::string> errors;
  EXPECT_THAT(r->Resolve(&errors), ElementsAre("10.0.0.2:1", "10.0.0.4:1"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("SERVFAIL"));
  dns.table["ref"] = {"10.0.0.4"};  // scaled down
  EXPECT_THAT(r->Resolve(), ElementsAre("10.0.0.4:1"));
  dns.table["ref"] = {};  // no ready referee: an empty pool, not an error
  errors.clear();
  EXPECT_THAT(r->Resolve(&errors), IsEmpty());
  EXPECT_THAT(errors, IsEmpty());
}

TEST(RefereeResolverTest, AddressesOfSeveralNamesAndPlainEntriesAreNotRepeated) {
  FakeDns dns;
  dns.table["a"] = {"10.0.0.2"};
  dns.table["b"] = {"10.0.0.2", "10.0.0.3"};
  auto r = RefereeResolver::Create({"10.0.0.3:1", "dns:///a:1", "dns:///b:1"}, dns.resolver());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->Resolve(), ElementsAre("10.0.0.3:1", "10.0.0.2:1"));
}

TEST(RefereeResolverTest, MalformedNamesAreRefusedNamingTheEntry) {
  for (const char* bad : {"dns:///ref", "dns:///ref:", "dns:///ref:0", "dns:///ref:70000",
                          "dns:///:7701", "dns://8.8.8.8/ref:7701", "dns:///ref:port"}) {
    auto r = RefereeResolver::Create({bad}, FakeDns().resolver());
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr(bad));
  }
}

TEST(RefereeResolverTest, TheSystemResolverFindsLoopbackAndNothingForAnUnknownName) {
  absl::StatusOr<std::vector<std::string>> local = ResolveHostSystem("127.0.0.1");
  ASSERT_TRUE(local.ok()) << local.status();
  EXPECT_THAT(*local, ElementsAre("127.0.0.1"));
  absl::StatusOr<std::vector<std::string>> none = ResolveHostSystem("no-such-host.invalid");
  // NXDOMAIN is an empty answer; a machine without any DNS may fail instead.
  if (none.ok()) {
    EXPECT_THAT(*none, IsEmpty());
  }
}

}  // namespace
}  // namespace tarock::arena
