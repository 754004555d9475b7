// dotproduct kernel: a reduction through local memory and barriers (block mode). Each thread
// accumulates a grid-stride slice of src0 * src1, stores it in the block's __local_mem, and the
// block halves the live range with a __syncthreads() per step; thread 0 writes the block's sum.
// GCC-built divergence (docs/sdk.md "Divergence rules"): the grid-stride loop has per-lane trip
// counts (uniform vote exit + VX_IF body), and `tid < d` / `tid == 0` are VX_IF regions; the
// barriers stay outside every VX_IF, so all warps of the block reach each of them.
#include <vx_simt.h>
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto* __restrict src0 = reinterpret_cast<const TYPE*>(arg->src0_addr);
  auto* __restrict src1 = reinterpret_cast<const TYPE*>(arg->src1_addr);
  auto* __restrict dst = reinterpret_cast<TYPE*>(arg->dst_addr);
  uint32_t n = arg->num_points;
  auto tbuf = reinterpret_cast<TYPE*>(__local_mem(blockDim.x * sizeof(TYPE)));

  uint32_t tid = threadIdx.x;
  uint32_t gid = blockIdx.x * blockDim.x + tid;
  uint32_t stride = blockDim.x * gridDim.x;

  TYPE acc(0);
  for (uint32_t i = gid; vx_vote_any(i < n); i += stride) {
    VX_IF(i < n) {
      acc += src0[i] * src1[i];
    } VX_ENDIF
  }
  tbuf[tid] = acc;

  for (uint32_t d = blockDim.x / 2; d > 0; d /= 2) {  // uniform: blockDim is the same everywhere
    __syncthreads();
    VX_IF(tid < d) {
      tbuf[tid] += tbuf[tid + d];
    } VX_ENDIF
  }
  VX_IF(tid == 0) {
    dst[blockIdx.x] = tbuf[0];
  } VX_ENDIF
  __syncthreads();  // the slot's next block reuses tbuf
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)kernel_body, arg);
}
