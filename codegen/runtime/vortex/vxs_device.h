// vxs_device.h: fixed device helpers of a vxsynth Vortex kernel (docs/codegen.md "Divergence
// safety"): guarded global loads and stores that never branch on a thread-dependent value, and
// bf16 <-> fp32 conversions with integer operations only.
#ifndef VXS_DEVICE_H
#define VXS_DEVICE_H

#include <stdint.h>
#include <vx_intrinsics.h>

// The only branch of a guarded access tests the warp-uniform vote vx_vote_any(c); inside, one asm
// block narrows the thread mask to the lanes whose condition holds (PRED), does the access and
// restores the mask (TMC). The value enters and leaves through asm operands, so lanes outside the
// condition keep the value set before. No SPLIT/JOIN pairing that compiler tail duplication could
// break (docs/codegen.md). Encodings as vx_pred and vx_tmc in vx_intrinsics.h: opcode 0x0B, funct3 5 / 0.
#define VXS_PRED_ASM(op) ".insn r 0x0B, 5, 0, x0, %[c], %[m]\n\t" op "\n\t.insn r 0x0B, 0, 0, x0, %[m], x0"

/// *p where the 0/1 condition c holds, else `old`.
static inline __attribute__((always_inline)) float vxs_pld(const float* p, int c, float old) {
  if (vx_vote_any(c)) {
    const int m = vx_active_threads();
    __asm__ __volatile__(VXS_PRED_ASM("flw %[v], 0(%[p])") : [v] "+f"(old) : [c] "r"(c), [m] "r"(m), [p] "r"(p) : "memory");
  }
  return old;
}
static inline __attribute__((always_inline)) uint16_t vxs_pld(const uint16_t* p, int c, uint16_t old) {
  uint32_t v = old;
  if (vx_vote_any(c)) {
    const int m = vx_active_threads();
    __asm__ __volatile__(VXS_PRED_ASM("lhu %[v], 0(%[p])") : [v] "+r"(v) : [c] "r"(c), [m] "r"(m), [p] "r"(p) : "memory");
  }
  return (uint16_t)v;
}
/// *p = val where the 0/1 condition c holds.
static inline __attribute__((always_inline)) void vxs_pst(float* p, float val, int c) {
  if (vx_vote_any(c)) {
    const int m = vx_active_threads();
    __asm__ __volatile__(VXS_PRED_ASM("fsw %[v], 0(%[p])") :: [v] "f"(val), [c] "r"(c), [m] "r"(m), [p] "r"(p) : "memory");
  }
}
static inline __attribute__((always_inline)) void vxs_pst(uint16_t* p, uint16_t val, int c) {
  if (vx_vote_any(c)) {
    const int m = vx_active_threads();
    const uint32_t v = val;
    __asm__ __volatile__(VXS_PRED_ASM("sh %[v], 0(%[p])") :: [v] "r"(v), [c] "r"(c), [m] "r"(m), [p] "r"(p) : "memory");
  }
}

/// VXS_GLD(dst, ptr, c): dst = *ptr where c holds; VXS_GST(ptr, val, c): *ptr = val where c holds.
#define VXS_GLD(dst, ptr, c) ((dst) = vxs_pld((ptr), (c), (dst)))
#define VXS_GST(ptr, val, c) vxs_pst((ptr), (val), (c))

/// bf16 -> fp32 (exact).
static inline float vxs_bf2f(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; __builtin_memcpy(&f, &u, 4); return f; }
/// fp32 -> bf16, round to nearest even, branch-free.
static inline uint16_t vxs_f2bf(float f) {
  uint32_t u; __builtin_memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

#endif  // VXS_DEVICE_H
