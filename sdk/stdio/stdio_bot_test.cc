// The stdio bridge's lines (stdio_bot.h): RequestLine, built without a copy of
// the request, is the very line BinaryLine gives for the wrapped message.

#include "sdk/stdio/stdio_bot.h"

#include <string>

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

}  // namespace
}  // namespace tarock::stdio
