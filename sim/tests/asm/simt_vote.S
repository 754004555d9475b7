/* VOTE and SHFL on one warp of 4 threads. */
#include "vx_asm.h"
#define PUTL(r, sym) la t6, sym; add t6, t6, s4; sw r, 0(t6)
  .section .text.init
  .globl _start, vote, shfl
_start:
  li t0, -1
  VX_TMC(t0)
  csrr s1, CSR_THREAD_ID
  slli s4, s1, 2
  la s0, vote
  andi a0, s1, 1           /* odd lanes true */
  li a1, 1
  VX_VOTE_ALL(t0, a0)
  VX_VOTE_ANY(t1, a0)
  VX_VOTE_UNI(t2, a0)
  VX_VOTE_BALLOT(t3, a0)
  VX_VOTE_ALL(t4, a1)
  VX_VOTE_UNI(t5, a1)
  sw t0, 0(s0)
  sw t1, 4(s0)
  sw t2, 8(s0)
  sw t3, 12(s0)
  sw t4, 16(s0)
  sw t5, 20(s0)
  /* SHFL: value = 10*tid; control = (mask<<12)|(c<<6)|b with mask=0, c=3 */
  li t0, 10
  mul a0, s1, t0
  li a1, (3 << 6) | 1
  VX_SHFL_UP(t1, a0, a1)
  VX_SHFL_DOWN(t2, a0, a1)
  VX_SHFL_BFLY(t3, a0, a1)
  li a2, (3 << 6) | 2
  VX_SHFL_IDX(t4, a0, a2)
  /* segments of 2 lanes: mask=2 (keeps bit1), c=1 -> down by 1 stays inside each pair */
  li a3, (2 << 12) | (1 << 6) | 1
  VX_SHFL_DOWN(t5, a0, a3)
  la s0, shfl
  add s0, s0, s4
  sw t1, 0(s0)
  sw t2, 16(s0)
  sw t3, 32(s0)
  sw t4, 48(s0)
  sw t5, 64(s0)
  li a0, 0
  EXIT(a0)

  .data
  .align 2
vote: .space 24
shfl: .space 80
