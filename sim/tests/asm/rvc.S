/* Compressed (RVC) code, as gcc -march=rv32imac emits it: with `.option rvc` the assembler encodes
   these as 16-bit instructions (c.li, c.addi, c.mv) and marks the ELF with EF_RISCV_RVC. Vortex has
   no C extension; vxsim must say so, for the ELF at load and for a raw image at decode. */
  .section .text.init
  .globl _start
  .option rvc
_start:
  li a0, 1
  addi a0, a0, 1
  mv a1, a0
  ebreak
