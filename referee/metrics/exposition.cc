#include "referee/metrics/exposition.h"

#include "prometheus/metric_family.h"
#include "prometheus/text_serializer.h"

namespace tarock::metrics {

std::string EscapeHelp(const std::string& help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string SerializeMetrics(const std::vector<const prometheus::Collectable*>& collectables) {
  std::vector<prometheus::MetricFamily> families;
  for (const prometheus::Collectable* c : collectables) {
    if (c == nullptr) continue;
    for (prometheus::MetricFamily& f : c->Collect()) {
      f.help = EscapeHelp(f.help);
      families.push_back(std::move(f));
    }
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace tarock::metrics
