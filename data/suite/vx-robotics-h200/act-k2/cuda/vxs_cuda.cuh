// vxs_cuda.cuh: fixed parts of a vxsynth CUDA candidate (docs/codegen.md "CUDA candidate"): guarded
// accesses, the GEMM view of each op family's shape, and the argument checks of the PyTorch entry.
// The candidate defines VXS_LD(p), its global-load policy (axis read_once / smem_stage), before use.
#ifndef VXS_CUDA_CUH
#define VXS_CUDA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "vxs_dims.h"

/// VXS_GLD(dst, ptr, c): dst = VXS_LD(ptr) where c holds; VXS_GST(ptr, val, c): *ptr = val where c holds.
#define VXS_GLD(dst, ptr, c) do { if (c) (dst) = VXS_LD(ptr); } while (0)
#define VXS_GST(ptr, val, c) do { if (c) *(ptr) = (val); } while (0)

/// GEMM view of F.linear: out[M][N] = x[M][K] * weight[N][K]^T.
static inline vxs_dims_t vxs_linear_dims(int M, int N, int K) {
  vxs_dims_t d = {1, M, N, K, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  return d;
}

/// GEMM view of torch.matmul / bmm: batch strides in elements (0 broadcasts that operand).
static inline vxs_dims_t vxs_bmm_dims(int batch, int M, int N, int K, long long a_batch_stride,
                                      long long b_batch_stride) {
  vxs_dims_t d = {batch, M, N, K, (int32_t)a_batch_stride, (int32_t)b_batch_stride, 0, 0, 0, 0, 0, 0, 0, 0,
                  0, 0, 0, 0, 0, 0, 0, 0, 0};
  return d;
}

/// Implicit-GEMM view of F.conv1d / F.conv2d (conv1d: H = R = 1): z = group, M = K/groups,
/// N = N*P*Q, K = (C/groups)*R*S.
static inline vxs_dims_t vxs_conv_dims(int N, int C, int H, int W, int K, int R, int S, int stride_h, int stride_w,
                                       int pad_h, int pad_w, int dil_h, int dil_w, int groups) {
  const int P = (H + 2 * pad_h - dil_h * (R - 1) - 1) / stride_h + 1;
  const int Q = (W + 2 * pad_w - dil_w * (S - 1) - 1) / stride_w + 1;
  vxs_dims_t d = {groups, K / groups, N * P * Q, (C / groups) * R * S, 0, 0, N, C, H, W, K, R, S,
                  stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, C / groups, K / groups, P, Q};
  return d;
}

#ifdef VXS_TORCH_EXTENSION
#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

/// A tensor the candidate can read or write: on the GPU, contiguous, of the candidate's dtype.
static inline void vxs_check(const torch::Tensor& t, const char* name, c10::ScalarType type) {
  TORCH_CHECK(t.is_cuda(), name, " must be a CUDA tensor");
  TORCH_CHECK(t.is_contiguous(), name, " must be contiguous");
  TORCH_CHECK(t.scalar_type() == type, name, " must be ", c10::toString(type));
}
#endif  // VXS_TORCH_EXTENSION

#endif  // VXS_CUDA_CUH
