// sgemm_tcu kernel: C = A * B with fp16 inputs and fp32 accumulation on the tensor-core unit
// (vx_tensor.h). Block mode, one warp (NUM_THREADS threads, all active) per tileM x tileN tile.
#include <vx_spawn.h>
#include <vx_tensor.h>

#include "common.h"

using ctx = vortex::tensor::wmma_context<NUM_THREADS, vortex::tensor::fp16, vortex::tensor::fp32>;

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto A = reinterpret_cast<const uint16_t*>(arg->A_addr);
  auto B = reinterpret_cast<const uint16_t*>(arg->B_addr);
  auto C = reinterpret_cast<float*>(arg->C_addr);
  uint32_t N = arg->N, K = arg->K;
  uint32_t tile_row = blockIdx.y * ctx::tileM;
  uint32_t tile_col = blockIdx.x * ctx::tileN;

  ctx::fragment_a fa;
  ctx::fragment_b fb;
  ctx::fragment_acc fc;
  ctx::fill_fragment(fc, 0.0f);
  for (uint32_t k = 0; k < K; k += ctx::tileK) {  // uniform trip count
    ctx::load_matrix_sync(fa, A + tile_row * K + k, K);
    ctx::load_matrix_sync(fb, B + k * N + tile_col, N);
    ctx::mma_sync(fc, fa, fb, fc);
  }
  ctx::store_matrix_sync(C + tile_row * N + tile_col, fc, N);
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(2, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)kernel_body, arg);
}
