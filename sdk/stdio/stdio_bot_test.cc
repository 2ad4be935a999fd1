// The stdio bridge's lines (stdio_bot.h): RequestLine, built without a copy of
// the request, is the very line BinaryLine gives for the wrapped message.
// And StdioBot::slow(), the host's account of a decision (docs/hosting.md,
// "A host that stalls"), with a real program that answers late.

#include "sdk/stdio/stdio_bot.h"

#include <atomic>
#include <string>
#include <thread>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace tarock::stdio {
namespace {

v1::DecisionRequest Request(int events) {
  v1::DecisionRequest r;
  r.set_request_id(7);
  r.set_time_left_ms(1234);
  r.add_legal_actions("play T21");
  r.add_legal_actions("play HK");
  for (int i = 0; i < events; ++i) {
    v1::Event* e = r.mutable_observation()->add_history();
    e->set_seat(i % 4);
    e->set_action("play T" + std::to_string(1 + i % 21));
  }
  return r;
}

TEST(RequestLineTest, IsTheBinaryLineOfTheWrappedRequest) {
  // 0 events: a one-byte length; 40 and 400: two and more bytes of it.
  for (int events : {0, 40, 400}) {
    const v1::DecisionRequest r = Request(events);
    v1::RefereeMessage wrapped;
    *wrapped.mutable_decision_request() = r;
    const std::string line = RequestLine(r);
    EXPECT_EQ(line, BinaryLine(wrapped)) << events << " events";
    std::string bytes;
    ASSERT_TRUE(absl::Base64Unescape(line.substr(3), &bytes));
    v1::RefereeMessage back;
    ASSERT_TRUE(back.ParseFromString(bytes));
    EXPECT_EQ(back.decision_request().observation().history_size(), events);
  }
}

// A program that answers each request after `delay_s` seconds.
StdioOptions Answering(const std::string& delay_s) {
  StdioOptions o;
  o.command = {"/bin/sh", "-c", "while read l; do sleep " + delay_s + "; echo pass; done"};
  o.margin_ms = 50;
  return o;
}

sdk::Situation Asking(sdk::MatchInfo* match, v1::DecisionRequest* request) {
  match->time_control.set_grace_ms(50);
  request->set_request_id(1);
  request->set_time_left_ms(200);  // the program's time: 200 + 50 ms; half of it 125 ms
  request->add_legal_actions("pass");
  return sdk::Situation(*match, *request);
}

TEST(StdioBotSlowTest, AnAnswerInHalfTheTimeIsNotSlowOneAfterItIs) {
  sdk::MatchInfo match;
  v1::DecisionRequest request;
  StdioBot quick(Answering("0"));
  ASSERT_TRUE(quick.Start().ok());
  EXPECT_EQ(quick.Decide(Asking(&match, &request)), "pass");
  EXPECT_FALSE(quick.slow());
  StdioBot late(Answering("0.18"));  // in time (250 ms), but past half of it
  ASSERT_TRUE(late.Start().ok());
  EXPECT_EQ(late.Decide(Asking(&match, &request)), "pass");
  EXPECT_TRUE(late.slow());
  StdioBot silent(Answering("5"));
  ASSERT_TRUE(silent.Start().ok());
  EXPECT_EQ(silent.Decide(Asking(&match, &request)), "");
  EXPECT_TRUE(silent.timed_out());
  EXPECT_TRUE(silent.slow());
  quick.Finish();
  late.Finish();
  silent.Finish();
}

// Time the host was stopped (StdioOptions::stalled) is not the program's:
// its deadline moves by it, and it does not count towards slow().
TEST(StdioBotSlowTest, TimeTheHostWasStoppedIsNotTheProgramsTime) {
  sdk::MatchInfo match;
  v1::DecisionRequest request;
  StdioOptions o = Answering("0.4");  // past the 300 ms the bridge waits
  std::atomic<int64_t> stalled_ms{0};
  o.stalled = [&stalled_ms] { return absl::Milliseconds(stalled_ms.load()); };
  StdioBot bot(o);
  ASSERT_TRUE(bot.Start().ok());
  std::thread stop([&stalled_ms] {
    absl::SleepFor(absl::Milliseconds(100));
    stalled_ms = 390;  // as if the host had been stopped for 390 ms meanwhile
  });
  EXPECT_EQ(bot.Decide(Asking(&match, &request)), "pass");
  stop.join();
  EXPECT_FALSE(bot.timed_out());
  EXPECT_FALSE(bot.slow());  // 400 ms, less the 390 stopped
  bot.Finish();
}

}  // namespace
}  // namespace tarock::stdio
