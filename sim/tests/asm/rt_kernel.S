/* Runtime test kernel: args at MSCRATCH = {u32 n; u32 pad; u64 src; u64 dst}.
   dst[i] = 2*src[i] + 1 for i < n on thread 0 of warp 0; then it writes the perf-dump block of
   core 0 (mcycle in slot 0, minstret in slot 2) and exit code n at 0x88. */
#include "vx_asm.h"
  .section .text.init
  .globl _start
_start:
  csrr a0, 0x340
  lw t0, 0(a0)             /* n */
  lw t1, 8(a0)             /* src (low word) */
  lw t2, 16(a0)            /* dst (low word) */
  li t3, 0
1: bge t3, t0, 2f
  lw t4, 0(t1)
  slli t4, t4, 1
  addi t4, t4, 1
  sw t4, 0(t2)
  addi t1, t1, 4
  addi t2, t2, 4
  addi t3, t3, 1
  j 1b
2: li t5, 0x80
  csrr t6, 0xB00
  sw t6, 0(t5)
  csrr t6, 0xB80
  sw t6, 4(t5)
  csrr t6, 0xB02
  sw t6, 16(t5)
  csrr t6, 0xB82
  sw t6, 20(t5)
  EXIT(t0)
