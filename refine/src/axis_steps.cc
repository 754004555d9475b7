#include "axis_steps.h"

#include <fmt/format.h>

#include "vxsynth/core/metrics.h"

namespace vxsynth::refine {
namespace {

// The row of a refinable axis key, or nullptr.
const codegen::AxisInfo* refinable_row(const std::string& key) {
  const auto id = codegen::find_axis(key);
  if (!id || codegen::axis_info(*id).fixed_at_seed) return nullptr;
  return &codegen::axis_info(*id);
}

}  // namespace

std::vector<std::string> refinable_axis_keys() {
  std::vector<std::string> out;
  for (const auto& row : codegen::kAxisTable)
    if (!row.fixed_at_seed) out.emplace_back(row.key);
  return out;
}

std::optional<nlohmann::json> step_design(const nlohmann::json& design, const AxisStep& step,
                                          const codegen::FixedProperties& fixed, std::string* why_not,
                                          int space_version) {
  const codegen::AxisInfo* row = refinable_row(step.axis);
  if (row == nullptr) {
    *why_not = fmt::format("'{}' is not a refinable axis", step.axis);
    return std::nullopt;
  }
  const codegen::DesignPoint base = codegen::design_point_from_json(design);
  const auto next = codegen::step_axis(base, row->id, step.direction == "forward", fixed, why_not, space_version);
  if (!next) return std::nullopt;
  return codegen::to_json(*next);
}

std::map<std::string, double> axis_prior_response(const std::string& axis, core::OpKind op) {
  std::map<std::string, double> out;
  const auto id = codegen::find_axis(axis);
  if (!id) return out;
  for (const auto& [metric, response] : codegen::prior_response(*id, op))
    out[std::string(core::metric_def(metric).key)] = response;
  return out;
}

}  // namespace vxsynth::refine
