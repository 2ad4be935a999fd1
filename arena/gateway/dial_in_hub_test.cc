#include "arena/gateway/dial_in_hub.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tarock::arena::gateway {
namespace {

// Records what the hub sends a bot.
class FakeBot final : public BotLink {
 public:
  bool Send(const v1::ArenaDownlink& m) override {
    absl::MutexLock lock(&mu);
    if (closed) return false;
    sent.push_back(m);
    return true;
  }
  void Close(const absl::Status& s) override {
    absl::MutexLock lock(&mu);
    closed = true;
    status = s;
  }
  std::vector<v1::ArenaDownlink> Sent() {
    absl::MutexLock lock(&mu);
    return sent;
  }
  absl::Mutex mu;
  std::vector<v1::ArenaDownlink> sent;
  bool closed = false;
  absl::Status status;
};

// Records what the seat sends the referee.
class FakeReferee final : public play::RefereeLink {
 public:
  bool Send(const v1::BotMessage& m) override {
    absl::MutexLock lock(&mu);
    sent.push_back(m);
    return true;
  }
  std::vector<v1::BotMessage> Sent() {
    absl::MutexLock lock(&mu);
    return sent;
  }
  absl::Mutex mu;
  std::vector<v1::BotMessage> sent;
};

v1::RefereeMessage Start(const std::string& match, int seat) {
  v1::RefereeMessage m;
  m.mutable_match_start()->set_match_id(match);
  m.mutable_match_start()->set_seat(seat);
  m.mutable_match_start()->set_num_seats(4);
  return m;
}

v1::RefereeMessage Request(int64_t id, int64_t time_left_ms) {
  v1::RefereeMessage m;
  m.mutable_decision_request()->set_request_id(id);
  m.mutable_decision_request()->set_time_left_ms(time_left_ms);
  m.mutable_decision_request()->add_legal_actions("pass");
  return m;
}

v1::BotUplink Reply(int64_t seat_id, int64_t request_id) {
  v1::BotUplink up;
  up.mutable_reply()->set_seat_id(seat_id);
  up.mutable_reply()->mutable_message()->mutable_decision()->set_request_id(request_id);
  up.mutable_reply()->mutable_message()->mutable_decision()->set_action("pass");
  return up;
}

// Opens seat (match, seat) for a fresh attempt as the scheduler does
// (relay_gate.h) and returns the capability its referee presents.
std::string Open(play::SeatRelay& relay, const std::string& match, int seat) {
  const std::string capability(32, 'c');
  EXPECT_TRUE(relay.Authorize(match, seat, capability).ok());
  return capability;
}

struct Fixture {
  play::SeatRelay relay;
  DialInHub hub{&relay};
  // Attaches a referee stream to (match, seat) as the relay service would.
  std::shared_ptr<FakeReferee> Attach(const std::string& match, int seat) {
    auto referee = std::make_shared<FakeReferee>();
    EXPECT_TRUE(relay.Attach(Start(match, seat), Open(relay, match, seat), referee).ok());
    return referee;
  }
  std::shared_ptr<play::SeatConsumer> Consumer(const std::string& match, int seat) {
    auto c = relay.Attach(Start(match, seat), Open(relay, match, seat), std::make_shared<FakeReferee>());
    return c.ok() ? *c : nullptr;
  }
};

// Issue 44: the arena stopping closes every bot's connection at once (its
// gRPC shutdown then need not wait out a deadline) and takes no new ones.
TEST(DialInHubTest, CloseAllEndsEveryConnectionAndRefusesNewOnes) {
  Fixture f;
  auto alice = std::make_shared<FakeBot>();
  auto bob = std::make_shared<FakeBot>();
  ASSERT_TRUE(f.hub.Connect(1, "alice", alice).ok());
  ASSERT_TRUE(f.hub.Connect(2, "bob", bob).ok());
  f.hub.CloseAll();
  for (const auto& bot : {alice, bob}) {
    absl::MutexLock lock(&bot->mu);
    EXPECT_TRUE(bot->closed);
    EXPECT_EQ(bot->status.code(), absl::StatusCode::kUnavailable);
  }
  EXPECT_EQ(f.hub.Connect(3, "carol", std::make_shared<FakeBot>()).status().code(),
            absl::StatusCode::kUnavailable);
}

TEST(DialInHubTest, RelaysASeatBothWaysAndRefusesAnotherBotsSeat) {
  Fixture f;
  auto alice = std::make_shared<FakeBot>();
  auto bob = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> ca = f.hub.Connect(1, "alice", alice);
  absl::StatusOr<uint64_t> cb = f.hub.Connect(2, "bob", bob);
  ASSERT_TRUE(ca.ok() && cb.ok());
  EXPECT_TRUE(f.hub.Online(1));
  EXPECT_FALSE(f.hub.Online(3));
  ASSERT_TRUE(f.hub.Prepare("M", 0, 1, "alice").ok());
  EXPECT_EQ(f.hub.Prepare("M", 0, 2, "bob").code(), absl::StatusCode::kAlreadyExists);
  auto referee = std::make_shared<FakeReferee>();
  absl::StatusOr<std::shared_ptr<play::SeatConsumer>> seat = f.relay.Attach(Start("M", 0), Open(f.relay, "M", 0), referee);
  ASSERT_TRUE(seat.ok());
  (*seat)->OnMessage(Request(7, 1000));

  std::vector<v1::ArenaDownlink> got = alice->Sent();
  ASSERT_EQ(got.size(), 3u);  // Welcome, MatchStart, the request
  EXPECT_TRUE(got[0].has_welcome());
  EXPECT_EQ(got[0].welcome().bot(), "alice");
  const int64_t seat_id = got[1].seat().seat_id();
  EXPECT_TRUE(got[1].seat().message().has_match_start());
  EXPECT_EQ(got[2].seat().message().decision_request().request_id(), 7);
  EXPECT_EQ(bob->Sent().size(), 1u);  // its Welcome only: never another bot's seat

  // Bob answers Alice's seat: refused, and the referee hears nothing.
  EXPECT_EQ(f.hub.FromBot(2, *cb, Reply(seat_id, 7)).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(referee->Sent().empty());
  // A seat id never given: refused.
  EXPECT_EQ(f.hub.FromBot(1, *ca, Reply(seat_id + 100, 7)).code(),
            absl::StatusCode::kInvalidArgument);
  // Alice answers: the Decision reaches the referee once.
  ASSERT_TRUE(f.hub.FromBot(1, *ca, Reply(seat_id, 7)).ok());
  ASSERT_TRUE(f.hub.FromBot(1, *ca, Reply(seat_id, 7)).ok());  // a duplicate: dropped
  ASSERT_EQ(referee->Sent().size(), 1u);
  EXPECT_EQ(referee->Sent()[0].decision().request_id(), 7);

  f.hub.Release("M", 0);
  EXPECT_FALSE(f.relay.Registered("M", 0));
  EXPECT_TRUE(alice->Sent().back().has_seat_closed());
}

TEST(DialInHubTest, AReconnectionReplacesTheOldOneAndResumesTheSeat) {
  Fixture f;
  auto first = std::make_shared<FakeBot>();
  ASSERT_TRUE(f.hub.Connect(1, "alice", first).ok());
  ASSERT_TRUE(f.hub.Prepare("M", 2, 1, "alice").ok());
  auto referee = std::make_shared<FakeReferee>();
  auto seat = f.relay.Attach(Start("M", 2), Open(f.relay, "M", 2), referee);
  ASSERT_TRUE(seat.ok());
  v1::RefereeMessage hand;
  hand.mutable_hand_start()->set_hand_index(3);
  (*seat)->OnMessage(hand);
  (*seat)->OnMessage(Request(11, 60000));

  auto second = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> c2 = f.hub.Connect(1, "alice", second);
  ASSERT_TRUE(c2.ok());
  EXPECT_TRUE(first->closed);
  EXPECT_EQ(first->status.code(), absl::StatusCode::kAborted);
  std::vector<v1::ArenaDownlink> got = second->Sent();
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].welcome().seats_held(), 1);
  EXPECT_TRUE(got[1].seat().resumed());
  EXPECT_TRUE(got[1].seat().message().has_match_start());
  EXPECT_EQ(got[2].seat().message().hand_start().hand_index(), 3);
  EXPECT_EQ(got[3].seat().message().decision_request().request_id(), 11);
  EXPECT_LE(got[3].seat().message().decision_request().time_left_ms(), 60000);
  // The old connection's late answers are refused; the new one's go through.
  EXPECT_EQ(f.hub.FromBot(1, *c2 - 1, Reply(got[1].seat().seat_id(), 11)).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(f.hub.FromBot(1, *c2, Reply(got[1].seat().seat_id(), 11)).ok());
  ASSERT_EQ(referee->Sent().size(), 1u);
}

// A seat made between the bot's connect and its Hello (a restarted bot host,
// say) still learns who plays it: the Hello reaches its referee when it
// comes, and a seat that had one keeps it.
TEST(DialInHubTest, AHelloAfterTheSeatWasMadeReachesItsReferee) {
  Fixture f;
  auto bot = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> c = f.hub.Connect(1, "alice", bot);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(f.hub.Prepare("M", 0, 1, "alice").ok());
  auto referee = f.Attach("M", 0);
  EXPECT_TRUE(referee->Sent().empty());  // no Hello yet: nothing to say
  v1::BotUplink hello;
  hello.mutable_hello()->set_name("alice");
  hello.mutable_hello()->set_version("hosted:v7 sha256:0123");
  ASSERT_TRUE(f.hub.FromBot(1, *c, hello).ok());
  ASSERT_EQ(referee->Sent().size(), 1u);
  EXPECT_EQ(referee->Sent()[0].hello().version(), "hosted:v7 sha256:0123");
  // A later Hello (the same process again) changes nothing for this seat.
  hello.mutable_hello()->set_version("hosted:v8 sha256:4567");
  ASSERT_TRUE(f.hub.FromBot(1, *c, hello).ok());
  EXPECT_EQ(referee->Sent().size(), 1u);
  // A seat made now gets the newest Hello at once.
  ASSERT_TRUE(f.hub.Prepare("M", 1, 1, "alice").ok());
  auto second = f.Attach("M", 1);
  ASSERT_EQ(second->Sent().size(), 1u);
  EXPECT_EQ(second->Sent()[0].hello().version(), "hosted:v8 sha256:4567");
}

TEST(DialInHubTest, AnOfflineBotsDecisionWaitsItsTimeThenIsAbsentAndLaterOnesAtOnce) {
  Fixture f;
  auto bot = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> c = f.hub.Connect(1, "alice", bot);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(f.hub.Prepare("M", 0, 1, "alice").ok());
  auto referee = std::make_shared<FakeReferee>();
  auto seat = f.relay.Attach(Start("M", 0), Open(f.relay, "M", 0), referee);
  ASSERT_TRUE(seat.ok());
  f.hub.Disconnect(1, *c);
  EXPECT_FALSE(f.hub.Online(1));

  (*seat)->OnMessage(Request(1, 100));
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  EXPECT_TRUE(referee->Sent().empty());  // still within the decision's time
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (referee->Sent().empty() && absl::Now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(referee->Sent().size(), 1u);
  EXPECT_EQ(referee->Sent()[0].absent().request_id(), 1);

  (*seat)->OnMessage(Request(2, 100000));  // still offline: Absent at once
  ASSERT_EQ(referee->Sent().size(), 2u);
  EXPECT_EQ(referee->Sent()[1].absent().request_id(), 2);

  // Back: the next request goes to the bot and its answer to the referee.
  auto again = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> c2 = f.hub.Connect(1, "alice", again);
  ASSERT_TRUE(c2.ok());
  (*seat)->OnMessage(Request(3, 100000));
  std::vector<v1::ArenaDownlink> got = again->Sent();
  ASSERT_GE(got.size(), 3u);
  EXPECT_EQ(got.back().seat().message().decision_request().request_id(), 3);
  ASSERT_TRUE(f.hub.FromBot(1, *c2, Reply(got.back().seat().seat_id(), 3)).ok());
  ASSERT_EQ(referee->Sent().size(), 3u);
  EXPECT_EQ(referee->Sent()[2].decision().request_id(), 3);
}

TEST(DialInHubTest, TooManyConnectionsAMinuteAreRefused) {
  play::SeatRelay relay;
  HubOptions o;
  o.max_connects_per_minute = 3;
  DialInHub hub(&relay, o);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(hub.Connect(1, "a", std::make_shared<FakeBot>()).ok());
  EXPECT_EQ(hub.Connect(1, "a", std::make_shared<FakeBot>()).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(hub.Connect(2, "b", std::make_shared<FakeBot>()).ok());  // per bot
}

// --dial_in_route=auto: a seat routed to a referee that the referee dials
// on the relay after all (the bot did not join in time) is relayed, and the
// bot's connection is relayed from then on, until it connects again.
TEST(DialInHubTest, ASeatRoutedToARefereeThatDialsTheRelayFallsBackForTheConnection) {
  Fixture f;
  auto alice = std::make_shared<FakeBot>();
  v1::BotUplink hello;
  hello.mutable_hello()->set_name("alice");
  hello.mutable_hello()->add_features("join-referee");
  absl::StatusOr<uint64_t> connection = f.hub.Connect(1, "alice", alice);
  ASSERT_TRUE(connection.ok());
  ASSERT_TRUE(f.hub.FromBot(1, *connection, hello).ok());
  EXPECT_TRUE(f.hub.CanJoinReferee(1));

  ASSERT_TRUE(f.hub.Prepare("M", 0, 1, "alice").ok());
  ASSERT_TRUE(f.hub.RouteToReferee("M", 0, "127.0.0.1:1", "ticket-0123456789abcdef").ok());
  std::vector<v1::ArenaDownlink> got = alice->Sent();
  ASSERT_TRUE(got.back().has_join_referee());
  EXPECT_EQ(got.back().join_referee().ticket(), "ticket-0123456789abcdef");
  EXPECT_TRUE(f.hub.CanJoinReferee(1));  // nothing failed yet

  // The referee gave up waiting and dialed the relay.
  auto referee = std::make_shared<FakeReferee>();
  absl::StatusOr<std::shared_ptr<play::SeatConsumer>> seat = f.relay.Attach(Start("M", 0), Open(f.relay, "M", 0), referee);
  ASSERT_TRUE(seat.ok());
  EXPECT_FALSE(f.hub.CanJoinReferee(1));
  (*seat)->OnMessage(Request(3, 1000));
  got = alice->Sent();
  ASSERT_TRUE(got.back().has_seat());
  EXPECT_EQ(got.back().seat().message().decision_request().request_id(), 3);
  const int64_t seat_id = got.back().seat().seat_id();
  ASSERT_TRUE(f.hub.FromBot(1, *connection, Reply(seat_id, 3)).ok());
  ASSERT_EQ(referee->Sent().size(), 2u);  // the Hello, the answer
  EXPECT_EQ(referee->Sent()[1].decision().request_id(), 3);

  // Back after a reconnection: the seat is resent relayed, not the ticket.
  auto again = std::make_shared<FakeBot>();
  connection = f.hub.Connect(1, "alice", again);
  ASSERT_TRUE(connection.ok());
  (*seat)->OnMessage(Request(4, 1000));
  bool ticket = false;
  for (const v1::ArenaDownlink& m : again->Sent()) ticket |= m.has_join_referee();
  EXPECT_FALSE(ticket);
  EXPECT_EQ(again->Sent().back().seat().message().decision_request().request_id(), 4);
  // A new connection may be somewhere the referees can be reached from.
  ASSERT_TRUE(f.hub.FromBot(1, *connection, hello).ok());
  EXPECT_TRUE(f.hub.CanJoinReferee(1));
}

// A connection whose seat fell back is relayed for HubOptions::direct_retry,
// then tries the direct route again (a host that joined late once, while it
// restarted on a busy machine, gets it back without reconnecting).
TEST(DialInHubTest, AConnectionThatFellBackTriesTheDirectRouteAgainAfterTheRetryTime) {
  play::SeatRelay relay;
  HubOptions options;
  options.direct_retry = absl::Seconds(1);
  DialInHub hub(&relay, options);
  auto alice = std::make_shared<FakeBot>();
  v1::BotUplink hello;
  hello.mutable_hello()->set_name("alice");
  hello.mutable_hello()->add_features("join-referee");
  absl::StatusOr<uint64_t> connection = hub.Connect(1, "alice", alice);
  ASSERT_TRUE(connection.ok());
  ASSERT_TRUE(hub.FromBot(1, *connection, hello).ok());
  ASSERT_TRUE(hub.Prepare("M", 0, 1, "alice").ok());
  ASSERT_TRUE(hub.RouteToReferee("M", 0, "127.0.0.1:1", "ticket-0123456789abcdef").ok());
  const absl::Time fell_back = absl::Now();
  ASSERT_TRUE(relay.Attach(Start("M", 0), Open(relay, "M", 0), std::make_shared<FakeReferee>()).ok());
  EXPECT_FALSE(hub.CanJoinReferee(1));
  while (!hub.CanJoinReferee(1) && absl::Now() < fell_back + absl::Seconds(5))
    absl::SleepFor(absl::Milliseconds(10));
  EXPECT_TRUE(hub.CanJoinReferee(1));
  EXPECT_GE(absl::Now() - fell_back, absl::Seconds(1));
}

// A hosted bot's host connection that ends marks its seats host-lost (the
// scheduler then runs the match again); a replaced connection and a bot's
// own dial-in connection do not.
TEST(DialInHubTest, AHostedConnectionThatEndsMarksItsSeatsHostLost) {
  Fixture f;
  auto host = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> c1 = f.hub.Connect(1, "hosted", host, /*hosted=*/true);
  ASSERT_TRUE(c1.ok());
  ASSERT_TRUE(f.hub.Prepare("M", 0, 1, "hosted").ok());
  EXPECT_FALSE(f.hub.TakeHostLost("M", 0));
  // Replaced by a newer connection (the host switches versions): not lost.
  auto host2 = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> c2 = f.hub.Connect(1, "hosted", host2, /*hosted=*/true);
  ASSERT_TRUE(c2.ok());
  f.hub.Disconnect(1, *c1);  // the old one's end: a no-op
  EXPECT_FALSE(f.hub.TakeHostLost("M", 0));
  // The host dies: lost, once.
  f.hub.Disconnect(1, *c2);
  EXPECT_TRUE(f.hub.TakeHostLost("M", 0));
  EXPECT_FALSE(f.hub.TakeHostLost("M", 0));
  EXPECT_FALSE(f.hub.TakeHostLost("M", 1));  // a seat never prepared
  EXPECT_FALSE(f.hub.TakeHostLost("N", 0));

  // A bot's own connection (not a host's) that ends: not a host lost.
  auto own = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> c3 = f.hub.Connect(2, "own", own);
  ASSERT_TRUE(c3.ok());
  ASSERT_TRUE(f.hub.Prepare("M", 1, 2, "own").ok());
  f.hub.Disconnect(2, *c3);
  EXPECT_FALSE(f.hub.TakeHostLost("M", 1));
  f.hub.Release("M", 0);
  f.hub.Release("M", 1);
  EXPECT_FALSE(f.hub.TakeHostLost("M", 0));
}

// A host's account of a seat (issue 44's follow-up): only the host whose
// connection the arena gave the seat, once an attempt. Another host's token
// that holds the bot later, a host that never had the seat, and a seat the
// bot's own connection played are refused; a new attempt may be reported.
TEST(DialInHubTest, ASeatIsReportedOnlyByTheHostItWasGivenToAndOnce) {
  Fixture f;
  auto h1 = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> c1 = f.hub.Connect(1, "hosted", h1, /*hosted=*/true, /*host_id=*/11);
  ASSERT_TRUE(c1.ok());
  ASSERT_TRUE(f.hub.Prepare("M", 0, 1, "hosted").ok());
  EXPECT_EQ(f.hub.ClaimSeatReport("M", 0, 22).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(f.hub.ClaimSeatReport("M", 1, 11).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(f.hub.ClaimSeatReport("N", 0, 11).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(f.hub.ClaimSeatReport("M", 0, 11).ok());
  EXPECT_EQ(f.hub.ClaimSeatReport("M", 0, 11).code(), absl::StatusCode::kAlreadyExists);
  f.hub.Disconnect(1, *c1);
  f.hub.Release("M", 0);
  // Host 22 takes the bot over: the old seat stays host 11's.
  auto h2 = std::make_shared<FakeBot>();
  ASSERT_TRUE(f.hub.Connect(1, "hosted", h2, /*hosted=*/true, /*host_id=*/22).ok());
  EXPECT_EQ(f.hub.ClaimSeatReport("M", 0, 22).code(), absl::StatusCode::kPermissionDenied);
  // The next attempt of that seat is host 22's, reported once.
  ASSERT_TRUE(f.hub.Prepare("M", 0, 1, "hosted").ok());
  EXPECT_TRUE(f.hub.ClaimSeatReport("M", 0, 22).ok());
  EXPECT_EQ(f.hub.ClaimSeatReport("M", 0, 22).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(f.hub.ClaimSeatReport("M", 0, 11).code(), absl::StatusCode::kPermissionDenied);
  // A seat prepared while the bot is offline goes to the host that connects.
  ASSERT_TRUE(f.hub.Prepare("P", 2, 3, "later").ok());
  EXPECT_EQ(f.hub.ClaimSeatReport("P", 2, 11).code(), absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(f.hub.Connect(3, "later", std::make_shared<FakeBot>(), true, 11).ok());
  EXPECT_TRUE(f.hub.ClaimSeatReport("P", 2, 11).ok());
  // The bot's own connection: no host may report its seat.
  ASSERT_TRUE(f.hub.Connect(4, "own", std::make_shared<FakeBot>()).ok());
  ASSERT_TRUE(f.hub.Prepare("M", 3, 4, "own").ok());
  EXPECT_EQ(f.hub.ClaimSeatReport("M", 3, 0).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(f.hub.ClaimSeatReport("M", 3, 11).code(), absl::StatusCode::kPermissionDenied);
}

// A hosted bot is online only while its host syncs (SetHostSyncing): a host
// that stalls with its connection up gets no new seats. A bot's own dial-in
// connection does not depend on it.
TEST(DialInHubTest, AHostedBotIsOnlineOnlyWhileItsHostSyncs) {
  Fixture f;
  std::atomic<bool> syncing{true};
  f.hub.SetHostSyncing([&syncing](int64_t) { return syncing.load(); });
  auto host = std::make_shared<FakeBot>();
  ASSERT_TRUE(f.hub.Connect(1, "hosted", host, /*hosted=*/true).ok());
  auto own = std::make_shared<FakeBot>();
  ASSERT_TRUE(f.hub.Connect(2, "own", own).ok());
  EXPECT_TRUE(f.hub.Online(1));
  syncing = false;  // the host stalls
  EXPECT_FALSE(f.hub.Online(1));
  EXPECT_TRUE(f.hub.Online(2));
  // AwaitOnline sees the host sync again without a word to the hub.
  std::thread back([&syncing] {
    absl::SleepFor(absl::Milliseconds(150));
    syncing = true;
  });
  const absl::Time start = absl::Now();
  EXPECT_TRUE(f.hub.AwaitOnline(1, absl::Now() + absl::Seconds(5)));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  back.join();
  syncing = false;
  EXPECT_FALSE(f.hub.AwaitOnline(1, absl::Now() + absl::Milliseconds(250)));
  f.hub.SetHostSyncing(nullptr);
}

// A bot held at its frozen version (issue 47): while a host's connection
// plays it, a connection with the bot's own token is refused; before the
// freeze (or with no host connected) it replaces as always. A seat that an
// own connection played, even for a while, says so.
TEST(DialInHubTest, AFrozenBotsOwnTokenCannotReplaceItsHostAndTheSeatSaysWhoPlayed) {
  Fixture f;
  std::atomic<bool> frozen{false};
  f.hub.SetFrozen([&frozen](int64_t) { return frozen.load(); });
  auto host = std::make_shared<FakeBot>();
  ASSERT_TRUE(f.hub.Connect(1, "eve", host, /*hosted=*/true).ok());
  ASSERT_TRUE(f.hub.Prepare("M", 0, 1, "eve").ok());
  EXPECT_FALSE(f.hub.PlayedUnhosted("M", 0));  // only the host so far
  frozen = true;
  auto own = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> refused = f.hub.Connect(1, "eve", own);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("frozen"), std::string::npos);
  EXPECT_FALSE(host->closed);  // the host keeps the bot
  EXPECT_FALSE(f.hub.PlayedUnhosted("M", 0));
  // Not frozen: the own connection replaces the host's, and the seat says so.
  frozen = false;
  ASSERT_TRUE(f.hub.Connect(1, "eve", own).ok());
  EXPECT_TRUE(host->closed);
  EXPECT_TRUE(f.hub.PlayedUnhosted("M", 0));
  // A seat prepared on an own connection is unhosted from the start.
  ASSERT_TRUE(f.hub.Prepare("M", 1, 1, "eve").ok());
  EXPECT_TRUE(f.hub.PlayedUnhosted("M", 1));
  EXPECT_FALSE(f.hub.PlayedUnhosted("N", 0));  // never prepared
  f.hub.SetFrozen(nullptr);
}

// When a bot was last online (the final leaves out who was not, events.cc).
TEST(DialInHubTest, LastOnlineIsNowWhileConnectedAndTheDisconnectAfter) {
  Fixture f;
  EXPECT_EQ(f.hub.LastOnline(1), absl::InfinitePast());  // never connected
  auto own = std::make_shared<FakeBot>();
  absl::StatusOr<uint64_t> c = f.hub.Connect(1, "ann", own);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(f.hub.LastOnline(1), absl::InfiniteFuture());
  const absl::Time before = absl::Now();
  f.hub.Disconnect(1, *c);
  const absl::Time last = f.hub.LastOnline(1);
  EXPECT_GE(last, before);
  EXPECT_LE(last, absl::Now());
}

}  // namespace
}  // namespace tarock::arena::gateway
