/// \file bits/vx_cxx_math.h
/// The C++ overloads of <math.h> ([c.math]) that picolibc, a C library, does not declare. Without
/// them a C++ kernel's fmin(float, float) converts to double and calls the double function, which
/// on RV32IMAF (no D extension) runs in software through libgcc; with them it is one fmin.s. Each
/// overload calls the f-suffixed C function or GCC builtin, as libstdc++'s <cmath> does. Declared
/// in std and brought into the global namespace (libstdc++'s <math.h> does the same), so both
/// `fmin(a, b)` after <math.h> and `std::fmin(a, b)` after <cmath> pick the float overload.
#pragma GCC system_header  // found through -I (before picolibc): still a system header
#ifndef VX_CXX_MATH_H
#define VX_CXX_MATH_H

#include <bits/vx_cxx_base.h>
#include <bits/vx_cxx_abs.h>

namespace std {

#define VX_CXX_MATH1(fn)                                                    \
  using ::fn;                                                               \
  inline float fn(float x) { return ::fn##f(x); }                          \
  inline long double fn(long double x) { return ::fn##l(x); }
#define VX_CXX_MATH2(fn)                                                    \
  using ::fn;                                                               \
  inline float fn(float x, float y) { return ::fn##f(x, y); }              \
  inline long double fn(long double x, long double y) { return ::fn##l(x, y); }

VX_CXX_MATH1(acos) VX_CXX_MATH1(asin) VX_CXX_MATH1(atan) VX_CXX_MATH1(cos) VX_CXX_MATH1(sin)
VX_CXX_MATH1(tan) VX_CXX_MATH1(acosh) VX_CXX_MATH1(asinh) VX_CXX_MATH1(atanh) VX_CXX_MATH1(cosh)
VX_CXX_MATH1(sinh) VX_CXX_MATH1(tanh) VX_CXX_MATH1(exp) VX_CXX_MATH1(exp2) VX_CXX_MATH1(expm1)
VX_CXX_MATH1(log) VX_CXX_MATH1(log10) VX_CXX_MATH1(log1p) VX_CXX_MATH1(log2) VX_CXX_MATH1(cbrt)
VX_CXX_MATH1(erf) VX_CXX_MATH1(erfc) VX_CXX_MATH1(tgamma) VX_CXX_MATH1(lgamma)
VX_CXX_MATH1(ceil) VX_CXX_MATH1(floor) VX_CXX_MATH1(trunc) VX_CXX_MATH1(round) VX_CXX_MATH1(nearbyint)
VX_CXX_MATH1(rint)
VX_CXX_MATH2(atan2) VX_CXX_MATH2(pow) VX_CXX_MATH2(fmod) VX_CXX_MATH2(remainder) VX_CXX_MATH2(hypot)
VX_CXX_MATH2(fdim) VX_CXX_MATH2(nextafter)
#undef VX_CXX_MATH1
#undef VX_CXX_MATH2

// One instruction each on RV32F: fsqrt.s, fsgnj[x].s, fmin.s, fmax.s, fmadd.s.
using ::sqrt;
inline float sqrt(float x) { return __builtin_sqrtf(x); }
inline long double sqrt(long double x) { return ::sqrtl(x); }
using ::fabs;
inline float fabs(float x) { return __builtin_fabsf(x); }
inline long double fabs(long double x) { return __builtin_fabsl(x); }
using ::copysign;
inline float copysign(float x, float y) { return __builtin_copysignf(x, y); }
inline long double copysign(long double x, long double y) { return __builtin_copysignl(x, y); }
// GCC 12 calls fminf/fmaxf for the builtins; fmin.s/fmax.s have C's fmin/fmax semantics (a NaN
// operand gives the other one; RISC-V F, IEEE 754-2019 minimumNumber/maximumNumber).
using ::fmin;
inline float fmin(float x, float y) {
  float r;
  __asm__("fmin.s %0, %1, %2" : "=f"(r) : "f"(x), "f"(y));
  return r;
}
inline long double fmin(long double x, long double y) { return __builtin_fminl(x, y); }
using ::fmax;
inline float fmax(float x, float y) {
  float r;
  __asm__("fmax.s %0, %1, %2" : "=f"(r) : "f"(x), "f"(y));
  return r;
}
inline long double fmax(long double x, long double y) { return __builtin_fmaxl(x, y); }
using ::fma;
inline float fma(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
inline long double fma(long double x, long double y, long double z) { return __builtin_fmal(x, y, z); }

using ::ldexp;
inline float ldexp(float x, int e) { return ::ldexpf(x, e); }
using ::frexp;
inline float frexp(float x, int* e) { return ::frexpf(x, e); }
using ::modf;
inline float modf(float x, float* i) { return ::modff(x, i); }
using ::lround;
inline long lround(float x) { return ::lroundf(x); }
using ::lrint;
inline long lrint(float x) { return ::lrintf(x); }

using ::acosf; using ::asinf; using ::atanf; using ::atan2f; using ::cosf; using ::sinf; using ::tanf;
using ::coshf; using ::sinhf; using ::tanhf; using ::expf; using ::exp2f; using ::logf; using ::log2f;
using ::log10f; using ::powf; using ::sqrtf; using ::ceilf; using ::floorf; using ::fabsf; using ::fmodf;
using ::roundf; using ::truncf; using ::fminf; using ::fmaxf; using ::fmaf; using ::hypotf;
using ::float_t; using ::double_t;

}  // namespace std

// The overloads in the global namespace too (libstdc++'s <math.h> does `using std::fmin;` etc.).
using std::acos; using std::asin; using std::atan; using std::cos; using std::sin; using std::tan;
using std::acosh; using std::asinh; using std::atanh; using std::cosh; using std::sinh; using std::tanh;
using std::exp; using std::exp2; using std::expm1; using std::log; using std::log10; using std::log1p;
using std::log2; using std::cbrt; using std::erf; using std::erfc; using std::tgamma; using std::lgamma;
using std::ceil; using std::floor; using std::trunc; using std::round; using std::nearbyint; using std::rint;
using std::atan2; using std::pow; using std::fmod; using std::remainder; using std::hypot; using std::fdim;
using std::nextafter; using std::sqrt; using std::fabs; using std::copysign; using std::fmin; using std::fmax;
using std::fma; using std::ldexp; using std::frexp; using std::modf; using std::lround; using std::lrint;
using std::abs;

#endif /* VX_CXX_MATH_H */
