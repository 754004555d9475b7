/* WMMA (custom-0 funct7=2): the test presets the FP registers of warp 0 and its full thread
   mask, writes `selector`, and reads the result registers after the run. */
#include "vx_asm.h"
  .section .text.init
  .globl _start, selector
_start:
  la t0, selector
  lw t0, 0(t0)
  la t1, table
  slli t0, t0, 2
  add t1, t1, t0
  lw t1, 0(t1)
  jr t1
fp16_fp32: .insn r 0x0B, 0, 2, x0, x1, x0
  j done
bf16_fp32: .insn r 0x0B, 0, 2, x0, x2, x0
  j done
fp16_fp16: .insn r 0x0B, 0, 2, x1, x1, x0
  j done
int8_int32: .insn r 0x0B, 0, 2, x8, x9, x0
  j done
fp32_fp32: .insn r 0x0B, 0, 2, x0, x0, x0
  j done
done:
  VX_TMC(zero)
  .data
  .align 2
selector: .word 0
table: .word fp16_fp32, bf16_fp32, fp16_fp16, int8_int32, fp32_fp32
