// diverge: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef DIVERGE_COMMON_H
#define DIVERGE_COMMON_H

#include <stdint.h>

#define DIVERGE_OUTPUTS 4  // values written per input element

typedef struct {
  uint32_t num_points;  // thread mode grid
  uint32_t pad;
  uint64_t src_addr;    // int32_t[num_points]
  uint64_t dst_addr;    // int32_t[num_points * DIVERGE_OUTPUTS]
} kernel_arg_t;

// The computation, shared by the kernel (written divergence-safe there) and the host reference.
static inline int32_t diverge_nested(int32_t v) {
  int32_t r;
  if (v > 50) {
    r = v * 2;
    if (v & 1) r += 1;
  } else if (v < 10) {
    r = -v;
  } else {
    r = v + 100;
  }
  return r;
}

static inline int32_t diverge_loop_sum(int32_t v) {  // per-lane trip count v % 7
  int32_t acc = 0;
  for (int32_t k = 0; k < v % 7; ++k) acc += k * k;
  return acc;
}

static inline int32_t diverge_vote_sum(int32_t v) {  // per-lane trip count v % 5
  int32_t acc = 1;
  for (int32_t k = 0; k < v % 5; ++k) acc = acc * 3 + k;
  return acc;
}

#endif
