#include "referee/logging/log.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <mutex>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

ABSL_FLAG(std::string, log_format, "text",
          "format of the event log on standard error: text (one key=value line per event) or json "
          "(one JSON object per line); see docs/logging.md");
ABSL_FLAG(std::string, log_level, "info",
          "the least severe events logged: debug, info, warning or error");

namespace tarock::logging {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::kInfo)};
std::atomic<int> g_format{static_cast<int>(Format::kText)};

std::mutex& Mutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}
std::function<void(absl::string_view)>& Sink() {
  static auto* sink = new std::function<void(absl::string_view)>;
  return *sink;
}

const char* LevelName(Level level, bool upper) {
  switch (level) {
    case Level::kDebug: return upper ? "DEBUG" : "debug";
    case Level::kInfo: return upper ? "INFO" : "info";
    case Level::kWarning: return upper ? "WARNING" : "warning";
    case Level::kError: return upper ? "ERROR" : "error";
  }
  return "?";
}

bool IsSecretKey(absl::string_view key) {
  const std::string lower = absl::AsciiStrToLower(key);
  for (absl::string_view word : {"token", "secret", "password", "authorization"})
    if (absl::StrContains(lower, word)) return true;
  return false;
}

bool IsBare(absl::string_view v) {
  if (v.empty()) return false;
  for (char c : v) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) continue;
    switch (c) {
      case '.': case '_': case ':': case '/': case '@': case '+': case '-': case ',': continue;
      default: return false;
    }
  }
  return true;
}

void AppendTextValue(std::string* out, absl::string_view v) {
  if (IsBare(v)) {
    out->append(v.data(), v.size());
    return;
  }
  out->push_back('"');
  for (char c : v) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default: out->push_back(c);
    }
  }
  out->push_back('"');
}

std::string NumberText(double d) {
  if (!std::isfinite(d)) return std::isnan(d) ? "NaN" : (d > 0 ? "Inf" : "-Inf");
  return nlohmann::json(d).dump();
}

void Write(absl::string_view line) {
  std::lock_guard<std::mutex> lock(Mutex());
  if (Sink()) {
    Sink()(line);
    return;
  }
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(2, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= n;
  }
}

}  // namespace

std::string FormatLine(Format format, absl::Time time, Level level, absl::string_view component,
                       absl::string_view msg, std::initializer_list<Field> fields) {
  const std::string ts = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
  if (format == Format::kJson) {
    nlohmann::ordered_json j;
    j["ts"] = ts;
    j["level"] = LevelName(level, false);
    j["component"] = std::string(component);
    j["msg"] = std::string(msg);
    for (const Field& f : fields) {
      std::string key(f.key());
      if (key == "ts" || key == "level" || key == "component" || key == "msg") key = "field_" + key;
      if (IsSecretKey(f.key())) {
        j[key] = "[redacted]";
        continue;
      }
      switch (f.kind()) {
        case Field::Kind::kString: j[key] = std::string(f.string_value()); break;
        case Field::Kind::kInt: j[key] = f.int_value(); break;
        case Field::Kind::kUint: j[key] = f.uint_value(); break;
        case Field::Kind::kBool: j[key] = f.int_value() != 0; break;
        case Field::Kind::kDouble:
          if (std::isfinite(f.double_value())) j[key] = f.double_value();
          else j[key] = NumberText(f.double_value());
          break;
      }
    }
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  }
  std::string out = absl::StrCat(ts, " ", LevelName(level, true), " ", component, " msg=");
  AppendTextValue(&out, msg);
  for (const Field& f : fields) {
    absl::StrAppend(&out, " ", f.key(), "=");
    if (IsSecretKey(f.key())) {
      out.append("[redacted]");
      continue;
    }
    switch (f.kind()) {
      case Field::Kind::kString: AppendTextValue(&out, f.string_value()); break;
      case Field::Kind::kInt: absl::StrAppend(&out, f.int_value()); break;
      case Field::Kind::kUint: absl::StrAppend(&out, f.uint_value()); break;
      case Field::Kind::kBool: out.append(f.int_value() ? "true" : "false"); break;
      case Field::Kind::kDouble: out.append(NumberText(f.double_value())); break;
    }
  }
  out.push_back('\n');
  return out;
}

bool Enabled(Level level) { return static_cast<int>(level) >= g_level.load(std::memory_order_relaxed); }

void Log(Level level, absl::string_view component, absl::string_view msg,
         std::initializer_list<Field> fields) {
  if (!Enabled(level)) return;
  Write(FormatLine(static_cast<Format>(g_format.load(std::memory_order_relaxed)), absl::Now(), level,
                   component, msg, fields));
}

void SetLogFormat(Format format) { g_format.store(static_cast<int>(format)); }
void SetLogLevel(Level level) { g_level.store(static_cast<int>(level)); }
void SetLogSink(std::function<void(absl::string_view line)> sink) {
  std::lock_guard<std::mutex> lock(Mutex());
  Sink() = std::move(sink);
}

absl::Status ParseLogFormat(absl::string_view text, Format* out) {
  if (text == "text") *out = Format::kText;
  else if (text == "json") *out = Format::kJson;
  else return absl::InvalidArgumentError(absl::StrCat("--log_format: '", text, "' is not one of: text, json"));
  return absl::OkStatus();
}

absl::Status ParseLogLevel(absl::string_view text, Level* out) {
  if (text == "debug") *out = Level::kDebug;
  else if (text == "info") *out = Level::kInfo;
  else if (text == "warning") *out = Level::kWarning;
  else if (text == "error") *out = Level::kError;
  else
    return absl::InvalidArgumentError(
        absl::StrCat("--log_level: '", text, "' is not one of: debug, info, warning, error"));
  return absl::OkStatus();
}

absl::Status ApplyLogFlags() {
  Format format;
  Level level;
  if (absl::Status s = ParseLogFormat(absl::GetFlag(FLAGS_log_format), &format); !s.ok()) return s;
  if (absl::Status s = ParseLogLevel(absl::GetFlag(FLAGS_log_level), &level); !s.ok()) return s;
  SetLogFormat(format);
  SetLogLevel(level);
  return absl::OkStatus();
}

}  // namespace tarock::logging
