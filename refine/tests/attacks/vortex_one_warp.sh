#!/bin/sh
# Catalogue attack: the Vortex side computes the whole output on one warp (one block of one warp's
# threads, a plain loop over the outputs) while the CUDA side stays tiled; the output is right.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace 'int main()' 'static uint32_t vxs_one_grid[3] = {1, 1, 1};
static uint32_t vxs_one_warp[3] = {WARP, 1, 1};
static void vxs_one_warp_kernel(kernel_arg_t* arg) {
  const float* A = (const float*)(uintptr_t)arg->a_addr;
  const float* B = (const float*)(uintptr_t)arg->b_addr;
  const float* bias = (const float*)(uintptr_t)arg->bias_addr;
  float* out = (float*)(uintptr_t)arg->out_addr;
  constexpr vxs_dims_t d = VXS_DIMS;
  for (int e = (int)threadIdx.x; e < d.M * d.N; e += WARP) {
    const int m = e / d.N;
    const int n = e - m * d.N;
    float acc = 0.0f;
    for (int k = 0; k < d.K; ++k) acc += A[m * d.K + k] * B[n * d.K + k];
    out[m * d.N + n] = acc + bias[n];
  }
}
int main()'
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace 'vx_spawn_threads(3, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)vxs_gemm_kernel' 'vx_spawn_threads(3, vxs_one_grid, vxs_one_warp, (vx_kernel_func_cb)vxs_one_warp_kernel'
python3 "$(dirname "$0")/edit.py" ../output.json "vortex_one_warp"
