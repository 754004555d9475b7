/* vx_perf.c — vx_perf_dump(): the per-core machine-performance-monitor dump read by the host
 * runtime's vx_mpm_query/vx_dump_perf (docs/vortex.md §3.5).
 *
 * Stores 32 x 64-bit counters at IO_MPM_ADDR + 256*core_id: slot i = CSR (0xB00+i) in the low
 * word and CSR (0xB80+i) in the high word. Slot 1 is skipped: for core 0 it is the exit-code
 * word (IO_MPM_EXITCODE). Runs on one thread (the exit path), so it has no branches to diverge.
 */
#include <stdint.h>

#include <vx_intrinsics.h>

void vx_perf_dump(void);

#define VX_DUMP_SLOT(i)                                                  \
  do {                                                                   \
    block[2 * (i)] = (uint32_t)csr_read(VX_CSR_MPM_BASE + (i));          \
    block[2 * (i) + 1] = (uint32_t)csr_read(VX_CSR_MPM_BASE_H + (i));    \
  } while (0)

void vx_perf_dump(void) {
  volatile uint32_t* block =
      (volatile uint32_t*)(uintptr_t)(IO_MPM_ADDR + IO_MPM_CORE_STRIDE * (uint32_t)vx_core_id());
  VX_DUMP_SLOT(0);
  /* slot 1: exit code, written by _exit */
  VX_DUMP_SLOT(2);  VX_DUMP_SLOT(3);  VX_DUMP_SLOT(4);  VX_DUMP_SLOT(5);
  VX_DUMP_SLOT(6);  VX_DUMP_SLOT(7);  VX_DUMP_SLOT(8);  VX_DUMP_SLOT(9);
  VX_DUMP_SLOT(10); VX_DUMP_SLOT(11); VX_DUMP_SLOT(12); VX_DUMP_SLOT(13);
  VX_DUMP_SLOT(14); VX_DUMP_SLOT(15); VX_DUMP_SLOT(16); VX_DUMP_SLOT(17);
  VX_DUMP_SLOT(18); VX_DUMP_SLOT(19); VX_DUMP_SLOT(20); VX_DUMP_SLOT(21);
  VX_DUMP_SLOT(22); VX_DUMP_SLOT(23); VX_DUMP_SLOT(24); VX_DUMP_SLOT(25);
  VX_DUMP_SLOT(26); VX_DUMP_SLOT(27); VX_DUMP_SLOT(28); VX_DUMP_SLOT(29);
  VX_DUMP_SLOT(30); VX_DUMP_SLOT(31);
}
