// binary32 arithmetic for RISC-V F; see fp.h for the method.
#include "vxsim/fp.h"

#include <bit>
#include <cmath>

namespace vxsim::fp {

namespace {

constexpr uint32_t kSign = 0x80000000u;
constexpr uint32_t kExpMask = 0x7F800000u;
constexpr uint32_t kFracMask = 0x007FFFFFu;

bool is_nan(uint32_t a) { return (a & kExpMask) == kExpMask && (a & kFracMask) != 0; }
bool is_snan(uint32_t a) { return is_nan(a) && (a & 0x00400000u) == 0; }
bool is_inf(uint32_t a) { return (a & ~kSign) == kExpMask; }
bool is_zero(uint32_t a) { return (a & ~kSign) == 0; }
bool is_normal(uint32_t a) { return ((a >> 23) & 0xFFu) - 1u < 254u; }  // biased exponent 1..254
bool sign_of(uint32_t a) { return (a & kSign) != 0; }
double widen(uint32_t a) { return static_cast<double>(std::bit_cast<float>(a)); }

/// Rounds the integer `m` shifted right by `shift` bits, in mode rm for a value of sign `neg`.
/// Returns the rounded quotient; sets `inexact`.
uint64_t round_shift(uint64_t m, int shift, bool neg, Rm rm, bool& inexact) {
  uint64_t q = 0;
  bool above = false;  // discarded part > half
  bool half = false;   // discarded part == half
  bool nonzero = false;
  if (shift <= 0) {
    inexact = false;
    return m << -shift;
  }
  if (shift >= 64) {
    nonzero = m != 0;
  } else {
    q = m >> shift;
    uint64_t rem = m & ((1ull << shift) - 1);
    uint64_t h = 1ull << (shift - 1);
    nonzero = rem != 0;
    above = rem > h;
    half = rem == h;
  }
  inexact = nonzero;
  bool inc = false;
  switch (rm) {
    case kRne: inc = above || (half && (q & 1)); break;
    case kRtz: inc = false; break;
    case kRdn: inc = neg && nonzero; break;
    case kRup: inc = !neg && nonzero; break;
    case kRmm: inc = above || half; break;
    default: break;
  }
  return q + (inc ? 1 : 0);
}

/// Packs sign and a finite, non-zero binary64 magnitude in round-to-odd form into binary32.
uint32_t pack(bool neg, double mag, Rm rm, uint32_t& flags) {
  uint64_t bits = std::bit_cast<uint64_t>(mag);
  int e = static_cast<int>((bits >> 52) & 0x7FF) - 1023;  // value = m · 2^(e-52)
  uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
  uint32_t s = neg ? kSign : 0;
  bool inexact = false;
  if (e >= -126) {
    uint64_t q = round_shift(m, 29, neg, rm, inexact);
    if (q == (1ull << 24)) {
      q >>= 1;
      ++e;
    }
    if (e > 127) {
      flags |= kOF | kNX;
      bool to_inf = rm == kRne || rm == kRmm || (rm == kRdn && neg) || (rm == kRup && !neg);
      return s | (to_inf ? kExpMask : 0x7F7FFFFFu);
    }
    if (inexact) flags |= kNX;
    return s | (static_cast<uint32_t>(e + 127) << 23) | (static_cast<uint32_t>(q) & kFracMask);
  }
  // Subnormal range: tininess is detected after rounding (RISC-V), i.e. with an unbounded
  // exponent the value would still be below 2^-126.
  uint64_t q = round_shift(m, 29 + (-126 - e), neg, rm, inexact);
  bool tiny = true;
  if (e == -127) {
    bool ignored = false;
    tiny = round_shift(m, 29, neg, rm, ignored) != (1ull << 24);
  }
  if (inexact) {
    flags |= kNX;
    if (tiny) flags |= kUF;
  }
  return s | static_cast<uint32_t>(q);  // q == 2^23 encodes the smallest normal
}

/// Round-to-nearest-even of `v` (exact value in direction `dir` from it, as round_to_f32) by the
/// host's binary64 → binary32 conversion, where that gives the exact value's rounding and raises
/// at most NX: the result is normal with a biased exponent of 2..253 (no overflow, not tiny), and
/// `v` is no binary32 tie (discarded 29 fraction bits 1000…0) unless it is exact — an inexact tie
/// must round towards the exact value, the host conversion rounds it to even. Returns false
/// (nothing written) otherwise.
bool round_nearest_fast(double v, int dir, uint32_t& out, uint32_t& flags) {
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  if (dir != 0 && (bits & 0x1FFFFFFFu) == 0x10000000u) return false;
  const float r = static_cast<float>(v);
  const uint32_t rb = std::bit_cast<uint32_t>(r);
  if (((rb >> 23) & 0xFFu) - 2u > 251u) return false;
  if (dir != 0 || static_cast<double>(r) != v) flags |= kNX;
  out = rb;
  return true;
}

/// Rounds the binary64 `v` whose exact value differs from it in direction `dir` (sign of
/// exact − v; 0 if v is exact) to binary32.
uint32_t round_to_f32(double v, int dir, Rm rm, uint32_t& flags) {
  if (uint32_t r = 0; rm == kRne && round_nearest_fast(v, dir, r, flags)) return r;
  bool neg = std::signbit(v);
  double mag = std::fabs(v);
  int magdir = neg ? -dir : dir;
  if (magdir != 0 && (std::bit_cast<uint64_t>(mag) & 1) == 0) {
    mag = std::nextafter(mag, magdir > 0 ? HUGE_VAL : 0.0);
  }
  return pack(neg, mag, rm, flags);
}

int sign_dir(double err) { return err > 0 ? 1 : (err < 0 ? -1 : 0); }

uint32_t nan_result(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_snan(a) || is_snan(b)) flags |= kNV;
  return kCanonicalNaN;
}

/// Signed sum of two finite binary64 values that are exact images of binary32 values or
/// binary32 products, rounded to binary32.
uint32_t sum_round(double x, double y, Rm rm, uint32_t& flags) {
  double s = x + y;
  if (s == 0) {
    if (x == 0 && y == 0 && std::signbit(x) == std::signbit(y)) return std::signbit(x) ? kSign : 0;
    return rm == kRdn ? kSign : 0;
  }
  double bb = s - x;
  double err = (x - (s - bb)) + (y - bb);  // TwoSum: exact
  return round_to_f32(s, sign_dir(err), rm, flags);
}

}  // namespace

