/// \file vx_intrinsics.h
/// Vortex 2.x kernel intrinsics: warp control (TMC, WSPAWN, SPLIT/JOIN, BAR, PRED), warp-level
/// VOTE/SHFL, CSR access and ID getters. Public names and signatures are those of Vortex master
/// 82e1c2a ([M]); encodings are the custom-0 R-type table of docs/vortex.md §1.2 and
/// semantics are described in §1.3. Written for riscv64-unknown-elf-gcc (rv32imaf/ilp32f).
///
/// Divergence: the simulator stops on a conditional branch whose active lanes disagree (§1.3).
/// Code built with GCC must wrap thread-dependent control flow with vx_split()/vx_join(), use
/// vx_pred(), or be branch-free; see vx_simt.h for helpers and docs/sdk.md for the rules.
#ifndef VX_INTRINSICS_H
#define VX_INTRINSICS_H

#include <stddef.h>
#include <stdint.h>

#include <VX_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Major opcodes of the four RISC-V custom spaces (§1.2). Vortex 2.x decodes only CUSTOM0.
#define RISCV_CUSTOM0 0x0B
#define RISCV_CUSTOM1 0x2B
#define RISCV_CUSTOM2 0x5B
#define RISCV_CUSTOM3 0x7B

/// Marks a value the programmer knows to be warp-uniform. Vortex's LLVM reads the annotation;
/// GCC ignores it (expands to nothing).
#if defined(__clang__)
#define __UNIFORM__ __attribute__((annotate("vortex.uniform")))
#else
#define __UNIFORM__
#endif

#define __VX_STR2(x) #x
#define __VX_STR(x) __VX_STR2(x)

/// Reads CSR `csr` (a compile-time constant) and returns its value as size_t.
#define csr_read(csr) ({                                                  \
  size_t __r;                                                             \
  __asm__ __volatile__ ("csrr %0, %1" : "=r"(__r) : "i"(csr) : "memory"); \
  __r;                                                                    \
})

/// Writes `val` to CSR `csr`; uses the immediate form for constants below 32.
#define csr_write(csr, val) ({                                                        \
  size_t __v = (size_t)(val);                                                         \
  if (__builtin_constant_p(val) && __v < 32)                                          \
    __asm__ __volatile__ ("csrwi %0, %1" :: "i"(csr), "i"(val) : "memory");          \
  else                                                                                \
    __asm__ __volatile__ ("csrw %0, %1" :: "i"(csr), "r"(__v) : "memory");           \
})

/// Atomically writes `val` to CSR `csr` and returns the old value.
#define csr_swap(csr, val) ({                                                         \
  size_t __v = (size_t)(val);                                                         \
  if (__builtin_constant_p(val) && __v < 32)                                          \
    __asm__ __volatile__ ("csrrwi %0, %1, %2" : "=r"(__v) : "i"(csr), "i"(val) : "memory"); \
  else                                                                                \
    __asm__ __volatile__ ("csrrw %0, %1, %2" : "=r"(__v) : "i"(csr), "r"(__v) : "memory");  \
  __v;                                                                                \
})

/// Sets the bits of `val` in CSR `csr` and returns the old value.
#define csr_read_set(csr, val) ({                                                     \
  size_t __v = (size_t)(val);                                                         \
  if (__builtin_constant_p(val) && __v < 32)                                          \
    __asm__ __volatile__ ("csrrsi %0, %1, %2" : "=r"(__v) : "i"(csr), "i"(val) : "memory"); \
  else                                                                                \
    __asm__ __volatile__ ("csrrs %0, %1, %2" : "=r"(__v) : "i"(csr), "r"(__v) : "memory");  \
  __v;                                                                                \
})

/// Sets the bits of `val` in CSR `csr`.
#define csr_set(csr, val) ({                                                          \
  size_t __v = (size_t)(val);                                                         \
  if (__builtin_constant_p(val) && __v < 32)                                          \
    __asm__ __volatile__ ("csrsi %0, %1" :: "i"(csr), "i"(val) : "memory");          \
  else                                                                                \
    __asm__ __volatile__ ("csrs %0, %1" :: "i"(csr), "r"(__v) : "memory");           \
})

/// Clears the bits of `val` in CSR `csr` and returns the old value.
#define csr_read_clear(csr, val) ({                                                   \
  size_t __v = (size_t)(val);                                                         \
  if (__builtin_constant_p(val) && __v < 32)                                          \
    __asm__ __volatile__ ("csrrci %0, %1, %2" : "=r"(__v) : "i"(csr), "i"(val) : "memory"); \
  else                                                                                \
    __asm__ __volatile__ ("csrrc %0, %1, %2" : "=r"(__v) : "i"(csr), "r"(__v) : "memory");  \
  __v;                                                                                \
})

