// sort kernel: rank sort. Thread i counts the elements that go before src[i] (smaller, or equal
// with a lower index: a stable order, so ties get distinct ranks) and stores src[i] there. The
// count is branch-free (`|` and `&` of comparisons, not `||`/`&&`, whose short circuit would be a
// branch on lane data); the loop bound is uniform.
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src = reinterpret_cast<const TYPE*>(arg->src_addr);
  auto dst = reinterpret_cast<TYPE*>(arg->dst_addr);
  uint32_t n = arg->num_points;
  uint32_t self = blockIdx.x;
  TYPE ref = src[self];
  uint32_t pos = 0;
  for (uint32_t i = 0; i < n; ++i) {
    TYPE cur = src[i];
    pos += static_cast<uint32_t>((cur < ref) | ((cur == ref) & (i < self)));
  }
  dst[pos] = ref;
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->num_points, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
