/// \file math.h
/// <math.h> for C++ kernels (sdk/cxx is on the C++ include path only): picolibc's <math.h>, then
/// the float and long double overloads C++ requires of it (bits/vx_cxx_math.h). C sources get
/// picolibc's header unchanged.
#pragma GCC system_header  // found through -I (before picolibc): still a system header
#include_next <math.h>

#ifdef __cplusplus
#include <bits/vx_cxx_math.h>
#endif
