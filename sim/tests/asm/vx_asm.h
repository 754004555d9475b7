/* Vortex custom-0 instructions and helpers for vxsim's assembly tests (docs/vortex.md §1.2). */
#define VX_TMC(rs1)             .insn r 0x0B, 0, 0, x0, rs1, x0
#define VX_WSPAWN(rs1, rs2)     .insn r 0x0B, 1, 0, x0, rs1, rs2
#define VX_SPLIT(rd, rs1)       .insn r 0x0B, 2, 0, rd, rs1, x0
#define VX_SPLIT_N(rd, rs1)     .insn r 0x0B, 2, 0, rd, rs1, x1
#define VX_JOIN(rs1)            .insn r 0x0B, 3, 0, x0, rs1, x0
#define VX_BAR(rs1, rs2)        .insn r 0x0B, 4, 0, x0, rs1, rs2
#define VX_PRED(rs1, rs2)       .insn r 0x0B, 5, 0, x0, rs1, rs2
#define VX_PRED_N(rs1, rs2)     .insn r 0x0B, 5, 0, x1, rs1, rs2
#define VX_VOTE_ALL(rd, rs1)    .insn r 0x0B, 0, 1, rd, rs1, x0
#define VX_VOTE_ANY(rd, rs1)    .insn r 0x0B, 1, 1, rd, rs1, x0
#define VX_VOTE_UNI(rd, rs1)    .insn r 0x0B, 2, 1, rd, rs1, x0
#define VX_VOTE_BALLOT(rd, rs1) .insn r 0x0B, 3, 1, rd, rs1, x0
#define VX_SHFL_UP(rd, rs1, rs2)   .insn r 0x0B, 4, 1, rd, rs1, rs2
#define VX_SHFL_DOWN(rd, rs1, rs2) .insn r 0x0B, 5, 1, rd, rs1, rs2
#define VX_SHFL_BFLY(rd, rs1, rs2) .insn r 0x0B, 6, 1, rd, rs1, rs2
#define VX_SHFL_IDX(rd, rs1, rs2)  .insn r 0x0B, 7, 1, rd, rs1, rs2
#define CZERO_EQZ(rd, rs1, rs2) .insn r 0x33, 5, 7, rd, rs1, rs2
#define CZERO_NEZ(rd, rs1, rs2) .insn r 0x33, 7, 7, rd, rs1, rs2

#define CSR_THREAD_ID 0xCC0
#define CSR_WARP_ID 0xCC1
#define CSR_CORE_ID 0xCC2
#define CSR_MHARTID 0xF14

/* Store the exit code in `reg` at 0x88 and deactivate the warp. */
#define EXIT(reg) \
  li t6, 0x88;    \
  sw reg, 0(t6);  \
  fence;          \
  VX_TMC(zero)
