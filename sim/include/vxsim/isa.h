#pragma once
/// \file
/// The instruction table: one row per instruction holding its encoding (match/mask), operand
/// syntax, functional-unit class and semantics body side by side (docs/vortex.md §1; style:
/// docs style-and-lessons §6.7 rule 1). Decoding, disassembly, the register lists the timing model
/// sees and execution all come from this one table.

#include <cstdint>
#include <span>
#include <string>

#include "vxsim/step.h"

namespace vxsim {

struct ExecCtx;  // defined in src/exec.h: the warp being executed and its core

/// A decoded instruction word. Fields that an instruction does not use are zero.
struct Decoded {
  uint32_t word = 0;
  uint16_t op = 0;  ///< row index in instr_table(); kIllegalOp when no row matches
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;
  uint8_t rm = 0;   ///< funct3 (rounding mode for FP rows)
  int32_t imm = 0;  ///< sign-extended immediate (CSR number for Zicsr rows, shamt for shifts)
};

/// Semantics body: executes one warp instruction for the active lanes.
using ExecFn = void (*)(ExecCtx&, const Decoded&);

/// One instruction.
///
/// `args` is the operand syntax, used both for disassembly and to derive which registers the
/// instruction reads and writes. Letters: d/s/t = integer rd/rs1/rs2; D/S/T/R = FP rd/rs1/rs2/rs3;
/// j = I-immediate; o = load offset and q = store offset (printed before "(s)"); p = branch
/// target; a = jal target; u = U-immediate; > = shift amount; c = CSR number; Z = 5-bit CSR
/// immediate in the rs1 field; m = rounding mode (printed when not dynamic); other characters are
/// copied. An empty string means no operands.
struct InstrDef {
  const char* name;
  uint32_t match;
  uint32_t mask;
  const char* args;
  UnitClass unit;
  ExecFn exec;
  bool control;  ///< sets SimX's fetch_stall (branches, jumps, warp control, CSR)
};

/// Op index of "no row matched".
inline constexpr uint16_t kIllegalOp = 0xFFFF;

/// The whole table (RV32I, M, A, F, Zicsr, Zicond, Vortex custom-0, TCU WMMA).
[[nodiscard]] std::span<const InstrDef> instr_table();

/// Decodes a word: finds its row and extracts the fields that row's syntax uses.
[[nodiscard]] Decoded decode(uint32_t word);

/// Disassembles a decoded instruction at `pc` ("add x5, x6, x7", "unknown 0x0000000b").
[[nodiscard]] std::string disasm(const Decoded& d, uint32_t pc);

/// Fills `src`/`num_src`/`has_dst`/`dst`, `unit`, `is_control` and `op_id` of `out` from the row.
void describe_operands(const Decoded& d, ExecutedInstr& out);

}  // namespace vxsim
