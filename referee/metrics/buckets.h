// Histogram bucket bounds for prometheus::Histogram (prometheus-cpp 1.0.1 has
// no generator of its own).
//
// Thread-safety: pure functions.

#ifndef TAROCK_REFEREE_METRICS_BUCKETS_H_
#define TAROCK_REFEREE_METRICS_BUCKETS_H_

#include <vector>

namespace tarock::metrics {

// `count` bounds: start, start*factor, start*factor^2, ...
// Preconditions: start > 0, factor > 1, count >= 1.
inline std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  out.reserve(count);
  for (int i = 0; i < count; ++i, start *= factor) out.push_back(start);
  return out;
}

}  // namespace tarock::metrics

#endif  // TAROCK_REFEREE_METRICS_BUCKETS_H_
