// conv3: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef CONV3_COMMON_H
#define CONV3_COMMON_H

#include <stdint.h>

#ifndef TYPE
#define TYPE float
#endif

typedef struct {
  uint32_t grid_dim[2];  // {N, N}: thread mode, one thread per output pixel
  uint32_t width;        // N (output width = height)
  uint32_t pad;
  uint64_t I_addr;       // (N+2) x (N+2) input, zero border, row-major
  uint64_t W_addr;       // 3 x 3 weights, row-major
  uint64_t O_addr;       // N x N output, row-major
} kernel_arg_t;

#endif
