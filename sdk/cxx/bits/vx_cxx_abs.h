/// \file bits/vx_cxx_abs.h
/// std::abs for every arithmetic type ([c.math.abs]); <cstdlib> and <cmath> both declare it.
/// The float overload is fabs.s, never the double one.
#pragma GCC system_header  // found through -I (before picolibc): still a system header
#ifndef VX_CXX_ABS_H
#define VX_CXX_ABS_H

#include <stdlib.h>

namespace std {
using ::abs;
inline long abs(long x) { return ::labs(x); }
inline long long abs(long long x) { return ::llabs(x); }
inline float abs(float x) { return __builtin_fabsf(x); }
inline double abs(double x) { return __builtin_fabs(x); }
inline long double abs(long double x) { return __builtin_fabsl(x); }
}  // namespace std

#endif /* VX_CXX_ABS_H */
