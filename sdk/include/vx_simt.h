/// \file vx_simt.h
/// vxsynth extension (not part of Vortex): divergence-safe control flow for kernels built with
/// plain GCC. Vortex's own LLVM inserts SPLIT/JOIN automatically; GCC does not, and the simulator
/// stops on a conditional branch whose active lanes disagree (docs/vortex.md §1.3,
/// §12). These helpers only use the public intrinsics' encodings, so a kernel that includes this
/// header also builds against a real Vortex tree (copy the header next to it).
///
///   VX_IF(i < n) { ... } VX_ELSE { ... } VX_ENDIF      // per-lane condition, any nesting
///   for (int k = 0; vx_vote_any(k < len); ++k) {       // per-lane trip count: uniform exit test
///     VX_IF(k < len) { ... } VX_ENDIF                  //   + a guarded body
///   }
///   y = vx_select_f(x > 0.0f, x, 0.0f);                // branch-free select
///
/// Conditions must themselves be branch-free: combine comparisons with `&` and `|`, not `&&`/`||`.
/// Build with -fno-thread-jumps (part of the SDK's VX_CFLAGS): GCC's jump threading would
/// otherwise duplicate a SPLIT into both outcomes of the condition, i.e. branch before it.
/// Each open VX_IF uses one IPDOM entry; the stack holds NUM_THREADS-1 entries (§1.3).
///
/// vx_pred() is deliberately not wrapped for C code: lanes it switches off resume wherever the
/// mask is next restored, with their registers as they were. GCC may rotate a loop (two PRED
/// sites) or place register moves on the path the parked lanes skip, so a PRED loop is only safe
/// when the whole loop is one asm block (see sdk/regression/diverge/kernel.cpp).
#ifndef VX_SIMT_H
#define VX_SIMT_H

#include <vx_intrinsics.h>

#ifdef __cplusplus
extern "C" {
#endif

/// SPLIT on `*cond` that also passes the condition through the asm, so the compiler cannot test
/// it (and branch) before the SPLIT has executed. Returns the depth to give to vx_join.
__VX_INLINE int __vx_split_pinned(int* cond) {
  int sp;
  int c = *cond;
  __asm__ __volatile__ (".insn r " __VX_STR(RISCV_CUSTOM0) ", 2, 0, %0, %1, x0"
                        : "=&r"(sp), "+r"(c) :: "memory");
  *cond = c;
  return sp;
}

/// Opens a region whose lanes may disagree on `cond` (see the file comment).
/// Known hazard (docs/codegen.md "Divergence safety", measured with GCC 12.2): the compiler may
/// duplicate the closing vx_join into both arms (tail duplication inside unrolled loops); the
/// group resumed at the other copy then continues on the wrong path and computes wrong results
/// without any divergence error. Keep VX_IF bodies small and outside unrolled loops, and check
/// the kernel's disassembly for a single JOIN per region; for guarded loads/stores prefer one asm
/// block PRED → access → TMC, as the generated candidates do.
#define VX_IF(cond)                                   \
  {                                                   \
    int __vx_if_c = (cond) ? 1 : 0;                   \
    int __vx_if_sp = __vx_split_pinned(&__vx_if_c);   \
    if (__vx_if_c) {
/// Starts the part of a VX_IF region run by lanes whose condition was false.
#define VX_ELSE \
    } else {
/// Closes a VX_IF region; all lanes that entered it are active again afterwards.
#define VX_ENDIF                                      \
    }                                                 \
    vx_join(__vx_if_sp);                              \
  }

/// An all-ones mask if `c` is non-zero, else 0, computed without a branch.
__VX_INLINE int vx_mask_of(int c) {
  int m = -(int)(c != 0);
  __asm__ ("" : "+r"(m));  /* hide the boolean origin so the compiler cannot re-form a branch */
  return m;
}

/// `c ? a : b` for integers, branch-free.
__VX_INLINE int vx_select_i(int c, int a, int b) {
  int m = vx_mask_of(c);
  return (a & m) | (b & ~m);
}

/// `c ? a : b` for unsigned integers, branch-free.
__VX_INLINE unsigned vx_select_u(int c, unsigned a, unsigned b) {
  unsigned m = (unsigned)vx_mask_of(c);
  return (a & m) | (b & ~m);
}

/// `c ? a : b` for floats, branch-free (bitwise select; NaN payloads are preserved).
__VX_INLINE float vx_select_f(int c, float a, float b) {
  unsigned ua, ub, m = (unsigned)vx_mask_of(c), r;
  float out;
  __builtin_memcpy(&ua, &a, 4);
  __builtin_memcpy(&ub, &b, 4);
  r = (ua & m) | (ub & ~m);
  __builtin_memcpy(&out, &r, 4);
  return out;
}

/// Branch-free integer minimum and maximum (GCC emits branches for `a < b ? a : b`).
__VX_INLINE int vx_min_i(int a, int b) { return vx_select_i(a < b, a, b); }
__VX_INLINE int vx_max_i(int a, int b) { return vx_select_i(a > b, a, b); }
__VX_INLINE unsigned vx_min_u(unsigned a, unsigned b) { return vx_select_u(a < b, a, b); }
__VX_INLINE unsigned vx_max_u(unsigned a, unsigned b) { return vx_select_u(a > b, a, b); }

#ifdef __cplusplus
}
#endif

#endif /* VX_SIMT_H */
