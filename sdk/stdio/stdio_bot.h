// The stdio bridge's bot: a tarock::sdk::Bot whose Decide writes the decision
// request as one JSON line to a child program and reads one action line back
// before the request's deadline. Protocol: sdk/stdio/README.md.
//
// JSON: protobuf's JSON mapping of tarock.v1.DecisionRequest
// (google::protobuf::util::MessageToJsonString) with the proto field names
// (`legal_actions`, not `legalActions`) and every field present, defaults
// included; 64-bit integers (request_id, time_left_ms, bank_left_ms) are JSON
// strings, as the mapping prescribes. With `events`, every RefereeMessage goes
// to the program, wrapped ({"match_start": {...}}, {"decision_request": {...}},
// ...), and only decision_request lines are answered.
//
// Failures never hang: no answer before the deadline is left to the referee
// (it records a timeout; the late line is dropped when it comes); a program that
// exits or closes its output sets failure(), and the bridge ends the stream
// (the referee records a disconnect); a line that is no action goes to the
// referee as it is (cut and cleaned to printable ASCII), which records it as
// malformed or illegal.
//
// Thread-safety: one StdioBot per match stream, called from that stream's
// thread only (as every SDK bot).

#ifndef TAROCK_SDK_STDIO_STDIO_BOT_H_
#define TAROCK_SDK_STDIO_STDIO_BOT_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "sdk/stdio/child_process.h"
#include "tarock/sdk/bot.h"

namespace tarock::stdio {

struct StdioOptions {
  std::vector<std::string> command;  // argv of the program
  std::string log_path;              // its standard error ("" = inherited)
  bool events = false;               // send every referee message, not only requests
  // With `events`: each message as "pb:" and the base64 of the binary
  // RefereeMessage instead of JSON (BinaryLine). The SDKs' stdio modes read
  // both; tarock-bothost uses it for python and cpp bots (JSON costs more than
  // a quick bot's decision: ~0.2 ms to write here, ~0.4 ms to parse in Python).
  bool binary = false;
  size_t max_line_bytes = 4096;      // longer answers are cut (and are no action)
  // Extra time after the referee's deadline (time left + grace) before the
  // bridge gives up on an answer; the referee has recorded the timeout by then.
  int64_t margin_ms = 50;
  std::string label = "stdio-bridge";  // prefix of the bridge's own log lines
  // When set, starts the program instead of ChildProcess::Start(command,
  // log_path): how tarock-bothost runs it in a sandbox.
  std::function<absl::StatusOr<std::unique_ptr<ChildProcess>>()> start;
  // Each decision's request and answer on one CPU (ChildProcess::BeginTurn;
  // only where `start` gives a child whose threads it knows: the sandbox).
  bool one_cpu_turns = false;
  // How long this process has been stopped so far (arena/bothost/stall_clock.h),
  // subtracted from the program's time to answer for slow(): unset, nothing is.
  std::function<absl::Duration()> stalled;
};

// One line of JSON for a message, as the program sees it.
std::string ToJsonLine(const google::protobuf::Message& message);
// One line for a message in the binary form: "pb:" + base64 of its bytes.
std::string BinaryLine(const google::protobuf::Message& message);
// BinaryLine of a RefereeMessage that holds `request`, without copying the
// request into one (a decision's request carries the hand's history).
std::string RequestLine(const v1::DecisionRequest& request);
// The action in a line the program wrote: the line itself (trimmed), or the
// "action" of a JSON object, or a JSON string; cut to `max_bytes` and cleaned
// to printable ASCII so that it always travels as a well-formed message.
std::string ActionFromLine(const std::string& line, size_t max_bytes);

class StdioBot : public sdk::Bot {
 public:
  explicit StdioBot(StdioOptions options) : options_(std::move(options)) {}
  ~StdioBot() override;

  // Starts the program.
  absl::Status Start();
  // Events mode: passes a non-decision message on to the program.
  void Forward(const v1::RefereeMessage& message);
  std::string Decide(const sdk::Situation& s) override;
  // Set once the program has gone away: why, for the referee and the log.
  const std::optional<std::string>& failure() const { return failure_; }
  // True when the last Decide gave up at its deadline: the referee has already
  // recorded a timeout, so its empty answer is better not sent at all.
  bool timed_out() const { return timed_out_; }
  // True when the program took more than half the last decision's time (its
  // limit and grace, from the request's write; time this process was stopped
  // through, StdioOptions::stalled, not counted) to answer, or gave no answer:
  // a timeout the referee recorded for a decision that was not slow here was
  // the fault of what lies between (tarock-bothost's account of a seat,
  // docs/hosting.md "A host that stalls").
  bool slow() const { return slow_; }
  // Closes the program's input and gives it a moment to exit, then kills it.
  void Finish();
  // Time spent in Decide so far from the request written to the answer read
  // (the program's wake-up, thinking and answer, the pipe both ways): with
  // the time around it, where a decision's time goes (docs/benchmarks.md).
  absl::Duration answer_wait() const { return answer_wait_; }

 private:
  void Fail(const std::string& why);
  void Log(const std::string& text) const;

  StdioOptions options_;
  std::unique_ptr<ChildProcess> child_;
  std::optional<std::string> failure_;
  int stale_lines_ = 0;  // answers still owed for requests that timed out
  int decisions_ = 0;
  bool timed_out_ = false;
  bool slow_ = false;
  absl::Duration answer_wait_;
};

}  // namespace tarock::stdio

#endif  // TAROCK_SDK_STDIO_STDIO_BOT_H_
