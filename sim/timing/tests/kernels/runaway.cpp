// Runaway kernels for the budget and endless-loop tests (tests/runaway_test.cc). They take no
// argument, so the vxsim CLI runs them as they are. RUNAWAY_KIND picks the loop:
//   0  every thread spins on a flag that no thread ever sets (a lost wake-up);
//   1  every thread runs an empty endless loop (`for (;;) {}`);
//   2  every thread steps a random-number generator forever: its registers never repeat, so only
//      the instruction budget or the wall-clock limit stops it;
//   3  not a runaway: warp 0 of core 0 computes for a while and then sets the flag on which every
//      other warp spins (run on 1 core x 4 warps x 4 threads: one body per hardware thread).
#include <vx_intrinsics.h>
#include <vx_spawn.h>

#ifndef RUNAWAY_KIND
#error "define RUNAWAY_KIND (0 spin on a flag, 1 empty loop, 2 counting loop, 3 finite)"
#endif

static volatile uint32_t g_flag;  // in .bss: reads 0, never written
static uint32_t g_out[1024];

static void body(void*) {
  const uint32_t i = blockIdx.x;
#if RUNAWAY_KIND == 0
  while (g_flag == 0) {
  }
  g_out[i % 1024] = 1;
#elif RUNAWAY_KIND == 1
  for (;;) {
  }
#elif RUNAWAY_KIND == 2
  uint32_t x = i;
  for (;;) {
    x = x * 1664525u + 1013904223u;
    __asm__ volatile("" : "+r"(x));
  }
#else
  if (vx_core_id() == 0 && vx_warp_id() == 0) {  // uniform over the warp's lanes
    uint32_t x = i;
    for (uint32_t k = 0; k < 1'500'000; ++k) {  // ~4.5 M warp instructions: past the first probe
      x = x * 1664525u + 1013904223u;
      __asm__ volatile("" : "+r"(x));
    }
    g_out[i] = x;
    g_flag = 1;
  } else {
    while (g_flag == 0) {
    }
    g_out[i % 1024] = 1;
  }
#endif
}

int main() {
#if RUNAWAY_KIND == 3
  const uint32_t n = 16;  // 1 core x 4 warps x 4 threads
#else
  const uint32_t n = 256;  // more threads than 1 core x 4 warps x 4 threads: every warp is busy
#endif
  return vx_spawn_threads(1, &n, nullptr, reinterpret_cast<vx_kernel_func_cb>(body), nullptr);
}
