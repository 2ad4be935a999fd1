// Means with 95% confidence intervals, for match tables, strength runs and
// tournament reports. Student's t for small samples, normal beyond 30.
//
// Thread-safety: pure functions.

#ifndef TAROCK_REFEREE_CORE_STATS_H_
#define TAROCK_REFEREE_CORE_STATS_H_

#include <cmath>
#include <vector>

namespace tarock {

struct MeanCI {
  double mean = 0;
  double half_width = 0;  // the 95% interval is mean ± half_width; infinite for n < 2
  double stddev = 0;      // sample standard deviation
  int n = 0;
};

// Two-sided 95% quantile of Student's t with `df` degrees of freedom.
inline double T95(int df) {
  static constexpr double kTable[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                      2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                      2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                      2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df <= 0) return INFINITY;
  if (df <= 30) return kTable[df];
  return 1.96 + 2.4 / df;  // within 0.01 of the exact quantile for df > 30
}

inline MeanCI ComputeMeanCI(const std::vector<double>& xs) {
  MeanCI r;
  r.n = static_cast<int>(xs.size());
  if (r.n == 0) return r;
  double sum = 0;
  for (double x : xs) sum += x;
  r.mean = sum / r.n;
  if (r.n < 2) {
    r.half_width = INFINITY;
    return r;
  }
  double ss = 0;
  for (double x : xs) ss += (x - r.mean) * (x - r.mean);
  r.stddev = std::sqrt(ss / (r.n - 1));
  r.half_width = T95(r.n - 1) * r.stddev / std::sqrt(static_cast<double>(r.n));
  return r;
}

}  // namespace tarock

#endif  // TAROCK_REFEREE_CORE_STATS_H_
