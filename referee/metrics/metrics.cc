#include "referee/metrics/metrics.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace tarock::metrics {
namespace {

std::string FormatValue(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return absl::StrCat(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string LabelText(const Labels& labels, const std::string& extra_name = "",
                      const std::string& extra_value = "") {
  std::string out;
  for (const auto& [k, v] : labels) {
    absl::StrAppend(&out, out.empty() ? "" : ",", k, "=\"", Escape(v), "\"");
  }
  if (!extra_name.empty())
    absl::StrAppend(&out, out.empty() ? "" : ",", extra_name, "=\"", extra_value, "\"");
  return out.empty() ? "" : absl::StrCat("{", out, "}");
}

void Header(const std::string& name, const std::string& help, const char* type,
            std::string* out) {
  absl::StrAppend(out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

void SerializeOne(const std::string& name, const Labels& l, const Counter& c, std::string* out) {
  absl::StrAppend(out, name, LabelText(l), " ", FormatValue(c.value()), "\n");
}
void SerializeOne(const std::string& name, const Labels& l, const Gauge& g, std::string* out) {
  absl::StrAppend(out, name, LabelText(l), " ", FormatValue(g.value()), "\n");
}
void SerializeOne(const std::string& name, const Labels& l, const Histogram& h,
                  std::string* out) {
  std::vector<uint64_t> counts = h.CumulativeCounts();
  for (size_t i = 0; i < h.bounds().size(); ++i) {
    absl::StrAppend(out, name, "_bucket", LabelText(l, "le", FormatValue(h.bounds()[i])), " ",
                    counts[i], "\n");
  }
  absl::StrAppend(out, name, "_bucket", LabelText(l, "le", "+Inf"), " ", counts.back(), "\n");
  absl::StrAppend(out, name, "_sum", LabelText(l), " ", FormatValue(h.sum()), "\n");
  absl::StrAppend(out, name, "_count", LabelText(l), " ", counts.back(), "\n");
}

template <typename T> const char* TypeName();
template <> const char* TypeName<Counter>() { return "counter"; }
template <> const char* TypeName<Gauge>() { return "gauge"; }
template <> const char* TypeName<Histogram>() { return "histogram"; }

template <typename T>
std::unique_ptr<T> Make(const std::vector<double>&) { return std::make_unique<T>(); }
template <>
std::unique_ptr<Histogram> Make<Histogram>(const std::vector<double>& bounds) {
  return std::make_unique<Histogram>(bounds);
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0);
}

void Histogram::Observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

std::vector<uint64_t> Histogram::CumulativeCounts() const {
  std::vector<uint64_t> out(bounds_.size() + 1);
  uint64_t total = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    total += counts_[i].load(std::memory_order_relaxed);
    out[i] = total;
  }
  return out;
}

uint64_t Histogram::count() const { return CumulativeCounts().back(); }

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i, start *= factor) out.push_back(start);
  return out;
}

template <typename T>
T& Family<T>::Add(const Labels& labels) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<T>& slot = metrics_[labels];
  if (slot == nullptr) slot = Make<T>(bounds_);
  return *slot;
}

template <typename T>
void Family<T>::Serialize(std::string* out) const {
  Header(name_, help_, TypeName<T>(), out);
  absl::MutexLock lock(&mu_);
  for (const auto& [labels, metric] : metrics_) SerializeOne(name_, labels, *metric, out);
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

Family<Counter>& Registry::AddCounter(const std::string& name, const std::string& help) {
  absl::MutexLock lock(&mu_);
  counters_.push_back(std::make_unique<Family<Counter>>(name, help));
  return *counters_.back();
}

Family<Gauge>& Registry::AddGauge(const std::string& name, const std::string& help) {
  absl::MutexLock lock(&mu_);
  gauges_.push_back(std::make_unique<Family<Gauge>>(name, help));
  return *gauges_.back();
}

Family<Histogram>& Registry::AddHistogram(const std::string& name, const std::string& help,
                                          std::vector<double> bounds) {
  absl::MutexLock lock(&mu_);
  histograms_.push_back(std::make_unique<Family<Histogram>>(name, help, std::move(bounds)));
  return *histograms_.back();
}

std::string Registry::Serialize() const {
  std::string out;
  absl::MutexLock lock(&mu_);
  for (const auto& f : counters_) f->Serialize(&out);
  for (const auto& f : gauges_) f->Serialize(&out);
  for (const auto& f : histograms_) f->Serialize(&out);
  return out;
}

}  // namespace tarock::metrics
