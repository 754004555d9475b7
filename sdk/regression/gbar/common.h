// gbar: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef GBAR_COMMON_H
#define GBAR_COMMON_H

#include <stdint.h>

#define GBAR_ROUNDS 2    // the barrier is reused once
#define GBAR_SKEW 400    // busy-loop iterations per core id before arriving

typedef struct {
  uint32_t num_cores;  // as the host sees it (VX_CAPS_NUM_CORES)
  uint32_t pad;
  uint64_t flags_addr; // uint32_t[GBAR_ROUNDS * num_cores], zeroed by the host
  uint64_t out_addr;   // uint32_t[GBAR_ROUNDS * num_cores]
} kernel_arg_t;

#endif
