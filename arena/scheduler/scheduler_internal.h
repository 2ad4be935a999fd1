// Internal to the scheduler's files (arena/scheduler/*.cc that implement
// Scheduler): the helpers they share and the scheduler's metrics. Not part of
// the scheduler's interface; include scheduler.h instead.
//
// Thread-safety: the helpers are pure functions; Scheduler::Metrics holds
// prometheus families, which are thread-safe.

#ifndef TAROCK_ARENA_SCHEDULER_SCHEDULER_INTERNAL_H_
#define TAROCK_ARENA_SCHEDULER_SCHEDULER_INTERNAL_H_

#include <google/protobuf/util/json_util.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "arena/scheduler/scheduler.h"
#include "nlohmann/json.hpp"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "referee/metrics/buckets.h"

namespace tarock::arena {
namespace scheduler_internal {

// A store commit (one batch of finished matches, with their ratings) slower
// than this is logged as a warning (docs/logging.md).
constexpr absl::Duration kSlowCommit = absl::Milliseconds(500);

// The seats' bot names, comma separated, for the log.
inline std::string SeatNames(const v1::MatchSpec& spec) {
  std::string out;
  for (const v1::SeatSpec& seat : spec.seats()) absl::StrAppend(&out, out.empty() ? "" : ",", seat.name());
  return out;
}

using json = nlohmann::json;

inline std::string ToJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

template <typename T>
T FromJson(const std::string& s) {
  T m;
  (void)google::protobuf::util::JsonStringToMessage(s, &m);
  return m;
}

// Referee failures worth another referee: the referee is down, died mid-match
// or broke the stream. Everything else is about the match itself.
inline bool IsRefereeFailure(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s) || absl::IsInternal(s) ||
         absl::IsUnknown(s) || absl::IsAborted(s) || absl::IsResourceExhausted(s) ||
         absl::IsCancelled(s);
}



}  // namespace scheduler_internal

struct Scheduler::Metrics {
  explicit Metrics(prometheus::Registry* r)
      : rating_mu(Gauges(r, "tarock_arena_rating_mu", "Rating mean per bot and variant.")),
        rating_sigma(Gauges(r, "tarock_arena_rating_sigma", "Rating uncertainty per bot and variant.")),
        margin_mu(Gauges(r, "tarock_arena_margin_mu",
                         "Margin rating per bot and pool: points (chips) a deal, relative to the field.")),
        margin_sigma(Gauges(r, "tarock_arena_margin_sigma",
                            "Margin rating uncertainty per bot and pool (95% interval: mu +- 1.96 sigma).")),
        margin_deals(Gauges(r, "tarock_arena_margin_deals",
                            "Deals a bot's margin rating rests on, per pool.")),
        bot_matches(Gauges(r, "tarock_arena_bot_matches", "Rated matches per bot and variant.")),
        bot_faults(Gauges(r, "tarock_arena_bot_faults", "Faults per bot and variant.")),
        matches(Counters(r, "tarock_arena_matches_total", "Matches by variant and outcome.")),
        hands(Counters(r, "tarock_arena_hands_total", "Hands by variant and outcome.")),
        queue_depth(Gauges(r, "tarock_arena_queue_depth", "Matches waiting for a referee.").Add({})),
        running(Gauges(r, "tarock_arena_matches_running", "Matches in flight.").Add({})),
        duration(prometheus::BuildHistogram()
                     .Name("tarock_arena_match_duration_seconds")
                     .Help("Match duration.")
                     .Register(*r)),
        duration_buckets(metrics::ExponentialBuckets(0.05, 2, 14)),
        referees_available(Gauges(r, "tarock_arena_referees_available",
                                  "Referees not resting after a failure.").Add({})),
        retries(Counters(r, "tarock_arena_referee_failures_total",
                         "Matches moved to another referee after a failure.")) {}
  static prometheus::Family<prometheus::Gauge>& Gauges(prometheus::Registry* r, const char* name,
                                                       const char* help) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(*r);
  }
  static prometheus::Family<prometheus::Counter>& Counters(prometheus::Registry* r,
                                                           const char* name, const char* help) {
    return prometheus::BuildCounter().Name(name).Help(help).Register(*r);
  }
  prometheus::Family<prometheus::Gauge>& rating_mu;
  prometheus::Family<prometheus::Gauge>& rating_sigma;
  // Margin ratings (docs/ratings.md), labelled like the place ratings: {bot,
  // variant} where variant is the pool ("VARIANT" or "VARIANT@EVENT_ID").
  prometheus::Family<prometheus::Gauge>& margin_mu;
  prometheus::Family<prometheus::Gauge>& margin_sigma;
  prometheus::Family<prometheus::Gauge>& margin_deals;
  prometheus::Family<prometheus::Gauge>& bot_matches;
  prometheus::Family<prometheus::Gauge>& bot_faults;
  prometheus::Family<prometheus::Counter>& matches;
  prometheus::Family<prometheus::Counter>& hands;
  prometheus::Gauge& queue_depth;
  prometheus::Gauge& running;
  prometheus::Family<prometheus::Histogram>& duration;
  const prometheus::Histogram::BucketBoundaries duration_buckets;
  prometheus::Gauge& referees_available;
  prometheus::Family<prometheus::Counter>& retries;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_SCHEDULER_INTERNAL_H_
