// SerializeMetrics: bucket bounds as Prometheus users expect them, escaping
// of HELP text and label values, families of several collectables.

#include "referee/metrics/exposition.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "referee/metrics/buckets.h"

namespace tarock::metrics {
namespace {

TEST(ExpositionTest, BucketBoundsAreShortest) {
  prometheus::Registry r;
  auto& f = prometheus::BuildHistogram().Name("t_seconds").Help("Test.").Register(r);
  // The referee's decision buckets and the arena's match duration buckets.
  f.Add({{"k", "decision"}}, ExponentialBuckets(0.00005, 2, 18)).Observe(0.0003);
  f.Add({{"k", "match"}}, ExponentialBuckets(0.05, 2, 14)).Observe(1);
  f.Add({{"k", "decimal"}}, prometheus::Histogram::BucketBoundaries{1e-7, 0.0001, 0.1, 0.3, 2.5});
  const std::string text = SerializeMetrics({&r});
  for (const char* want :
       {"le=\"5e-05\"} 0", "le=\"0.0001\"} 0", "le=\"0.0002\"} 0", "le=\"0.0004\"} 1",
        "le=\"0.0016\"}", "le=\"6.5536\"}", "le=\"0.05\"}", "le=\"0.1\"}", "le=\"0.8\"}",
        "le=\"409.6\"}", "le=\"0.3\"}", "le=\"2.5\"}", "le=\"1e-07\"}", "le=\"+Inf\"} 1"}) {
    EXPECT_TRUE(absl::StrContains(text, want)) << want << "\n" << text;
  }
  // No bound carries the binary noise of a 17-digit rendering.
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    size_t le = line.find("le=\"");
    if (le == absl::string_view::npos) continue;
    absl::string_view bound = line.substr(le + 4, line.find('"', le + 4) - le - 4);
    EXPECT_LE(bound.size(), 7u) << line;
  }
  EXPECT_TRUE(absl::StrContains(text, "t_seconds_bucket{k=\"decision\",le=\"0.0004\"} 1"));
  EXPECT_TRUE(absl::StrContains(text, "t_seconds_count{k=\"match\"} 1"));
  EXPECT_TRUE(absl::StrContains(text, "t_seconds_sum{k=\"match\"} 1"));
}

TEST(ExpositionTest, HelpTextAndLabelValuesAreEscaped) {
  prometheus::Registry r;
  prometheus::BuildCounter()
      .Name("t_total")
      .Help("A \\ and a\nnewline.")
      .Register(r)
      .Add({{"v", "q\"b\\n\nx"}})
      .Increment(2);
  const std::string text = SerializeMetrics({&r});
  EXPECT_TRUE(absl::StrContains(text, "# HELP t_total A \\\\ and a\\nnewline.\n")) << text;
  EXPECT_TRUE(absl::StrContains(text, "# TYPE t_total counter\n")) << text;
  EXPECT_TRUE(absl::StrContains(text, "t_total{v=\"q\\\"b\\\\n\\nx\"} 2\n")) << text;
  // Every line is a comment or a sample: nothing spilled onto a line of its own.
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty()))
    EXPECT_TRUE(absl::StartsWith(line, "# ") || absl::StartsWith(line, "t_total")) << line;
}

TEST(ExpositionTest, EscapeHelp) {
  EXPECT_EQ(EscapeHelp("plain"), "plain");
  EXPECT_EQ(EscapeHelp("a\\b\nc\"d"), "a\\\\b\\nc\"d");  // quotes stay in HELP
}

TEST(ExpositionTest, EveryCollectableInOrderNullsSkipped) {
  prometheus::Registry a, b;
  prometheus::BuildGauge().Name("first_g").Help("First.").Register(a).Add({}).Set(1.5);
  prometheus::BuildGauge().Name("second_g").Help("Second.").Register(b).Add({}).Set(-3);
  const std::string text = SerializeMetrics({&a, nullptr, &b});
  size_t first = text.find("first_g 1.5\n"), second = text.find("second_g -3\n");
  ASSERT_NE(first, std::string::npos) << text;
  ASSERT_NE(second, std::string::npos) << text;
  EXPECT_LT(first, second);
  EXPECT_EQ(SerializeMetrics({}), "");
}

}  // namespace
}  // namespace tarock::metrics
