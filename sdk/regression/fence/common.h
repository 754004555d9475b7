// fence: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef FENCE_COMMON_H
#define FENCE_COMMON_H

#include <stdint.h>

typedef struct {
  uint32_t count;      // thread mode grid
  uint32_t pad;
  uint64_t src_addr;   // uint32_t[count]
  uint64_t dst_addr;   // uint32_t[count], written, fenced, read back
  uint64_t dst2_addr;  // uint32_t[count] = read-back value + 1
} kernel_arg_t;

#endif
