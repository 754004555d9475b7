// dropout kernel: each thread draws a pseudo-random number on the device (common.h) and either
// zeroes its point or scales it by 1/(1-p). <cstdlib> is included as Vortex's dropout does;
// std::abs comes from it. Lanes disagree on the draw, so the choice is a branch-free select.
#include <vx_simt.h>
#include <vx_spawn.h>

#include <cstdlib>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src = reinterpret_cast<const float*>(arg->src_addr);
  auto dst = reinterpret_cast<float*>(arg->dst_addr);
  uint32_t i = blockIdx.x;
  float r = dropout_uniform(arg->seed, i);
  float kept = std::abs(src[i]) * arg->scale;  // inputs are magnitudes: |x|, from <cstdlib>
  dst[i] = vx_select_f(r < arg->drop_p, 0.0f, kept);
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->num_points, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
