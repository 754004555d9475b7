// Host/device layout of the benchmark kernels (bench/kernels/bench_kernels.cpp).
#pragma once
#include <stdint.h>

enum bench_kernel_t : uint32_t {
  kBenchSgemm = 0,  ///< C[n×n] = A[n×n] · B[n×n], one thread per C element (naive, as Vortex's sgemm)
  kBenchConv3 = 1,  ///< O[n×n] = 3×3 convolution of a zero-padded (n+2)×(n+2) input, one thread per output
};

typedef struct {
  uint32_t kernel;
  uint32_t n;
  uint32_t threads;  ///< n*n
  uint32_t pad;
  uint64_t a;        ///< sgemm A / conv input
  uint64_t b;        ///< sgemm B / conv 3×3 weights
  uint64_t c;        ///< output
} bench_arg_t;
