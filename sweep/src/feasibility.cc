// Feasibility of a configuration point for a benchmark (docs/sweep.md "Feasibility").
#include "vxsynth/sweep/feasibility.h"

#include <charconv>

#include <fmt/format.h>

#include "vxsim/config.h"

namespace vxsynth::sweep {
namespace {

uint32_t u32_or(const Point& p, std::string_view key, uint32_t fallback) {
  const std::string v = p.value(key);
  uint32_t out = fallback;
  if (!v.empty()) (void)std::from_chars(v.data(), v.data() + v.size(), out);
  return out;
}

// The generator's checks of the fixed properties and the axes against the machine: block size
// within warps × threads (vx_spawn_threads), local memory per block × resident blocks within the
// core's, TCU tile and warp grid for the warp width (codegen/src/design_point.cc, axis_table.cc).
std::string design_rule(const codegen::DesignPoint& design, const codegen::VortexTarget& machine) {
  codegen::DesignPoint p = design;
  p.vortex = machine;
  std::string why = codegen::validation_errors(p);
  for (char& c : why) c = c == '\n' ? ';' : c;
  return why;
}

// The candidate's main.cpp refuses a warp width other than the one it was generated for when
// its TCU tile or block decomposition depends on it (codegen/src/emit_vortex.cc needs_warp_width).
std::string warp_width_rule(const codegen::DesignPoint& design, const codegen::VortexTarget& machine) {
  const bool needs = design.axes.tensor_core.enabled || design.axes.warp_rows != 0;
  if (!needs || machine.threads == design.vortex.threads) return {};
  return fmt::format("the candidate's {} is generated for {}-thread warps, the point has {}",
                     design.axes.tensor_core.enabled ? "TCU tile" : "block decomposition", design.vortex.threads,
                     machine.threads);
}

constexpr FeasibilityRule kRules[] = {
    {"design", "the generator's own checks of the locked design point on the point's machine (block size ≤ warps × "
               "threads, local memory, TCU tile, warp grid)", &design_rule},
    {"warp-width", "tensor-core and warp-decomposed candidates run only at the warp width they were generated for",
     &warp_width_rule},
};

}  // namespace

codegen::VortexTarget machine_at(const codegen::DesignPoint& design, const Point& point) {
  codegen::VortexTarget m = design.vortex;
  m.cores = u32_or(point, "cores", m.cores);
  m.warps = u32_or(point, "warps", m.warps);
  m.threads = u32_or(point, "threads", m.threads);
  m.local_mem_bytes = 1u << vxsim::Config{}.lmem_log_size;
  return m;
}

std::span<const FeasibilityRule> feasibility_rules() { return kRules; }

std::string infeasible_reason(const codegen::DesignPoint& design, const Point& point) {
  const codegen::VortexTarget m = machine_at(design, point);
  std::string out;
  for (const FeasibilityRule& r : kRules) {
    const std::string why = r.check(design, m);
    if (!why.empty()) out += (out.empty() ? "" : "; ") + std::string(r.name) + ": " + why;
  }
  return out;
}

}  // namespace vxsynth::sweep
