// Kernels for the local-memory race checker tests (tests/race_test.cc). Blocks of two warps
// (2 x NUM_THREADS threads), so warp 0 and warp 1 of a block share its __local_mem(). They take no
// argument; main() checks the results of the kernels that must pass and returns 1 when one is
// wrong. RACE_KIND picks the kernel:
//   0  warp 0 stores words of local memory that warp 1 then loads, with no barrier between;
//   1  the same with __syncthreads() between the store and the load: no race;
//   2  the tile pattern of a tiled GEMM whose accumulator tile Cs aliases the operand tiles As/Bs,
//      with more blocks than the core has block slots (two blocks per slot, run one after the other
//      on the same warps) and no barrier at the end of a block: a warp that is done reading block
//      b's Cs starts filling block b+1's As while the other warp still reads block b's Cs;
//   3  the same with a barrier at the end of each block: no race.
#include <vx_intrinsics.h>
#include <vx_spawn.h>

#ifndef RACE_KIND
#error "define RACE_KIND (0 racy, 1 with barrier, 2 aliased tiles without block-end barrier, 3 with it)"
#endif

static uint32_t g_out[4 * 2 * 32];  // up to 4 blocks of 2 warps x 32 threads

#if RACE_KIND <= 1
constexpr uint32_t kBlocks = 2;  // one block per slot on 4 warps

static void body(void*) {
  const uint32_t nt = vx_num_threads();
  const uint32_t t = threadIdx.x;
  auto* lm = static_cast<volatile uint32_t*>(__local_mem(nt * sizeof(uint32_t)));
  if (t < nt) lm[t] = t + 1;  // warp 0 of the block (uniform over a warp)
#if RACE_KIND == 1
  __syncthreads();
#endif
  if (t >= nt) g_out[blockIdx.x * 2 * nt + t] = lm[t - nt];  // warp 1 reads warp 0's words
}

static uint32_t expected(uint32_t /*block*/, uint32_t t, uint32_t nt) { return t >= nt ? t - nt + 1 : 0; }
#else
constexpr uint32_t kBlocks = 4;  // two blocks per slot on 4 warps

static void body(void*) {
  const uint32_t nt = vx_num_threads();
  const uint32_t n = 2 * nt;  // threads of a block
  const uint32_t t = threadIdx.x, b = blockIdx.x;
  auto* as = static_cast<volatile uint32_t*>(__local_mem(2 * n * sizeof(uint32_t)));
  volatile uint32_t* bs = as + n;
  volatile uint32_t* cs = as;  // the accumulator tile aliases the operand tiles
  as[t] = b + t;
  bs[t] = 2 * t + 1;
  __syncthreads();
  uint32_t acc = 0;
  for (uint32_t k = 0; k < n; ++k) acc += as[k] * bs[(k + t) % n];
  __syncthreads();
  cs[t] = acc;
  __syncthreads();
  g_out[b * n + t] = cs[(t + nt) % n];  // an element the other warp of the block stored
#if RACE_KIND == 3
  __syncthreads();  // block-end barrier: the next block's As fill waits for every reader of Cs
#endif
}

static uint32_t expected(uint32_t b, uint32_t t, uint32_t nt) {
  const uint32_t n = 2 * nt, u = (t + nt) % n;
  uint32_t acc = 0;
  for (uint32_t k = 0; k < n; ++k) acc += (b + k) * (2 * ((k + u) % n) + 1);
  return acc;
}
#endif

int main() {
  const uint32_t nt = vx_num_threads();
  const uint32_t grid = kBlocks, block = 2 * nt;
  if (vx_spawn_threads(1, &grid, &block, reinterpret_cast<vx_kernel_func_cb>(body), nullptr) != 0) return 2;
  for (uint32_t b = 0; b < kBlocks; ++b)
    for (uint32_t t = 0; t < block; ++t)
      if (g_out[b * block + t] != expected(b, t, nt)) return 1;
  return 0;
}
