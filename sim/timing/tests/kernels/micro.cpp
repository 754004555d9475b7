// Timing micro-kernels: one image, the behaviour picked by micro_arg_t::mode (micro.h). Every
// loop bound is uniform across lanes (no divergent branch).
#include <vx_intrinsics.h>
#include <vx_spawn.h>

#include "micro.h"

static void stride_load(micro_arg_t* a, uint32_t i) {
  // Arguments in registers first, so the loop's only loads are the strided ones.
  const float* src = reinterpret_cast<const float*>(a->src);
  const uint32_t reps = a->reps, iters = a->iters, n = a->n, stride = a->stride;
  float acc = 0.0f;
  for (uint32_t r = 0; r < reps; ++r) {
    for (uint32_t k = 0; k < iters; ++k) acc += src[(k * n + i) * stride];
  }
  reinterpret_cast<float*>(a->dst)[i] = acc;
}

static uint32_t lcg_loop(uint32_t seed, uint32_t iters) {
  uint32_t x = seed;
  for (uint32_t k = 0; k < iters; ++k) {
    x = x * 1664525u + 1013904223u;
    __asm__ volatile("" : "+r"(x));  // keep every iteration
  }
  return x;
}

static void lanes(micro_arg_t* a, uint32_t i, bool even_only) {
  uint32_t x = i;
  if (even_only) {
    int mask = vx_active_threads();
    vx_pred((vx_thread_id() & 1) == 0, mask);
    x = lcg_loop(x, a->iters);
    vx_tmc(mask);
  } else {
    x = lcg_loop(x, a->iters);
  }
  reinterpret_cast<uint32_t*>(a->dst)[i] = x;
}

static void lmem(micro_arg_t* a, uint32_t i) {
  volatile uint32_t* local = reinterpret_cast<volatile uint32_t*>(csr_read(VX_CSR_LOCAL_MEM_BASE));
  uint32_t idx = (static_cast<uint32_t>(vx_thread_id()) * a->stride) % 1024u;
  for (uint32_t k = 0; k < a->iters; ++k) local[idx] = local[idx] + 1u;
  reinterpret_cast<uint32_t*>(a->dst)[i] = local[idx];
}

static void barrier(micro_arg_t* a, uint32_t i, bool sync) {
  uint32_t x = i;
  for (uint32_t k = 0; k < a->iters; ++k) {
    x = x * 3u + k;
    if (sync) __syncthreads();
  }
  reinterpret_cast<uint32_t*>(a->dst)[i] = x;
}

static void body(void* arg) {
  micro_arg_t* a = reinterpret_cast<micro_arg_t*>(arg);
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  switch (a->mode) {
    case kMicroStrideLoad: stride_load(a, i); break;
    case kMicroEvenLanes: lanes(a, i, true); break;
    case kMicroAllLanes: lanes(a, i, false); break;
    case kMicroLmem: lmem(a, i); break;
    case kMicroBarrier: barrier(a, i, true); break;
    default: barrier(a, i, false); break;
  }
}

int main() {
  micro_arg_t* a = reinterpret_cast<micro_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  if (a->mode == kMicroBarrier || a->mode == kMicroNoBarrier) {
    uint32_t grid = 1;
    return vx_spawn_threads(1, &grid, &a->n, body, a);
  }
  return vx_spawn_threads(1, &a->n, nullptr, body, a);
}
