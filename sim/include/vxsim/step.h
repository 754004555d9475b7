#pragma once
/// \file
/// Contract between vxsim's functional core and its timing model.
///
/// The timing model owns scheduling: each cycle it picks a ready warp (`Core::warp_ready`, in
/// vxsim/core.h) and asks the functional core to execute that warp's next instruction with
/// `Core::step(warp)`. The functional core does the architectural work (registers, memory, IPDOM
/// stack, barriers, wspawn) and reports what it did in an ExecutedInstr, which is all the timing
/// model needs to charge latencies, build scoreboard dependences, coalesce memory requests and
/// count. Functional-only runs (`Processor::run`) step round-robin without building the record.

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace vxsim {

/// Maximum threads per warp supported by vxsim (Vortex limit, docs/vortex.md §8.1).
inline constexpr uint32_t kMaxThreads = 32;
/// Maximum warps per core supported by vxsim (same source).
inline constexpr uint32_t kMaxWarps = 32;

/// Functional-unit class an instruction issues to; mirrors SimX's ALU/FPU/LSU/SFU/TCU split
/// (docs/vortex.md §8.1) with the finer latency classes of SimX's func_unit.cpp.
enum class UnitClass : uint8_t {
  kAlu,        ///< integer ALU, branches, jumps, LUI/AUIPC, Zicond, VOTE/SHFL (latency 2)
  kMul,        ///< MUL/MULH* (latency 2)
  kDiv,        ///< DIV/REM* (latency XLEN+2)
  kFpuFma,     ///< FADD/FSUB/FMUL/FMADD family (latency 4+2)
  kFpuDivSqrt, ///< FDIV/FSQRT (latency 16+2)
  kFpuCvt,     ///< FCVT.* (latency 5+2)
  kFpuMisc,    ///< FP compare/sign-inject/move/class/min/max (latency 4)
  kLsu,        ///< loads, stores, AMOs, fences
  kSfuWctl,    ///< warp control: TMC, WSPAWN, SPLIT, JOIN, BAR, PRED (latency 4)
  kSfuCsr,     ///< CSR access (latency 4)
  kTcu,        ///< tensor-core WMMA (expands into `tcu_micro_ops` micro-ops of latency 6 each)
};

/// Address space of a memory access, as SimX classifies addresses (docs/vortex.md §3.1).
enum class AddrSpace : uint8_t { kGlobal, kLocal, kIo };

/// Kind of a memory access.
enum class MemKind : uint8_t { kNone, kLoad, kStore, kAmo, kFence };

/// One lane's memory access (valid only for lanes set in ExecutedInstr::active_mask).
/// Trivial (no initialisers): ExecutedInstr zero-fills its lanes in one go.
struct LaneAccess {
  uint64_t addr;  ///< byte address
  uint8_t size;   ///< bytes (1, 2 or 4)
};

/// A register operand: index 0..31 and whether it is in the FP register file.
struct RegRef {
  uint8_t index = 0;
  bool fp = false;
};

/// What one warp instruction did, for the timing model. Registers are listed so a scoreboard can
/// track RAW/WAW hazards; x0 is never listed as a destination.
struct ExecutedInstr {
  /// Every field 0 / none; the lanes with one zero fill (a loop over 32 lane initialisers costs a
  /// timing run more than the instruction's own semantics).
  ExecutedInstr() { clear_lanes(kMaxThreads); }
  /// Lanes left unset, for Core::step: the functional core clears the lanes of its warp width at
  /// the instruction's first lane access (most instructions make none, and the 512-byte fill was
  /// 4 % of a timing run); lanes at or above the warp width stay unset.
  struct LanesUnset {};
  explicit ExecutedInstr(LanesUnset /*unused*/) {}
  /// Zeroes lanes [0, n).
  void clear_lanes(uint32_t n) { std::memset(static_cast<void*>(lanes.data()), 0, n * sizeof(LaneAccess)); }
  uint64_t pc = 0;                 ///< address of the instruction
  uint32_t word = 0;               ///< raw 32-bit encoding
  uint16_t op_id = 0;              ///< row index in the instruction table (for per-op statistics)
  UnitClass unit = UnitClass::kAlu;
  uint32_t active_mask = 0;        ///< lanes that executed (thread mask at issue)
  bool is_control = false;         ///< branch/jump/warp-control/CSR that sets SimX's fetch_stall
  bool warp_stalled = false;       ///< the warp is now waiting (barrier, wspawn-wait) — not ready
  bool warp_exited = false;        ///< the warp's thread mask became 0
  uint8_t num_src = 0;             ///< number of valid entries in src
  std::array<RegRef, 3> src{};     ///< source registers (rs1, rs2, rs3 as used)
  bool has_dst = false;
  RegRef dst{};                    ///< destination register (if has_dst)
  MemKind mem = MemKind::kNone;
  AddrSpace space = AddrSpace::kGlobal;       ///< space of the access (the highest lane's if lanes differ)
  std::array<LaneAccess, kMaxThreads> lanes;  ///< per-lane accesses when mem != kNone (inactive lanes zero; see LanesUnset)
  uint32_t fp_flops = 0;           ///< FP operations summed over active lanes: fadd/fsub/fmul/fdiv/fsqrt 1,
                                   ///< FMA family 2; compares, min/max, moves, conversions 0
  uint32_t tcu_micro_ops = 0;      ///< micro-ops a WMMA expanded into (0 otherwise)
  uint64_t tcu_macs = 0;           ///< multiply-accumulates the WMMA performed (for FLOPs = 2×MACs)
};

}  // namespace vxsim
