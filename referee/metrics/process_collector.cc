#include "referee/metrics/process_collector.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "prometheus/client_metric.h"
#include "prometheus/metric_type.h"

namespace tarock::metrics {
namespace {

// The fields of /proc/self/stat after the command name, so that fields[0] is
// field 3 (state) of proc(5). Empty when unreadable.
std::vector<std::string> StatFields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  size_t close = line.rfind(')');  // the command name may hold spaces and ')'
  if (close == std::string::npos) return {};
  std::istringstream rest(line.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

// Field `n` (1-based, as numbered in proc(5)) of StatFields() as a number;
// false when missing.
bool StatField(const std::vector<std::string>& fields, int n, double* out) {
  size_t i = n - 3;
  if (n < 3 || i >= fields.size()) return false;
  try {
    *out = std::stod(fields[i]);
  } catch (...) {
    return false;
  }
  return true;
}

prometheus::MetricFamily One(const char* name, const char* help, prometheus::MetricType type,
                             double value) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) m.counter.value = value;
  else m.gauge.value = value;
  f.metric.push_back(m);
  return f;
}

}  // namespace

ProcessCollector::ProcessCollector() {
  double start_ticks;
  if (!StatField(StatFields(), 22, &start_ticks)) return;
  std::ifstream in("/proc/stat");
  for (std::string key; in >> key;) {
    if (key == "btime") {
      double boot;
      if (in >> boot) start_time_seconds_ = boot + start_ticks / sysconf(_SC_CLK_TCK);
      return;
    }
    in.ignore(1 << 20, '\n');
  }
}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  std::vector<std::string> stat = StatFields();
  double utime, stime, vsize, rss;
  if (StatField(stat, 14, &utime) && StatField(stat, 15, &stime)) {
    out.push_back(One("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                      MetricType::Counter, (utime + stime) / sysconf(_SC_CLK_TCK)));
  }
  if (StatField(stat, 24, &rss)) {
    out.push_back(One("process_resident_memory_bytes", "Resident memory size in bytes.",
                      MetricType::Gauge, rss * sysconf(_SC_PAGESIZE)));
  }
  if (StatField(stat, 23, &vsize)) {
    out.push_back(One("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                      MetricType::Gauge, vsize));
  }
  std::error_code ec;
  int fds = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++fds;
  }
  // The iterator's own descriptor was open while counting.
  if (!ec && fds > 0) {
    out.push_back(One("process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
                      fds - 1));
  }
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    out.push_back(One("process_max_fds", "Maximum number of open file descriptors.",
                      MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
  }
  if (start_time_seconds_ > 0) {
    out.push_back(One("process_start_time_seconds",
                      "Start time of the process since unix epoch in seconds.", MetricType::Gauge,
                      start_time_seconds_));
  }
  return out;
}

}  // namespace tarock::metrics
