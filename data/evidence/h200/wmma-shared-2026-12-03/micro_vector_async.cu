// How smsp__sass_average_data_bytes_per_sector_mem_global_op_ld counts vector loads and cp.async.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void ldg128(const float4* __restrict__ a, float4* o) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; o[i] = a[i];
}
__global__ void ldg64(const float2* __restrict__ a, float2* o) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; o[i] = a[i];
}
__device__ void cp16(void* dst, const void* src) {
  unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}
__device__ void cp4(void* dst, const void* src) {
  unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(src) : "memory");
}
__global__ void async16(const float4* __restrict__ a, float* o, int one_ldg) {
  __shared__ float4 s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cp16(&s[threadIdx.x], &a[i]);
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  float v = s[(threadIdx.x + 1) & 255].x;
  if (one_ldg && (threadIdx.x & 31) == 0) v += ((const float*)a)[i];
  o[i] = v;
}
__global__ void async4(const float* __restrict__ a, float* o) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cp4(&s[threadIdx.x], &a[i]);
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  o[i] = s[(threadIdx.x + 1) & 255];
}
int main() {
  int n = 1 << 20; float *a, *o;
  cudaMalloc(&a, n * 16); cudaMalloc(&o, n * 16); cudaMemset(a, 0, n * 16);
  ldg128<<<n / 256, 256>>>((const float4*)a, (float4*)o);
  ldg64<<<n / 256, 256>>>((const float2*)a, (float2*)o);
  async16<<<n / 256, 256>>>((const float4*)a, o, 0);
  async16<<<n / 256, 256>>>((const float4*)a, o, 1);
  async4<<<n / 256, 256>>>(a, o);
  cudaDeviceSynchronize();
  printf("done %s\n", cudaGetErrorString(cudaGetLastError()));
}
