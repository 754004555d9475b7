/* RV32I + M known answers: every result is stored in order into `result`. */
#include "vx_asm.h"
#define PUT(r) sw r, 0(s0); addi s0, s0, 4

  .section .text.init
  .globl _start, auipc_here, after_jal, result, bytes
_start:
  la s0, result
  li a0, -7
  li a1, 3
  add t0, a0, a1;  PUT(t0)          /* 0: -4 */
  sub t0, a0, a1;  PUT(t0)          /* 1: -10 */
  sll t0, a1, a1;  PUT(t0)          /* 2: 24 */
  slt t0, a0, a1;  PUT(t0)          /* 3: 1 */
  sltu t0, a0, a1; PUT(t0)          /* 4: 0 */
  xor t0, a0, a1;  PUT(t0)          /* 5: -7^3 = -6 */
  srl t0, a0, a1;  PUT(t0)          /* 6: 0x1FFFFFFF */
  sra t0, a0, a1;  PUT(t0)          /* 7: -1 */
  or t0, a0, a1;   PUT(t0)          /* 8: -5 */
  and t0, a0, a1;  PUT(t0)          /* 9: 1 */
  addi t0, a0, -2048; PUT(t0)       /* 10: -2055 */
  slti t0, a0, -8; PUT(t0)          /* 11: 0 */
  sltiu t0, a1, -1; PUT(t0)         /* 12: 1 */
  xori t0, a0, -1; PUT(t0)          /* 13: 6 */
  ori t0, a1, 0x7F0; PUT(t0)        /* 14: 0x7F3 */
  andi t0, a0, 0xF; PUT(t0)         /* 15: 9 */
  slli t0, a1, 31; PUT(t0)          /* 16: 0x80000000 */
  srli t0, a0, 28; PUT(t0)          /* 17: 0xF */
  srai t0, a0, 1;  PUT(t0)          /* 18: -4 */
  lui t0, 0xABCDE; PUT(t0)          /* 19: 0xABCDE000 */
auipc_here:
  auipc t0, 1
  la t1, _start
  sub t0, t0, t1;  PUT(t0)          /* 20: 0x1000 + offset of auipc_here */
  /* loads/stores with sign and zero extension */
  la t1, bytes
  lb t0, 0(t1);    PUT(t0)          /* 21: 0xFFFFFF80 */
  lbu t0, 0(t1);   PUT(t0)          /* 22: 0x80 */
  lh t0, 2(t1);    PUT(t0)          /* 23: 0xFFFF8001 */
  lhu t0, 2(t1);   PUT(t0)          /* 24: 0x8001 */
  lw t0, 4(t1);    PUT(t0)          /* 25: 0x12345678 */
  li t2, 0x55
  sb t2, 1(t1)
  li t2, 0x6677
  sh t2, 6(t1)
  lw t0, 0(t1);    PUT(t0)          /* 26: 0x80015580 */
  lw t0, 4(t1);    PUT(t0)          /* 27: 0x66775678 */
  /* M */
  li a2, 0x80000000
  li a3, -1
  mul t0, a0, a1;    PUT(t0)        /* 28: -21 */
  mulh t0, a2, a2;   PUT(t0)        /* 29: 0x40000000 */
  mulhu t0, a3, a3;  PUT(t0)        /* 30: 0xFFFFFFFE */
  mulhsu t0, a3, a3; PUT(t0)        /* 31: 0xFFFFFFFF */
  div t0, a0, a1;    PUT(t0)        /* 32: -2 */
  rem t0, a0, a1;    PUT(t0)        /* 33: -1 */
  divu t0, a0, a1;   PUT(t0)        /* 34: 0x55555553 */
  remu t0, a0, a1;   PUT(t0)        /* 35: 0 (0xFFFFFFF9 = 3*0x55555553) */
  div t0, a0, zero;  PUT(t0)        /* 36: -1 */
  rem t0, a0, zero;  PUT(t0)        /* 37: -7 */
  divu t0, a0, zero; PUT(t0)        /* 38: 0xFFFFFFFF */
  remu t0, a0, zero; PUT(t0)        /* 39: -7 */
  div t0, a2, a3;    PUT(t0)        /* 40: 0x80000000 */
  rem t0, a2, a3;    PUT(t0)        /* 41: 0 */
  /* branches and jumps (uniform, one thread) */
  li t0, 0
  beq a0, a0, 1f
  addi t0, t0, 1
1: bne a0, a0, 2f
  addi t0, t0, 2
2: blt a0, a1, 3f
  addi t0, t0, 4
3: bge a0, a1, 4f
  addi t0, t0, 8
4: bltu a0, a1, 5f
  addi t0, t0, 16
5: bgeu a0, a1, 6f
  addi t0, t0, 32
6: PUT(t0)                          /* 42: 2+8+16 = 26 */
  jal ra, 7f
after_jal:
  j 8f
7: addi t1, ra, 0
  jalr zero, 0(ra)
8: la t2, _start
  sub t1, t1, t2
  PUT(t1)                           /* 43: offset of after_jal */
  /* Zicond */
  li t1, 77
  CZERO_EQZ(t0, t1, zero); PUT(t0)  /* 44: 0 */
  CZERO_EQZ(t0, t1, a1);   PUT(t0)  /* 45: 77 */
  CZERO_NEZ(t0, t1, zero); PUT(t0)  /* 46: 77 */
  CZERO_NEZ(t0, t1, a1);   PUT(t0)  /* 47: 0 */
  /* x0 stays zero */
  addi zero, zero, 5
  PUT(zero)                         /* 48: 0 */
  li a0, 42
  EXIT(a0)

  .data
  .align 2
bytes:  .byte 0x80, 0x00, 0x01, 0x80, 0x78, 0x56, 0x34, 0x12
  .align 2
result: .space 256
