// gbar kernel: a global barrier across cores (vx_barrier with bit 31 set). Each core publishes a
// value, later cores arriving later (busy loop), waits at the global barrier and then sums what
// every core published. Without a working barrier core 0 would read before the others write.
// Runs on warp 0 / thread 0 of every core (no vx_spawn_threads), so all branches are single-lane.
#include <vx_intrinsics.h>

#include "common.h"

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  auto flags = reinterpret_cast<volatile uint32_t*>(arg->flags_addr);
  auto out = reinterpret_cast<uint32_t*>(arg->out_addr);
  uint32_t core = (uint32_t)vx_core_id();
  uint32_t nc = (uint32_t)vx_num_cores();
  for (uint32_t round = 0; round < GBAR_ROUNDS; ++round) {
    volatile uint32_t spin = 0;
    for (uint32_t k = 0; k < core * GBAR_SKEW; ++k) {
      spin = spin + k;
    }
    flags[round * nc + core] = (round + 1) * (core + 1);
    vx_fence();
    vx_barrier((int)0x80000000, (int)nc);
    uint32_t sum = 0;
    for (uint32_t c = 0; c < nc; ++c) {
      sum += flags[round * nc + c];
    }
    out[round * nc + core] = sum;
  }
  return 0;
}
