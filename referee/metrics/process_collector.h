// The conventional process_* metrics of the running process, read from
// /proc/self at every scrape (Linux only), as a prometheus-cpp Collectable:
//   process_cpu_seconds_total       user + system CPU time
//   process_resident_memory_bytes   resident set size
//   process_virtual_memory_bytes    virtual memory size
//   process_open_fds                open file descriptors
//   process_max_fds                 the soft limit of open file descriptors
//   process_start_time_seconds      start time, seconds since the Unix epoch
// The names, types and meanings are those of Prometheus' Go and Python
// clients, so stock dashboards and alerts work. A metric whose /proc file
// cannot be read is left out of that scrape.
//
// Thread-safety: thread-safe (Collect reads files, keeps no state).

#ifndef TAROCK_REFEREE_METRICS_PROCESS_COLLECTOR_H_
#define TAROCK_REFEREE_METRICS_PROCESS_COLLECTOR_H_

#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace tarock::metrics {

class ProcessCollector : public prometheus::Collectable {
 public:
  ProcessCollector();  // reads the start time once
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  double start_time_seconds_ = 0;  // 0: unknown
};

}  // namespace tarock::metrics

#endif  // TAROCK_REFEREE_METRICS_PROCESS_COLLECTOR_H_