/// Clears the bits of `val` in CSR `csr`.
#define csr_clear(csr, val) ({                                                        \
  size_t __v = (size_t)(val);                                                         \
  if (__builtin_constant_p(val) && __v < 32)                                          \
    __asm__ __volatile__ ("csrci %0, %1" :: "i"(csr), "i"(val) : "memory");          \
  else                                                                                \
    __asm__ __volatile__ ("csrc %0, %1" :: "i"(csr), "r"(__v) : "memory");           \
})

#define __VX_INLINE static inline __attribute__((always_inline))

/// Entry point type for vx_wspawn.
typedef void (*vx_wspawn_pfn)();

/// TMC: sets the calling warp's thread mask to bits [NT-1:0] of `thread_mask`; 0 ends the warp.
/// The value of the highest-numbered active thread is used (§1.2).
__VX_INLINE void vx_tmc(int thread_mask) {
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 0, 0, x0, %0, x0"
                        :: "r"(thread_mask) : "memory");
}

/// TMC with rs1 = x0: ends the calling warp.
__VX_INLINE void vx_tmc_zero(void) {
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 0, 0, x0, x0, x0" ::: "memory");
}

/// TMC with a mask of 1 (loaded into a0): only thread 0 stays active.
__VX_INLINE void vx_tmc_one(void) {
  __asm__ __volatile__ ("li a0, 1\n\t"
                        ".insn r " __VX_STR(RISCV_CUSTOM0) ", 0, 0, x0, a0, x0" ::: "a0", "memory");
}

/// PRED: lanes whose bit 0 of `condition` is 1 stay active; if none would, the mask becomes
/// `thread_mask` (the restore mask) instead (§1.3).
__VX_INLINE void vx_pred(int condition, int thread_mask) {
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 5, 0, x0, %0, %1"
                        :: "r"(condition), "r"(thread_mask) : "memory");
}

/// PRED.N: as vx_pred with the condition negated (rd field = 1 marks "negate").
__VX_INLINE void vx_pred_n(int condition, int thread_mask) {
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 5, 0, x1, %0, %1"
                        :: "r"(condition), "r"(thread_mask) : "memory");
}

/// WSPAWN: once the caller is the only active warp of its core, activates warps
/// 1..num_warps-1 at `func_ptr`, each with thread 0 only. `vx_wspawn(1, 0)` therefore waits
/// until every other warp of the core has ended (§1.3).
__VX_INLINE void vx_wspawn(int num_warps, vx_wspawn_pfn func_ptr) {
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 1, 0, x0, %0, %1"
                        :: "r"(num_warps), "r"(func_ptr) : "memory");
}

/// SPLIT: pushes an IPDOM entry if the active lanes disagree on bit 0 of `predicate`, continues
/// with the larger group, and returns the stack depth before the push (pass it to vx_join).
__VX_INLINE int vx_split(int predicate) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 2, 0, %0, %1, x0"
                        : "=r"(ret) : "r"(predicate) : "memory");
  return ret;
}

/// SPLIT.N: vx_split with the predicate negated (rs2 field = 1 marks "negate").
__VX_INLINE int vx_split_n(int predicate) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 2, 0, %0, %1, x1"
                        : "=r"(ret) : "r"(predicate) : "memory");
  return ret;
}

/// JOIN: closes the region opened by the vx_split that returned `stack_ptr` (§1.3).
__VX_INLINE void vx_join(int stack_ptr) {
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 3, 0, x0, %0, x0"
                        :: "r"(stack_ptr) : "memory");
}

/// BAR: waits until `num_warps` warps of this core reach barrier `barried_id`. With bit 31 of the
/// id set it is a global barrier: each core waits for all its active warps, then for
/// `num_warps` cores. A count below 2 is a no-op (§1.3).
__VX_INLINE void vx_barrier(int barried_id, int num_warps) {
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 4, 0, x0, %0, %1"
                        :: "r"(barried_id), "r"(num_warps) : "memory");
}

/// VOTE.ALL: 1 in every lane if bit 0 of `predicate` is 1 in all active lanes.
__VX_INLINE int vx_vote_all(int predicate) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 0, 1, %0, %1, x0"
                        : "=r"(ret) : "r"(predicate));
  return ret;
}

