// fence kernel: each thread stores, executes `fence iorw, iorw` (vx_fence), reads its store back
// and stores the value + 1 to a second buffer.
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src = reinterpret_cast<uint32_t*>(arg->src_addr);
  auto dst = reinterpret_cast<volatile uint32_t*>(arg->dst_addr);
  auto dst2 = reinterpret_cast<uint32_t*>(arg->dst2_addr);
  uint32_t i = blockIdx.x;
  dst[i] = src[i];
  vx_fence();
  dst2[i] = dst[i] + 1;
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->count, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
