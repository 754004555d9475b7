// sgemm_tcu: shared host/device layout (tests/regression layout, docs/vortex.md §6.1, §7.1).
#ifndef SGEMM_TCU_COMMON_H
#define SGEMM_TCU_COMMON_H

#include <stdint.h>

#ifndef NUM_THREADS
#define NUM_THREADS 4  // must equal the device warp width (the kernel is built per width)
#endif

typedef struct {
  uint32_t grid_dim[2];   // {N / tileN, M / tileM}: one warp per output tile
  uint32_t block_dim[2];  // {NUM_THREADS, 1}
  uint32_t M, N, K;
  uint32_t pad;
  uint64_t A_addr;        // M x K fp16 bits (uint16_t), row-major
  uint64_t B_addr;        // K x N fp16 bits (uint16_t), row-major
  uint64_t C_addr;        // M x N float, row-major
} kernel_arg_t;

#endif
