// Every wgmma form of vxs_wgmma.cuh assembles: ptxas checks only the asm of functions a kernel
// calls, so this kernel calls each one (BF16 and FP16, N = 64, 128, 256) with the fences and waits.
// Compiled by CTest bench.wgmma_probe_compiles (nvcc -gencode arch=compute_90a,code=sm_90a -cubin).
#include "../../cuda/vxs_wgmma.cuh"

__global__ void vxs_wgmma_forms(float* out, const unsigned short* tiles) {
  __shared__ __align__(128) unsigned short a[64 * 16], b[256 * 16];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x) a[i] = tiles[i];
  for (int i = threadIdx.x; i < 256 * 16; i += blockDim.x) b[i] = tiles[i];
  vxs_fence_async_shared();
  __syncthreads();
  const uint64_t da = vxs_wgmma_desc(a, 16), db = vxs_wgmma_desc(b, 16);
  float d64[32] = {}, d128[64] = {}, d256[128] = {};
  vxs_wgmma_fence_operand(d64);
  vxs_wgmma_fence_operand(d128);
  vxs_wgmma_fence_operand(d256);
  vxs_wgmma_fence();
  vxs_wgmma_bf16(d64, da, db);
  vxs_wgmma_bf16(d128, da, db);
  vxs_wgmma_bf16(d256, da, db);
  vxs_wgmma_f16(d64, da, db);
  vxs_wgmma_f16(d128, da, db);
  vxs_wgmma_f16(d256, da, db);
  vxs_wgmma_commit();
  vxs_wgmma_wait<0>();
  vxs_wgmma_fence_operand(d64);
  vxs_wgmma_fence_operand(d128);
  vxs_wgmma_fence_operand(d256);
  const int t = threadIdx.x % 128;
  out[vxs_wgmma_row(t, 0) * 256 + vxs_wgmma_col(t, 0)] = d64[0] + d128[63] + d256[127] + vxs_canonical(8, 8, 16);
}
