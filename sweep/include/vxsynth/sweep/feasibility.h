#pragma once
/// \file
/// Which configuration points a benchmark can run on (docs/sweep.md "Feasibility"). A benchmark's
/// locked design point fixes its block size, its local memory per block and, on tensor-core and
/// warp-decomposed paths, its warp width; a point that breaks one of them is skipped with the
/// reason before anything runs. The rules are a table; each is the generator's own check
/// (codegen::validation_errors) or the candidate's own refusal (its main.cpp), applied to the
/// machine the point gives the benchmark.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/sweep/grid.h"

namespace vxsynth::sweep {

/// The Vortex machine a benchmark runs on at a point: the point's cores, warps, threads and local
/// memory per core where it sets them, else the benchmark's own target (its Makefile's VXSIM_*
/// defaults) and the functional device's local memory (vxsim::Config::lmem_log_size).
[[nodiscard]] codegen::VortexTarget machine_at(const codegen::DesignPoint& design, const Point& point);

/// One feasibility rule: the reason the design cannot run on `machine`, or "" when it can.
struct FeasibilityRule {
  std::string_view name;
  std::string_view doc;
  std::string (*check)(const codegen::DesignPoint& design, const codegen::VortexTarget& machine);
};

/// THE rule table.
[[nodiscard]] std::span<const FeasibilityRule> feasibility_rules();

/// "" when `design` can run at `point`, else every failed rule's reason ("rule: reason; …").
[[nodiscard]] std::string infeasible_reason(const codegen::DesignPoint& design, const Point& point);

}  // namespace vxsynth::sweep
