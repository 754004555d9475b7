#pragma once
/// \file
/// Builds the reference program context of one kernel (paper §3.1, Table 4;
/// docs/signature.md §2) from its torch-trace event and, when ncu profiled it, its
/// ncu row: op kind and shape from the framework op's Input Dims/Concrete Inputs, operand and
/// accumulator types from its Input types, engine class from the counters first (tensor pipe > 5 %
/// or any non-fp64 tensor FLOP counted; DMMA when only fp64 tensor FLOPs) and the kernel-name rules
/// second, block size and launch geometry from the profiled launch, and
/// a tile hint only where the launch grid agrees with it.

#include <functional>
#include <optional>
#include <string_view>

#include "vxsynth/core/context.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/core/torch_trace.h"

namespace vxsynth::core {

/// Tensor-pipe activity above which a kernel is tensor-core (docs/ncu.md §2.5, §7.6: HFMA2.MMA
/// constant building alone reads up to 2.4 % on SIMT kernels).
inline constexpr double kTensorPipeThresholdPct = 5.0;

/// Context of `kernel`. `ncu` (may be null) is the kernel's joined ncu row from a file of `arch`.
/// Never throws on unusual ops: an op we cannot read a shape from gives OpKind::kOther and no shape.
[[nodiscard]] ReferenceContext build_context(const TraceKernel& kernel, const NcuKernel* ncu, Arch arch);

/// Tensor-op counts of `arch`'s arith_intensity numerator (its sm__ops_path_tensor_src_* terms),
/// read through `value` (nullopt = not measured, counted 0): MMA operations of every non-fp64
/// source type, and fp64 (DMMA) operations.
struct TensorOps {
  double mma = 0, fp64 = 0;
};
[[nodiscard]] TensorOps tensor_ops_of(Arch arch, const std::function<std::optional<double>(std::string_view)>& value);

/// The kernel's op signature, the part of the hot-kernel grouping key that says which computation
/// the launch serves (paper §3.2: one benchmark per op at its profiled shape). For an op whose shape
/// is read (linear, matmul, bmm, conv1d, conv2d): the top-level op, op kind, GEMM shape or the whole
/// conv shape (N, C, H, W, K, R, S, stride, padding, dilation, groups), bias, and every operand's
/// dims, type and strides (layout). Otherwise: the top-level op, the innermost op, and its arguments
/// (tensors by dims, type and strides; other arguments by value, floating-point scalars left out).
[[nodiscard]] std::string op_signature(const TraceKernel& kernel);

/// Element type for torch's "Input type" spelling ("float" → fp32, "c10::BFloat16" → bf16, …).
[[nodiscard]] std::optional<DType> dtype_from_torch(std::string_view torch_type);

/// Whether a name-derived tile agrees with the launch: the number of CTAs in grid.x·grid.y equals
/// ceil(A/tile.m)·ceil(B/tile.n) for (A,B) = (M,N) or (N,M) of the GEMM (conv: implicit GEMM
/// M = N·P·Q, N = K). grid.z is free (batch or split-K).
[[nodiscard]] bool tile_agrees(const TileHint& tile, const ReferenceContext& ctx);

}  // namespace vxsynth::core
