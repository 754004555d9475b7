// Which lanes does ncu's smsp__sass_average_data_bytes_per_sector_mem_global_op_ld count?
#include <cstdio>
#include <cuda_runtime.h>
__global__ void all_on(const float* __restrict__ a, float* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0; if (i < n) v = a[i]; o[i] = v;
}
// Only lanes 0..3 of a warp load; the condition depends on a runtime value so it is predicated.
__global__ void four_lanes(const float* __restrict__ a, float* o, int n, int lanes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0; if ((threadIdx.x & 31) < lanes) v = a[i]; o[i] = v;
}
// Whole warps predicated off: lane condition false for every lane of odd warps.
__global__ void warps_off(const float* __restrict__ a, float* o, int n, int lim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0; if (((threadIdx.x >> 5) & 1) == 0 && i < lim) v = a[i]; o[i] = v;
}
// Like the candidate's B fill: lane i valid when (i % 64) < 4, over several loads.
__global__ void fill_like(const float* __restrict__ a, float* o, int n, int N) {
  float s = 0;
  for (int k = 0; k < 8; ++k) {
    int e = threadIdx.x + k * blockDim.x;
    int c = e % 64;
    float v = 0; if (c < N) v = a[(blockIdx.x * 8 + k) * 64 + c]; s += v;
  }
  o[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
int main() {
  int n = 1 << 20; float *a, *o;
  cudaMalloc(&a, n * 4 * 4); cudaMalloc(&o, n * 4 * 4); cudaMemset(a, 0, n * 16);
  all_on<<<n / 256, 256>>>(a, o, n);
  four_lanes<<<n / 256, 256>>>(a, o, n, 4);
  warps_off<<<n / 256, 256>>>(a, o, n, n);
  fill_like<<<1024, 384>>>(a, o, n, 4);
  cudaDeviceSynchronize();
  printf("done %s\n", cudaGetErrorString(cudaGetLastError()));
}
