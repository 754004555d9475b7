// stencil3d: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef STENCIL3D_COMMON_H
#define STENCIL3D_COMMON_H

#include <stdint.h>

#ifndef TYPE
#define TYPE float
#endif

typedef struct {
  uint32_t grid_dim[3];   // size / block_size blocks in x, y, z
  uint32_t block_dim[3];  // block_size threads in x, y, z: block mode
  uint32_t size;          // edge of the cube
  uint32_t pad;
  uint64_t A_addr;        // size^3 input, x fastest
  uint64_t B_addr;        // size^3 output
} kernel_arg_t;

#endif
