// vecadd kernel: dst[i] = src0[i] + src1[i], thread mode (blockIdx.x is the global id).
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src0 = reinterpret_cast<TYPE*>(arg->src0_addr);
  auto src1 = reinterpret_cast<TYPE*>(arg->src1_addr);
  auto dst = reinterpret_cast<TYPE*>(arg->dst_addr);
  uint32_t i = blockIdx.x;
  dst[i] = src0[i] + src1[i];
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->num_points, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