uint32_t add(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return nan_result(a, b, flags);
  if (is_inf(a) && is_inf(b)) {
    if (sign_of(a) != sign_of(b)) {
      flags |= kNV;
      return kCanonicalNaN;
    }
    return a;
  }
  if (is_inf(a)) return a;
  if (is_inf(b)) return b;
  return sum_round(widen(a), widen(b), rm, flags);
}

uint32_t sub(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return nan_result(a, b, flags);
  return add(a, b ^ kSign, rm, flags);
}

uint32_t mul(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return nan_result(a, b, flags);
  uint32_t s = (a ^ b) & kSign;
  if ((is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b))) {
    flags |= kNV;
    return kCanonicalNaN;
  }
  if (is_inf(a) || is_inf(b)) return s | kExpMask;
  if (is_zero(a) || is_zero(b)) return s;
  return round_to_f32(widen(a) * widen(b), 0, rm, flags);  // exact product (48 bits)
}

namespace {

/// fma for every case (specials, zeros, other rounding modes); out of line so that the common
/// case in fma() stays small.
[[gnu::noinline]] uint32_t fma_general(uint32_t a, uint32_t b, uint32_t c, bool negate_product,
                                       bool negate_addend, Rm rm, uint32_t& flags) {
  bool prod_invalid = (is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b));
  if (is_nan(a) || is_nan(b) || is_nan(c)) {
    if (is_snan(a) || is_snan(b) || is_snan(c) || prod_invalid) flags |= kNV;
    return kCanonicalNaN;
  }
  if (prod_invalid) {
    flags |= kNV;
    return kCanonicalNaN;
  }
  uint32_t ps = ((a ^ b) & kSign) ^ (negate_product ? kSign : 0);
  uint32_t cc = c ^ (negate_addend ? kSign : 0);
  bool pinf = is_inf(a) || is_inf(b);
  if (pinf) {
    if (is_inf(cc) && (cc & kSign) != ps) {
      flags |= kNV;
      return kCanonicalNaN;
    }
    return ps | kExpMask;
  }
  if (is_inf(cc)) return cc;
  double p = widen(a) * widen(b);  // exact
  if (negate_product) p = -p;
  if (p == 0) p = (ps != 0) ? -0.0 : 0.0;
  return sum_round(p, widen(cc), rm, flags);
}

}  // namespace

