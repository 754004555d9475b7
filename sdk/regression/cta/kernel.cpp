// cta kernel: a 3-D grid of 3-D blocks (block mode). Every thread writes
//   dst[2g]     = g + src[l]                  (g: global id from blockIdx/gridDim, l: local id)
//   dst[2g + 1] = the local id its mirror thread (size-1-l) stored in the block's __local_mem
// before __syncthreads(): the second value is only right if the barrier spans every warp of
// the block, and if each resident block has its own share of local memory.
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src = reinterpret_cast<const int32_t*>(arg->src_addr);
  auto dst = reinterpret_cast<int32_t*>(arg->dst_addr);
  uint32_t cta_size = blockDim.x * blockDim.y * blockDim.z;
  uint32_t block_id = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  uint32_t local_id = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  uint32_t global_id = local_id + block_id * cta_size;

  auto shared = reinterpret_cast<int32_t*>(__local_mem(cta_size * sizeof(int32_t)));
  shared[local_id] = static_cast<int32_t>(block_id * 1000 + local_id);
  __syncthreads();
  int32_t mirror = shared[cta_size - 1 - local_id];
  __syncthreads();  // the slot's next block must not overwrite before everyone has read

  dst[2 * global_id] = static_cast<int32_t>(global_id) + src[local_id];
  dst[2 * global_id + 1] = mirror;
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(3, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)kernel_body, arg);
}
