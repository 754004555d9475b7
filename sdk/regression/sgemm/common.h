// sgemm: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef SGEMM_COMMON_H
#define SGEMM_COMMON_H

#include <stdint.h>

#ifndef TYPE
#define TYPE float
#endif

typedef struct {
  uint32_t grid_dim[2];  // {N, N}: thread mode, one thread per C element
  uint32_t size;         // N
  uint64_t A_addr;       // N x N, row-major
  uint64_t B_addr;       // N x N, row-major
  uint64_t C_addr;       // N x N, row-major
} kernel_arg_t;

#endif
