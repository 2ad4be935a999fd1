// The referee's Prometheus metrics, in one place so the runner, the service and
// the dashboards agree on names:
//   tarock_referee_decisions_total{bot}             decisions asked of each bot
//   tarock_referee_decision_seconds{bot}            decision latency histogram
//   tarock_referee_faults_total{bot,kind}           faults by kind
//   tarock_referee_active_matches                   matches running now
//   tarock_referee_hands_total{variant}             hands played (void deals too)
//   tarock_referee_matches_total{variant,outcome}   finished matches: ok, failed, cancelled
// "bot" is the seat name of the MatchSpec.
//
// Thread-safety: thread-safe (see metrics.h).

#ifndef TAROCK_REFEREE_CORE_REFEREE_METRICS_H_
#define TAROCK_REFEREE_CORE_REFEREE_METRICS_H_

#include "referee/metrics/metrics.h"

namespace tarock {

struct RefereeMetrics {
  explicit RefereeMetrics(metrics::Registry* registry);

  metrics::Family<metrics::Counter>& decisions;
  metrics::Family<metrics::Histogram>& decision_seconds;
  metrics::Family<metrics::Counter>& faults;
  metrics::Gauge& active_matches;
  metrics::Family<metrics::Counter>& hands;
  metrics::Family<metrics::Counter>& matches;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_CORE_REFEREE_METRICS_H_
