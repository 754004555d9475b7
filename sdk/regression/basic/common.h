// basic: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef BASIC_COMMON_H
#define BASIC_COMMON_H

#include <stdint.h>

typedef struct {
  uint32_t count;     // words to copy (thread mode grid)
  uint32_t pad;
  uint64_t src_addr;  // uint32_t[count]
  uint64_t dst_addr;  // uint32_t[count]
} kernel_arg_t;

#endif
