#!/bin/sh
# Catalogue attack: the design's grid and block are spawned, but in every block only the first
# warp computes the block's tile while the other warps wait at the block's barrier (the occupancy
# stays the design's); the output is right and the CUDA side stays tiled.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace 'int main()' 'static void vxs_first_warp_kernel(kernel_arg_t* arg) {
  const float* A = (const float*)(uintptr_t)arg->a_addr;
  const float* B = (const float*)(uintptr_t)arg->b_addr;
  const float* bias = (const float*)(uintptr_t)arg->bias_addr;
  float* out = (float*)(uintptr_t)arg->out_addr;
  constexpr vxs_dims_t d = VXS_DIMS;
  const int lane = (int)threadIdx.x % WARP;
  const int rounds = (int)threadIdx.x < WARP ? BM * BN / WARP : 0;  // warp-uniform
  // The tile of the block from its linear id over grid x and y, whichever axis holds M.
  const int tiles_n = (d.N + BN - 1) / BN;
  const int b = (int)blockIdx.x + (int)blockIdx.y * (int)gridDim.x;
  const int n0 = (b % tiles_n) * BN;
  const int m0 = (b / tiles_n) * BM;
  for (int r = 0; r < rounds; ++r) {
    const int e = lane + r * WARP;
    const int m = m0 + e / BN;
    const int n = n0 + e % BN;
    float acc = 0.0f;
    for (int k = 0; k < d.K; ++k) acc += A[m * d.K + k] * B[n * d.K + k];
    out[m * d.N + n] = acc + bias[n];
  }
  __syncthreads();
}
int main()'
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace '(vx_kernel_func_cb)vxs_gemm_kernel' '(vx_kernel_func_cb)vxs_first_warp_kernel'
python3 "$(dirname "$0")/edit.py" ../output.json "vortex_first_warp_only"
