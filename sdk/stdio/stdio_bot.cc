#include "sdk/stdio/stdio_bot.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace tarock::stdio {

std::string ToJsonLine(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = false;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  if (!google::protobuf::util::MessageToJsonString(message, &out, options).ok()) return "{}";
  return out;
}

std::string BinaryLine(const google::protobuf::Message& message) {
  return absl::StrCat("pb:", absl::Base64Escape(message.SerializeAsString()));
}

std::string RequestLine(const v1::DecisionRequest& request) {
  // A RefereeMessage's bytes are its one field's key and length, then the
  // field's bytes: no copy of the request (its history) into a message.
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    google::protobuf::internal::WireFormatLite::WriteTag(
        v1::RefereeMessage::kDecisionRequestFieldNumber,
        google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED, &out);
    out.WriteVarint32(static_cast<uint32_t>(request.ByteSizeLong()));
    request.SerializeWithCachedSizes(&out);  // the sizes ByteSizeLong just cached
  }
  return absl::StrCat("pb:", absl::Base64Escape(bytes));
}

std::string ActionFromLine(const std::string& line, size_t max_bytes) {
  std::string text(absl::StripAsciiWhitespace(line));
  if (!text.empty() && (text[0] == '{' || text[0] == '"')) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_string()) {
      text = j.get<std::string>();
    } else if (j.is_object() && j.contains("action") && j["action"].is_string()) {
      text = j["action"].get<std::string>();
    }
  }
  if (text.size() > max_bytes) text.resize(max_bytes);
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return std::string(absl::StripAsciiWhitespace(text));
}

StdioBot::~StdioBot() { Finish(); }

absl::Status StdioBot::Start() {
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      options_.start ? options_.start() : ChildProcess::Start(options_.command, options_.log_path);
  if (!child.ok()) {
    Fail(std::string(child.status().message()));
    return child.status();
  }
  child_ = std::move(*child);
  return absl::OkStatus();
}

void StdioBot::Log(const std::string& text) const {
  std::fprintf(stderr, "%s: %s\n", options_.label.c_str(), text.c_str());
  std::fflush(stderr);
}

void StdioBot::Fail(const std::string& why) {
  if (failure_) return;
  failure_ = why;
  Log(why);
}

void StdioBot::Forward(const v1::RefereeMessage& message) {
  if (!child_ || failure_) return;
  // Not a decision: a short deadline, the program is not expected to answer.
  if (child_->WriteLine(options_.binary ? BinaryLine(message) : ToJsonLine(message), absl::Now() + absl::Seconds(2)) ==
      ChildProcess::Io::kClosed)
    Fail(absl::StrCat("the bot program stopped reading its input: it ", child_->ExitDescription()));
}

std::string StdioBot::Decide(const sdk::Situation& s) {
  timed_out_ = false;
  slow_ = true;  // until an answer comes in time
  if (!child_ || failure_) return "";
  const int n = ++decisions_;
  const v1::TimeControl& tc = s.match().time_control;
  int64_t limit_ms = s.time_left_ms();
  if (limit_ms <= 0 && tc.match_bank_ms() == 0) limit_ms = 10000;  // no limit given
  const int64_t grace_ms = tc.grace_ms() > 0 ? tc.grace_ms() : 50;
  const absl::Time asked = absl::Now();
  const absl::Duration stalled_before = options_.stalled ? options_.stalled() : absl::ZeroDuration();
  const absl::Duration allowed = absl::Milliseconds(limit_ms + grace_ms + options_.margin_ms);
  absl::Time deadline = asked + allowed;
  // The time this process was stopped since `asked` (StdioOptions::stalled).
  auto stalled = [&] {
    return options_.stalled ? options_.stalled() - stalled_before : absl::ZeroDuration();
  };

  std::string line;
  if (options_.events && options_.binary) {
    line = RequestLine(s.request());
  } else if (options_.events) {
    v1::RefereeMessage wrapped;
    *wrapped.mutable_decision_request() = s.request();
    line = ToJsonLine(wrapped);
  } else {
    line = ToJsonLine(s.request());
  }
  // The request's write wakes the program on this thread's CPU, and its
  // answer wakes this thread there (ChildProcess::BeginTurn).
  struct Turn {
    ChildProcess* child;
    ~Turn() {
      if (child != nullptr) child->EndTurn();
    }
  } turn{options_.one_cpu_turns ? child_.get() : nullptr};
  if (turn.child != nullptr) turn.child->BeginTurn();
  switch (child_->WriteLine(line, deadline)) {
    case ChildProcess::Io::kOk:
      break;
    case ChildProcess::Io::kTimeout:
      // Half a request may sit in the pipe now: the stream cannot go on.
      Fail(absl::StrCat("the bot program does not read its input (decision ", n, ")"));
      return "";
    case ChildProcess::Io::kClosed:
      Fail(absl::StrCat("the bot program stopped reading its input: it ",
                        child_->ExitDescription()));
      return "";
  }
  std::string answer;
  const absl::Time written = absl::Now();
  while (true) {
    switch (child_->ReadLine(deadline, options_.max_line_bytes, &answer)) {
      case ChildProcess::Io::kOk:
        if (stale_lines_ > 0) {  // the late answer to an earlier request
          --stale_lines_;
          continue;
        }
        answer_wait_ += absl::Now() - written;
        slow_ = absl::Now() - asked - stalled() > absl::Milliseconds(limit_ms + grace_ms) / 2;
        return ActionFromLine(answer, options_.max_line_bytes);
      case ChildProcess::Io::kTimeout:
        // Stopped meanwhile (the whole host): the program gets its time back,
        // for the account (slow()); the referee has given up on this answer.
        if (const absl::Time later = asked + allowed + stalled(); later > deadline) {
          deadline = later;
          continue;
        }
        Log(absl::StrCat("decision ", n, " (hand ", s.hand_index(), ", ", s.phase(),
                         "): no answer within ", limit_ms, " ms + ", grace_ms, " ms grace"));
        timed_out_ = true;
        ++stale_lines_;
        return "";
      case ChildProcess::Io::kClosed:
        Fail(absl::StrCat("the bot program closed its output: it ", child_->ExitDescription()));
        return "";
    }
  }
}

void StdioBot::Finish() {
  if (child_) child_->Stop(absl::Seconds(1));
}

}  // namespace tarock::stdio
