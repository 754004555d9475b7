/* thread_last operand rule (TMC, JALR, PRED restore mask), PRED.N, SHFL reading an inactive lane,
   BAR with count < 2. */
#include "vx_asm.h"
#define PUTL(r, sym) la t6, sym; add t6, t6, s4; sw r, 0(t6)
  .section .text.init
  .globl _start, masks, jres, shres
_start:
  li t0, -1
  VX_TMC(t0)
  csrr s1, CSR_THREAD_ID
  slli s4, s1, 2
  la s0, masks
  /* TMC with lane-varying operand: lane 3 (highest active) holds 3 -> mask 0x3 */
  VX_TMC(s1)
  csrr t1, 0xCC4
  sw t1, 0(s0)                     /* masks[0] = 0x3 */
  li t0, -1
  VX_TMC(t0)
  /* JALR: every lane jumps to the target computed by lane 3 */
  la a0, targets
  slli a1, s1, 3
  add a1, a0, a1
  jr a1
targets:
  li t2, 10
  j 1f
  li t2, 11
  j 1f
  li t2, 12
  j 1f
  li t2, 13
  j 1f
1: PUTL(t2, jres)                  /* all lanes: 13 */
  addi a4, s1, 100                 /* every lane: 100 + tid */
  /* PRED.N: lanes with bit0 = 0 stay active -> 0x5 */
  andi a2, s1, 1
  li a3, 0xF
  VX_PRED_N(a2, a3)
  csrr t1, 0xCC4
  sw t1, 4(s0)                     /* masks[1] = 0x5 */
  /* PRED with an all-false condition: restore mask from the highest active lane (2): 2+8 = 0xA */
  addi a3, s1, 8
  VX_PRED(zero, a3)
  csrr t1, 0xCC4
  sw t1, 8(s0)                     /* masks[2] = 0xA */
  /* SHFL.IDX from lane 0, which is inactive now: its register (set above) is still read */
  li a5, (3 << 6) | 0
  VX_SHFL_IDX(a6, a4, a5)
  PUTL(a6, shres)                  /* lanes 1, 3: 100 */
  /* BAR with count 1 is a no-op */
  li a0, 0
  li a1, 1
  VX_BAR(a0, a1)
  li t0, -1
  VX_TMC(t0)
  csrr t1, 0xCC4
  sw t1, 12(s0)                    /* masks[3] = 0xF */
  EXIT(zero)

  .data
  .align 2
masks: .space 16
jres: .space 16
shres: .word 7, 7, 7, 7
