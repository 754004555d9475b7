// demo kernel: one task per hardware thread, each adding `task_size` consecutive points
// (dst = src0 + src1); the trip count is the same on every lane.
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src0 = reinterpret_cast<const TYPE*>(arg->src0_addr);
  auto src1 = reinterpret_cast<const TYPE*>(arg->src1_addr);
  auto dst = reinterpret_cast<TYPE*>(arg->dst_addr);
  uint32_t count = arg->task_size;
  uint32_t offset = blockIdx.x * count;
  for (uint32_t i = 0; i < count; ++i) {
    dst[offset + i] = src0[offset + i] + src1[offset + i];
  }
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->num_tasks, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
