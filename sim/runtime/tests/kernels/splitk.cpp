// Two-launch split-K row sum: the shape of codegen's split-K candidates (a long partials launch,
// then a short reduction launch of the same image). Loop bounds are uniform across lanes.
#include <vx_intrinsics.h>
#include <vx_spawn.h>

#include "splitk.h"

static void body(void* arg) {
  const splitk_arg_t* p = reinterpret_cast<const splitk_arg_t*>(arg);
  const uint32_t t = blockIdx.x;
  const uint32_t m = p->m, k = p->k, splits = p->splits;
  float* ws = reinterpret_cast<float*>(p->ws);
  if (p->phase == kSplitkPartials) {
    const float* a = reinterpret_cast<const float*>(p->a);
    const uint32_t i = t % m, s = t / m, chunk = k / splits;
    const float* row = a + i * k + s * chunk;
    float acc = 0.0f;
    for (uint32_t kk = 0; kk < chunk; ++kk) acc += row[kk];
    ws[s * m + i] = acc;
  } else {
    float acc = 0.0f;
    for (uint32_t s = 0; s < splits; ++s) acc += ws[s * m + t];
    reinterpret_cast<float*>(p->out)[t] = acc;
  }
}

int main() {
  splitk_arg_t* p = reinterpret_cast<splitk_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  uint32_t threads = p->phase == kSplitkPartials ? p->m * p->splits : p->m;
  return vx_spawn_threads(1, &threads, nullptr, body, p);
}
