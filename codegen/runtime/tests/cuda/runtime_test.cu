// Compile-only test of vxs_cuda.cuh and vxs_tc.cuh (nvcc -arch=sm_90): the guarded accesses under
// both global-load policies of a candidate (read-only path and L2-only), the 16-byte fills (synchronous
// and cp.async with its commit/wait) and the TF32 rounding of a fragment, and the GEMM views of each
// op family's shape checked on the host.
#include <cuda_bf16.h>

#include "vxs_cuda.cuh"
#include "vxs_tc.cuh"

#define VXS_LD(p) __ldg(p)

__global__ void guarded_copy(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  const int ok = i < n;
  float v = 0.0f;
  VXS_GLD(v, &in[i], ok);
  VXS_GST(&out[i], v * 2.0f, ok);
}

#undef VXS_LD
#define VXS_LD(p) __ldcg(p)

__global__ void guarded_copy_bf16(const __nv_bfloat16* __restrict__ in, __nv_bfloat16* __restrict__ out, int n) {
  const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  const int ok = i < n;
  __nv_bfloat16 v = __float2bfloat16(0.0f);
  VXS_GLD(v, &in[i], ok);
  VXS_GST(&out[i], v, ok);
}

/// A 16 x 16 bf16 tile through two shared stages, one filled synchronously and one with cp.async
/// (rows past `rows` zero-filled), then multiplied as A x A^T by one warp.
__global__ void tile_fills(const __nv_bfloat16* __restrict__ in, float* __restrict__ out, int rows) {
  __shared__ __align__(128) __nv_bfloat16 tile[2][16][16 + 8];
  const int t = (int)threadIdx.x;  // 32 threads: 2 vectors of 8 elements per row and stage
  const int r = t / 2, c = (t % 2) * 8;
  const int v = r < rows;
  vxs_fill16(&tile[0][r][c], &in[(r * 16 + c) & -v], v);
  vxs_fill16_async(&tile[1][r][c], &in[(r * 16 + c) & -v], v);
  vxs_async_commit();
  vxs_async_wait<0>();
  __syncthreads();
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major> a;
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::col_major> b;
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> acc;
  nvcuda::wmma::fill_fragment(acc, 0.0f);
  nvcuda::wmma::load_matrix_sync(a, &tile[0][0][0], 16 + 8);
  nvcuda::wmma::load_matrix_sync(b, &tile[1][0][0], 16 + 8);
  nvcuda::wmma::mma_sync(acc, a, b, acc);
  nvcuda::wmma::store_matrix_sync(out, acc, 16, nvcuda::wmma::mem_row_major);
}

/// A TF32 fragment loaded from fp32 shared memory and rounded.
__global__ void tf32_round(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ __align__(128) float tile[16][8 + 4];
  const int t = (int)threadIdx.x;  // 32 threads: one 4-element vector each
  vxs_fill16(&tile[t / 2][(t % 2) * 4], &in[t * 4], 1);
  __syncthreads();
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 8, nvcuda::wmma::precision::tf32, nvcuda::wmma::row_major> a;
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 8, nvcuda::wmma::precision::tf32, nvcuda::wmma::col_major> b;
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 8, float> acc;
  nvcuda::wmma::fill_fragment(acc, 0.0f);
  nvcuda::wmma::load_matrix_sync(a, &tile[0][0], 8 + 4);
  nvcuda::wmma::load_matrix_sync(b, &tile[0][0], 8 + 4);
  vxs_round_tf32(a);
  vxs_round_tf32(b);
  nvcuda::wmma::mma_sync(acc, a, b, acc);
  nvcuda::wmma::store_matrix_sync(out, acc, 16, nvcuda::wmma::mem_row_major);
}

/// 0 when the GEMM views match the op definitions (docs/codegen.md "One kernel body, two dialects").
extern "C" int vxs_runtime_test_dims() {
  const vxs_dims_t l = vxs_linear_dims(20, 24, 40);
  const vxs_dims_t b = vxs_bmm_dims(3, 12, 20, 40, 480, 0);
  // conv2d 1x4x7x6, 6 filters 3x3, stride 2x1, pad 1, groups 2: P = 4, Q = 6.
  const vxs_dims_t c = vxs_conv_dims(1, 4, 7, 6, 6, 3, 3, 2, 1, 1, 1, 1, 1, 2);
  int bad = 0;
  bad += !(l.Z == 1 && l.M == 20 && l.N == 24 && l.K == 40);
  bad += !(b.Z == 3 && b.sa == 480 && b.sb == 0);
  bad += !(c.Z == 2 && c.M == 3 && c.P == 4 && c.Q == 6 && c.N == 24 && c.K == 18 && c.cg == 2 && c.kg == 3);
  return bad;
}
