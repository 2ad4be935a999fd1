// A small Prometheus metrics registry: counters, gauges and histograms in
// labelled families, serialised in the Prometheus text exposition format
// (version 0.0.4). Written here because prometheus-cpp is not packaged for
// Debian 12; the API follows prometheus-cpp's shape (Family<T>::Add(labels)) so
// switching later is mechanical.
//
// Thread-safety: everything is thread-safe. Metric objects returned by Add()
// live as long as the Registry and may be updated from any thread without locks
// (atomics); creating a new label set takes the family's mutex.

#ifndef TAROCK_REFEREE_METRICS_METRICS_H_
#define TAROCK_REFEREE_METRICS_METRICS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace tarock::metrics {

// Label name -> value. Values are escaped on output.
using Labels = std::map<std::string, std::string>;

class Counter {
 public:
  // Precondition: v >= 0 (counters only go up).
  void Increment(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Increment(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  void Decrement(double v = 1) { value_.fetch_sub(v, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `bounds`: the upper bounds of the buckets, ascending; +Inf is implied.
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);
  const std::vector<double>& bounds() const { return bounds_; }
  // Cumulative counts per bound, then +Inf; and the sum of observations.
  std::vector<uint64_t> CumulativeCounts() const;
  double sum() const { return sum_.load(std::memory_order_relaxed); }
  uint64_t count() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // one per bound, then +Inf
  std::atomic<double> sum_{0};
};

// Buckets from `start` multiplied by `factor`, `count` of them.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

enum class Type { kCounter, kGauge, kHistogram };

// A metric name with its help text, and one metric per label set.
template <typename T>
class Family {
 public:
  Family(std::string name, std::string help, std::vector<double> bounds = {})
      : name_(std::move(name)), help_(std::move(help)), bounds_(std::move(bounds)) {}
  // The metric with these labels, created on first use.
  T& Add(const Labels& labels);
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  // Appends this family in the text format.
  void Serialize(std::string* out) const;

 private:
  std::string name_;
  std::string help_;
  std::vector<double> bounds_;  // histograms only
  mutable absl::Mutex mu_;
  std::map<Labels, std::unique_ptr<T>> metrics_ ABSL_GUARDED_BY(mu_);
};

class Registry {
 public:
  // Families are created once, normally at start-up; the returned reference
  // lives as long as the registry. Names must be valid Prometheus names.
  Family<Counter>& AddCounter(const std::string& name, const std::string& help);
  Family<Gauge>& AddGauge(const std::string& name, const std::string& help);
  Family<Histogram>& AddHistogram(const std::string& name, const std::string& help,
                                  std::vector<double> bounds);
  // Every family in the Prometheus text exposition format.
  std::string Serialize() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<Family<Counter>>> counters_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Family<Gauge>>> gauges_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Family<Histogram>>> histograms_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock::metrics

#endif  // TAROCK_REFEREE_METRICS_METRICS_H_
