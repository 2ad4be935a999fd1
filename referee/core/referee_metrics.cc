#include "referee/core/referee_metrics.h"

namespace tarock {

RefereeMetrics::RefereeMetrics(metrics::Registry* r)
    : decisions(r->AddCounter("tarock_referee_decisions_total", "Decisions asked of each bot.")),
      decision_seconds(r->AddHistogram(
          "tarock_referee_decision_seconds",
          "Decision latency per bot, from sending the request to receiving the answer.",
          metrics::ExponentialBuckets(0.00005, 2, 18))),
      faults(r->AddCounter("tarock_referee_faults_total", "Bot faults by kind.")),
      active_matches(r->AddGauge("tarock_referee_active_matches", "Matches running now.").Add({})),
      hands(r->AddCounter("tarock_referee_hands_total", "Hands played, void deals included.")),
      matches(r->AddCounter("tarock_referee_matches_total", "Finished matches by outcome.")) {}

}  // namespace tarock
