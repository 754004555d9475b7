/* vx_exit.S — the kernel exit path of the vxsynth Vortex 2.x SDK (docs/sdk.md "Startup, memory layout, exit").
 *
 * _exit/_Exit write this core's 32 x u64 perf-dump block at IO_MPM_ADDR + 256*core_id (slot 1
 * skipped, vx_perf.c), store the exit code at IO_MPM_EXITCODE, fence, and end the warp with tmc 0.
 * picolibc's exit() ends in _exit. Kept apart from vx_start.S (_start), so that a kernel with its
 * own _start still gets this exit path without a second _start.
 */
#include <VX_types.h>

#define CUSTOM0 0x0B

  .text
/* void _exit(int code), void _Exit(int code): picolibc's exit() ends in _exit. */
  .global _exit
  .type _exit, @function
  .global _Exit
  .type _Exit, @function
_exit:
_Exit:
  mv    s0, a0
  call  vx_perf_dump
  /* core 0 always reports its code; other cores only report a non-zero code */
  csrr  t0, VX_CSR_CORE_ID
  seqz  t0, t0
  snez  t1, s0
  or    t0, t0, t1
  beqz  t0, 7f
  li    t1, IO_MPM_EXITCODE
  sw    s0, 0(t1)
7:
  fence iorw, iorw
  .insn r CUSTOM0, 0, 0, x0, x0, x0        /* tmc 0: the warp ends */
8:
  j     8b                                 /* not reached */
  .size _exit, .-_exit

