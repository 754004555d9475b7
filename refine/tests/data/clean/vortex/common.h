#pragma once
#include <stdint.h>
typedef struct {
  uint32_t grid_dim[2];
  uint32_t block_dim[2];
  uint32_t M, N, K;
  uint64_t x_addr, w_addr, b_addr, y_addr;
} kernel_arg_t;
