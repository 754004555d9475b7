// printf kernel: every task prints one line with vx_printf (threads of a warp print one after
// another through vx_serial) and stores the number of bytes it printed. Task 0 also exercises
// vx_putint / vx_putfloat / vx_putchar.
#include <vx_print.h>
#include <vx_simt.h>
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src = reinterpret_cast<int32_t*>(arg->src_addr);
  auto dst = reinterpret_cast<int32_t*>(arg->dst_addr);
  uint32_t i = blockIdx.x;
  int32_t v = src[i];
  dst[i] = vx_printf(PRINTF_FORMAT, (unsigned)i, (int)v, (double)(0.5f * (float)v));
  VX_IF(i == 0) {
    vx_putint(-1234, 10);
    vx_putchar(' ');
    vx_putint(0xbeef, 16);
    vx_putchar(' ');
    vx_putfloat(3.25f, 2);
    vx_putchar('\n');
  } VX_ENDIF
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->num_points, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
