/* Local barrier across 4 warps and a global barrier (bit 31) across all cores. Each warp of each
   core stores a flag after a warp-dependent delay, waits at the barrier, then sums the flags it can
   see. Without the barrier the early warps would see missing flags. */
#include "vx_asm.h"
  .section .text.init
  .globl _start, flags, sums, gflags, gsums
_start:
  li a0, 4
  la a1, body
  VX_WSPAWN(a0, a1)
body:
  csrr s1, CSR_WARP_ID
  csrr s2, CSR_CORE_ID
  slli s3, s2, 2
  add s3, s3, s1           /* s3 = core*4 + warp */
  slli s4, s3, 2           /* byte offset */
  /* delay ~ 50 * (s3+1) */
  addi t0, s3, 1
  li t1, 50
  mul t0, t0, t1
1: addi t0, t0, -1
  bnez t0, 1b
  /* ---- local barrier: flags[core*4 + warp] = 1 */
  la s0, flags
  add t2, s0, s4
  li t3, 1
  sw t3, 0(t2)
  li a0, 0                 /* barrier id 0 */
  li a1, 4                 /* 4 warps */
  VX_BAR(a0, a1)
  slli t4, s2, 4
  add t4, s0, t4           /* this core's 4 flags */
  lw t5, 0(t4)
  lw t6, 4(t4)
  add t5, t5, t6
  lw t6, 8(t4)
  add t5, t5, t6
  lw t6, 12(t4)
  add t5, t5, t6
  la t2, sums
  add t2, t2, s4
  sw t5, 0(t2)
  /* ---- global barrier over all cores: gflags[core*4 + warp] = 1, then sum all 8 */
  la s0, gflags
  add t2, s0, s4
  li t3, 1
  sw t3, 0(t2)
  li a0, 0x80000000
  csrr a1, 0xFC2           /* number of cores */
  VX_BAR(a0, a1)
  li t5, 0
  li t4, 0
2: slli t6, t4, 2
  add t6, t6, s0
  lw t6, 0(t6)
  add t5, t5, t6
  addi t4, t4, 1
  li t6, 8
  blt t4, t6, 2b
  la t2, gsums
  add t2, t2, s4
  sw t5, 0(t2)
  bnez s1, 3f
  li a0, 1
  VX_WSPAWN(a0, zero)      /* warp 0 waits for the others */
  li a0, 0
  EXIT(a0)
3: VX_TMC(zero)

  .data
  .align 2
flags: .space 32
sums: .space 32
gflags: .space 32
gsums: .space 32
