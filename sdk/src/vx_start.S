/* vx_start.S — kernel entry point and exit path for the vxsynth Vortex 2.x SDK.
 *
 * At device start every core runs _start with only warp 0 / thread 0 active and MSCRATCH = the
 * kernel-argument pointer (docs/vortex.md §3.4). Steps:
 *  1. every hart (all warps, all threads) sets gp, sp = STACK_BASE_ADDR - (hart << STACK_LOG2_SIZE),
 *     tp = its TLS block, and initialises that block (.tdata copy, .tbss zero); warp 0 waits
 *     until the other warps are done;
 *  2. core 0 clears .bss and runs the constructors (__libc_init_array); all cores then meet at a
 *     global barrier, so no core enters main before both are done (a no-op on one core);
 *  3. main(0, 0); core 0 leaves through exit() (atexit handlers, destructors), the others
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
  /* Step 1: per-hart registers and TLS on warps 1..NW-1 (spawned) and on warp 0 (called). */
  csrr  a0, VX_CSR_NUM_WARPS
  la    a1, __vx_init_hart_warp
  .insn r CUSTOM0, 1, 0, x0, a0, a1        /* wspawn NW, __vx_init_hart_warp */
  li    t0, -1
  .insn r CUSTOM0, 0, 0, x0, t0, x0        /* tmc -1: all threads of warp 0 */
  jal   __vx_init_hart
  li    t0, 1
  .insn r CUSTOM0, 0, 0, x0, t0, x0        /* tmc 1: back to thread 0 */
  li    t0, 1
  .insn r CUSTOM0, 1, 0, x0, t0, x0        /* wspawn 1, 0: wait until warp 0 is alone */

  /* Step 2: core 0 clears .bss and runs constructors; then every core meets at a global barrier. */
  csrr  t0, VX_CSR_CORE_ID
  bnez  t0, 1f
  la    a0, _edata
  la    a2, _end
  sub   a2, a2, a0
  li    a1, 0
  call  memset
  call  __libc_init_array
1:
  li    t0, 0x80000000                     /* global barrier 0 */
  csrr  t1, VX_CSR_NUM_CORES
  .insn r CUSTOM0, 4, 0, x0, t0, t1        /* bar (1<<31)|0, num_cores */

  /* Step 3: main, then exit (core 0) or _exit (other cores). */
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
/* Spawned warps: enable all threads, initialise, end the warp. */
  .type __vx_init_hart_warp, @function
__vx_init_hart_warp:
  li    t0, -1
  .insn r CUSTOM0, 0, 0, x0, t0, x0        /* tmc -1 */
  jal   __vx_init_hart
  .insn r CUSTOM0, 0, 0, x0, x0, x0        /* tmc 0 */
  .size __vx_init_hart_warp, .-__vx_init_hart_warp

/* Per-hart set-up (leaf, uses only t-registers; every branch is uniform across lanes).
 * TLS blocks: hart h owns [__vx_tls_base + h*__vx_tls_stride, +__vx_tls_stride), laid out as
 * the TLS segment (.tdata image then .tbss), with tp pointing at its start (RISC-V TLS variant I,
 * no TCB). */
  .type __vx_init_hart, @function
__vx_init_hart:
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
  /* copy .tdata (word multiple) */
  la    t2, __tdata_start
  la    t3, __tdata_end
  mv    t4, tp
3:
  bgeu  t2, t3, 4f
  lw    t5, 0(t2)
  sw    t5, 0(t4)
  addi  t2, t2, 4
  addi  t4, t4, 4
  j     3b
4:
  /* zero .tbss (word multiple) at tp + __tbss_offset */
  lui   t2, %hi(__tbss_offset)
  addi  t2, t2, %lo(__tbss_offset)
  add   t4, tp, t2
  lui   t3, %hi(__tbss_size)
  addi  t3, t3, %lo(__tbss_size)
  add   t3, t3, t4
5:
  bgeu  t4, t3, 6f
  sw    zero, 0(t4)
  addi  t4, t4, 4
  j     5b
6:
  ret
  .size __vx_init_hart, .-__vx_init_hart

  .option pop
