// Test fixture: a clean FP32 SIMT linear candidate (y = x·Wᵀ + b), 128 threads per block.
// A comment that mentions atomicAdd( or cublasSgemm must not trip the sandbox.
#include <cuda_runtime.h>
#include <torch/extension.h>

#define TILE_M 32
#define TILE_N 32
#define TILE_K 8

__global__ void __launch_bounds__(128) vxs_linear(const float* __restrict__ x,
                                                  const float* __restrict__ w,
                                                  const float* __restrict__ b, float* y, int M,
                                                  int N, int K) {
  __shared__ float xs[TILE_M][TILE_K];
  __shared__ float ws[TILE_N][TILE_K];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * TILE_M, col0 = blockIdx.x * TILE_N;
  float acc[8] = {0};
  for (int k0 = 0; k0 < K; k0 += TILE_K) {
    for (int i = tid; i < TILE_M * TILE_K; i += 128) {
      const int r = i / TILE_K, c = i % TILE_K;
      xs[r][c] = (row0 + r < M && k0 + c < K) ? x[(row0 + r) * K + k0 + c] : 0.f;
      ws[r][c] = (col0 + r < N && k0 + c < K) ? w[(col0 + r) * K + k0 + c] : 0.f;
    }
    __syncthreads();
    for (int j = 0; j < 8; ++j) {
      const int e = tid * 8 + j, r = e / TILE_N, c = e % TILE_N;
      for (int kk = 0; kk < TILE_K; ++kk) acc[j] += xs[r][kk] * ws[c][kk];
    }
    __syncthreads();
  }
  for (int j = 0; j < 8; ++j) {
    const int e = tid * 8 + j, r = row0 + e / TILE_N, c = col0 + e % TILE_N;
    if (r < M && c < N) y[r * N + c] = acc[j] + b[c];
  }
}

torch::Tensor forward(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
  const int M = static_cast<int>(x.size(0)), K = static_cast<int>(x.size(1));
  const int N = static_cast<int>(w.size(0));
  auto y = torch::empty({M, N}, x.options());
  dim3 grid((N + TILE_N - 1) / TILE_N, (M + TILE_M - 1) / TILE_M);
  vxs_linear<<<grid, 128>>>(x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(),
                            y.data_ptr<float>(), M, N, K);
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "vxsynth proxy"); }
