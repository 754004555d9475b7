// vxs_load_shared / vxs_store_shared against wmma::load_matrix_sync / store_matrix_sync.
#include <cstdio>
#include <cstdlib>
#include "vxs_wmma.cuh"
using namespace nvcuda;
template <int M, int N, int K, class T, class E, class LB, bool OURS>
__global__ void one(const E* g, float* o) {
  __shared__ E sm[64 * 64];
  __shared__ float cs[64 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += 32) sm[i] = g[i];
  __syncthreads();
  wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, float> acc;
  if (OURS) { vxs_load_shared(fa, sm + 3 * 64, 64); vxs_load_shared(fb, sm + 8, 64); }
  else { wmma::load_matrix_sync(fa, sm + 3 * 64, 64); wmma::load_matrix_sync(fb, sm + 8, 64); }
  wmma::fill_fragment(acc, 0.5f);
  wmma::mma_sync(acc, fa, fb, acc);
  if (OURS) vxs_store_shared(cs, acc, 64); else wmma::store_matrix_sync(cs, acc, 64, wmma::mem_row_major);
  __syncthreads();
  for (int i = threadIdx.x; i < 64 * 64; i += 32) o[i] = cs[i];
}
int fails = 0;
template <int M, int N, int K, class T, class E, class LB>
void run(const char* name, const E* g) {
  float *o1, *o2; cudaMalloc(&o1, 64 * 64 * 4); cudaMalloc(&o2, 64 * 64 * 4);
  cudaMemset(o1, 0, 16384); cudaMemset(o2, 0, 16384);
  one<M, N, K, T, E, LB, false><<<1, 32>>>(g, o1);
  one<M, N, K, T, E, LB, true><<<1, 32>>>(g, o2);
  static float h1[4096], h2[4096];
  cudaMemcpy(h1, o1, 16384, cudaMemcpyDeviceToHost); cudaMemcpy(h2, o2, 16384, cudaMemcpyDeviceToHost);
  int bad = 0, nz = 0;
  for (int i = 0; i < 4096; ++i) { bad += h1[i] != h2[i]; nz += h1[i] != 0; }
  printf("%-28s %s (differ %d, nonzero %d) %s\n", name, bad ? "FAIL" : "same", bad, nz, cudaGetErrorString(cudaGetLastError()));
  fails += bad != 0 || nz == 0;
  cudaFree(o1); cudaFree(o2);
}
int main() {
  float* f; __nv_bfloat16* b; half* h;
  cudaMalloc(&f, 4096 * 4); cudaMalloc(&b, 4096 * 2); cudaMalloc(&h, 4096 * 2);
  static float hf[4096]; static __nv_bfloat16 hb[4096]; static half hh[4096];
  for (int i = 0; i < 4096; ++i) { float v = (float)((i * 37) % 17 - 8) / 8.f; hf[i] = v; hb[i] = __float2bfloat16(v); hh[i] = __float2half(v); }
  cudaMemcpy(f, hf, 16384, cudaMemcpyHostToDevice); cudaMemcpy(b, hb, 8192, cudaMemcpyHostToDevice); cudaMemcpy(h, hh, 8192, cudaMemcpyHostToDevice);
  run<16,16,8,wmma::precision::tf32,float,wmma::row_major>("tf32 m16n16k8 b row", f);
  run<16,16,8,wmma::precision::tf32,float,wmma::col_major>("tf32 m16n16k8 b col", f);
  run<16,16,16,__nv_bfloat16,__nv_bfloat16,wmma::row_major>("bf16 m16n16k16 b row", b);
  run<16,16,16,__nv_bfloat16,__nv_bfloat16,wmma::col_major>("bf16 m16n16k16 b col", b);
  run<32,8,16,__nv_bfloat16,__nv_bfloat16,wmma::row_major>("bf16 m32n8k16 b row", b);
  run<32,8,16,__nv_bfloat16,__nv_bfloat16,wmma::col_major>("bf16 m32n8k16 b col", b);
  run<8,32,16,__nv_bfloat16,__nv_bfloat16,wmma::row_major>("bf16 m8n32k16 b row", b);
  run<8,32,16,__nv_bfloat16,__nv_bfloat16,wmma::col_major>("bf16 m8n32k16 b col", b);
  run<16,16,16,half,half,wmma::row_major>("f16 m16n16k16 b row", h);
  run<16,16,16,half,half,wmma::col_major>("f16 m16n16k16 b col", h);
  run<32,8,16,half,half,wmma::row_major>("f16 m32n8k16 b row", h);
  run<32,8,16,half,half,wmma::col_major>("f16 m32n8k16 b col", h);
  run<8,32,16,half,half,wmma::row_major>("f16 m8n32k16 b row", h);
  run<8,32,16,half,half,wmma::col_major>("f16 m8n32k16 b col", h);
  printf("%s\n", fails ? "WMMA SHARED FAIL" : "WMMA SHARED PASS");
  return fails;
}
