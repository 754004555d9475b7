// sgemm2 kernel: tiled C = A * B in block mode. Each T x T block stages one tile of A and one of
// B in local memory (__local_mem), synchronised with __syncthreads().
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto A = reinterpret_cast<TYPE*>(arg->A_addr);
  auto B = reinterpret_cast<TYPE*>(arg->B_addr);
  auto C = reinterpret_cast<TYPE*>(arg->C_addr);
  uint32_t size = arg->size;
  uint32_t tile = arg->tile_size;

  auto local_A = reinterpret_cast<TYPE*>(__local_mem(2 * tile * tile * sizeof(TYPE)));
  auto local_B = local_A + tile * tile;

  uint32_t tx = threadIdx.x, ty = threadIdx.y;
  uint32_t row = blockIdx.y * tile + ty;
  uint32_t col = blockIdx.x * tile + tx;

  TYPE sum(0);
  for (uint32_t k = 0; k < size; k += tile) {  // uniform trip count
    local_A[ty * tile + tx] = A[row * size + (k + tx)];
    local_B[ty * tile + tx] = B[(k + ty) * size + col];
    __syncthreads();
    for (uint32_t j = 0; j < tile; ++j) {
      sum += local_A[ty * tile + j] * local_B[j * tile + tx];
    }
    __syncthreads();
  }
  C[row * size + col] = sum;
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(2, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)kernel_body, arg);
}
