// Structured event logging for the Tarock programs (tarock-referee,
// tarock-arena, tarock, the bots' SDK, tarock-stdio-bridge): one line per
// event on standard error, with a UTC timestamp, a level, the component that
// logs, a message, and key=value fields (match, ladder, tournament, bot, seat,
// referee, ...).
//
//   text (default):
//     2026-11-25T03:41:07.123Z INFO scheduler msg="match finished" match=m-12 ladder=3
//   json (--log_format=json), one object per line, keys in this order:
//     {"ts":"2026-11-25T03:41:07.123Z","level":"info","component":"scheduler",
//      "msg":"match finished","match":"m-12","ladder":3}
//
// Text values are written bare when they consist of [A-Za-z0-9._:/@+,-] and
// are not empty, else in double quotes with \" \\ \n \r \t escaped. JSON
// strings are escaped as JSON; numeric and boolean fields are JSON numbers and
// booleans; invalid UTF-8 is replaced by U+FFFD.
//
// Flags (defined here, once, for every program that links this library):
//   --log_format=text|json   --log_level=debug|info|warning|error
// A program calls ApplyLogFlags() after absl::ParseCommandLine.
//
// Secrets: callers must not pass tokens, passwords or Authorization headers.
// As a second line of defence, the value of a field whose key contains
// "token", "secret", "password" or "authorization" (any case) is written as
// "[redacted]".
//
// Logging is for events (a match started, a bot faulted, a referee failed);
// a tool's results and its progress display stay on stdout/stderr as they are.
//
// Thread-safety: every function may be called from any thread at any time.
// Each event is formatted in the calling thread and written with one write(2)
// of the whole line under a process-wide mutex, so lines of concurrent
// threads never interleave. SetLogSink/SetLogFormat/SetLogLevel take effect
// for events logged after they return.

#ifndef TAROCK_REFEREE_LOGGING_LOG_H_
#define TAROCK_REFEREE_LOGGING_LOG_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

// Defined in log.cc. A tool whose default should differ (tarock keeps its
// results' output quiet: "error") sets it before absl::ParseCommandLine.
ABSL_DECLARE_FLAG(std::string, log_format);
ABSL_DECLARE_FLAG(std::string, log_level);

namespace tarock::logging {

enum class Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };
enum class Format { kText, kJson };

// One key=value field of an event. Build them in place:
//   {"match", id}, {"seat", 2}, {"elapsed_ms", 12.5}, {"forfeited", true}.
class Field {
 public:
  enum class Kind { kString, kInt, kUint, kDouble, kBool };
  Field(absl::string_view key, absl::string_view value)
      : key_(key), kind_(Kind::kString), string_(value) {}
  Field(absl::string_view key, const std::string& value) : Field(key, absl::string_view(value)) {}
  Field(absl::string_view key, const char* value)
      : Field(key, absl::string_view(value == nullptr ? "" : value)) {}
  Field(absl::string_view key, bool value) : key_(key), kind_(Kind::kBool), int_(value) {}
  Field(absl::string_view key, int value) : key_(key), kind_(Kind::kInt), int_(value) {}
  Field(absl::string_view key, long value) : key_(key), kind_(Kind::kInt), int_(value) {}
  Field(absl::string_view key, long long value) : key_(key), kind_(Kind::kInt), int_(value) {}
  Field(absl::string_view key, unsigned value) : key_(key), kind_(Kind::kInt), int_(value) {}
  Field(absl::string_view key, unsigned long value) : key_(key), kind_(Kind::kUint), uint_(value) {}
  Field(absl::string_view key, unsigned long long value)
      : key_(key), kind_(Kind::kUint), uint_(value) {}
  Field(absl::string_view key, double value) : key_(key), kind_(Kind::kDouble), double_(value) {}

  absl::string_view key() const { return key_; }
  Kind kind() const { return kind_; }
  absl::string_view string_value() const { return string_; }
  int64_t int_value() const { return int_; }
  uint64_t uint_value() const { return uint_; }
  double double_value() const { return double_; }

 private:
  absl::string_view key_;
  Kind kind_;
  absl::string_view string_;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double double_ = 0;
};

// Logs one event when `level` is at or above the configured level. `component`
// is a short lowercase word (scheduler, referee, arena, store, match, bot...).
void Log(Level level, absl::string_view component, absl::string_view msg,
         std::initializer_list<Field> fields = {});

inline void Debug(absl::string_view component, absl::string_view msg,
                  std::initializer_list<Field> fields = {}) {
  Log(Level::kDebug, component, msg, fields);
}
inline void Info(absl::string_view component, absl::string_view msg,
                 std::initializer_list<Field> fields = {}) {
  Log(Level::kInfo, component, msg, fields);
}
inline void Warning(absl::string_view component, absl::string_view msg,
                    std::initializer_list<Field> fields = {}) {
  Log(Level::kWarning, component, msg, fields);
}
inline void Error(absl::string_view component, absl::string_view msg,
                  std::initializer_list<Field> fields = {}) {
  Log(Level::kError, component, msg, fields);
}

// True when an event of `level` would be written (to skip costly fields).
bool Enabled(Level level);

// The line Log would write (with its trailing newline), for tests and sinks.
std::string FormatLine(Format format, absl::Time time, Level level, absl::string_view component,
                       absl::string_view msg, std::initializer_list<Field> fields);

void SetLogFormat(Format format);
void SetLogLevel(Level level);
// Replaces the destination (default: one write(2) per line to fd 2); an empty
// function restores it. The sink is called under the logging mutex.
void SetLogSink(std::function<void(absl::string_view line)> sink);

// Parses "text"/"json" and "debug"/"info"/"warning"/"error" (InvalidArgument
// naming the choices otherwise).
absl::Status ParseLogFormat(absl::string_view text, Format* out);
absl::Status ParseLogLevel(absl::string_view text, Level* out);

// Applies --log_format and --log_level; InvalidArgument for a bad value.
absl::Status ApplyLogFlags();

}  // namespace tarock::logging

#endif  // TAROCK_REFEREE_LOGGING_LOG_H_
