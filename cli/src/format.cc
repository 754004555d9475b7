#include "format.h"

#include <cctype>

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

namespace {
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
}  // namespace

std::string clip(const std::string& s, std::size_t width) {
  if (s.size() <= width || width < 4) return s;
  // Cut between tokens (never inside an identifier or number) as late as possible, but keep at
  // least half of the room; a name with no boundary there is cut at the width.
  std::size_t cut = width - 3;
  for (std::size_t i = cut; i > (width - 3) / 2; --i) {
    if (!word_char(s[i - 1]) || !word_char(s[i])) {
      cut = i;
      break;
    }
  }
  while (cut > 1 && s[cut - 1] == ' ') --cut;
  return s.substr(0, cut) + "...";
}

}  // namespace vxsynth::cli
