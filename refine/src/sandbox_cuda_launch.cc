// The CUDA side of pair alignment (docs/sandbox.md "Pair alignment"): the launch ncu profiled as the
// main one has the design's grid and block, and executed the design's multiply-accumulates.
#include <fmt/format.h>

#include "vxsynth/refine/sandbox.h"

namespace vxsynth::refine {
namespace {

// THE table: the capture's counter of the GEMM's MACs per path (docs/ncu.md §0.1), and counts per
// MAC. ffma thread instructions: one per FP32 MAC; tensor-pipe ops: two (multiply and add) per MAC.
// Measured on the committed H200 suite (data/suite/vx-robotics-h200): ACT k4 (FP32) 33,554,432
// FFMA = 128 × 512 × 512 tiles' MACs; π0 k1 (BF16) 234,881,024 ops = 2 × 8 × 64 × 256 × 896.
struct MacCounterRow {
  MacCounter id;
  const char* metric;
  double per_mac;
};
constexpr MacCounterRow kMacCounters[] = {
    {MacCounter::kFfma, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 1.0},
    {MacCounter::kTensorTf32, "sm__ops_path_tensor_src_tf32_dst_fp32.sum", 2.0},
    {MacCounter::kTensorBf16, "sm__ops_path_tensor_src_bf16_dst_fp32.sum", 2.0},
    // FP16 operands (a TF32 reference at FP16, Vortex-first): Hopper's FP16 tensor counter, in the
    // capture's arithmetic-intensity terms (core/src/metrics.cc kFlopsHopper).
    {MacCounter::kTensorFp16, "sm__ops_path_tensor_src_fp16.sum", 2.0},
};

int64_t round_up(int64_t v, int64_t t) { return t > 0 ? (v + t - 1) / t * t : v; }

std::string dims(const std::array<uint32_t, 3>& d) { return fmt::format("({}, {}, {})", d[0], d[1], d[2]); }

}  // namespace

std::vector<Violation> check_cuda_launch(const core::NcuKernel& main, const CudaLaunchShape& s,
                                         const std::string& file) {
  std::vector<Violation> v;
  const std::array<uint32_t, 3> block{s.block_threads, 1, 1};
  if (main.grid != s.grid || main.block != block)
    v.push_back({"launch_mismatch", file, 0,
                 fmt::format("the profiled main launch {} has grid {} and block {}; the design's has grid {} and "
                             "block {}",
                             main.name.substr(0, main.name.find('(')), dims(main.grid), dims(main.block), dims(s.grid),
                             dims(block))});
  const MacCounterRow* row = nullptr;
  for (const auto& r : kMacCounters)
    if (r.id == s.counter) row = &r;
  const core::NcuCell* cell = row != nullptr ? main.find(row->metric) : nullptr;
  if (cell == nullptr || !cell->value) return v;
  const double lo = row->per_mac * static_cast<double>(s.z * s.m * s.n * s.k);
  const double hi = row->per_mac * static_cast<double>(s.z * round_up(s.m, s.tile_m) * round_up(s.n, s.tile_n) *
                                                       round_up(s.k, int64_t{s.tile_k} * s.split_k));
  if (*cell->value < lo || *cell->value > hi)
    v.push_back({"pair_alignment", file, 0,
                 fmt::format("the profiled main launch counted {:.0f} ({}); the design's launch makes between {:.0f} "
                             "(the output's {} × {} × {} × {} MACs) and {:.0f} (its whole tiles)",
                             *cell->value, row->metric, lo, s.z, s.m, s.n, s.k, hi)});
  return v;
}

}  // namespace vxsynth::refine
