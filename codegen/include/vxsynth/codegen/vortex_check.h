#pragma once
/// \file
/// The candidate check without a GPU (docs/signature.md §4): render the Vortex
/// candidate of a design point, feed it fresh random inputs, run it on vxsim and compare every
/// output element with the float64 CPU reference, recorded as "candidate check vs cpu-float64".

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "vxsynth/check/equivalence.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/toolchain.h"

namespace vxsynth::codegen {

/// Environment selecting the vxsim device for `p`'s Vortex target (the runtime's VXSIM_CORES,
/// VXSIM_WARPS, VXSIM_THREADS; docs/sdk.md), with strict divergence on (VXSIM_STRICT_DIVERGENCE=1:
/// a divergent plain branch is an error, as "divergent branch!" in SimX). `timing` = false adds
/// VXSIM_TIMING=0 (functional mode only: same outputs, no cycle counts). The runaway guards follow
/// the design's work (docs/vxsim.md "Budgets of generated kernels"): VXSIM_BUDGET =
/// vxsim_instr_budget(p), VXSIM_TIME_LIMIT = vxsim_time_limit_s(p, timing).
[[nodiscard]] std::map<std::string, std::string> vxsim_env(const DesignPoint& p, bool timing);

/// Multiply-accumulates `p`'s Vortex kernel executes: the GEMM view rounded up to whole block tiles
/// (a block runs whole BM x BN x BK stages whatever part of its tile lies inside the operands: a
/// conv1d with N·Q = 4 output columns runs a 32- or 64-wide tile) and the split-K slices' stages.
[[nodiscard]] uint64_t vxsim_design_macs(const DesignPoint& p);
/// Fixed part of the budget: startup, spawn and the host-side launch sequence (warp instructions).
inline constexpr uint64_t kVxsimBudgetFixed = 50'000'000;
/// Warp-instruction budget of one run of `p`'s Vortex candidate: 48 thread instructions per
/// multiply-accumulate of vxsim_design_macs(p) and 256 per output element of every K slice
/// (split-K reduction, epilogue), over the target's threads per warp, plus kVxsimBudgetFixed.
/// Margins: codegen/tests/vortex_budget_test.cc (docs/vxsim.md "Budgets of generated kernels").
[[nodiscard]] uint64_t vxsim_instr_budget(const DesignPoint& p);
/// Wall-clock limit of that run: the budget at 3·10^5 warp instructions per second in timing mode
/// (3·10^6 functional), at least 60 s — ten times slower than vxsim runs on a loaded machine, so
/// the budget is what stops a runaway kernel and the limit only a pathologically slow run.
[[nodiscard]] double vxsim_time_limit_s(const DesignPoint& p, bool timing);

/// Result of one Vortex candidate check.
struct VortexCheckResult {
  VortexRunResult run;
  std::optional<check::CheckReport> report;  ///< set when an output was read
  std::string error;                         ///< why no report (build/run failure, missing output)
  [[nodiscard]] bool passed() const { return report && report->passed; }
  /// One line: the check summary or the error.
  [[nodiscard]] std::string summary() const;
};

/// Emits the Vortex candidate of `p` into `work_dir/vortex`, writes inputs drawn with `seed` to
/// `work_dir/data`, builds with `sdk_dir`'s sdk.mk, runs on vxsim (strict divergence) and compares
/// with the float64 reference under the path's candidate tolerance. Throws vxsynth::Error only
/// for an invalid design point or unusable directories.
[[nodiscard]] VortexCheckResult check_vortex_candidate(const DesignPoint& p, const std::filesystem::path& work_dir,
                                                       const std::filesystem::path& sdk_dir, uint64_t seed,
                                                       bool timing = false, double timeout_seconds = 300.0);

}  // namespace vxsynth::codegen
