// conv3 kernel: 3x3 convolution of a zero-bordered (N+2)^2 image, thread mode.
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto I = reinterpret_cast<TYPE*>(arg->I_addr);
  auto W = reinterpret_cast<TYPE*>(arg->W_addr);
  auto O = reinterpret_cast<TYPE*>(arg->O_addr);
  uint32_t width = arg->width;
  uint32_t pitch = width + 2;
  uint32_t x = blockIdx.x, y = blockIdx.y;
  TYPE sum(0);
  for (uint32_t dy = 0; dy < 3; ++dy) {
    for (uint32_t dx = 0; dx < 3; ++dx) {
      sum += I[(y + dy) * pitch + (x + dx)] * W[dy * 3 + dx];
    }
  }
  O[y * width + x] = sum;
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(2, arg->grid_dim, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
