/* WSPAWN: warps 1..3 start at `worker` with thread 0 only; vx_wspawn(1, 0) waits for them. */
#include "vx_asm.h"
  .section .text.init
  .globl _start, wres, wmask, total
_start:
  li a0, 4
  la a1, worker
  VX_WSPAWN(a0, a1)        /* warp 0 is alone: the others start now */
  li a0, 1
  VX_WSPAWN(a0, zero)      /* wait until warps 1..3 have exited */
  la s0, wres
  lw t0, 4(s0)
  lw t1, 8(s0)
  lw t2, 12(s0)
  add t0, t0, t1
  add t0, t0, t2
  la s0, total
  sw t0, 0(s0)
  li a0, 0
  EXIT(a0)

worker:
  csrr s1, CSR_WARP_ID
  /* delay proportional to the warp id so that a non-waiting warp 0 would read zeros */
  slli t0, s1, 6
1: addi t0, t0, -1
  bnez t0, 1b
  la s0, wres
  slli t1, s1, 2
  add s0, s0, t1
  addi t2, s1, 10
  sw t2, 0(s0)
  csrr t3, 0xCC4
  la s0, wmask
  add s0, s0, t1
  sw t3, 0(s0)
  VX_TMC(zero)

  .data
  .align 2
wres: .space 16
wmask: .space 16
total: .space 4
