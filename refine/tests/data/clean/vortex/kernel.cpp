// Test fixture: the Vortex side of the clean linear candidate (same tiles, 128 threads per group).
#include <vx_spawn.h>
#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto x = reinterpret_cast<const float*>(arg->x_addr);
  auto w = reinterpret_cast<const float*>(arg->w_addr);
  auto b = reinterpret_cast<const float*>(arg->b_addr);
  auto y = reinterpret_cast<float*>(arg->y_addr);
  const uint32_t r = blockIdx.y * blockDim.y + threadIdx.y;
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (uint32_t k = 0; k < arg->K; ++k) acc += x[r * arg->K + k] * w[c * arg->K + k];
  y[r * arg->N + c] = acc + b[c];
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(2, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)kernel_body, arg);
}
