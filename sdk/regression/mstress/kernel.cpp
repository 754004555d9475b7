// mstress kernel: memory stress through pointer-indirect loads. Each output point follows a chain
// of NUM_LOADS random indices (idx = table[idx], every load's address comes from the previous
// load) and accumulates src[idx] along it, so every lane of every warp has a load outstanding
// to a random line at once. Trip counts are uniform; only addresses differ between lanes.
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto table = reinterpret_cast<const uint32_t*>(arg->table_addr);
  auto src = reinterpret_cast<const float*>(arg->src_addr);
  auto dst = reinterpret_cast<float*>(arg->dst_addr);
  uint32_t stride = arg->stride;
  uint32_t offset = blockIdx.x * stride;
  for (uint32_t i = 0; i < stride; ++i) {
    uint32_t idx = offset + i;
    float value = 0.0f;
    for (uint32_t j = 0; j < NUM_LOADS; ++j) {
      idx = table[idx];
      value = value * 0.5f + src[idx];
    }
    dst[offset + i] = value;
  }
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->num_tasks, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
