// madmax: shared host/device layout and the computation itself (tests/regression layout,
// docs/vortex.md §6.1): the same inline function runs on the device and builds the host reference.
#ifndef MADMAX_COMMON_H
#define MADMAX_COMMON_H

#include <math.h>
#include <stdint.h>

#define MADMAX_ACCS 16   // independent accumulators per thread
#define MADMAX_ITERS 32  // rounds: MADMAX_ACCS * MADMAX_ITERS fused multiply-adds per thread

typedef struct {
  uint32_t grid_dim[2];  // {size, size}: a 2-D grid in thread mode (block_dim nullptr)
  uint32_t size;
  uint32_t pad;
  uint64_t dst_addr;     // size x size floats
} kernel_arg_t;

// FMA-bound work for point (row, col): 16 independent fmaf chains (fmadd.s on the device, the
// correctly rounded fmaf of the host's libm: bit-identical). a[k] = a[k] * a[k+1] + 0.25 keeps
// every value in [0.25, 0.5] for starts in that range, so nothing overflows or goes subnormal.
inline float madmax_compute(uint32_t row, uint32_t col, uint32_t size) {
  float a[MADMAX_ACCS];
  const uint32_t seed = row * size + col;
  for (uint32_t k = 0; k < MADMAX_ACCS; ++k) {
    a[k] = 0.25f + static_cast<float>((seed * 7u + k * 13u) % 64u) * (0.25f / 64.0f);
  }
  for (int it = 0; it < MADMAX_ITERS; ++it) {
    for (uint32_t k = 0; k < MADMAX_ACCS; ++k) {
      a[k] = fmaf(a[k], a[(k + 1) % MADMAX_ACCS], 0.25f);
    }
  }
  float sum = 0.0f;
  for (uint32_t k = 0; k < MADMAX_ACCS; ++k) sum += a[k];
  return sum;
}

#endif
