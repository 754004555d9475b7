// vec4.h: a four-float vector for sgemv, as a kernel-local header of the test folder (Vortex's
// sgemv brings one, float4.h): a union of anonymous structs (x/y/z/w and r/g/b/a views, a GNU
// extension in C++) with an array view, built with compound literals (also GNU in C++). Device only.
#ifndef SGEMV_VEC4_H
#define SGEMV_VEC4_H

#include <math.h>
#include <stdint.h>

typedef union {
  struct { float x, y, z, w; };
  struct { float r, g, b, a; };
  float data[4];
} vec4;

// Loads four consecutive floats (4-byte alignment is enough).
static inline vec4 vec4_load(const float* p) { return (vec4){{p[0], p[1], p[2], p[3]}}; }

// Lane-wise product.
static inline vec4 vec4_mul(vec4 u, vec4 v) {
  return (vec4){{u.x * v.x, u.y * v.y, u.z * v.z, u.w * v.w}};
}

// Sum of the four lanes, pairwise: (x + y) + (z + w).
static inline float vec4_hsum(vec4 v) { return (v.x + v.y) + (v.z + v.w); }

#endif
