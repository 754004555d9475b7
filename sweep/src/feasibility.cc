// Feasibility of a configuration point for a benchmark (docs/sweep.md "Feasibility").
#include "vxsynth/sweep/feasibility.h"

#include <sstream>

#include <fmt/format.h>

#include "vxsim/config.h"
#include "vxsim/timing/config.h"

namespace vxsynth::sweep {
namespace {

// The generator's checks of the fixed properties and the axes against the machine: block size
// within warps × threads (vx_spawn_threads), local memory per block × resident blocks within the
// core's, TCU tile and warp grid for the warp width (codegen/src/design_point.cc, axis_table.cc).
std::string design_rule(const codegen::DesignPoint& design, const codegen::VortexTarget& machine) {
  codegen::DesignPoint p = design;
  p.vortex = machine;
  // validation_errors gives one reason per line; a row holds them as "a; b".
  std::istringstream lines(codegen::validation_errors(p));
  std::string why;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) why += (why.empty() ? "" : "; ") + line;
  // A candidate that stages K in steps (vortex.k_steps) has the depth of the machine it was
  // generated for compiled in, and with it its local memory per block; validation on the point's
  // machine derives that machine's depth, which is shallower where it has less local memory per block.
  const uint32_t built = codegen::vortex_local_mem_bytes(design), blocks = codegen::vortex_blocks_per_core(p);
  if (why.empty() && codegen::vortex_stage_k(p) != codegen::vortex_stage_k(design) &&
      static_cast<uint64_t>(built) * blocks > machine.local_mem_bytes) {
    why = fmt::format("the candidate stages K {} deep (generated for {} B of local memory): {} B per block x {} "
                      "resident blocks per core exceeds the point's {} B",
                      codegen::vortex_stage_k(design), design.vortex.local_mem_bytes, built, blocks,
                      machine.local_mem_bytes);
  }
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
  // The benchmark's own machine as a timing configuration, the point's settings applied through
  // vxsim's parameter table (no parameter is named here), then read back.
  vxsim::timing::TimingConfig cfg;
  cfg.cores = design.vortex.cores;
  cfg.warps = design.vortex.warps;
  cfg.threads = design.vortex.threads;
  cfg.lmem.size = 1u << vxsim::Config{}.lmem_log_size;
  for (const auto& [key, value] : point.settings) vxsim::timing::set_param(cfg, key, value, "point " + point.label());
  codegen::VortexTarget m = design.vortex;
  m.cores = cfg.cores;
  m.warps = cfg.warps;
  m.threads = cfg.threads;
  m.local_mem_bytes = cfg.lmem.size;
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
