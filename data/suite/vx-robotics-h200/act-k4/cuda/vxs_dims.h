// vxs_dims.h: the shape of a vxsynth candidate's operator, shared by the CUDA kernels, the Vortex
// kernel and the Vortex host program (docs/codegen.md "One kernel body, two dialects").
#ifndef VXS_DIMS_H
#define VXS_DIMS_H

#include <stdint.h>

/// Shape of the op as a batched GEMM C[Z][M][N] = A[Z][M][K] * B[Z][K][N], plus the raw conv shape
/// (conv: M = K_out/groups, N = N*P*Q, K = (C/groups)*R*S, Z = groups). All int32: every tensor of a
/// candidate has fewer than 2^31 elements (checked by the generator).
typedef struct {
  int32_t Z, M, N, K;     // GEMM view
  int32_t sa, sb;         // bmm batch strides of a and b (elements; 0 broadcasts)
  int32_t cn, cc, ch, cw; // conv input N, C, H, W
  int32_t ck, cr, cs;     // conv filters K, R, S
  int32_t sh, sw, ph, pw, dh, dw;  // conv stride, pad, dilation
  int32_t cg, kg, P, Q;   // conv C/groups, K/groups, output P, Q
} vxs_dims_t;

#endif  // VXS_DIMS_H
