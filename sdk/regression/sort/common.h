// sort: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef SORT_COMMON_H
#define SORT_COMMON_H

#include <stdint.h>

#ifndef TYPE
#define TYPE int32_t
#endif

typedef struct {
  uint32_t num_points;  // grid_dim[0] in thread mode: one thread per element
  uint32_t pad;
  uint64_t src_addr;
  uint64_t dst_addr;
} kernel_arg_t;

#endif