uint32_t fma(uint32_t a, uint32_t b, uint32_t c, bool negate_product, bool negate_addend, Rm rm,
             uint32_t& flags) {
  // Normal factors and a normal or zero addend in round-to-nearest-even (a kernel's usual case,
  // an accumulator starting at 0 included): no special value, a non-zero exact product, and where
  // the sum is non-zero fma_general's rounding (sum_round), inlined.
  if (rm == kRne && is_normal(a) && is_normal(b) && (is_normal(c) || is_zero(c))) {
    const double p = negate_product ? -(widen(a) * widen(b)) : widen(a) * widen(b);
    const double y = negate_addend ? -widen(c) : widen(c);
    const double s = p + y;
    const double bb = s - p;
    const double err = (p - (s - bb)) + (y - bb);  // TwoSum: exact
    if (uint32_t r = 0; s != 0 && round_nearest_fast(s, sign_dir(err), r, flags)) return r;
  }
  return fma_general(a, b, c, negate_product, negate_addend, rm, flags);
}

uint32_t div(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return nan_result(a, b, flags);
  uint32_t s = (a ^ b) & kSign;
  if ((is_inf(a) && is_inf(b)) || (is_zero(a) && is_zero(b))) {
    flags |= kNV;
    return kCanonicalNaN;
  }
  if (is_inf(a)) return s | kExpMask;
  if (is_inf(b)) return s;
  if (is_zero(b)) {
    flags |= kDZ;
    return s | kExpMask;
  }
  if (is_zero(a)) return s;
  double x = widen(a);
  double y = widen(b);
  double q = x / y;
  double r = std::fma(-q, y, x);  // exact remainder of a correctly rounded quotient
  int dir = sign_dir(r) * (y < 0 ? -1 : 1);
  return round_to_f32(q, dir, rm, flags);
}

uint32_t sqrt(uint32_t a, Rm rm, uint32_t& flags) {
  if (is_nan(a)) return nan_result(a, a, flags);
  if (is_zero(a)) return a;
  if (sign_of(a)) {
    flags |= kNV;
    return kCanonicalNaN;
  }
  if (is_inf(a)) return a;
  double x = widen(a);
  double s = std::sqrt(x);
  double r = std::fma(-s, s, x);  // exact
  return round_to_f32(s, sign_dir(r), rm, flags);
}

uint32_t min(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_snan(a) || is_snan(b)) flags |= kNV;
  if (is_nan(a) && is_nan(b)) return kCanonicalNaN;
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  if (is_zero(a) && is_zero(b)) return (a | b);  // -0 if either is -0
  return widen(a) < widen(b) ? a : b;
}

uint32_t max(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_snan(a) || is_snan(b)) flags |= kNV;
  if (is_nan(a) && is_nan(b)) return kCanonicalNaN;
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  if (is_zero(a) && is_zero(b)) return (a & b);  // +0 if either is +0
  return widen(a) > widen(b) ? a : b;
}

uint32_t eq(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    if (is_snan(a) || is_snan(b)) flags |= kNV;
    return 0;
  }
  return widen(a) == widen(b) ? 1 : 0;
}

uint32_t lt(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= kNV;
    return 0;
  }
  return widen(a) < widen(b) ? 1 : 0;
}

uint32_t le(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= kNV;
    return 0;
  }
  return widen(a) <= widen(b) ? 1 : 0;
}

uint32_t classify(uint32_t a) {
  bool neg = sign_of(a);
  uint32_t exp = (a & kExpMask) >> 23;
  uint32_t frac = a & kFracMask;
  if (is_nan(a)) return is_snan(a) ? (1u << 8) : (1u << 9);
  if (is_inf(a)) return neg ? (1u << 0) : (1u << 7);
  if (exp == 0 && frac == 0) return neg ? (1u << 3) : (1u << 4);
  if (exp == 0) return neg ? (1u << 2) : (1u << 5);
  return neg ? (1u << 1) : (1u << 6);
}

namespace {
/// |a| rounded to an integer magnitude (saturating at 2^40 for huge values); `inexact` set.
uint64_t to_int_magnitude(uint32_t a, Rm rm, bool& inexact, bool& huge) {
  int exp = static_cast<int>((a & kExpMask) >> 23);
  uint64_t m = a & kFracMask;
  huge = false;
  inexact = false;
  if (exp == 0 && m == 0) return 0;
  if (exp != 0) m |= 1u << 23;
  int e = (exp == 0 ? -126 : exp - 127);  // value = m · 2^(e-23)
  if (e >= 40) {
    huge = true;
    return 0;
  }
  return round_shift(m, 23 - e, sign_of(a), rm, inexact);
}
}  // namespace

