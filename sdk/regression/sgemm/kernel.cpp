// sgemm kernel: C = A * B (N x N, row-major), thread mode: blockIdx.x = column, blockIdx.y = row.
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto A = reinterpret_cast<TYPE*>(arg->A_addr);
  auto B = reinterpret_cast<TYPE*>(arg->B_addr);
  auto C = reinterpret_cast<TYPE*>(arg->C_addr);
  uint32_t size = arg->size;
  uint32_t col = blockIdx.x;
  uint32_t row = blockIdx.y;
  TYPE sum(0);
  for (uint32_t e = 0; e < size; ++e) {  // uniform trip count
    sum += A[row * size + e] * B[e * size + col];
  }
  C[row * size + col] = sum;
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(2, arg->grid_dim, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
