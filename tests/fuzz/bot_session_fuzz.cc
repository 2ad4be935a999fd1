// Fuzz target: the SDK's handling of whatever a referee (or a stranger
// pretending to be one) sends a bot: a sequence of RefereeMessages decoded
// from the input (each a length byte then that many bytes of protobuf wire
// format) driven through sdk::BotSession with a bot that always answers.
// Invariants: nothing crashes; every DecisionRequest gets exactly one
// Decision with its request id; other messages get none.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tarock/sdk/bot.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

class FirstLegalBot : public tarock::sdk::Bot {
 public:
  std::string Decide(const tarock::sdk::Situation& s) override {
    // Touch what bots read, so the fuzzer exercises the conversions.
    (void)s.PlayableCards();
    (void)s.UnknownCards();
    (void)s.PlayedCards();
    (void)s.trick();
    return s.legal().empty() ? std::string() : s.legal().front();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tarock::fuzz::Input in(data, size);
  tarock::sdk::BotSession session(std::make_unique<FirstLegalBot>());
  for (int i = 0; i < 64 && !in.empty(); ++i) {
    size_t length = in.Byte();
    std::string bytes;
    for (size_t k = 0; k < length && !in.empty(); ++k) bytes.push_back(static_cast<char>(in.Byte()));
    tarock::v1::RefereeMessage message;
    if (!message.ParseFromString(bytes)) continue;
    std::optional<tarock::v1::BotMessage> reply = session.Handle(message);
    if (message.has_decision_request()) {
      if (!reply || !reply->has_decision() ||
          reply->decision().request_id() != message.decision_request().request_id())
        tarock::fuzz::Fail("a decision request without its decision");
    } else if (reply && reply->has_decision()) {
      tarock::fuzz::Fail("a decision nobody asked for");
    }
  }
  return 0;
}
