// Compile-only test of vxs_cuda.cuh (nvcc -arch=sm_90): the guarded accesses under both global-load
// policies of a candidate (read-only path and L2-only), and the GEMM views of each op family's shape
// checked on the host.
#include <cuda_bf16.h>

#include "vxs_cuda.cuh"

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
