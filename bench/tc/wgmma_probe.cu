// wgmma_probe.cu: how fast a warpgroup-MMA (wgmma) BF16 GEMM of the kind vxsynth's CUDA candidates
// are built from runs at a shipped reference kernel's shape, against the WMMA (mma.sync) candidates
// (docs/codegen.md "Tensor-core strategy", "Warpgroup MMA probe"). A bench program for the device,
// not a candidate: no sandbox, no signature.
//
// Structure (one 384-thread block = 3 warpgroups, as the reference's launch): block tile
// 192 x BN x BK, each warpgroup owns 64 rows x BN; operand tiles staged by 16-byte cp.async fills
// into STAGES shared-memory buffers laid out as wgmma's canonical no-swizzle K-major tiles; per
// 16-deep k step one wgmma.mma_async m64nBNk16 per warpgroup reading A and B through matrix
// descriptors; accumulators in registers (BN / 2 per thread), written out as bf16 pairs.
//
// The descriptors, fences and wgmma forms are the fixed header codegen/runtime/cuda/vxs_wgmma.cuh
// (its comment lists the PTX ISA facts used); the fills are vxs_tc.cuh's cp.async.
// Needs sm_90a: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -o wgmma_probe wgmma_probe.cu
//
// usage: wgmma_probe [M N K] (default: pi0 k2, BF16 linear M=816 N=16384 K=2048)
// Prints per variant two check lines (the first launch, the last timed one) and
//   RESULT tile=192xBNxBK stages=S inflight=I grid=... smem=... time_us=... failed=... PASS|FAIL
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "../../codegen/runtime/cuda/vxs_tc.cuh"
#include "../../codegen/runtime/cuda/vxs_wgmma.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                      \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

constexpr int kThreads = 384;         // the reference's block: 3 warpgroups
constexpr int kWarpgroups = kThreads / 128;
constexpr int kBM = 64 * kWarpgroups;  // each warpgroup owns 64 rows (wgmma's M)

/// 16-byte fills of a rows x BK tile: consecutive threads take consecutive rows of one core matrix
/// (distinct 16-byte bank groups of shared memory), then the next 16 bytes along K.
template <int BK>
static __device__ __forceinline__ void fill_tile(__nv_bfloat16* tile, const __nv_bfloat16* g, int rows, int row0,
                                                 int row_end, int k0, int K) {
  for (int e = threadIdx.x; e < rows * BK / 8; e += kThreads) {
    const int r = (e / (8 * (BK / 8))) * 8 + (e & 7);
    const int c = ((e >> 3) % (BK / 8)) * 8;
    const int ok = row0 + r < row_end;
    vxs_fill16_async(tile + vxs_canonical(r, c, BK), g + (size_t)(ok ? row0 + r : 0) * K + k0 + c, ok);
  }
}

/// C[M x N] = A[M x K] * B[N x K]^T (F.linear without bias), bf16 in and out, fp32 accumulation.
/// K % BK == 0 and N % BN == 0 (the probe's shapes); rows past M are zero-filled and not stored.
/// INFLIGHT warpgroup-MMA groups stay in flight across the stage barrier (0 or 1); the copies run
/// STAGES - 1 - INFLIGHT stages ahead, so a buffer is refilled only after its wgmma completed.
template <int BN, int BK, int STAGES, int INFLIGHT>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_gemm(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B, __nv_bfloat16* __restrict__ C,
               int M, int N, int K) {
  constexpr int kAhead = STAGES - 1 - INFLIGHT;  // stages of copies in flight
  static_assert(kAhead >= 1, "at least one stage of copies ahead");
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* As = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* Bs = As + STAGES * kBM * BK;
  const int wg = threadIdx.x / 128;
  const int m0 = blockIdx.x * kBM, n0 = blockIdx.y * BN;
  float acc[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
  vxs_wgmma_fence_operand(acc);
  const int kt = K / BK;
#pragma unroll
  for (int s = 0; s < kAhead; ++s) {
    if (s < kt) {
      fill_tile<BK>(As + s * kBM * BK, A, kBM, m0, M, s * BK, K);
      fill_tile<BK>(Bs + s * BN * BK, B, BN, n0, N, s * BK, K);
    }
    vxs_async_commit();
  }
  for (int t = 0; t < kt; ++t) {
    vxs_async_wait<kAhead - 1>();
    vxs_fence_async_shared();  // this thread's copies of stage t, visible to wgmma
    __syncthreads();       // every thread's; and the buffer refilled below is no longer read
    const int tn = t + kAhead;
    if (tn < kt) {
      const int sn = tn % STAGES;
      fill_tile<BK>(As + sn * kBM * BK, A, kBM, m0, M, tn * BK, K);
      fill_tile<BK>(Bs + sn * BN * BK, B, BN, n0, N, tn * BK, K);
    }
    vxs_async_commit();
    const int s = t % STAGES;
    const __nv_bfloat16* a = As + s * kBM * BK + vxs_canonical(wg * 64, 0, BK);
    const __nv_bfloat16* b = Bs + s * BN * BK;
    vxs_wgmma_fence();  // accumulator accesses so far (the zeros) before this stage's wgmma
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16)
      vxs_wgmma_bf16(acc, vxs_wgmma_desc(a + (kk / 8) * VXS_CORE_ELEMS, BK), vxs_wgmma_desc(b + (kk / 8) * VXS_CORE_ELEMS, BK));
    vxs_wgmma_commit();
    vxs_wgmma_wait<INFLIGHT>();
  }
  vxs_wgmma_wait<0>();
  vxs_wgmma_fence_operand(acc);  // the write-out reads the final accumulators
  const int lig = threadIdx.x % 128;  // thread of its warpgroup
#pragma unroll
  for (int i = 0; i < BN / 2; i += 2) {  // element pairs in adjacent columns
    const int row = m0 + wg * 64 + vxs_wgmma_row(lig, i), col = n0 + vxs_wgmma_col(lig, i);
    if (row < M) *reinterpret_cast<__nv_bfloat162*>(C + (size_t)row * N + col) = __floats2bfloat162_rn(acc[i], acc[i + 1]);
  }
}