/// VOTE.ANY: 1 in every lane if bit 0 of `predicate` is 1 in any active lane.
__VX_INLINE int vx_vote_any(int predicate) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 1, 1, %0, %1, x0"
                        : "=r"(ret) : "r"(predicate));
  return ret;
}

/// VOTE.UNI: 1 in every lane if all active lanes agree on bit 0 of `predicate`.
__VX_INLINE int vx_vote_uni(int predicate) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 2, 1, %0, %1, x0"
                        : "=r"(ret) : "r"(predicate));
  return ret;
}

/// VOTE.BALLOT: bitmask (bit = lane) of the active lanes whose `predicate` bit 0 is 1.
__VX_INLINE int vx_vote_ballot(int predicate) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 3, 1, %0, %1, x0"
                        : "=r"(ret) : "r"(predicate));
  return ret;
}

/// Packs the SHFL control word (§1.3): b = bits [5:0], c = bits [11:6], mask = bits [17:12].
#define __VX_SHFL_CTL(bval, cval, mask) \
  ((((mask) & 0x3f) << 12) | (((cval) & 0x3f) << 6) | ((bval) & 0x3f))

/// SHFL.UP: value of lane t-bval, if that lane is ≥ (t & mask); else the lane's own value.
__VX_INLINE int vx_shfl_up(size_t value, int bval, int cval, int mask) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 4, 1, %0, %1, %2"
                        : "=r"(ret) : "r"(value), "r"(__VX_SHFL_CTL(bval, cval, mask)));
  return ret;
}

/// SHFL.DOWN: value of lane t+bval, if that lane is ≤ (t & mask) | (cval & ~mask).
__VX_INLINE int vx_shfl_down(size_t value, int bval, int cval, int mask) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 5, 1, %0, %1, %2"
                        : "=r"(ret) : "r"(value), "r"(__VX_SHFL_CTL(bval, cval, mask)));
  return ret;
}

/// SHFL.BFLY: value of lane t^bval, if that lane is ≤ (t & mask) | (cval & ~mask).
__VX_INLINE int vx_shfl_bfly(size_t value, int bval, int cval, int mask) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 6, 1, %0, %1, %2"
                        : "=r"(ret) : "r"(value), "r"(__VX_SHFL_CTL(bval, cval, mask)));
  return ret;
}

/// SHFL.IDX: value of lane (t & mask) | (bval & ~mask), if ≤ (t & mask) | (cval & ~mask).
__VX_INLINE int vx_shfl_idx(size_t value, int bval, int cval, int mask) {
  int ret;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 7, 1, %0, %1, %2"
                        : "=r"(ret) : "r"(value), "r"(__VX_SHFL_CTL(bval, cval, mask)));
  return ret;
}

/// Lane index within the warp (VX_CSR_THREAD_ID).
__VX_INLINE int vx_thread_id(void) { return (int)csr_read(VX_CSR_THREAD_ID); }
/// Warp index within the core (VX_CSR_WARP_ID).
__VX_INLINE int vx_warp_id(void) { return (int)csr_read(VX_CSR_WARP_ID); }
/// Global core index (VX_CSR_CORE_ID).
__VX_INLINE int vx_core_id(void) { return (int)csr_read(VX_CSR_CORE_ID); }
/// This warp's thread mask (VX_CSR_ACTIVE_THREADS).
__VX_INLINE int vx_active_threads(void) { return (int)csr_read(VX_CSR_ACTIVE_THREADS); }
/// The core's active-warp mask (VX_CSR_ACTIVE_WARPS).
__VX_INLINE int vx_active_warps(void) { return (int)csr_read(VX_CSR_ACTIVE_WARPS); }
/// Threads per warp (VX_CSR_NUM_THREADS).
__VX_INLINE int vx_num_threads(void) { return (int)csr_read(VX_CSR_NUM_THREADS); }
/// Warps per core (VX_CSR_NUM_WARPS).
__VX_INLINE int vx_num_warps(void) { return (int)csr_read(VX_CSR_NUM_WARPS); }
/// Total number of cores (VX_CSR_NUM_CORES).
__VX_INLINE int vx_num_cores(void) { return (int)csr_read(VX_CSR_NUM_CORES); }
/// Global hardware-thread id (VX_CSR_MHARTID).
__VX_INLINE int vx_hart_id(void) { return (int)csr_read(VX_CSR_MHARTID); }

/// Full memory fence (`fence iorw, iorw`).
__VX_INLINE void vx_fence(void) {
  __asm__ __volatile__ ("fence iorw, iorw" ::: "memory");
}

#ifdef __cplusplus
}
#endif

#endif /* VX_INTRINSICS_H */
