#pragma once
/// \file
/// IEEE-754 binary32 arithmetic exactly as the RISC-V F extension specifies it (unprivileged ISA
/// ch. "F" v2.2): five rounding modes including RMM, the five accrued flags, the canonical NaN
/// 0x7FC00000 for every NaN result, fcvt saturation, fmin/fmax signaling-NaN and ±0 rules.
///
/// Method (our own, no softfloat code): each operation is done once in host binary64 with the
/// default round-to-nearest mode; the exact error of that result is recovered with an error-free
/// transformation (TwoSum for add/fma, an FMA remainder for div/sqrt; products of two binary32
/// values are exact in binary64). The binary64 value is then turned into round-to-odd form and
/// rounded to binary32 with integer code in the requested mode. Binary64 has ≥ 24+2 bits, so the
/// double rounding is exact (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums:
/// proved algorithms using rounding to odd", IEEE TC 2008). The host floating-point environment
/// is never changed. Values are passed as raw bit patterns.

#include <cstdint>

namespace vxsim::fp {

/// Rounding-mode encodings of the instruction rm field and of frm.
enum Rm : uint8_t { kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7 };

/// fflags bits.
enum Flag : uint32_t { kNX = 1, kUF = 2, kOF = 4, kDZ = 8, kNV = 16 };

inline constexpr uint32_t kCanonicalNaN = 0x7FC00000;

// Arithmetic: `flags` is OR-ed with the exceptions raised; `rm` must be 0..4.
uint32_t add(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t sub(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t mul(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t div(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t sqrt(uint32_t a, Rm rm, uint32_t& flags);
/// Fused (±a·b) ± c with one rounding: fmadd = (a,b,c,false,false), fmsub = (…,false,true),
/// fnmsub = (…,true,false), fnmadd = (…,true,true).
uint32_t fma(uint32_t a, uint32_t b, uint32_t c, bool negate_product, bool negate_addend, Rm rm,
             uint32_t& flags);
uint32_t min(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t max(uint32_t a, uint32_t b, uint32_t& flags);
/// feq is quiet (NV only for signaling NaN); flt/fle are signaling (NV for any NaN).
uint32_t eq(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t lt(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t le(uint32_t a, uint32_t b, uint32_t& flags);
/// fclass.s 10-bit mask.
uint32_t classify(uint32_t a);
/// fcvt.w.s / fcvt.wu.s with saturation (NaN → max positive) and NV on overflow.
uint32_t cvt_w_s(uint32_t a, Rm rm, uint32_t& flags);
uint32_t cvt_wu_s(uint32_t a, Rm rm, uint32_t& flags);
/// fcvt.s.w / fcvt.s.wu.
uint32_t cvt_s_w(uint32_t a, Rm rm, uint32_t& flags);
uint32_t cvt_s_wu(uint32_t a, Rm rm, uint32_t& flags);

/// IEEE binary16 / bfloat16 → binary32 (exact; NaN becomes the canonical NaN). For the TCU.
uint32_t f16_to_f32(uint16_t h);
uint32_t bf16_to_f32(uint16_t h);
/// binary32 → binary16 / bfloat16, round to nearest even (NaN → canonical 16-bit NaN).
uint16_t f32_to_f16(uint32_t a);
uint16_t f32_to_bf16(uint32_t a);

}  // namespace vxsim::fp
