/// \file bits/vx_cxx_base.h
/// Shared core of the SDK's C++ headers for kernels (sdk/cxx, docs/sdk.md "C++ headers"):
/// Debian's riscv64-unknown-elf-gcc ships no C++ standard library, so the SDK provides the small
/// freestanding subset Vortex kernels include. This file: std::size_t/ptrdiff_t/nullptr_t, the
/// type traits the others need, move/forward/swap and min/max. (libstdc++ makes std::min/std::max
/// visible through <cmath> and <math.h> too, and kernels rely on it; so do these headers.)
#pragma GCC system_header  // found through -I (before picolibc): still a system header
#ifndef VX_CXX_BASE_H
#define VX_CXX_BASE_H

#include <stddef.h>

#include <vx_simt.h>  // vx_select_*: branch-free min/max below

namespace std {

using size_t = ::size_t;
using ptrdiff_t = ::ptrdiff_t;
using nullptr_t = decltype(nullptr);
using max_align_t = ::max_align_t;

template <class T, T v> struct integral_constant {
  static constexpr T value = v;
  using value_type = T;
  using type = integral_constant;
  constexpr operator value_type() const noexcept { return value; }
  constexpr value_type operator()() const noexcept { return value; }
};
template <bool B> using bool_constant = integral_constant<bool, B>;
using true_type = bool_constant<true>;
using false_type = bool_constant<false>;

template <class T> struct remove_reference { using type = T; };
template <class T> struct remove_reference<T&> { using type = T; };
template <class T> struct remove_reference<T&&> { using type = T; };
template <class T> using remove_reference_t = typename remove_reference<T>::type;

template <class T>
constexpr remove_reference_t<T>&& move(T&& t) noexcept { return static_cast<remove_reference_t<T>&&>(t); }
template <class T>
constexpr T&& forward(remove_reference_t<T>& t) noexcept { return static_cast<T&&>(t); }
template <class T>
constexpr T&& forward(remove_reference_t<T>&& t) noexcept { return static_cast<T&&>(t); }

template <class T>
constexpr void swap(T& a, T& b) noexcept {
  T t = std::move(a);
  a = std::move(b);
  b = std::move(t);
}
template <class T, size_t N>
constexpr void swap(T (&a)[N], T (&b)[N]) noexcept {
  for (size_t i = 0; i < N; ++i) swap(a[i], b[i]);
}

template <class T> constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <class T> constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }
template <class T, class Compare> constexpr const T& min(const T& a, const T& b, Compare comp) { return comp(b, a) ? b : a; }
template <class T, class Compare> constexpr const T& max(const T& a, const T& b, Compare comp) { return comp(a, b) ? b : a; }

// Branch-free min/max for the types kernels use on per-lane data. GCC compiles the templates above
// to a conditional branch (bge/bnez: RV32IMAF has no min/max instruction for integers), which
// stops the simulator when lanes disagree (docs/sdk.md "Divergence rules"); Vortex's `dogfood`
// clamps lane data with std::min(std::max(a, b), c). These exact-match overloads win over the
// templates for same-typed arguments and select with a mask instead (vx_simt.h); the result is
// the template's (b < a ? b : a, a < b ? b : a, also for NaN and signed zeros), returned by value.
// Explicit template arguments (std::min<int>(a, b)) still pick the templates.
#define VX_CXX_MINMAX(T, SEL)                                                         \
  constexpr T min(T a, T b) {                                                         \
    if (__builtin_is_constant_evaluated()) return b < a ? b : a;                      \
    return SEL(b < a, b, a);                                                          \
  }                                                                                   \
  constexpr T max(T a, T b) {                                                         \
    if (__builtin_is_constant_evaluated()) return a < b ? b : a;                      \
    return SEL(a < b, b, a);                                                          \
  }
#define VX_CXX_SEL_I(c, a, b) static_cast<int>(::vx_select_i((c), (a), (b)))
#define VX_CXX_SEL_U(c, a, b) static_cast<unsigned>(::vx_select_u((c), (a), (b)))
#define VX_CXX_SEL_L(c, a, b) static_cast<long>(::vx_select_i((c), static_cast<int>(a), static_cast<int>(b)))
#define VX_CXX_SEL_UL(c, a, b) \
  static_cast<unsigned long>(::vx_select_u((c), static_cast<unsigned>(a), static_cast<unsigned>(b)))
#define VX_CXX_SEL_F(c, a, b) ::vx_select_f((c), (a), (b))
VX_CXX_MINMAX(int, VX_CXX_SEL_I)
VX_CXX_MINMAX(unsigned, VX_CXX_SEL_U)
VX_CXX_MINMAX(long, VX_CXX_SEL_L)            // ILP32: long is 32 bits (static_assert below)
VX_CXX_MINMAX(unsigned long, VX_CXX_SEL_UL)
VX_CXX_MINMAX(float, VX_CXX_SEL_F)
static_assert(sizeof(long) == sizeof(int), "branch-free std::min/max assume ILP32");
#undef VX_CXX_MINMAX
#undef VX_CXX_SEL_I
#undef VX_CXX_SEL_U
#undef VX_CXX_SEL_L
#undef VX_CXX_SEL_UL
#undef VX_CXX_SEL_F

}  // namespace std

#endif /* VX_CXX_BASE_H */
