#pragma once
/// \file
/// The line-search agent and its time model (docs/reconstruct.md "Line-search agent").

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "vxsynth/refine/agent.h"

namespace vxsynth::refine {

/// Time model of a GEMM-like candidate on the H200 (docs/reconstruct.md "Line-search agent"):
/// the design's op seen as a batched GEMM (conv: implicit GEMM), its grid of
/// ceil(N/BN)·ceil(M/BM)·z·split_k blocks quantised into waves of 132 SMs · ⌊2048/block size⌋
/// resident blocks, and
///   time ≈ launches·t_launch + max(dram_bytes / BW, waves · 2·BM·BN·ceil(K/split_k) / rate per block)
/// with dram_bytes = operands once (+ the fp32 split-K workspace). Constants fitted on the
/// committed H200 revisions (data/evidence/h200/reconstruct-ncu-2026-11-30).
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

/// Distance of an estimate to the reference: |ln(t/t_ref)| + ½·|ln(bytes/bytes_ref)|.
[[nodiscard]] double timing_distance(const TimeEstimate& e, const ReferenceTiming& ref);

/// Line-search agent: one axis per revision. After a retained single-axis move it repeats the
/// same step (split_k 2 → 4 → 8 …, the next tile size) while that step is untried and
/// applicable; otherwise it ranks every untried applicable single move by how much the time
/// model brings the candidate's time and traffic toward the reference's and takes the best.
/// When the time model sees no move that helps (or the reference has no timing), it proposes
/// what the built-in agent proposes (response map, pairs when singles stop helping, stop).
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
