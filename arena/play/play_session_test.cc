// The seat relay and the browser's play session, without gRPC: a fake link
// stands for the referee's stream.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "arena/play/play_session.h"
#include "arena/play/seat_relay.h"

namespace tarock::arena::play {
namespace {

class FakeLink : public RefereeLink {
 public:
  bool Send(const v1::BotMessage& m) override {
    if (closed) return false;
    sent.push_back(m);
    return true;
  }
  std::vector<v1::BotMessage> sent;
  bool closed = false;
};

class RecordingConsumer : public SeatConsumer {
 public:
  void OnAttach(std::shared_ptr<RefereeLink> l) override { link = l; ++attaches; }
  void OnMessage(const v1::RefereeMessage& m) override { messages.push_back(m); }
  void OnDetach(const RefereeLink*) override { ++detaches; }
  std::shared_ptr<RefereeLink> link;
  std::vector<v1::RefereeMessage> messages;
  int attaches = 0, detaches = 0;
};

v1::RefereeMessage Start(const std::string& match, int seat) {
  v1::RefereeMessage m;
  v1::MatchStart* s = m.mutable_match_start();
  s->set_match_id(match);
  s->set_seat(seat);
  s->set_variant("slovenian-4p");
  s->set_num_seats(4);
  s->set_num_hands(4);
  s->mutable_time_control()->set_per_decision_ms(120000);
  for (const char* n : {"random", "human", "heuristic", "search"}) s->add_seat_names(n);
  return m;
}

v1::RefereeMessage HandStartMsg() {
  v1::RefereeMessage m;
  v1::HandStart* h = m.mutable_hand_start();
  h->set_hand_index(0);
  h->set_dealer(3);
  for (const char* c : {"T1", "T21", "HK", "C10"}) h->add_hand(c);
  return m;
}

v1::RefereeMessage Request(int64_t id, std::vector<std::string> legal, int64_t time_left_ms) {
  v1::RefereeMessage m;
  v1::DecisionRequest* r = m.mutable_decision_request();
  r->set_request_id(id);
  r->set_time_left_ms(time_left_ms);
  for (const std::string& a : legal) r->add_legal_actions(a);
  v1::Observation* o = r->mutable_observation();
  o->set_seat(1);
  o->set_num_seats(4);
  o->set_phase("play");
  o->set_to_act(1);
  for (const char* c : {"T1", "T21", "HK", "C10"}) o->add_hand(c);
  v1::Event* e = o->add_history();
  e->set_seat(0);
  e->set_action("play T5");
  o->add_trick("T5");
  *r->add_new_events() = *e;
  return m;
}

TEST(SeatRelay, AttachesStreamsToTheSeatsConsumer) {
  SeatRelay relay;
  auto consumer = std::make_shared<RecordingConsumer>();
  ASSERT_TRUE(relay.Register("P-1", 2, consumer).ok());
  EXPECT_EQ(relay.Register("P-1", 2, consumer).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(relay.Registered("P-1", 2));
  const std::string cap(32, 'a');
  ASSERT_TRUE(relay.Authorize("P-1", 2, cap).ok());
  EXPECT_EQ(relay.Authorize("P-1", 3, cap).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(relay.Authorize("P-1", 2, "short").code(), absl::StatusCode::kInvalidArgument);
  auto link = std::make_shared<FakeLink>();

  // The first message must be MatchStart.
  EXPECT_EQ(relay.Attach(HandStartMsg(), cap, link).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Another seat, another match: nobody holds them.
  EXPECT_EQ(relay.Attach(Start("P-1", 1), cap, link).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(relay.Attach(Start("P-2", 2), cap, link).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(consumer->attaches, 0);

  absl::StatusOr<std::shared_ptr<SeatConsumer>> got = relay.Attach(Start("P-1", 2), cap, link);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->get(), consumer.get());
  EXPECT_EQ(consumer->attaches, 1);
  ASSERT_EQ(consumer->messages.size(), 1u);
  EXPECT_TRUE(consumer->messages[0].has_match_start());
  EXPECT_EQ(consumer->link.get(), link.get());

  relay.Unregister("P-1", 2);
  EXPECT_FALSE(relay.Registered("P-1", 2));
  EXPECT_EQ(relay.Attach(Start("P-1", 2), cap, link).status().code(), absl::StatusCode::kNotFound);
}

// Issue 28: only the referee of the current attempt opens a relayed seat.
TEST(SeatRelay, OnlyTheCurrentAttemptsCapabilityOpensTheSeatAndOnlyOnce) {
  struct RevocableLink : FakeLink {
    int revoked = 0;
    void Revoke() override { ++revoked; }
  };
  SeatRelay relay;
  auto consumer = std::make_shared<RecordingConsumer>();
  ASSERT_TRUE(relay.Register("P-1", 0, consumer).ok());
  auto stranger = std::make_shared<RevocableLink>();
  // Before any attempt: nobody opens it, whatever they present.
  EXPECT_EQ(relay.Attach(Start("P-1", 0), "", stranger).status().code(),
            absl::StatusCode::kPermissionDenied);
  const std::string first(32, '1'), second(32, '2');
  ASSERT_TRUE(relay.Authorize("P-1", 0, first).ok());
  // A stranger's guess, an empty or a longer one: refused, nothing attached.
  for (const std::string& guess : {std::string(), std::string(32, '0'), first + "x", first.substr(1)})
    EXPECT_EQ(relay.Attach(Start("P-1", 0), guess, stranger).status().code(),
              absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(consumer->attaches, 0);
  auto referee1 = std::make_shared<RevocableLink>();
  ASSERT_TRUE(relay.Attach(Start("P-1", 0), first, referee1).ok());
  EXPECT_EQ(consumer->attaches, 1);
  // The same capability again (a replayed or second stream): refused, never
  // a replacement.
  EXPECT_EQ(relay.Attach(Start("P-1", 0), first, stranger).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(consumer->link.get(), referee1.get());
  // The match is retried: a new capability; the earlier attempt's is dead and
  // its stream is revoked when the new one attaches.
  ASSERT_TRUE(relay.Authorize("P-1", 0, second).ok());
  EXPECT_EQ(relay.Attach(Start("P-1", 0), first, stranger).status().code(),
            absl::StatusCode::kPermissionDenied);
  auto referee2 = std::make_shared<RevocableLink>();
  ASSERT_TRUE(relay.Attach(Start("P-1", 0), second, referee2).ok());
  EXPECT_EQ(referee1->revoked, 1);
  EXPECT_EQ(referee2->revoked, 0);
  EXPECT_EQ(consumer->attaches, 2);
  EXPECT_EQ(consumer->link.get(), referee2.get());
  EXPECT_EQ(stranger->revoked, 0);
}

struct FakeClock {
  absl::Time now = absl::FromUnixSeconds(1000);
  PlaySession::Clock Fn() {
    return [this] { return now; };
  }
};

// Issue 29: a person's seat takes answers only until its hold time, so
// nobody keeps a play slot for ever by answering just before each deadline.
TEST(PlaySession, NoAnswersAfterTheHoldTime) {
  FakeClock clock;
  auto session = std::make_shared<PlaySession>("secret", "P-1", 1, clock.Fn());
  session->SetHoldUntil(clock.now + absl::Minutes(30));
  auto link = std::make_shared<FakeLink>();
  session->OnAttach(link);
  session->OnMessage(Start("P-1", 1));
  session->OnMessage(Request(7, {"play T1", "play T21"}, 120000));
  clock.now += absl::Minutes(1);
  ASSERT_TRUE(session->Act(7, "play T1").ok());
  EXPECT_FALSE(session->View()["hold_until"].is_null());
  clock.now += absl::Minutes(29);
  session->OnMessage(Request(8, {"play T1", "play T21"}, 120000));
  absl::Status late = session->Act(8, "play T1");
  EXPECT_EQ(late.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(late.message().find("run its time"), absl::string_view::npos) << late;
}

TEST(PlaySession, RelaysOneSeatToTheBrowserAndBack) {
  FakeClock clock;
  auto session = std::make_shared<PlaySession>("secret", "P-1", 1, clock.Fn());
  SeatRelay relay;
  ASSERT_TRUE(relay.Register("P-1", 1, session).ok());
  EXPECT_EQ(session->View()["status"], "waiting");

  auto link = std::make_shared<FakeLink>();
  ASSERT_TRUE(relay.Authorize("P-1", 1, std::string(32, 'c')).ok());
  ASSERT_TRUE(relay.Attach(Start("P-1", 1), std::string(32, 'c'), link).ok());
  nlohmann::json v = session->View();
  EXPECT_EQ(v["status"], "playing");
  EXPECT_EQ(v["variant"], "slovenian-4p");
  EXPECT_EQ(v["seat_names"][1], "human");
  EXPECT_EQ(v["per_decision_ms"], 120000);
  EXPECT_TRUE(v["request"].is_null());

  // The hand's cards show before the first decision.
  session->OnMessage(HandStartMsg());
  v = session->View();
  EXPECT_EQ(v["observation"]["hand"].size(), 4u);
  EXPECT_EQ(v["dealer"], 3);
  EXPECT_TRUE(v["request"].is_null());

  session->OnMessage(Request(7, {"play T1", "play T21"}, 120000));
  clock.now += absl::Seconds(20);
  v = session->View();
  ASSERT_FALSE(v["request"].is_null());
  EXPECT_EQ(v["request"]["request_id"], 7);
  EXPECT_EQ(v["request"]["legal_actions"], nlohmann::json({"play T1", "play T21"}));
  EXPECT_EQ(v["request"]["time_left_ms"], 100000);
  EXPECT_EQ(v["observation"]["trick"], nlohmann::json({"T5"}));

  // Wrong request, illegal action: nothing is sent.
  EXPECT_EQ(session->Act(6, "play T1").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(session->Act(7, "play HK").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(link->sent.empty());

  ASSERT_TRUE(session->Act(7, "play T21").ok());
  ASSERT_EQ(link->sent.size(), 1u);
  EXPECT_EQ(link->sent[0].decision().request_id(), 7);
  EXPECT_EQ(link->sent[0].decision().action(), "play T21");
  // Answered once only.
  EXPECT_EQ(session->Act(7, "play T1").code(), absl::StatusCode::kFailedPrecondition);
  v = session->View();
  EXPECT_TRUE(v["request"].is_null());
  EXPECT_EQ(v["observation"]["hand"], nlohmann::json({"T1", "HK", "C10"}));
  EXPECT_EQ(v["observation"]["trick"], nlohmann::json({"T5", "T21"}));
  EXPECT_EQ(v["observation"]["history"].back()["action"], "play T21");
  EXPECT_EQ(v["decisions"], 1);

  // A request left to time out: the answer comes too late, the referee moves on.
  session->OnMessage(Request(8, {"play T1"}, 1000));
  clock.now += absl::Seconds(2);
  EXPECT_EQ(session->View()["request"]["time_left_ms"], 0);
  EXPECT_EQ(session->Act(8, "play T1").code(), absl::StatusCode::kFailedPrecondition);
  session->OnMessage(Request(9, {"play T1"}, 1000));
  EXPECT_EQ(session->View()["missed"], 1);

  // The hand result: scores, never the revealed record (other seats' cards).
  v1::RefereeMessage hr;
  hr.mutable_hand_result()->set_hand_index(0);
  for (int s : {10, -10, 10, -10}) hr.mutable_hand_result()->add_scores(s);
  hr.mutable_hand_result()->set_contract("three");
  hr.mutable_hand_result()->set_record_json(R"({"hands":[["SECRETCARD"]]})");
  session->OnMessage(hr);
  v = session->View();
  EXPECT_TRUE(v["request"].is_null());
  ASSERT_EQ(v["hand_results"].size(), 1u);
  EXPECT_EQ(v["hand_results"][0]["scores"], nlohmann::json({10, -10, 10, -10}));
  EXPECT_EQ(v["totals"], nlohmann::json({10, -10, 10, -10}));
  EXPECT_EQ(v.dump().find("SECRETCARD"), std::string::npos);

  v1::RefereeMessage mr;
  EXPECT_TRUE(v["settlement"].is_null());
  // The final totals carry the end-of-match settlement (here 100 off for one
  // radl left at seat 2): the view says so, so the page's rows add up.
  for (int s : {10, -10, -90, -10}) mr.mutable_match_result()->add_totals(s);
  for (int i = 0; i < 4; ++i) mr.mutable_match_result()->add_faults(i == 1 ? 1 : 0);
  session->OnMessage(mr);
  session->OnDetach(link.get());
  v = session->View();
  EXPECT_EQ(v["status"], "done");
  EXPECT_EQ(v["settlement"], nlohmann::json({0, 0, -100, 0}));
  EXPECT_EQ(v["totals"], nlohmann::json({10, -10, 10, -10}));
  EXPECT_EQ(v["result"]["faults"][1], 1);
  EXPECT_FALSE(v["connected"]);
  EXPECT_TRUE(session->Ended());
}

TEST(PlaySession, AStreamDialledAgainStartsOverAndAGoneStreamRefusesAnswers) {
  FakeClock clock;
  auto session = std::make_shared<PlaySession>("secret", "P-1", 1, clock.Fn());
  auto first = std::make_shared<FakeLink>();
  session->OnAttach(first);
  session->OnMessage(Start("P-1", 1));
  session->OnMessage(HandStartMsg());
  session->OnMessage(Request(1, {"pass"}, 5000));
  // The referee died: the stream broke. No answer can go anywhere.
  session->OnDetach(first.get());
  EXPECT_TRUE(session->View()["request"].is_null());
  EXPECT_EQ(session->Act(1, "pass").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(session->Ended());

  // The scheduler runs the match again on another referee: same key, a new stream.
  auto second = std::make_shared<FakeLink>();
  session->OnAttach(second);
  nlohmann::json v = session->View();
  EXPECT_TRUE(v["observation"].is_null());
  EXPECT_TRUE(v["hand_results"].empty());
  session->OnMessage(Start("P-1", 1));
  session->OnMessage(Request(1, {"pass"}, 5000));
  // A late detach of the old stream changes nothing.
  session->OnDetach(first.get());
  ASSERT_TRUE(session->Act(1, "pass").ok());
  EXPECT_TRUE(first->sent.empty());
  ASSERT_EQ(second->sent.size(), 1u);

  session->Fail("bot 'x' is unreachable");
  v = session->View();
  EXPECT_EQ(v["status"], "failed");
  EXPECT_EQ(v["error"], "bot 'x' is unreachable");
  EXPECT_TRUE(session->Ended());
}

TEST(PlaySession, AForfeitedSeatGetsItsResultFromTheStore) {
  FakeClock clock;
  auto session = std::make_shared<PlaySession>("secret", "P-1", 0, clock.Fn());
  auto link = std::make_shared<FakeLink>();
  session->OnAttach(link);
  session->OnMessage(Start("P-1", 0));
  session->OnMessage(Request(1, {"pass"}, 100));
  session->OnMessage(Request(2, {"pass"}, 100));  // the first timed out
  // Forfeited: the referee closes the seat's stream without a MatchResult.
  session->OnDetach(link.get());
  EXPECT_FALSE(session->Ended());
  v1::MatchResult stored;
  for (int t : {-70, 35, 35}) stored.add_totals(t);
  for (int f : {2, 0, 0}) stored.add_faults(f);
  stored.set_forfeited(true);
  session->Finish(stored);
  nlohmann::json v = session->View();
  EXPECT_EQ(v["status"], "done");
  EXPECT_TRUE(v["result"]["forfeited"]);
  EXPECT_EQ(v["result"]["faults"][0], 2);
  EXPECT_EQ(v["missed"], 1);
  EXPECT_TRUE(session->Ended());
  // A failure after the end changes nothing.
  session->Fail("late");
  EXPECT_EQ(session->View()["status"], "done");
}

}  // namespace
}  // namespace tarock::arena::play
