/* Nested SPLIT/JOIN, SPLIT.N and a PRED loop on one warp of 4 threads. */
#include "vx_asm.h"
  .section .text.init
  .globl _start, result, depth, depth2, mask_after, count, negres
_start:
  li t0, -1
  VX_TMC(t0)
  csrr s1, CSR_THREAD_ID
  slli t1, s1, 2
  /* ---- nested split/join: value = (tid<2 ? (even ? 100 : 200) : 300) + tid */
  li s3, 0x77
  slti a0, s1, 2
  VX_SPLIT(s2, a0)
  beqz a0, else1
  andi a1, s1, 1
  seqz a1, a1
  VX_SPLIT(s3, a1)
  beqz a1, else2
  li t2, 100
  j join2
else2:
  li t2, 200
join2:
  VX_JOIN(s3)
  j join1
else1:
  li t2, 300
join1:
  VX_JOIN(s2)
  add t2, t2, s1
  la s0, result
  add s0, s0, t1
  sw t2, 0(s0)
  la s0, depth
  add s0, s0, t1
  sw s2, 0(s0)
  la s0, depth2
  add s0, s0, t1
  sw s3, 0(s0)
  csrr t3, 0xCC4
  la s0, mask_after
  sw t3, 0(s0)
  /* ---- SPLIT.N: negated predicate; lanes with bit0 = 0 take the "then" side */
  andi a0, s1, 1
  VX_SPLIT_N(s4, a0)
  li t2, 0
  beqz a0, 1f            /* uniform inside each group */
  li t2, 5
  j 2f
1: li t2, 7
2: VX_JOIN(s4)
  la s0, negres
  add s0, s0, t1
  sw t2, 0(s0)
  /* ---- PRED loop: lane t iterates t+1 times */
  li t3, 0
  addi t4, s1, 1
  li t5, 0xF
loop:
  addi t3, t3, 1
  slt a2, t3, t4
  VX_PRED(a2, t5)
  bnez a2, loop
  la s0, count
  add s0, s0, t1
  sw t3, 0(s0)
  li a0, 0
  EXIT(a0)

  .data
  .align 2
result: .space 16
depth: .space 16
depth2: .space 16
mask_after: .space 4
count: .space 16
negres: .space 16
