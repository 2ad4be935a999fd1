// The referee's Prometheus metrics, in one place so the runner, the service and
// the dashboards agree on names:
//   tarock_referee_decisions_total{bot}             decisions asked of each bot
//   tarock_referee_decision_seconds{bot}            decision latency histogram
//   tarock_referee_faults_total{bot,kind}           faults by kind
//   tarock_referee_active_matches                   matches running now
//   tarock_referee_hands_total{variant}             hands played (void deals too)
//   tarock_referee_matches_total{variant,outcome}   finished matches: ok, failed, cancelled
// "bot" is the seat name of the MatchSpec. The families live in a
// prometheus-cpp registry (docs/monitoring.md lists every metric served).
//
// Thread-safety: thread-safe (prometheus-cpp's families and metrics are).

#ifndef TAROCK_REFEREE_CORE_REFEREE_METRICS_H_
#define TAROCK_REFEREE_CORE_REFEREE_METRICS_H_

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace tarock {

struct RefereeMetrics {
  // Adds the families to `registry`, which must outlive this object.
  explicit RefereeMetrics(prometheus::Registry* registry);

  // The bounds of decision_seconds: 50 µs doubling to about 6.5 s.
  const prometheus::Histogram::BucketBoundaries decision_buckets;
  prometheus::Family<prometheus::Counter>& decisions;
  prometheus::Family<prometheus::Histogram>& decision_seconds;  // Add(labels, decision_buckets)
  prometheus::Family<prometheus::Counter>& faults;
  prometheus::Gauge& active_matches;
  prometheus::Family<prometheus::Counter>& hands;
  prometheus::Family<prometheus::Counter>& matches;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_CORE_REFEREE_METRICS_H_
