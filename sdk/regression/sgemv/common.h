// sgemv: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef SGEMV_COMMON_H
#define SGEMV_COMMON_H

#include <stdint.h>

typedef struct {
  uint32_t grid_dim[2];  // {M, 1}: one thread per row of A
  uint32_t M;            // rows of A, length of y
  uint32_t N;            // columns of A, length of x (a multiple of 4)
  uint64_t A_addr;       // M x N, row-major
  uint64_t x_addr;
  uint64_t y_addr;
} kernel_arg_t;

#endif
