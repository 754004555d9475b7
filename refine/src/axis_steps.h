#pragma once
// The built-in agent's axis steps: one row per refinable axis, each with the variants of a step.

#include <functional>
#include <vector>

#include "vxsynth/codegen/design_point.h"

namespace vxsynth::refine {

struct AxisStepRow {
  const char* axis;
  std::vector<std::function<bool(codegen::Axes&, bool forward)>> variants;
};

// The rows, in the order the design space lists its refinable axes.
const std::vector<AxisStepRow>& step_table();

}  // namespace vxsynth::refine
