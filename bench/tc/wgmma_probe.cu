// wgmma_probe.cu: how fast a warpgroup-MMA (wgmma) BF16 GEMM of the kind vxsynth's CUDA candidates
// are built from runs at a shipped reference kernel's shape, against the WMMA (mma.sync) candidates
// (docs/codegen.md "Tensor-core strategy", "Warpgroup MMA"). A bench program for the device,
// not a candidate: no sandbox, no signature.
//
// Structure (one 384-thread block = 3 warpgroups, as the reference's launch): block tile
// 192 x BN x BK, each warpgroup owns 64 rows x BN; operand tiles staged by 16-byte cp.async fills
// into STAGES shared-memory buffers laid out as wgmma's canonical no-swizzle K-major tiles; per
// 16-deep k step one wgmma.mma_async m64nBNk16 per warpgroup reading A and B through matrix
// descriptors; accumulators in registers (BN / 2 per thread), written out as bf16 pairs.
//
// The descriptors, fences and wgmma forms are the fixed header codegen/runtime/cuda/vxs_wgmma.cuh
// (its comment lists the PTX ISA facts used); the fills are vxs_tc.cuh's cp.async; inputs, the
// float64 reference, the comparison with the BF16 path's source-output tolerance
// (check::kPrecisionTable), the NaN-poisoned output and the timing (mean of 10 launches) are the
// candidates' GPU driver, vxs_driver.cuh.
// Build (repository root): nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++20
//   -Icodegen/runtime/common -Icheck/include -Icore/include -o wgmma_probe bench/tc/wgmma_probe.cu
//
// usage: wgmma_probe [M N K] (default: pi0 k2, BF16 linear M=816 N=16384 K=2048)
// Prints per variant the driver's line
//   RESULT wgmma_192xBNxBK_sS_inflightI path=bf16 elements=... max_abs=... max_rel=... failed=... time_us=... PASS|FAIL
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../../codegen/runtime/cuda/vxs_cuda.cuh"
#include "../../codegen/runtime/cuda/vxs_driver.cuh"
#include "../../codegen/runtime/cuda/vxs_tc.cuh"
#include "../../codegen/runtime/cuda/vxs_wgmma.cuh"
#include "vxsynth/check/precision.h"

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

/// One launch of variant <BN, BK, STAGES, INFLIGHT> on the driver's buffers (x, weight; no bias).
template <int BN, int BK, int STAGES, int INFLIGHT>
int launch(__nv_bfloat16* const* in, __nv_bfloat16* out, float* /*ws*/, const vxs_dims_t& d) {
  auto kernel = wgmma_gemm<BN, BK, STAGES, INFLIGHT>;
  const int smem = STAGES * (kBM + BN) * BK * 2;
  const cudaError_t opt_in = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (opt_in != cudaSuccess) return (int)opt_in;
  kernel<<<dim3((d.M + kBM - 1) / kBM, d.N / BN), kThreads, smem>>>(in[0], in[1], out, d.M, d.N, d.K);
  return (int)cudaGetLastError();
}

/// Runs variant <BN, BK, STAGES, INFLIGHT> through the candidates' driver at M x N x K; 0 on PASS.
template <int BN, int BK, int STAGES, int INFLIGHT>
int run(int M, int N, int K) {
  using vxsynth::check::PrecisionPath;
  const auto tol = vxsynth::check::kPrecisionTable[static_cast<size_t>(PrecisionPath::kBf16)].source_output;
  const std::string name = "wgmma_" + std::to_string(kBM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + "_s" +
                           std::to_string(STAGES) + "_inflight" + std::to_string(INFLIGHT);
  VxsDriverSpec s{};
  s.name = name.c_str();
  s.path = "bf16";
  s.dims = vxs_linear_dims(M, N, K);
  s.seed = 0x5eedull;
  s.n_in = 2;
  s.names[0] = "x";
  s.numel[0] = (long long)M * K;
  s.names[1] = "weight";
  s.numel[1] = (long long)N * K;
  s.weight[1] = true;
  s.names[2] = "";
  s.fan_in = K;
  s.out_n = (long long)M * N;
  s.atol = tol.atol;
  s.rtol = tol.rtol;
  s.ref = vxs_ref_linear;
  char* no_args[] = {nullptr};
  return vxs_run_driver<__nv_bfloat16>(s, launch<BN, BK, STAGES, INFLIGHT>, 1, no_args);
}

int main(int argc, char** argv) {
  int M = 816, N = 16384, K = 2048;
  if (argc != 1 && argc != 4) {
    std::fprintf(stderr, "usage: wgmma_probe [M N K]\n");
    return 2;
  }
  if (argc == 4) M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  if (M <= 0 || N <= 0 || K <= 0 || K % 64 || N % 256) {
    std::fprintf(stderr, "wgmma_probe: M, N, K must be positive, K a multiple of 64 and N of 256 (got M=%d N=%d K=%d)\n", M, N, K);
    return 2;
  }
  std::printf("wgmma_probe M=%d N=%d K=%d\n", M, N, K);
  int failed = 0;
  failed |= run<128, 64, 4, 0>(M, N, K);
  failed |= run<128, 32, 6, 0>(M, N, K);
  failed |= run<256, 64, 3, 0>(M, N, K);
  failed |= run<256, 32, 4, 0>(M, N, K);
  failed |= run<128, 64, 4, 1>(M, N, K);
  failed |= run<256, 32, 4, 1>(M, N, K);
  failed |= run<256, 32, 5, 1>(M, N, K);
  return failed ? 1 : 0;
}
