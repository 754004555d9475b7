// sgemm2: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef SGEMM2_COMMON_H
#define SGEMM2_COMMON_H

#include <stdint.h>

#ifndef TYPE
#define TYPE float
#endif

typedef struct {
  uint32_t grid_dim[2];   // {N/T, N/T} blocks
  uint32_t block_dim[2];  // {T, T} threads: block mode, one thread per C element of a tile
  uint32_t size;          // N
  uint32_t tile_size;     // T
  uint64_t A_addr;        // N x N, row-major
  uint64_t B_addr;        // N x N, row-major
  uint64_t C_addr;        // N x N, row-major
} kernel_arg_t;

#endif
