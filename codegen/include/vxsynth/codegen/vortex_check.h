#pragma once
/// \file
/// The candidate check without a GPU (docs/signature.md §4): render the Vortex
/// candidate of a design point, feed it fresh random inputs, run it on vxsim and compare every
/// output element with the float64 CPU reference, recorded as "candidate check vs cpu-float64".

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vxsynth/check/equivalence.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/toolchain.h"

namespace vxsynth::codegen {

/// Environment selecting the vxsim device for `p`'s Vortex target (the runtime's VXSIM_CORES,
/// VXSIM_WARPS, VXSIM_THREADS; docs/sdk.md), with strict divergence on (VXSIM_STRICT_DIVERGENCE=1:
/// a divergent plain branch is an error, as "divergent branch!" in SimX) and the local-memory race
/// checker on (VXSIM_CHECK_RACES=1: two warps touching one local-memory word with no barrier between
/// them, one storing, fail the run; docs/vxsim.md "Local-memory race checker"). `timing` = false adds
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

/// Sampled-tile check (docs/vxsim.md "Sampled-tile check"): when a design's whole-shape Vortex
/// run would not fit the per-revision check budget, the check runs only these output tiles of the
/// GEMM launch — launch 1 spawns only their blocks (the host program's `-b`), the CPU reference and
/// the comparison cover only their elements. The locked benchmark still runs the whole shape.
struct TileSample {
  uint64_t grid_blocks = 0;                   ///< blocks of the whole GEMM launch
  uint64_t grid_tiles = 0;                    ///< output tiles of the GEMM view (blocks / split_k)
  std::vector<std::array<int64_t, 3>> tiles;  ///< (z, m0, n0): GEMM-view origins of the sampled tiles
  std::vector<uint32_t> blocks;               ///< their block ids, every K slice of each tile
  /// The host program's `-b` value: "3,17,40".
  [[nodiscard]] std::string block_list() const;
  /// For the record: "sampled: 12 of 4352 output tiles (BM x BN = 48 x 64), (z, m0, n0) = (0,0,0) …".
  [[nodiscard]] std::string describe(const DesignPoint& p) const;
};

/// Per-revision check budget of one functional Vortex run (seconds, at the rate below): a revision
/// makes two (the candidate's own self-check and the harness's run), and a suite build runs one
/// job per core. On the H200 suite build of 2026-12-02 (16 jobs, 16 cores) ACT k1's whole runs
/// (estimated 21 s each) made revisions of 99–108 s; the suite's goal (13 revisions of 15 kernels
/// in 15 minutes, docs/suite.md) needs revisions under ~60 s, so a run is sampled above 20 s.
inline constexpr double kVortexCheckBudgetS = 20.0;
/// Functional-mode warp instructions per second assumed for the budget: the locked ACT k1 benchmark
/// ran 2.1·10^8 in 22 s of CPU time on the 2-core build VM (docs/vxsim.md "Sampled-tile check").
inline constexpr double kVxsimFunctionalWarpInstrsPerS = 1.0e7;
/// Timing-mode warp instructions per second: the locked ACT k1 benchmark (1 core x 16 warps x 8
/// threads) ran 10^7 in 11 s of CPU time on the build VM (docs/vxsim.md "Sampled-tile check").
inline constexpr double kVxsimTimingWarpInstrsPerS = 1.0e6;
/// Expected seconds of one whole run of `p` on vxsim, functional or timing mode, one host thread.
[[nodiscard]] double vxsim_expected_s(const DesignPoint& p, bool timing);
/// Output tiles of a sampled-tile check: the edge tiles (first and last in M, N and Z) plus
/// seeded interior tiles up to this many, fewer when their expected run exceeds the budget.
inline constexpr size_t kSampledTiles = 16;

/// Expected warp instructions of one whole run of `p` (an estimate, not the budget's margin: 6 thread
/// instructions per tile-rounded multiply-accumulate — the locked ACT k1 benchmark executes 3.2, the
/// small shapes of codegen/tests/vortex_budget_test.cc 3.1–8.5 — and 22 for a convolution without
/// shared-memory staging (measured 21.3), plus 256 per output of every K slice).
[[nodiscard]] uint64_t vxsim_expected_warp_instrs(const DesignPoint& p);
/// The tiles of a sampled-tile check of `p` when its whole-shape functional run is expected to take
/// longer than `budget_s` at kVxsimFunctionalWarpInstrsPerS; nullopt when the whole run fits.
/// Interior tiles are drawn with `seed` (the revision's unpredictable check seed).
[[nodiscard]] std::optional<TileSample> check_tile_sample(const DesignPoint& p, uint64_t seed,
                                                          double budget_s = kVortexCheckBudgetS);
/// A sample of at most `tiles` output tiles (edges first), whatever the run's cost (tests).
[[nodiscard]] TileSample sample_tiles(const DesignPoint& p, uint64_t seed, size_t tiles);
/// Flat output indices (into the op's output tensor) the tiles of `s` cover, ascending.
[[nodiscard]] std::vector<size_t> sampled_outputs(const DesignPoint& p, const TileSample& s);
/// `v` restricted to `idx` (the sampled elements, for a comparison of two full-size outputs).
[[nodiscard]] std::vector<double> gather(const std::vector<double>& v, const std::vector<size_t>& idx);

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
/// with the float64 reference under the path's candidate tolerance. With `sample` only its tiles
/// run and are compared. Throws vxsynth::Error only for an invalid design point or unusable
/// directories.
[[nodiscard]] VortexCheckResult check_vortex_candidate(const DesignPoint& p, const std::filesystem::path& work_dir,
                                                       const std::filesystem::path& sdk_dir, uint64_t seed,
                                                       bool timing = false, double timeout_seconds = 300.0,
                                                       const TileSample* sample = nullptr);

}  // namespace vxsynth::codegen
