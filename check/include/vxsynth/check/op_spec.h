#pragma once
/// \file
/// The operator a candidate must implement: family, shape, bias and activation (the "same output"
/// half of a reference; docs/signature.md §2 property 4, §4). Shared by the float64
/// reference ops, the input generator and codegen.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vxsynth/core/context.h"

namespace vxsynth::check {

/// Operator families vxsynth reconstructs (paper §4.1: linear layers, matmul, 1-D and 2-D conv).
enum class OpFamily : uint8_t { kLinear, kMatmul, kBmm, kConv1d, kConv2d };

/// Elementwise activation applied after the bias (the `fused_act` axis moves it in or out of the
/// GEMM kernel; the operator itself fixes whether there is one).
enum class Activation : uint8_t { kNone, kRelu };

/// Stable lower-case ids: "linear", "matmul", "bmm", "conv1d", "conv2d".
[[nodiscard]] std::string_view to_string(OpFamily f);
/// Parses an id of to_string(OpFamily); throws vxsynth::Error naming the bad value.
[[nodiscard]] OpFamily op_family_from_string(std::string_view s);
/// "none" / "relu".
[[nodiscard]] std::string_view to_string(Activation a);
/// Parses "none"/"relu"; throws vxsynth::Error naming the bad value.
[[nodiscard]] Activation activation_from_string(std::string_view s);

/// One operator instance at a fixed shape.
///
/// Tensor layouts (all contiguous, row-major, as PyTorch stores them):
/// - linear:  x[M][K], weight[N][K], bias[N] → out[M][N] = act(x·weightᵀ + bias)   (torch F.linear / addmm)
/// - matmul:  a[M][K], b[K][N] → out[M][N]                                          (gemm.batch must be 1)
/// - bmm:     a[batch][M][K] (batch stride a_batch_stride), b[batch][K][N] (stride b_batch_stride;
///            0 broadcasts one b over the batch, as torch.matmul does) → out[batch][M][N]
/// - conv1d:  x[N][C][W], weight[K][C/groups][S], bias[K] → out[N][K][Q]            (conv.h = conv.r = 1)
/// - conv2d:  x[N][C][H][W], weight[K][C/groups][R][S], bias[K] → out[N][K][P][Q]
///   with P = (H + 2·pad_h − dil_h·(R−1) − 1)/stride_h + 1 and Q likewise (torch semantics).
struct OpSpec {
  OpFamily family = OpFamily::kLinear;
  core::GemmShape gemm;     ///< linear/matmul/bmm
  core::ConvShape conv;     ///< conv1d/conv2d
  bool has_bias = false;    ///< linear/conv only
  Activation activation = Activation::kNone;
  int64_t a_batch_stride = -1;  ///< bmm only; −1 means M·K (contiguous)
  int64_t b_batch_stride = -1;  ///< bmm only; −1 means K·N (contiguous), 0 broadcasts

  /// True for conv1d/conv2d.
  [[nodiscard]] bool is_conv() const { return family == OpFamily::kConv1d || family == OpFamily::kConv2d; }
  /// Conv output height P (1 for conv1d). Only for conv.
  [[nodiscard]] int64_t out_h() const;
  /// Conv output width Q. Only for conv.
  [[nodiscard]] int64_t out_w() const;
  /// Effective a/b batch strides for bmm (resolving −1).
  [[nodiscard]] int64_t a_stride() const { return a_batch_stride < 0 ? gemm.m * gemm.k : a_batch_stride; }
  [[nodiscard]] int64_t b_stride() const { return b_batch_stride < 0 ? gemm.k * gemm.n : b_batch_stride; }
  /// Reduction length of one output element: K for GEMMs, (C/groups)·R·S for conv. Sets the
  /// weight scale N(0, 1/fan_in) of the input generator.
  [[nodiscard]] int64_t fan_in() const;
  /// Multiply-accumulates of the whole op (FLOPs = 2×).
  [[nodiscard]] int64_t macs() const;
  /// Throws vxsynth::Error naming the field if the shape is empty, inconsistent (groups not
  /// dividing C and K, non-positive output size, batch>1 for matmul, bias on matmul/bmm, …).
  void validate() const;
};

/// Role of an operand in the generated kernels and the input generator.
enum class OperandRole : uint8_t { kActivation, kWeight, kBias };

/// One input tensor of an op, in call order.
struct OperandInfo {
  std::string name;              ///< file stem and kernel-argument name: x, weight, bias, a, b
  std::vector<int64_t> shape;
  OperandRole role = OperandRole::kActivation;
  [[nodiscard]] int64_t numel() const;
};

/// Inputs of `op` in call order (torch argument order: x, weight[, bias] or a, b).
[[nodiscard]] std::vector<OperandInfo> operands(const OpSpec& op);
/// Output shape of `op`.
[[nodiscard]] std::vector<int64_t> output_shape(const OpSpec& op);
/// Number of output elements.
[[nodiscard]] int64_t output_numel(const OpSpec& op);

/// Builds the OpSpec of a reference context (its op kind, shape and bias; for bmm, a batch stride of
/// 0 for an operand the trace shows broadcast over the batch: 2-D, or batch stride 0). Throws
/// vxsynth::Error when the context has no shape for its op or the op is kOther.
[[nodiscard]] OpSpec op_spec_from_context(const core::ReferenceContext& ctx);

/// Human-readable one-line description, e.g. "linear M=64 N=32 K=48 +bias".
[[nodiscard]] std::string describe(const OpSpec& op);

}  // namespace vxsynth::check
