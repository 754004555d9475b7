#pragma once
/// \file
/// Layout of one decode_fuzzer input, shared by the fuzzer (decode_fuzzer.cc) and the seed
/// generator (make_seeds.cc). All multi-byte fields are little-endian; bytes missing at the end of
/// a short input read as zero.
///
///   bytes 0-3    control word (bit fields below)
///   bytes 4-7    a free 32-bit value the register selectors can pick (kSelFree, kSelFreeLane)
///   bytes 8-23   32 nibbles: selector of the initial value of x0..x31 (nibble r = low half of
///                byte 8 + r/2 for even r, high half for odd r)
///   bytes 24-39  32 nibbles: selector of the initial value of f0..f31
///   bytes 40-    the program: up to kMaxProgramWords 32-bit instruction words, placed at
///                vxsim::kStartupAddr and followed by `vx_tmc zero` (clean warp exit).
/// The whole input is also copied to kDataAddr (global memory) and to the start of the core's
/// local memory, so loads see fuzz-chosen data.

#include <array>
#include <cstddef>
#include <cstdint>

#include "vxsim/config.h"

namespace vxsim::fuzz {

inline constexpr size_t kHeaderBytes = 40;
inline constexpr size_t kMaxProgramWords = 64;
/// Where the input bytes are copied in global memory (USER_BASE_ADDR, docs/vortex.md §3.1).
inline constexpr uint32_t kDataAddr = kIoEndAddr;
/// `vx_tmc zero`: custom-0 (0x0B), funct3 = 0, funct7 = 0, rs1 = x0 → thread mask 0, warp exits.
inline constexpr uint32_t kTmcZero = 0x0000000Bu;
/// Warp instructions one input may execute (Config::instr_budget); runaway loops end in kBudget.
inline constexpr uint64_t kInstrBudget = 512;

// Control-word bit fields.
inline constexpr uint32_t kCtlTwoWarps = 1u << 0;      ///< Config::warps = 2 (else 1)
inline constexpr uint32_t kCtlLooseDiverge = 1u << 1;  ///< Config::strict_divergence = false
inline constexpr uint32_t kCtlUseRun = 1u << 2;        ///< Processor::run() instead of Core::step()
inline constexpr uint32_t kCtlMask0Shift = 3;          ///< 4 bits: warp 0 thread mask (0 → 0x1)
inline constexpr uint32_t kCtlMask1Shift = 7;          ///< 4 bits: warp 1 thread mask (0 → inactive)
inline constexpr uint32_t kCtlFrmShift = 11;           ///< 3 bits: frm (5..7 are reserved modes)
inline constexpr uint32_t kCtlFflagsShift = 14;        ///< 5 bits: fflags
inline constexpr uint32_t kCtlAclShift = 19;           ///< 2 bits: ACL of the data page (0 = none)
inline constexpr uint32_t kCtlPc1Shift = 21;           ///< 6 bits: warp 1 start, in words
inline constexpr uint32_t kCtlMscratchShift = 27;      ///< 5 bits: MSCRATCH / startup arg

/// Register-value selectors (one nibble per register). Lane-dependent entries make lanes differ,
/// which is what drives divergence, SPLIT/PRED and per-lane memory addresses.
enum Sel : uint8_t {
  kSelZero = 0,
  kSelOne,
  kSelAllOnes,
  kSelStartup,      ///< kStartupAddr (code)
  kSelIntMax,       ///< 0x7FFFFFFF
  kSelData,         ///< kDataAddr
  kSelLmem,         ///< kLmemBaseAddr
  kSelLmemEnd,      ///< last word of a 16 KiB local memory
  kSelLane,         ///< lane index
  kSelConsole,      ///< kIoCoutAddr
  kSelFree,         ///< bytes 4-7 of the input
  kSelFreeLane,     ///< bytes 4-7 + 4·lane
  kSelTwo,          ///< 2
  kSelQNan,         ///< 0x7FC00000 (binary32 quiet NaN)
  kSelFloatOne,     ///< 0x3F800000 (1.0f)
  kSelDataLane,     ///< kDataAddr + 4·lane
};

/// Value of selector `sel` for `lane` given the free word. Constants: docs/vortex.md §3.1.
[[nodiscard]] inline uint32_t sel_value(uint32_t sel, uint32_t lane, uint32_t free_word) {
  switch (sel & 0xF) {
    case kSelZero: return 0;
    case kSelOne: return 1;
    case kSelAllOnes: return 0xFFFFFFFFu;
    case kSelStartup: return kStartupAddr;
    case kSelIntMax: return 0x7FFFFFFFu;
    case kSelData: return kDataAddr;
    case kSelLmem: return kLmemBaseAddr;
    case kSelLmemEnd: return kLmemBaseAddr + (1u << 14) - 4;
    case kSelLane: return lane;
    case kSelConsole: return kIoCoutAddr;
    case kSelFree: return free_word;
    case kSelFreeLane: return free_word + 4 * lane;
    case kSelTwo: return 2;
    case kSelQNan: return 0x7FC00000u;
    case kSelFloatOne: return 0x3F800000u;
    default: return kDataAddr + 4 * lane;
  }
}

}  // namespace vxsim::fuzz
