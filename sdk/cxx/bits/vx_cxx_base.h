/// \file bits/vx_cxx_base.h
/// Shared core of the SDK's C++ headers for kernels (sdk/cxx, docs/sdk.md "C++ headers"):
/// Debian's riscv64-unknown-elf-gcc ships no C++ standard library, so the SDK provides the small
/// freestanding subset Vortex kernels include. This file: std::size_t/ptrdiff_t/nullptr_t, the
/// type traits the others need, move/forward/swap and min/max. (libstdc++ makes std::min/std::max
/// visible through <cmath> and <math.h> too, and kernels rely on it; so do these headers.)
#ifndef VX_CXX_BASE_H
#define VX_CXX_BASE_H

#include <stddef.h>

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

}  // namespace std

#endif /* VX_CXX_BASE_H */
