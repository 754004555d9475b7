/* A extension: 4 lanes hit one counter with amoadd; swap/min/max/and/or/xor; LR/SC. */
#include "vx_asm.h"
#define PUT(r) sw r, 0(s0); addi s0, s0, 4
  .section .text.init
  .globl _start, counter, olds, result
_start:
  li t0, -1
  VX_TMC(t0)
  csrr s1, CSR_THREAD_ID
  la a0, counter
  addi t1, s1, 1
  amoadd.w t2, t1, (a0)            /* counter += tid+1 in lane order: 0 + 1 + 2 + 3 + 4 = 10 */
  la t3, olds
  slli t4, s1, 2
  add t3, t3, t4
  sw t2, 0(t3)                     /* old values 0, 1, 3, 6 */
  li t0, 1
  VX_TMC(t0)
  la s0, result
  la a0, word
  li t1, -5
  amoswap.w t2, t1, (a0); PUT(t2)  /* 0: old 100 */
  li t1, 7
  amomin.w t2, t1, (a0);  PUT(t2)  /* 1: old -5, stays -5 */
  amominu.w t2, t1, (a0); PUT(t2)  /* 2: old -5 (huge unsigned) -> 7 */
  li t1, -9
  amomax.w t2, t1, (a0);  PUT(t2)  /* 3: old 7 -> 7 */
  amomaxu.w t2, t1, (a0); PUT(t2)  /* 4: old 7 -> 0xFFFFFFF7 */
  li t1, 0xFF
  amoand.w t2, t1, (a0);  PUT(t2)  /* 5: old 0xFFFFFFF7 -> 0xF7 */
  li t1, 0x100
  amoor.w t2, t1, (a0);   PUT(t2)  /* 6: old 0xF7 -> 0x1F7 */
  li t1, 0x3
  amoxor.w t2, t1, (a0);  PUT(t2)  /* 7: old 0x1F7 -> 0x1F4 */
  lw t2, 0(a0);           PUT(t2)  /* 8: 0x1F4 */
  lr.w t2, (a0);          PUT(t2)  /* 9: 0x1F4 */
  li t1, 42
  sc.w t2, t1, (a0);      PUT(t2)  /* 10: 0 = success */
  sc.w t2, t1, (a0);      PUT(t2)  /* 11: 1 = no reservation */
  lw t2, 0(a0);           PUT(t2)  /* 12: 42 */
  li a0, 0
  EXIT(a0)
  .data
  .align 2
counter: .word 0
olds: .space 16
word: .word 100
result: .space 64
