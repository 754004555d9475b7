/* vx_start.S — kernel entry point for the vxsynth Vortex 2.x SDK.
 *
 * At device start every core runs _start with only warp 0 / thread 0 active and MSCRATCH = the
 * kernel-argument pointer (docs/vortex.md §3.4). The steps do the work Vortex's startup does, in
 * the same order and with the same library calls, so that the instruction counts agree with
 * SimX's (docs/sdk.md "Where our startup and spawn do what Vortex's do"); where ours differs it is
 * said below:
 *  1. every hart (all warps, all threads) sets gp, sp = STACK_BASE_ADDR - (hart << STACK_LOG2_SIZE)
 *     and tp = its TLS block;
 *  2. every hart initialises its TLS block with picolibc's memcpy (.tdata image) and memset
 *     (.tbss); warp 0 then waits until the other warps have ended;
 *  3. every core clears .bss with memset (as Vortex's); all cores then meet at global barrier 0,
 *     so no core's clear can overwrite what the constructors write;
 *  4. core 0 runs the constructors (__libc_init_array; Vortex's skips them with picolibc); all
 *     cores meet again, so no core enters main before they are done (barriers are no-ops on one
 *     core);
 *  5. main(0, 0); core 0 leaves through exit() (atexit handlers, destructors), the others
 *     through _exit().
 * The exit path (_exit/_Exit) is in vx_exit.S, a separate object: a kernel that brings its own
 * _start (as Vortex's `basic` regression test does with its start.S) links without this file.
 */
#include <VX_types.h>

#define CUSTOM0 0x0B

  .option push
  .option norelax            /* gp is not valid until step 1 has run: no gp-relative relaxing */

  .section .init, "ax"
  .global _start
  .type _start, @function
_start:
  /* Step 1: per-hart registers on warps 1..NW-1 (spawned) and on warp 0 (called). */
  csrr  a0, VX_CSR_NUM_WARPS
  la    a1, __vx_init_regs_warp
  .insn r CUSTOM0, 1, 0, x0, a0, a1        /* wspawn NW, __vx_init_regs_warp */
  li    t0, -1
  .insn r CUSTOM0, 0, 0, x0, t0, x0        /* tmc -1: all threads of warp 0 */
  jal   __vx_init_regs
  li    t0, 1
  .insn r CUSTOM0, 0, 0, x0, t0, x0        /* tmc 1: back to thread 0 */

  /* Step 2: per-hart TLS, same pattern; wspawn first waits until the step-1 warps have ended. */
  csrr  a0, VX_CSR_NUM_WARPS
  la    a1, __vx_init_tls_warp
  .insn r CUSTOM0, 1, 0, x0, a0, a1        /* wspawn NW, __vx_init_tls_warp */
  li    t0, -1
  .insn r CUSTOM0, 0, 0, x0, t0, x0        /* tmc -1 */
  call  __vx_init_tls
  li    t0, 1
  .insn r CUSTOM0, 0, 0, x0, t0, x0        /* tmc 1 */
  li    t0, 1
  .insn r CUSTOM0, 1, 0, x0, t0, x0        /* wspawn 1, 0: wait until warp 0 is alone */

  /* Step 3: every core clears .bss, then all cores meet. */
  la    a0, _edata
  la    a2, _end
  sub   a2, a2, a0
  li    a1, 0
  call  memset
  jal   __vx_all_cores_meet

  /* Step 4: core 0 runs the constructors, then all cores meet again. */
  csrr  t0, VX_CSR_CORE_ID
  bnez  t0, 1f
  call  __libc_init_array
1:
  jal   __vx_all_cores_meet

  /* Step 5: main, then exit (core 0) or _exit (other cores). */
  li    a0, 0
  li    a1, 0
  call  main
  csrr  t0, VX_CSR_CORE_ID
  bnez  t0, 2f
  tail  exit
2:
  tail  _exit
  .size _start, .-_start

  .text
/* Global barrier 0 over all cores (bar (1<<31)|0, num_cores); a no-op on one core. Leaf. */
  .type __vx_all_cores_meet, @function
__vx_all_cores_meet:
  li    t0, 0x80000000
  csrr  t1, VX_CSR_NUM_CORES
  .insn r CUSTOM0, 4, 0, x0, t0, t1        /* bar */
  ret
  .size __vx_all_cores_meet, .-__vx_all_cores_meet

/* A spawned warp's entry for one startup step: enable all threads, `callop` the step, end the warp.
 * (`call` is two instructions under norelax, `jal` one: each keeps the count of Vortex's stub.) */
  .macro SPAWNED_WARP_STEP name, callop, step
  .type \name, @function
\name:
  li    t0, -1
  .insn r CUSTOM0, 0, 0, x0, t0, x0        /* tmc -1 */
  \callop \step
  .insn r CUSTOM0, 0, 0, x0, x0, x0        /* tmc 0 */
  .size \name, .-\name
  .endm

  SPAWNED_WARP_STEP __vx_init_regs_warp, jal, __vx_init_regs   /* step 1: registers */
  SPAWNED_WARP_STEP __vx_init_tls_warp, call, __vx_init_tls    /* step 2: TLS */

/* Per-hart registers (leaf, t-registers only, no branches).
 * TLS blocks: hart h owns [__vx_tls_base + h*__vx_tls_stride, +__vx_tls_stride), laid out as
 * the TLS segment (.tdata image then .tbss), with tp pointing at its start (RISC-V TLS variant I,
 * no TCB). The stride covers .tdata + .tbss (Vortex's strides by the .tbss size only). */
  .type __vx_init_regs, @function
__vx_init_regs:
  la    gp, __global_pointer$
  csrr  t0, VX_CSR_MHARTID
  slli  t1, t0, STACK_LOG2_SIZE
  li    sp, STACK_BASE_ADDR
  sub   sp, sp, t1
  lui   t1, %hi(__vx_tls_stride)
  addi  t1, t1, %lo(__vx_tls_stride)
  mul   t1, t1, t0
  la    tp, __vx_tls_base
  add   tp, tp, t1
  ret
  .size __vx_init_regs, .-__vx_init_regs

  .option pop                /* what follows runs after step 1 has set gp: the linker may relax */

/* Per-hart TLS block at tp: memcpy(tp, .tdata image, __tdata_size), then
 * memset(tp + __tbss_offset, 0, __tbss_size). picolibc's byte loops have uniform trip counts. */
  .type __vx_init_tls, @function
__vx_init_tls:
  addi  sp, sp, -16
  sw    ra, 12(sp)
  mv    a0, tp
  la    a1, __tdata_start
  lui   a2, %hi(__tdata_size)
  addi  a2, a2, %lo(__tdata_size)
  call  memcpy
  lui   a0, %hi(__tbss_offset)
  addi  a0, a0, %lo(__tbss_offset)
  add   a0, a0, tp
  li    a1, 0
  lui   a2, %hi(__tbss_size)
  addi  a2, a2, %lo(__tbss_size)
  lw    ra, 12(sp)
  addi  sp, sp, 16
  tail  memset
  .size __vx_init_tls, .-__vx_init_tls

