#pragma once
/// \file
/// The line-search agent and its time model (docs/reconstruct.md "Line-search agent").

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "vxsynth/refine/agent.h"

namespace vxsynth::refine {

/// Time model of a GEMM-like candidate's longest launch on the H200 (docs/reconstruct.md
/// "Line-search agent"): the design's op seen as a batched GEMM (conv: implicit GEMM), its grid of
/// ceil(N/BN)·ceil(M/BM)·z·split_k blocks quantised into waves of 132 SMs × the blocks resident per
/// SM (threads, blocks, shared memory), and
///   time ≈ t_launch + max(waves · K steps per block · t_step, FLOPs / SM rate, DRAM bytes / BW)
/// where a K step costs a fixed part plus a part per byte of its A and B tiles (twice without the
/// prefetch stage), or the SM's fill rate shared by its resident blocks, whichever is slower;
/// DRAM bytes = operands (once, or per panel when the walked one exceeds L2; one matrix for a
/// batch-broadcast operand) + the fp32 results (per K slice with split-K). Constants fitted on the
/// committed suite's H200 revisions (data/suite/vx-robotics-h200).
struct TimeEstimate {
  double time_ns = 0.0;
  double dram_bytes = 0.0;
  int64_t blocks = 0;
};
/// The estimate for a design point (JSON as the generator writes it); nullopt when the design
/// has no GEMM view (no fixed.op.gemm or fixed.op.conv, or no tile / split_k axis).
[[nodiscard]] std::optional<TimeEstimate> estimate_time(const nlohmann::json& design);

/// The reference launch's measured duration and DRAM traffic, from a bundle's kernel entry
/// (ncu.raw gpu__time_duration.sum, dram__bytes_read.sum + dram__bytes_write.sum); nullopt when
/// the entry lacks them.
struct ReferenceTiming {
  double time_ns = 0.0;
  double dram_bytes = 0.0;
};
[[nodiscard]] std::optional<ReferenceTiming> reference_timing(const nlohmann::json& entry);

/// Distance of an estimate to the reference: |ln(scale·t/t_ref)| + ½·|ln(bytes/bytes_ref)|, where
/// `scale` anchors the model at a measured point (the agent: the retained revision's measured over
/// modelled duration).
[[nodiscard]] double timing_distance(const TimeEstimate& e, const ReferenceTiming& ref, double scale = 1.0);

/// Line-search agent: one axis per revision. For every axis direction not yet tried from the
/// retained revision it walks the line (the step applied 1 … 6 times while the generator accepts
/// it: split_k 2 → 4 → … → 128, the tile along its steps), scores each point by how much the time
/// model brings the candidate's time and traffic toward the reference's, and proposes the best
/// point of the best line as one revision (AxisStep::steps says how far it jumped). Estimates are
/// scaled by the retained revision's measured duration (its estimated DRAM bytes at the DRAM
/// bandwidth ncu measured) over its modelled one. When no line
/// is predicted to come at least 10 % closer (or the reference has no timing, the design no GEMM
/// view, or the revisions were not profiled by ncu on the reference GPU), it proposes what the built-in agent proposes (response map, pairs when singles stop
/// helping, stop).
class LineSearchAgent : public Agent {
 public:
  explicit LineSearchAgent(const DesignSpace& space) : space_(space), builtin_(space) {}
  [[nodiscard]] std::string name() const override { return "line-search"; }
  [[nodiscard]] Proposal propose(const AgentInput& in) override;

 private:
  const DesignSpace& space_;
  BuiltinAgent builtin_;
};

}  // namespace vxsynth::refine
