#include "arena/scheduler/bot_health.h"

#include <gtest/gtest.h>

namespace tarock::arena {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1000000);

TEST(BotHealth, AnUnreachableBotIsBenchedAndProbedWithBackoffUntilItAnswers) {
  BotHealth h;
  EXPECT_FALSE(h.Benched(7));
  EXPECT_EQ(h.Of(7).state, "online");
  h.MarkUnreachable(7, "seat 1 (ghost) at 127.0.0.1:9 is unreachable: connection refused", kT0);
  EXPECT_TRUE(h.Benched(7));
  EXPECT_EQ(h.Of(7).state, "unreachable");
  EXPECT_EQ(h.Of(7).since, kT0);
  EXPECT_TRUE(h.DueForProbe(kT0 + absl::Seconds(1)).empty());
  EXPECT_EQ(h.DueForProbe(kT0 + absl::Seconds(2)), std::vector<int64_t>{7});
  EXPECT_TRUE(h.DueForProbe(kT0 + absl::Seconds(3)).empty());  // its probe is in flight
  // A failed probe: the wait doubles (4 s), then 8 s, ... up to 5 minutes.
  h.OnProbe(7, absl::UnavailableError("connection refused"), kT0 + absl::Seconds(2));
  EXPECT_EQ(h.Of(7).retry_at, kT0 + absl::Seconds(6));
  EXPECT_EQ(h.Of(7).state, "unreachable");
  for (int i = 0; i < 20; ++i) h.OnProbe(7, absl::UnavailableError("refused"), kT0);
  EXPECT_EQ(h.Of(7).retry_at, kT0 + absl::Minutes(5));
  // It answers: online, and sits in ladders again.
  h.OnProbe(7, absl::OkStatus(), kT0 + absl::Seconds(9));
  EXPECT_FALSE(h.Benched(7));
  EXPECT_EQ(h.Of(7).state, "online");
  EXPECT_EQ(h.Of(7).last_error, "");
}

// A clean seat of a bot online already keeps the time it came online: its
// health_since is public, and a table's end is sealed with its deal.
TEST(BotHealth, ACleanSeatOfAnOnlineBotKeepsItsSince) {
  BotHealth h;
  h.MarkUnreachable(5, "seat 0 (b) at 127.0.0.1:9 is unreachable: refused", kT0);
  h.OnProbe(5, absl::OkStatus(), kT0 + absl::Seconds(2));
  EXPECT_EQ(h.Of(5).since, kT0 + absl::Seconds(2));
  h.OnSeatFinished(5, false, 0, kT0 + absl::Seconds(30));
  EXPECT_EQ(h.Of(5).state, "online");
  EXPECT_EQ(h.Of(5).since, kT0 + absl::Seconds(2));
  h.OnSeatFinished(6, false, 0, kT0 + absl::Seconds(30));  // never benched: no since
  EXPECT_EQ(h.Of(6).since, absl::InfinitePast());
}

TEST(BotHealth, ASilentSeatMakesTheBotUnresponsiveAndACleanMatchMakesItOnline) {
  BotHealth h;
  h.OnSeatFinished(3, false, 2, kT0);  // two timeouts: not enough
  EXPECT_FALSE(h.Benched(3));
  h.OnSeatFinished(3, false, 3, kT0);
  EXPECT_TRUE(h.Benched(3));
  EXPECT_EQ(h.Of(3).state, "unresponsive");
  h.OnSeatFinished(4, true, 0, kT0);  // forfeited
  EXPECT_EQ(h.Of(4).state, "unresponsive");
  // A failed probe keeps the state it was benched with.
  h.OnProbe(3, absl::UnavailableError("no health answer"), kT0);
  EXPECT_EQ(h.Of(3).state, "unresponsive");
  h.OnSeatFinished(3, false, 0, kT0 + absl::Minutes(1));
  EXPECT_EQ(h.Of(3).state, "online");
}

// A benched bot's clean seat at a table whose deal another table still
// plays leaves it benched (its page turning online would tell when that
// table ended); a probe brings it back.
TEST(BotHealth, ACleanSeatAtASealedTableLeavesABenchedBotBenched) {
  BotHealth h;
  h.OnSeatFinished(3, true, 0, kT0);  // forfeited at one table of the deal
  ASSERT_TRUE(h.Benched(3));
  h.OnSeatFinished(3, false, 0, kT0 + absl::Seconds(5), /*sealed=*/true);
  EXPECT_TRUE(h.Benched(3));
  EXPECT_EQ(h.Of(3).since, kT0);
  h.OnProbe(3, absl::OkStatus(), kT0 + absl::Seconds(9));
  EXPECT_EQ(h.Of(3).state, "online");
  EXPECT_EQ(h.Of(3).since, kT0 + absl::Seconds(9));
  // An online bot's clean sealed seat changes nothing either.
  h.OnSeatFinished(3, false, 0, kT0 + absl::Seconds(20), /*sealed=*/true);
  EXPECT_EQ(h.Of(3).since, kT0 + absl::Seconds(9));
}

TEST(BotHealth, TheRefereesUnreachableSeatIsRead) {
  EXPECT_EQ(UnreachableSeat(absl::FailedPreconditionError(
                "seat 2 (ghost) at 127.0.0.1:9 is unreachable: connection refused")),
            2);
  EXPECT_EQ(UnreachableSeat(absl::FailedPreconditionError("seat x (ghost) is unreachable")),
            std::nullopt);
  EXPECT_EQ(UnreachableSeat(absl::UnavailableError("referee down")), std::nullopt);
  EXPECT_EQ(UnreachableSeat(absl::FailedPreconditionError("seat 1 (a) timed out")), std::nullopt);
}

}  // namespace
}  // namespace tarock::arena
