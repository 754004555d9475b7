// cta: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef CTA_COMMON_H
#define CTA_COMMON_H

#include <stdint.h>

typedef struct {
  uint32_t grid_dim[3];   // blocks (CTAs) in x, y, z
  uint32_t block_dim[3];  // threads per block in x, y, z: block mode
  uint64_t src_addr;      // one int per thread of a block
  uint64_t dst_addr;      // two ints per thread of the grid
} kernel_arg_t;

#endif
