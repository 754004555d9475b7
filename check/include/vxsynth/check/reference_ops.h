#pragma once
/// \file
/// Float64 CPU reference implementations of the operator families (docs/signature.md
/// §4: "a float64 CPU implementation of the same op is the reference" where no GPU is available).
/// Inputs arrive as doubles holding the exact values of the stored (fp32 or bf16) tensors; every
/// multiply-add is done in double, in a fixed order.

#include <span>
#include <vector>

#include "vxsynth/check/op_spec.h"

namespace vxsynth::check {

/// Computes `op` in float64. `inputs` holds one flat row-major vector per operand of
/// operands(op), in that order, each of the operand's numel. Returns output_numel(op) values.
/// Throws vxsynth::Error naming the operand if an input has the wrong size.
[[nodiscard]] std::vector<double> reference_forward(const OpSpec& op,
                                                    std::span<const std::vector<double>> inputs);

/// out[M][N] = act(x[M][K]·w[N][K]ᵀ + bias[N]); bias may be empty.
[[nodiscard]] std::vector<double> reference_linear(std::span<const double> x, std::span<const double> w,
                                                   std::span<const double> bias, int64_t m, int64_t n,
                                                   int64_t k, Activation act);

/// out[b][M][N] = a[b·sa + M×K]·b[b·sb + K×N] for b < batch (sa, sb batch strides in elements).
[[nodiscard]] std::vector<double> reference_bmm(std::span<const double> a, std::span<const double> b,
                                                int64_t batch, int64_t m, int64_t n, int64_t k,
                                                int64_t a_batch_stride, int64_t b_batch_stride);

/// torch.nn.functional.conv2d semantics (cross-correlation, zero padding, stride, dilation,
/// groups) on x[N][C][H][W] and weight[K][C/groups][R][S]; bias may be empty. conv1d is this
/// with H = R = 1.
[[nodiscard]] std::vector<double> reference_conv2d(std::span<const double> x, std::span<const double> w,
                                                   std::span<const double> bias,
                                                   const core::ConvShape& shape, Activation act);

}  // namespace vxsynth::check
