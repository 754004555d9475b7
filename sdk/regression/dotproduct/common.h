// dotproduct: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef DOTPRODUCT_COMMON_H
#define DOTPRODUCT_COMMON_H

#include <stdint.h>

#ifndef TYPE
#define TYPE float
#endif

typedef struct {
  uint32_t grid_dim[1];   // blocks
  uint32_t block_dim[1];  // threads per block (a power of two): block mode
  uint32_t num_points;
  uint32_t pad;
  uint64_t src0_addr;
  uint64_t src1_addr;
  uint64_t dst_addr;      // one partial sum per block
} kernel_arg_t;

#endif