uint32_t cvt_w_s(uint32_t a, Rm rm, uint32_t& flags) {
  if (is_nan(a)) {
    flags |= kNV;
    return 0x7FFFFFFF;
  }
  bool neg = sign_of(a);
  bool inexact = false;
  bool huge = false;
  uint64_t q = is_inf(a) ? 0 : to_int_magnitude(a, rm, inexact, huge);
  if (is_inf(a) || huge || (!neg && q > 0x7FFFFFFFull) || (neg && q > 0x80000000ull)) {
    flags |= kNV;
    return neg ? 0x80000000u : 0x7FFFFFFFu;
  }
  if (inexact) flags |= kNX;
  return neg ? static_cast<uint32_t>(0u - static_cast<uint32_t>(q)) : static_cast<uint32_t>(q);
}

uint32_t cvt_wu_s(uint32_t a, Rm rm, uint32_t& flags) {
  if (is_nan(a)) {
    flags |= kNV;
    return 0xFFFFFFFFu;
  }
  bool neg = sign_of(a);
  bool inexact = false;
  bool huge = false;
  uint64_t q = is_inf(a) ? 0 : to_int_magnitude(a, rm, inexact, huge);
  if (is_inf(a) || huge || (neg && q != 0) || (!neg && q > 0xFFFFFFFFull)) {
    flags |= kNV;
    return neg ? 0u : 0xFFFFFFFFu;
  }
  if (inexact) flags |= kNX;
  return static_cast<uint32_t>(q);
}

uint32_t cvt_s_w(uint32_t a, Rm rm, uint32_t& flags) {
  if (a == 0) return 0;
  return round_to_f32(static_cast<double>(static_cast<int32_t>(a)), 0, rm, flags);
}

uint32_t cvt_s_wu(uint32_t a, Rm rm, uint32_t& flags) {
  if (a == 0) return 0;
  return round_to_f32(static_cast<double>(a), 0, rm, flags);
}

uint32_t f16_to_f32(uint16_t h) {
  uint32_t s = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1F;
  uint32_t f = h & 0x3FF;
  if (e == 0x1F) return f != 0 ? kCanonicalNaN : (s | kExpMask);
  if (e == 0) {
    if (f == 0) return s;
    // subnormal: f · 2^-24, exactly representable in binary32
    float v = static_cast<float>(f) * 0x1p-24f;
    return s | std::bit_cast<uint32_t>(v);
  }
  return s | ((e - 15 + 127) << 23) | (f << 13);
}

uint32_t bf16_to_f32(uint16_t h) {
  uint32_t v = static_cast<uint32_t>(h) << 16;
  return is_nan(v) ? kCanonicalNaN : v;
}

uint16_t f32_to_bf16(uint32_t a) {
  if (is_nan(a)) return 0x7FC0;
  uint32_t lsb = (a >> 16) & 1;
  uint64_t r = static_cast<uint64_t>(a) + 0x7FFF + lsb;  // RNE on the low 16 bits
  return static_cast<uint16_t>(r >> 16);
}

uint16_t f32_to_f16(uint32_t a) {
  uint16_t s = static_cast<uint16_t>((a >> 16) & 0x8000u);
  if (is_nan(a)) return 0x7E00;
  if (is_inf(a)) return static_cast<uint16_t>(s | 0x7C00);
  if (is_zero(a)) return s;
  int exp = static_cast<int>((a & kExpMask) >> 23);
  uint64_t m = a & kFracMask;
  if (exp != 0) m |= 1u << 23;
  int e = (exp == 0 ? -126 : exp - 127);  // value = m · 2^(e-23)
  bool inexact = false;
  if (e >= -14) {
    uint64_t q = round_shift(m, 13, s != 0, kRne, inexact);  // 11 significant bits
    if (q == (1u << 11)) {
      q >>= 1;
      ++e;
    }
    if (e > 15) return static_cast<uint16_t>(s | 0x7C00);
    return static_cast<uint16_t>(s | ((e + 15) << 10) | (q & 0x3FF));
  }
  uint64_t q = round_shift(m, 13 + (-14 - e), s != 0, kRne, inexact);
  return static_cast<uint16_t>(s | q);
}

}  // namespace vxsim::fp
