#include "format.h"

#include <fmt/format.h>

#include "vxsynth/core/metrics.h"

namespace vxsynth::cli {

std::string format_metric(core::MetricId id, const std::optional<double>& v) {
  if (!v) return "NA";
  const core::MetricDef& m = core::metric_def(id);
  switch (m.transform) {
    case core::Transform::kPercent: return fmt::format("{:.2f} %", *v);
    case core::Transform::kDirect: return fmt::format("{:.6g}", *v);
    case core::Transform::kLogRatio: return fmt::format("{:.4g} {}", *v, m.unit);
  }
  return "?";
}

std::string shape_string(const core::ReferenceContext& c) {
  if (c.gemm) {
    const auto& g = *c.gemm;
    return g.batch > 1 ? fmt::format("B={} M={} N={} K={}", g.batch, g.m, g.n, g.k)
                       : fmt::format("M={} N={} K={}", g.m, g.n, g.k);
  }
  if (c.conv) {
    const auto& v = *c.conv;
    return fmt::format("N={} C={} H={} W={} K={} R={} S={} s={},{} p={},{} d={},{} g={}", v.n, v.c, v.h, v.w, v.k,
                       v.r, v.s, v.stride[0], v.stride[1], v.pad[0], v.pad[1], v.dilation[0], v.dilation[1],
                       v.groups);
  }
  return "-";
}

std::string clip(const std::string& s, std::size_t width) {
  if (s.size() <= width || width < 4) return s;
  return s.substr(0, width - 3) + "...";
}

}  // namespace vxsynth::cli
