#pragma once
/// \file
/// Hot kernels (paper §4.1, Fig. 3) and the torch ↔ ncu join (ncu-and-torch.md §5.3).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "vxsynth/core/ncu_import.h"
#include "vxsynth/core/torch_trace.h"

namespace vxsynth::core {

/// One hot kernel: all launches of the same kernel at the same launch geometry from the same
/// framework op at the same operand shapes (one benchmark is built per such group, paper §3.2).
struct HotKernel {
  std::size_t rank = 0;                ///< 1-based, by total GPU time
  std::vector<std::size_t> launches;   ///< indices into TorchTrace::kernels, launch order
  double total_us = 0;                 ///< Σ kernel durations of the group, µs
  double share = 0;                    ///< total_us / Σ all kernel durations in the trace, 0–1
  double cumulative_share = 0;         ///< Σ share of ranks 1..rank
};

/// Groups the trace's kernels and ranks them by total GPU time (ties: earlier first launch first).
/// `top_k` = 0 keeps all groups. Shares are of the trace's total kernel time (memsets and copies
/// are not kernels and are left out).
[[nodiscard]] std::vector<HotKernel> rank_hot_kernels(const TorchTrace& trace, std::size_t top_k = 0);

/// Result of joining ncu rows to trace kernels.
struct NcuJoin {
  std::vector<std::optional<std::size_t>> trace_for_ncu;  ///< per ncu row: index into TorchTrace::kernels
  std::vector<std::vector<std::size_t>> ncu_for_trace;    ///< per trace kernel: ncu rows, in ID order
  std::vector<std::size_t> unmatched_ncu;                 ///< ncu rows with no trace kernel
};

/// Joins by function base name + grid + block + launch order: each ncu row, in ncu ID order, takes
/// the next trace kernel (after the previous match) with the same base name, grid and block; ncu may
/// have profiled a filtered subset (-k, --launch-skip/count). If the forward search fails, it
/// restarts from the trace's first kernel: ncu profiled another iteration of the same program than
/// the trace holds, and that row is a repeated measurement of an already matched kernel.
[[nodiscard]] NcuJoin join_ncu(const TorchTrace& trace, const NcuReport& ncu);

}  // namespace vxsynth::core
