// ProcessCollector against this test process: the values follow what the
// process does (opening files, burning CPU, allocating memory).

#include "referee/metrics/process_collector.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "prometheus/metric_type.h"

namespace tarock::metrics {
namespace {

std::map<std::string, double> Values(const ProcessCollector& c) {
  std::map<std::string, double> out;
  for (const prometheus::MetricFamily& f : c.Collect()) {
    EXPECT_EQ(f.metric.size(), 1u) << f.name;
    const prometheus::ClientMetric& m = f.metric.at(0);
    out[f.name] = f.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
    EXPECT_FALSE(f.help.empty()) << f.name;
  }
  return out;
}

TEST(ProcessCollectorTest, ReportsTheConventionalMetrics) {
  ProcessCollector c;
  std::map<std::string, double> v = Values(c);
  for (const char* name : {"process_cpu_seconds_total", "process_resident_memory_bytes",
                           "process_virtual_memory_bytes", "process_open_fds",
                           "process_max_fds", "process_start_time_seconds"}) {
    EXPECT_EQ(v.count(name), 1u) << name;
  }
  EXPECT_GT(v["process_resident_memory_bytes"], 1 << 20);
  EXPECT_GE(v["process_virtual_memory_bytes"], v["process_resident_memory_bytes"]);
  EXPECT_GE(v["process_open_fds"], 3);  // stdin, stdout, stderr
  EXPECT_GE(v["process_max_fds"], v["process_open_fds"]);
  // Started in the last ten minutes, not in the future (CLK_TCK granularity).
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_LE(v["process_start_time_seconds"], now + 1);
  EXPECT_GT(v["process_start_time_seconds"], now - 600);
  for (const prometheus::MetricFamily& f : c.Collect()) {
    EXPECT_EQ(f.type, f.name == "process_cpu_seconds_total" ? prometheus::MetricType::Counter
                                                             : prometheus::MetricType::Gauge);
  }
}

TEST(ProcessCollectorTest, CountsOpenFilesExactly) {
  ProcessCollector c;
  const double before = Values(c)["process_open_fds"];
  int a = open("/dev/null", O_RDONLY), b = open("/dev/null", O_RDONLY);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_EQ(Values(c)["process_open_fds"], before + 2);
  close(a);
  close(b);
  EXPECT_EQ(Values(c)["process_open_fds"], before);
}

TEST(ProcessCollectorTest, CpuAndMemoryFollowTheWork) {
  ProcessCollector c;
  std::map<std::string, double> before = Values(c);
  // 300 ms of this process's CPU time (clock ticks are 10 ms), within 20 s
  // of a shared machine.
  const std::clock_t cpu_until = std::clock() + CLOCKS_PER_SEC * 3 / 10;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  volatile unsigned x = 1;
  while (std::clock() < cpu_until && std::chrono::steady_clock::now() < deadline)
    x = x * 1103515245u + 12345u;
  // 64 MiB touched.
  const size_t size = 64 << 20;
  std::unique_ptr<char[]> block(new char[size]);
  std::memset(block.get(), 1, size);
  std::map<std::string, double> after = Values(c);
  EXPECT_GE(after["process_cpu_seconds_total"] - before["process_cpu_seconds_total"], 0.2);
  EXPECT_GE(after["process_resident_memory_bytes"] - before["process_resident_memory_bytes"],
            60 << 20);
  EXPECT_EQ(after["process_start_time_seconds"], before["process_start_time_seconds"]);
  EXPECT_EQ(block[size - 1], 1);
}

}  // namespace
}  // namespace tarock::metrics
