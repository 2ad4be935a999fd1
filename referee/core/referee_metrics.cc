#include "referee/core/referee_metrics.h"

#include "referee/metrics/buckets.h"

namespace tarock {

RefereeMetrics::RefereeMetrics(prometheus::Registry* r)
    : decision_buckets(metrics::ExponentialBuckets(0.00005, 2, 18)),
      decisions(prometheus::BuildCounter()
                    .Name("tarock_referee_decisions_total")
                    .Help("Decisions asked of each bot.")
                    .Register(*r)),
      decision_seconds(
          prometheus::BuildHistogram()
              .Name("tarock_referee_decision_seconds")
              .Help("Decision latency per bot, from sending the request to receiving the answer.")
              .Register(*r)),
      faults(prometheus::BuildCounter()
                 .Name("tarock_referee_faults_total")
                 .Help("Bot faults by kind.")
                 .Register(*r)),
      active_matches(prometheus::BuildGauge()
                         .Name("tarock_referee_active_matches")
                         .Help("Matches running now.")
                         .Register(*r)
                         .Add({})),
      hands(prometheus::BuildCounter()
                .Name("tarock_referee_hands_total")
                .Help("Hands played, void deals included.")
                .Register(*r)),
      matches(prometheus::BuildCounter()
                  .Name("tarock_referee_matches_total")
                  .Help("Finished matches by outcome.")
                  .Register(*r)) {}

}  // namespace tarock