/// Reference: one thread per output, fp32 accumulation in K order.
__global__ void reference_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* R, int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += __bfloat162float(A[(size_t)m * K + k]) * __bfloat162float(B[(size_t)n * K + k]);
  R[(size_t)m * N + n] = s;
}

struct Problem {
  int M, N, K;
  __nv_bfloat16 *A, *B, *C;
  std::vector<float> ref;
};

/// Elements of C (on the GPU) outside the tolerance of the reference: bf16 output rounding (2^-8)
/// plus summation order; NaN (never written) fails. Prints the largest relative error seen.
long compare(const Problem& p) {
  std::vector<__nv_bfloat16> out((size_t)p.M * p.N);
  CHECK(cudaMemcpy(out.data(), p.C, out.size() * 2, cudaMemcpyDeviceToHost));
  double max_rel = 0;
  long failed = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const double c = __bfloat162float(out[i]), r = p.ref[i];
    const double err = std::fabs(c - r);
    if (!(err <= 2e-2 * std::fabs(r) + 2e-2)) ++failed;
    max_rel = std::isnan(c) ? INFINITY : std::max(max_rel, err / (std::fabs(r) + 1e-3));
  }
  std::printf("check: %ld of %zu outside the tolerance, max relative error %.3e\n", failed, out.size(), max_rel);
  return failed;
}

template <int BN, int BK, int STAGES, int INFLIGHT>
void run(const Problem& p) {
  auto kernel = wgmma_gemm<BN, BK, STAGES, INFLIGHT>;
  const int smem = STAGES * (kBM + BN) * BK * 2;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const dim3 grid((p.M + kBM - 1) / kBM, p.N / BN);
  CHECK(cudaMemset(p.C, 0xFF, (size_t)p.M * p.N * 2));  // NaN: an element never written fails
  kernel<<<grid, kThreads, smem>>>(p.A, p.B, p.C, p.M, p.N, p.K);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  long failed = compare(p);
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  constexpr int kReps = 20;
  CHECK(cudaEventRecord(t0));
  for (int i = 0; i < kReps; ++i) kernel<<<grid, kThreads, smem>>>(p.A, p.B, p.C, p.M, p.N, p.K);
  CHECK(cudaEventRecord(t1));
  CHECK(cudaEventSynchronize(t1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, t0, t1));
  failed += compare(p);  // the output of the last timed launch
  std::printf("RESULT tile=%dx%dx%d stages=%d inflight=%d grid=%ux%u smem=%d time_us=%.1f failed=%ld %s\n", kBM, BN, BK,
              STAGES, INFLIGHT, grid.x, grid.y, smem, 1000.0 * ms / kReps, failed, failed ? "FAIL" : "PASS");
}

int main(int argc, char** argv) {
  Problem p{816, 16384, 2048, nullptr, nullptr, nullptr, {}};
  if (argc != 1 && argc != 4) {
    std::fprintf(stderr, "usage: wgmma_probe [M N K]\n");
    return 2;
  }
  if (argc == 4) p = {std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]), nullptr, nullptr, nullptr, {}};
  if (p.M <= 0 || p.N <= 0 || p.K <= 0 || p.K % 64 || p.N % 256) {
    std::fprintf(stderr, "wgmma_probe: M, N, K must be positive, K a multiple of 64 and N of 256 (got M=%d N=%d K=%d)\n", p.M, p.N, p.K);
    return 2;
  }
  std::vector<__nv_bfloat16> ha((size_t)p.M * p.K), hb((size_t)p.N * p.K);
  uint32_t x = 12345;
  auto rnd = [&] { x = x * 1664525u + 1013904223u; return ((x >> 8) / 16777216.0f - 0.5f); };
  for (auto& v : ha) v = __float2bfloat16(rnd());
  for (auto& v : hb) v = __float2bfloat16(rnd());
  CHECK(cudaMalloc(&p.A, ha.size() * 2));
  CHECK(cudaMalloc(&p.B, hb.size() * 2));
  CHECK(cudaMalloc(&p.C, (size_t)p.M * p.N * 2));
  CHECK(cudaMemcpy(p.A, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(p.B, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  float* r = nullptr;
  CHECK(cudaMalloc(&r, (size_t)p.M * p.N * 4));
  reference_gemm<<<dim3((p.N + 255) / 256, p.M), 256>>>(p.A, p.B, r, p.M, p.N, p.K);
  CHECK(cudaGetLastError());
  p.ref.resize((size_t)p.M * p.N);
  CHECK(cudaMemcpy(p.ref.data(), r, p.ref.size() * 4, cudaMemcpyDeviceToHost));
  std::printf("wgmma_probe M=%d N=%d K=%d\n", p.M, p.N, p.K);
  run<128, 64, 4, 0>(p);
  run<128, 32, 6, 0>(p);
  run<256, 64, 3, 0>(p);
  run<256, 32, 4, 0>(p);
  run<128, 64, 4, 1>(p);
  run<256, 32, 4, 1>(p);
  run<256, 32, 5, 1>(p);
  return 0;
}
