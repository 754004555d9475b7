// Console lines of several cores at once (run on the vxsim CLI at 4 cores × 8 warps × 8 threads):
// main runs on warp 0 / thread 0 of every core, i.e. harts 0, 64, 128, 192, which all store to the
// same console offset (hart id & 63). Each core's lines must come out whole (one console buffer
// per core, as SimX), not mixed byte by byte.
#include <vx_intrinsics.h>
#include <vx_print.h>

int main() {
  const int core = vx_core_id();
  for (int k = 0; k < 2; ++k)
    vx_printf("console: core %d of %d line %d abcdefghijklmnopqrstuvwxyz0123456789\n", core, vx_num_cores(), k);
  return 0;
}
