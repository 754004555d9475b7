// madmax kernel: FMA-heavy compute on a 2-D grid in thread mode (blockIdx.x = column,
// blockIdx.y = row); the work is madmax_compute() in common.h, shared with the host.
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto dst = reinterpret_cast<float*>(arg->dst_addr);
  uint32_t size = arg->size;
  uint32_t col = blockIdx.x, row = blockIdx.y;
  dst[row * size + col] = madmax_compute(row, col, size);
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(2, arg->grid_dim, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
