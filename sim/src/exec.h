#pragma once
// Internal: the context a semantics body of the instruction table runs in.

#include <bit>
#include <cstdint>

#include "vxsim/bits.h"
#include "vxsim/core.h"
#include "vxsim/error.h"

namespace vxsim {

/// One warp instruction in flight. Semantics bodies read/write lanes through it; the memory,
/// CSR and warp-control services are implemented in core.cc.
struct ExecCtx {
  Core& core;
  Warp& w;
  uint32_t wid;
  uint32_t nt;        ///< NUM_THREADS
  uint32_t mask;      ///< active lanes at issue
  uint32_t pc;
  uint32_t next_pc;   ///< defaults to pc + 4
  ExecutedInstr* rec; ///< null on the functional fast path
  bool mem_counted = false;  ///< this instruction already counted as a load/store/AMO

  uint32_t* X(uint32_t reg) { return w.x.data() + reg * nt; }
  uint32_t* F(uint32_t reg) { return w.f.data() + reg * nt; }
  /// Highest active lane (SimX's thread_last): whose operand counts for warp-wide operations.
  [[nodiscard]] uint32_t last_lane() const { return 31u - static_cast<uint32_t>(std::countl_zero(mask)); }

  template <typename F>
  void for_lanes(F&& f) {
    for (uint32_t m = mask; m != 0; m &= m - 1) f(static_cast<uint32_t>(std::countr_zero(m)));
  }

  // Memory: full checks (alignment, range, ACL, IO console), recorded in rec when present.
  template <typename T>
  T load(uint32_t lane, uint32_t addr);
  template <typename T>
  void store(uint32_t lane, uint32_t addr, T value);
  /// Read-modify-write for AMOs: returns the old value, stores op(old, operand).
  using AmoFn = uint32_t (*)(uint32_t mem, uint32_t operand);
  uint32_t amo(uint32_t lane, uint32_t addr, AmoFn op, uint32_t operand);
  void lr(uint32_t lane, uint32_t addr, uint32_t& out);
  bool sc(uint32_t lane, uint32_t addr, uint32_t value);
  void fence();

  // CSRs (per lane because thread id / hart id differ per lane).
  uint32_t csr_read(uint32_t lane, uint32_t csr);
  void csr_write(uint32_t lane, uint32_t csr, uint32_t value);
  /// Current dynamic rounding mode resolved from rm; throws kIllegalInstr on a reserved mode.
  uint8_t resolve_rm(uint8_t rm, const Decoded& d);
  void raise_fflags(uint32_t flags) { w.fcsr |= (flags & 0x1F); }

  // Control flow.
  /// Conditional branch: `taken_lanes` ⊆ mask. Uniform → jump or fall through; divergent →
  /// SimError in strict mode, else the highest active lane decides.
  void branch(uint32_t taken_lanes, uint32_t target);
  void jump(uint32_t target);

  // Vortex warp control (docs/vortex.md §1.3).
  void tmc(uint32_t new_mask);
  void wspawn(uint32_t num_warps, uint32_t pc);
  uint32_t split(uint32_t then_mask);
  void join(uint32_t depth);
  void barrier(uint32_t id, uint32_t count);
  void pred(uint32_t taken, uint32_t restore_mask);
  void halt(const char* why);

  [[noreturn]] void illegal(const Decoded& d, const char* why);
  [[nodiscard]] uint32_t num_warps() const;
  [[nodiscard]] uint32_t threads() const { return nt; }
  void note_fp_flops(uint32_t per_lane) {
    if (rec != nullptr) rec->fp_flops = per_lane * popcount32(mask);
  }
  /// Records lane `lane`'s access for the timing model (rec != null); the record's lanes of the
  /// warp width are cleared at the instruction's first access (Core::step leaves them unset).
  void record_access(MemKind kind, AddrSpace space, uint32_t lane, LaneAccess a) {
    if (rec->mem == MemKind::kNone) rec->clear_lanes(nt);
    rec->mem = kind;
    rec->space = space;
    rec->lanes[lane] = a;
  }
  void note_tcu(uint32_t micro_ops, uint64_t macs) {
    if (rec != nullptr) {
      rec->tcu_micro_ops = micro_ops;
      rec->tcu_macs = macs;
    }
  }
};

}  // namespace vxsim
