#pragma once
/// \file
/// Hot kernels (paper §4.1, Fig. 3) and the torch ↔ ncu join (docs/ncu.md §5.3).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "vxsynth/core/ncu_import.h"
#include "vxsynth/core/torch_trace.h"

namespace vxsynth::core {

/// One hot kernel: all launches of the same kernel name at the same launch geometry with the same
/// op signature (`op_signature`: the whole op — shape, stride, padding, dilation, groups, dtype,
/// layout, bias); one benchmark is built per such group (paper §3.2).
struct HotKernel {
  std::string key;                     ///< the grouping key (hot_group_key) shared by its launches
  std::size_t rank = 0;                ///< 1-based, by total GPU time
  std::vector<std::size_t> launches;   ///< indices into TorchTrace::kernels, launch order
  double total_us = 0;                 ///< Σ kernel durations of the group, µs
  double share = 0;                    ///< total_us / Σ all kernel durations in the trace, 0–1
  double cumulative_share = 0;         ///< Σ share of ranks 1..rank
};

/// The grouping key of a launch: kernel name, grid, block and op_signature (reference.h). THE rule;
/// the Python package reads its result (`vxsynth hot --json`).
[[nodiscard]] std::string hot_group_key(const TraceKernel& k);

/// Groups the trace's kernels by hot_group_key and ranks them by total GPU time (ties: earlier first
/// launch first). `top_k` = 0 keeps all groups. Shares are of the trace's total kernel time (memsets
/// and copies are not kernels and are left out). Communication kernels (kernel-name role
/// `communication`, e.g. NCCL) are no operator: they are not ranked, but their time stays in the
/// total (see communication_time).
[[nodiscard]] std::vector<HotKernel> rank_hot_kernels(const TorchTrace& trace, std::size_t top_k = 0);

/// Launches and GPU time of the trace's communication kernels (left out of the ranking).
struct CommunicationTime {
  std::size_t launches = 0;
  double total_us = 0;  ///< µs
  double share = 0;     ///< of the trace's total kernel time, 0–1
};
[[nodiscard]] CommunicationTime communication_time(const TorchTrace& trace);

/// Result of joining ncu rows to trace kernels.
struct NcuJoin {
  std::vector<std::optional<std::size_t>> trace_for_ncu;  ///< per ncu row: index into TorchTrace::kernels
  std::vector<std::vector<std::size_t>> ncu_for_trace;    ///< per trace kernel: ncu rows, in ID order
  std::vector<std::size_t> unmatched_ncu;                 ///< ncu rows with no trace kernel
  std::vector<std::size_t> ambiguous_ncu;                 ///< rows whose launch geometry several groups share
};

/// Joins by function base name + grid + block + launch order: each ncu row, in ncu ID order, takes
/// the next trace kernel (after the previous match) with the same base name, grid and block; ncu may
/// have profiled a filtered subset (-k, --launch-skip/count). If the forward search fails, it
/// restarts from the trace's first kernel: ncu profiled another iteration of the same program than
/// the trace holds, and that row is a repeated measurement of an already matched kernel.
/// A row whose base name, grid and block are shared by launches of several hot groups (the same
/// kernel at different operand shapes: ncu rows carry no shapes) is joined by launch order all the
/// same, which may attribute it to another shape's group, and is listed in `ambiguous_ncu`; a group
/// left without a row gets a launch-exact capture (ImportOptions::extra; docs/known-issues.md).
[[nodiscard]] NcuJoin join_ncu(const TorchTrace& trace, const NcuReport& ncu);

}  // namespace vxsynth::core
