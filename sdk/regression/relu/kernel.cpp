// relu kernel: dst[i] = max(src[i], 0) in thread mode, one point per thread. Inputs have both
// signs, so lanes disagree on the comparison: it is a branch-free select (vx_simt.h), not `?:`.
#include <vx_simt.h>
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src = reinterpret_cast<TYPE*>(arg->src_addr);
  auto dst = reinterpret_cast<TYPE*>(arg->dst_addr);
  TYPE v = src[blockIdx.x];
  dst[blockIdx.x] = vx_select_f(v < TYPE(0), TYPE(0), v);
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->num_points, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
