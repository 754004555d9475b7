#pragma once
// The refine side of codegen's axis table (kAxisTable, codegen/src/axis_table.cc): the design
// space reaches the axes through these, by the keys revision records use ("tile", "split_k", …).

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/refine/record.h"

namespace vxsynth::refine {

/// Keys of the axes not fixed at seed, in table order.
[[nodiscard]] std::vector<std::string> refinable_axis_keys();

/// `design` moved one step along `step` (direction "forward", else reverse) by the axis's row:
/// nullopt with `why_not` set when the axis is unknown or fixed at seed, at its bound, or the
/// result is invalid or breaks `fixed`. `space_version`: the design space's variants
/// (codegen::kDesignSpaceVersion).
[[nodiscard]] std::optional<nlohmann::json> step_design(const nlohmann::json& design, const AxisStep& step,
                                                        const codegen::FixedProperties& fixed, std::string* why_not,
                                                        int space_version);

/// The axis row's forward prior response on operator kind `op`, metric key → response; empty
/// for an unknown key.
[[nodiscard]] std::map<std::string, double> axis_prior_response(const std::string& axis, core::OpKind op);

}  // namespace vxsynth::refine
