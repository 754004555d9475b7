// Benchmark kernels for bench/timing_bench.cc: a naive sgemm and a 3×3 convolution, written for
// the SDK's vx_spawn_threads (thread mode: blockIdx.x is the global thread id). Loop bounds are
// uniform, so no branch diverges.
#include <vx_intrinsics.h>
#include <vx_spawn.h>

#include "bench_kernels.h"

static void sgemm(const bench_arg_t* a, uint32_t id) {
  const float* A = reinterpret_cast<const float*>(a->a);
  const float* B = reinterpret_cast<const float*>(a->b);
  float* C = reinterpret_cast<float*>(a->c);
  const uint32_t n = a->n;
  const uint32_t row = id / n;
  const uint32_t col = id % n;
  float sum = 0.0f;
  for (uint32_t k = 0; k < n; ++k) sum += A[row * n + k] * B[k * n + col];
  C[id] = sum;
}

static void conv3(const bench_arg_t* a, uint32_t id) {
  const float* I = reinterpret_cast<const float*>(a->a);
  const float* W = reinterpret_cast<const float*>(a->b);
  float* O = reinterpret_cast<float*>(a->c);
  const uint32_t n = a->n;
  const uint32_t y = id / n;
  const uint32_t x = id % n;
  const uint32_t stride = n + 2;
  float sum = 0.0f;
  for (uint32_t dy = 0; dy < 3; ++dy) {
    for (uint32_t dx = 0; dx < 3; ++dx) sum += I[(y + dy) * stride + x + dx] * W[dy * 3 + dx];
  }
  O[id] = sum;
}

static void body(void* arg) {
  const bench_arg_t* a = reinterpret_cast<const bench_arg_t*>(arg);
  if (a->kernel == kBenchSgemm) {
    sgemm(a, blockIdx.x);
  } else {
    conv3(a, blockIdx.x);
  }
}

int main() {
  bench_arg_t* a = reinterpret_cast<bench_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &a->threads, nullptr, body, a);
}
