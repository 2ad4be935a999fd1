// The Prometheus text exposition format (version 0.0.4) of prometheus-cpp
// collectables (a prometheus::Registry, ProcessCollector, ...), as served at
// /metrics.
//
// prometheus-cpp 1.0.1's TextSerializer writes HELP text verbatim, so a
// backslash or a newline in a help string makes the whole page unparsable;
// SerializeMetrics escapes HELP text first. Bucket bounds are the library's
// shortest form ("0.0001", "5e-05", "+Inf"), as Prometheus' own clients print
// them.
//
// Thread-safety: thread-safe as the collectables' Collect() is (prometheus-cpp's
// registry and families are).

#ifndef TAROCK_REFEREE_METRICS_EXPOSITION_H_
#define TAROCK_REFEREE_METRICS_EXPOSITION_H_

#include <string>
#include <vector>

#include "prometheus/collectable.h"

namespace tarock::metrics {

// Every family of every collectable, in order, in the text format. Null
// entries are skipped.
std::string SerializeMetrics(const std::vector<const prometheus::Collectable*>& collectables);

// The Content-Type of SerializeMetrics' output.
inline constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// HELP text escaped for the text format: backslash -> \\, newline -> \n.
std::string EscapeHelp(const std::string& help);

}  // namespace tarock::metrics

#endif  // TAROCK_REFEREE_METRICS_EXPOSITION_H_
