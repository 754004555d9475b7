// Shared host/device layout of the timing micro-kernels (tests/kernels/micro.cpp).
#pragma once
#include <stdint.h>

/// Modes of the micro-kernel; each isolates one behaviour the timing model must show.
enum micro_mode_t : uint32_t {
  kMicroStrideLoad = 0,  ///< acc += src[(k*n + i)*stride], k < iters, reps times: coalescing, L1 reuse
  kMicroEvenLanes = 1,   ///< integer loop with only even lanes active (vx_pred): active_lanes 0.5
  kMicroAllLanes = 2,    ///< the same loop with every lane active
  kMicroLmem = 3,        ///< local[(lane*stride) % 1024] += 1, iters times: bank conflicts
  kMicroBarrier = 4,     ///< group mode, one block per core, __syncthreads() in every iteration
  kMicroNoBarrier = 5,   ///< the same without the barrier
};

typedef struct {
  uint32_t mode;
  uint32_t n;       ///< threads (thread modes) or threads per block (group modes)
  uint32_t stride;  ///< in 4-byte words
  uint32_t iters;
  uint32_t reps;
  uint32_t pad;
  uint64_t src;     ///< float array
  uint64_t dst;     ///< one uint32 per thread
} micro_arg_t;
