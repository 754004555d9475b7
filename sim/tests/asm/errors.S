/* One faulting program per error class; the test writes the case number into `selector`. */
#include "vx_asm.h"
  .section .text.init
  .globl _start, selector, fault_pc
_start:
  la t0, selector
  lw t0, 0(t0)
  la t1, table
  slli t0, t0, 2
  add t1, t1, t0
  lw t1, 0(t1)
  jr t1

case_diverge:              /* 0: lanes disagree on a plain branch */
  li t0, -1
  VX_TMC(t0)
  csrr t1, CSR_THREAD_ID
fault_pc:
  beqz t1, 1f
1: EXIT(zero)

case_illegal:              /* 1 */
  .word 0xFFFFFFFF

case_misaligned:           /* 2 */
  li t0, 0x10002
  lw t1, 0(t0)

case_null:                 /* 3 */
  lw t1, 4(zero)

case_acl:                  /* 4: the test marks 0x20000 read-only */
  li t0, 0x20000
  li t1, 5
  sw t1, 0(t0)

case_ipdom:                /* 5: two divergent splits without a join (2 threads: capacity 1) */
  li t0, -1
  VX_TMC(t0)
  csrr t1, CSR_THREAD_ID
  VX_SPLIT(a0, t1)
  li t0, -1
  VX_TMC(t0)
  VX_SPLIT(a1, t1)
  EXIT(zero)

case_deadlock:             /* 6: warp 1 exits, warp 0 waits for 2 warps at barrier 0 */
  li t0, 2
  la t1, exit_now
  VX_WSPAWN(t0, t1)
  li a0, 0
  li a1, 2
  VX_BAR(a0, a1)
  EXIT(zero)
exit_now:
  VX_TMC(zero)

case_budget:               /* 7 */
1: j 1b

case_csr:                  /* 8 */
  csrr t0, 0x7C0

case_console:              /* 9: word store to the console */
  li t0, 0x40
  sw t0, 0(t0)

case_frm:                  /* 10: reserved rounding mode in frm */
  csrwi frm, 5
  fadd.s fa0, fa0, fa0

case_join:                 /* 11: JOIN with an empty IPDOM stack */
  li a0, 1
  VX_JOIN(a0)

case_jump:                 /* 12: misaligned jump target */
  la t0, case_jump
  addi t0, t0, 2
  jr t0

case_print:                /* 13: console output, then a normal exit with code 3 */
  li t0, 0x40
  li t1, 'h'
  sb t1, 0(t0)
  li t1, 'i'
  sb t1, 0(t0)
  li t1, 10
  sb t1, 0(t0)
  li t1, 'x'
  sb t1, 1(t0)
  li a0, 3
  EXIT(a0)

case_ebreak:               /* 14 */
  ebreak

case_mpm_write:            /* 15: kernels cannot write MPM counters */
  csrw 0xB00, zero

  .data
  .align 2
selector: .word 0
table: .word case_diverge, case_illegal, case_misaligned, case_null, case_acl, case_ipdom, case_deadlock
       .word case_budget, case_csr, case_console, case_frm, case_join, case_jump, case_print, case_ebreak, case_mpm_write
