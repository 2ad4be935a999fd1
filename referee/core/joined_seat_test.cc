#include "referee/core/joined_seat.h"

#include <gtest/gtest.h>

#include <optional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace tarock {
namespace {

const std::string kTicket = "0123456789abcdef0123";

// A stream that records what the referee wrote and how it was closed.
class FakeStream : public JoinedStream {
public:
  void Write(const v1::RefereeMessage &message) override {
    absl::MutexLock lock(&mu);
    if (!closed)
      written.push_back(message);
  }
  void Close(const absl::Status &s) override {
    absl::MutexLock lock(&mu);
    closed = true;
    status = s;
  }
  std::vector<v1::RefereeMessage> Written() {
    absl::MutexLock lock(&mu);
    return written;
  }
  bool Closed(absl::Status *s = nullptr) {
    absl::MutexLock lock(&mu);
    if (s)
      *s = status;
    return closed;
  }
  absl::Mutex mu;
  std::vector<v1::RefereeMessage> written;
  bool closed = false;
  absl::Status status;
};

v1::BotMessage DecisionFor(int64_t id, const std::string &action) {
  v1::BotMessage m;
  m.mutable_decision()->set_request_id(id);
  m.mutable_decision()->set_action(action);
  return m;
}

v1::DecisionRequest Request(int64_t id) {
  v1::DecisionRequest r;
  r.set_request_id(id);
  return r;
}

// The match asks for the seat first; the bot joins with `stream` 50 ms later,
// from another thread. Returns the match's connection, and the seat the
// stream's messages go to in `seat`.
absl::StatusOr<std::unique_ptr<BotConnection>>
MatchThenJoin(SeatRendezvous &rendezvous, std::shared_ptr<FakeStream> stream,
              std::shared_ptr<JoinedSeat> *seat) {
  std::thread bot([&] {
    absl::SleepFor(absl::Milliseconds(50));
    auto joined = rendezvous.Join(kTicket, stream);
    EXPECT_TRUE(joined.ok()) << joined.status();
    if (joined.ok())
      *seat = *joined;
  });
  auto connection =
      rendezvous.AwaitJoin(kTicket, absl::Now() + absl::Seconds(5));
  bot.join();
  return connection;
}

TEST(SeatRendezvousTest, MatchFirstThenJoin) {
  SeatRendezvous rendezvous;
  auto stream = std::make_shared<FakeStream>();
  std::shared_ptr<JoinedSeat> seat;
  auto connection = MatchThenJoin(rendezvous, stream, &seat);
  ASSERT_TRUE(connection.ok()) << connection.status();
  ASSERT_NE(seat, nullptr);
  EXPECT_TRUE((*connection)->connected());
  seat->OnMessage(stream.get(), DecisionFor(1, "pass"));
  BotReply reply =
      (*connection)->Decide(Request(1), absl::Now() + absl::Seconds(1));
  EXPECT_EQ(reply.kind, BotReply::Kind::kDecision);
  EXPECT_EQ(reply.action, "pass");
  ASSERT_EQ(stream->Written().size(), 1u);
  EXPECT_TRUE(stream->Written()[0].has_decision_request());
  connection->reset();
  EXPECT_TRUE(stream->Closed());
  EXPECT_EQ(rendezvous.seats(), 0);
}

TEST(SeatRendezvousTest, EarlyJoinIsParkedWithItsHello) {
  SeatRendezvous rendezvous;
  auto stream = std::make_shared<FakeStream>();
  auto joined = rendezvous.Join(kTicket, stream);
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(*joined, nullptr);
  EXPECT_EQ(rendezvous.parked(), 1);
  v1::BotMessage hello;
  hello.mutable_hello()->set_name("early");
  EXPECT_EQ(rendezvous.ParkedMessage(kTicket, stream.get(), hello), nullptr);
  auto connection =
      rendezvous.AwaitJoin(kTicket, absl::Now() + absl::Seconds(1));
  ASSERT_TRUE(connection.ok()) << connection.status();
  EXPECT_EQ((*connection)->hello_name(), "early");
  EXPECT_EQ(rendezvous.parked(), 0);
  // The stream's next message finds its seat through the rendezvous.
  std::thread answer([&] {
    absl::SleepFor(absl::Milliseconds(20));
    EXPECT_NE(rendezvous.ParkedMessage(kTicket, stream.get(),
                                       DecisionFor(7, "play T22")),
              nullptr);
  });
  BotReply reply =
      (*connection)->Decide(Request(7), absl::Now() + absl::Seconds(2));
  answer.join();
  EXPECT_EQ(reply.kind, BotReply::Kind::kDecision);
  EXPECT_EQ(reply.action, "play T22");
}

// A parked join's Hello can come while the match takes that join: after the
// rendezvous gave the seat the stream, before the seat attached it. The seat
// keeps it for that stream (it was lost, and the match then named no
// version for a hosted seat), and never for another stream.
TEST(JoinedSeatTest, AHelloJustBeforeItsStreamIsAttachedIsKeptForThatStream) {
  v1::BotMessage hello;
  hello.mutable_hello()->set_name("early");
  hello.mutable_hello()->set_version("hosted:v7 sha256:0123");
  {
    auto seat = std::make_shared<JoinedSeat>();
    auto stream = std::make_shared<FakeStream>();
    EXPECT_FALSE(seat->OnMessage(stream.get(), hello));
    seat->Attach(stream, std::nullopt);
    EXPECT_EQ(seat->hello_name(), "early");
    EXPECT_EQ(seat->hello_version(), "hosted:v7 sha256:0123");
  }
  {
    auto seat = std::make_shared<JoinedSeat>();
    auto stranger = std::make_shared<FakeStream>();
    auto stream = std::make_shared<FakeStream>();
    EXPECT_FALSE(seat->OnMessage(stranger.get(), hello));
    seat->Attach(stream, std::nullopt);
    EXPECT_EQ(seat->hello_version(), "");
  }
}

TEST(SeatRendezvousTest, NobodyJoins) {
  SeatRendezvous rendezvous;
  auto connection =
      rendezvous.AwaitJoin(kTicket, absl::Now() + absl::Milliseconds(50));
  EXPECT_EQ(connection.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(rendezvous.seats(), 0);
}

TEST(SeatRendezvousTest, RefusesBadTicketsAndExpiresParkedJoins) {
  SeatRendezvous rendezvous(JoinOptions{
      .early_join_wait = absl::Milliseconds(10), .max_early_joins = 1});
  EXPECT_EQ(
      rendezvous.Join("short", std::make_shared<FakeStream>()).status().code(),
      absl::StatusCode::kInvalidArgument);
  auto first = std::make_shared<FakeStream>();
  ASSERT_TRUE(rendezvous.Join(kTicket, first).ok());
  EXPECT_EQ(rendezvous.Join(kTicket + "x", std::make_shared<FakeStream>())
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
  absl::SleepFor(absl::Milliseconds(20));
  rendezvous.ExpireParked(absl::Now());
  absl::Status status;
  EXPECT_TRUE(first->Closed(&status));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(rendezvous.parked(), 0);
}

// Issue 29: made-up tickets from one client fill at most its share of the
// waiting slots; other clients still join.
TEST(SeatRendezvousTest, WaitingJoinsAreBoundedPerClient) {
  SeatRendezvous rendezvous(JoinOptions{.max_early_joins = 10, .max_early_joins_per_client = 3});
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(rendezvous.Join(kTicket + std::to_string(i), std::make_shared<FakeStream>(),
                                "192.0.2.1").ok()) << i;
  absl::Status refused =
      rendezvous.Join(kTicket + "x", std::make_shared<FakeStream>(), "192.0.2.1").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("this client"), absl::string_view::npos) << refused;
  // A second join of a waiting ticket is refused (never a replacement, issue
  // 28) and takes no slot.
  EXPECT_EQ(rendezvous.Join(kTicket + "0", std::make_shared<FakeStream>(), "192.0.2.1").status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(rendezvous.Join(kTicket + "y", std::make_shared<FakeStream>(), "192.0.2.2").ok());
  EXPECT_EQ(rendezvous.parked(), 4);
}

// Issue 29: an interrupted seat ends its waiting decision at once (not at
// its deadline, which may be far), closes the bot's stream, and fails the
// next decisions at once.
TEST(JoinedSeatTest, InterruptEndsTheWaitingDecisionAndClosesTheStream) {
  SeatRendezvous rendezvous;
  auto stream = std::make_shared<FakeStream>();
  ASSERT_TRUE(rendezvous.Join(kTicket, stream).ok());
  auto connection = rendezvous.AwaitJoin(kTicket, absl::Now() + absl::Seconds(1));
  ASSERT_TRUE(connection.ok());
  std::thread interrupter([&] {
    absl::SleepFor(absl::Milliseconds(50));
    (*connection)->Interrupt();
  });
  const absl::Time start = absl::Now();
  BotReply reply = (*connection)->Decide(Request(1), absl::Now() + absl::Hours(1));
  interrupter.join();
  EXPECT_EQ(reply.kind, BotReply::Kind::kDisconnected);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  absl::Status closed;
  EXPECT_TRUE(stream->Closed(&closed));
  EXPECT_EQ(closed.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ((*connection)->Decide(Request(2), absl::Now() + absl::Hours(1)).kind,
            BotReply::Kind::kDisconnected);
}

TEST(SeatRendezvousTest, AnythingButHelloBeforeTheMatchIsRefused) {
  SeatRendezvous rendezvous;
  auto stream = std::make_shared<FakeStream>();
  ASSERT_TRUE(rendezvous.Join(kTicket, stream).ok());
  EXPECT_EQ(
      rendezvous.ParkedMessage(kTicket, stream.get(), DecisionFor(1, "pass")),
      nullptr);
  absl::Status status;
  EXPECT_TRUE(stream->Closed(&status));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
}

// A bot that restarts mid-decision joins again and gets the seat's state.
TEST(JoinedSeatTest, RejoinResumesTheWaitingRequest) {
  SeatRendezvous rendezvous;
  auto first = std::make_shared<FakeStream>();
  ASSERT_TRUE(rendezvous.Join(kTicket, first).ok());
  auto connection =
      rendezvous.AwaitJoin(kTicket, absl::Now() + absl::Seconds(1));
  ASSERT_TRUE(connection.ok());
  v1::RefereeMessage start;
  start.mutable_match_start()->set_match_id("m1");
  (*connection)->Send(start);
  v1::RefereeMessage hand;
  hand.mutable_hand_start()->set_hand_index(3);
  (*connection)->Send(hand);
  auto second = std::make_shared<FakeStream>();
  rendezvous.ParkedClosed(kTicket, first.get());
  EXPECT_FALSE((*connection)->connected());
  std::thread back([&] {
    absl::SleepFor(absl::Milliseconds(50));
    auto seat = rendezvous.Join(kTicket, second);
    ASSERT_TRUE(seat.ok());
    ASSERT_NE(*seat, nullptr);
    // What the new stream got: MatchStart, HandStart, the waiting request.
    std::vector<v1::RefereeMessage> got = second->Written();
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].match_start().match_id(), "m1");
    EXPECT_EQ(got[1].hand_start().hand_index(), 3);
    EXPECT_EQ(got[2].decision_request().request_id(), 2);
    EXPECT_GT(got[2].decision_request().time_left_ms(), 0);
    (*seat)->OnMessage(second.get(), DecisionFor(2, "pass"));
  });
  BotReply reply =
      (*connection)->Decide(Request(2), absl::Now() + absl::Seconds(2));
  back.join();
  EXPECT_EQ(reply.kind, BotReply::Kind::kDecision);
  EXPECT_EQ(reply.action, "pass");
}

// Away for a whole decision: a disconnect, then the next ones at once.
TEST(JoinedSeatTest, AwayForADecisionThenAbsentAtOnce) {
  SeatRendezvous rendezvous;
  auto stream = std::make_shared<FakeStream>();
  ASSERT_TRUE(rendezvous.Join(kTicket, stream).ok());
  auto connection =
      rendezvous.AwaitJoin(kTicket, absl::Now() + absl::Seconds(1));
  ASSERT_TRUE(connection.ok());
  rendezvous.ParkedClosed(kTicket, stream.get());
  BotReply first =
      (*connection)->Decide(Request(1), absl::Now() + absl::Milliseconds(100));
  EXPECT_EQ(first.kind, BotReply::Kind::kDisconnected);
  EXPECT_GE(first.elapsed, absl::Milliseconds(90));
  const absl::Time before = absl::Now();
  BotReply second =
      (*connection)->Decide(Request(2), absl::Now() + absl::Seconds(5));
  EXPECT_EQ(second.kind, BotReply::Kind::kDisconnected);
  EXPECT_LT(absl::Now() - before, absl::Seconds(1));
  // Back: answers again.
  auto again = std::make_shared<FakeStream>();
  auto seat = rendezvous.Join(kTicket, again);
  ASSERT_TRUE(seat.ok() && *seat != nullptr);
  (*seat)->OnMessage(again.get(), DecisionFor(3, "pass"));
  EXPECT_EQ(
      (*connection)->Decide(Request(3), absl::Now() + absl::Seconds(1)).kind,
      BotReply::Kind::kDecision);
}

// Issue 28: a seat's stream is never replaced. A second join while the first
// is live (a stranger who learnt the ticket, a replay) is refused and the
// first plays on; so is a second early join while the first waits.
TEST(JoinedSeatTest, ASecondJoinWhileTheFirstIsLiveIsRefusedAndTheFirstPlaysOn) {
  SeatRendezvous rendezvous;
  auto first = std::make_shared<FakeStream>();
  ASSERT_TRUE(rendezvous.Join(kTicket, first).ok());
  auto early = std::make_shared<FakeStream>();
  EXPECT_EQ(rendezvous.Join(kTicket, early).status().code(), absl::StatusCode::kAlreadyExists);
  auto connection =
      rendezvous.AwaitJoin(kTicket, absl::Now() + absl::Seconds(1));
  ASSERT_TRUE(connection.ok());
  auto second = std::make_shared<FakeStream>();
  auto seat = rendezvous.Join(kTicket, second);
  ASSERT_TRUE(seat.ok() && *seat != nullptr);
  absl::Status status;
  EXPECT_TRUE(second->Closed(&status));
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_FALSE(first->Closed(&status));
  (*seat)->OnMessage(second.get(), DecisionFor(1, "from the refused stream"));
  (*seat)->OnMessage(first.get(), DecisionFor(1, "pass"));
  BotReply reply =
      (*connection)->Decide(Request(1), absl::Now() + absl::Seconds(1));
  EXPECT_EQ(reply.action, "pass");
}

TEST(JoinedSeatTest, TimeoutWhileConnected) {
  SeatRendezvous rendezvous;
  auto stream = std::make_shared<FakeStream>();
  ASSERT_TRUE(rendezvous.Join(kTicket, stream).ok());
  auto connection =
      rendezvous.AwaitJoin(kTicket, absl::Now() + absl::Seconds(1));
  ASSERT_TRUE(connection.ok());
  EXPECT_EQ((*connection)
                ->Decide(Request(1), absl::Now() + absl::Milliseconds(30))
                .kind,
            BotReply::Kind::kTimeout);
}

// The transport reads on at once only while the seat waits for an answer
// (referee/server/seat_gateway_service.cc posts the other reads with its next
// write): OnMessage says which.
TEST(JoinedSeatTest, OnMessageSaysWhetherTheSeatStillWaitsForAnAnswer) {
  SeatRendezvous rendezvous;
  auto stream = std::make_shared<FakeStream>();
  std::shared_ptr<JoinedSeat> seat;
  auto connection = MatchThenJoin(rendezvous, stream, &seat);
  ASSERT_TRUE(connection.ok()) << connection.status();
  ASSERT_NE(seat, nullptr);
  v1::BotMessage hello;
  hello.mutable_hello()->set_name("reader");
  EXPECT_FALSE(seat->OnMessage(stream.get(), hello)); // nothing asked yet

  std::optional<BotReply> reply;
  (*connection)->DecideAsync(Request(2), absl::Now() + absl::Seconds(5),
                             [&](BotReply r) { reply = std::move(r); });
  // A Hello or a stale answer leaves the decision waiting: read on.
  EXPECT_TRUE(seat->OnMessage(stream.get(), hello));
  EXPECT_TRUE(seat->OnMessage(stream.get(), DecisionFor(1, "pass")));
  EXPECT_FALSE(reply.has_value());
  // The answer settles it (the match resumes here, inline): no more to wait for.
  EXPECT_FALSE(seat->OnMessage(stream.get(), DecisionFor(2, "pass")));
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->kind, BotReply::Kind::kDecision);
  EXPECT_EQ(reply->action, "pass");
  // A stream that is not the seat's is ignored and not read.
  auto stranger = std::make_shared<FakeStream>();
  EXPECT_FALSE(seat->OnMessage(stranger.get(), DecisionFor(3, "pass")));
}

} // namespace
} // namespace tarock
