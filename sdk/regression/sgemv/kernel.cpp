// sgemv kernel: y = A * x, one thread per row, four columns per step through vec4.h. Thread mode
// requested with an explicit block of one thread (block_dim pointing at 1), as Vortex's sgemv does.
#include <vx_spawn.h>

#include "common.h"
#include "vec4.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto A = reinterpret_cast<const float*>(arg->A_addr);
  auto x = reinterpret_cast<const float*>(arg->x_addr);
  auto y = reinterpret_cast<float*>(arg->y_addr);
  uint32_t N = arg->N;
  uint32_t row = blockIdx.x * blockDim.x + threadIdx.x;  // blockDim.x = 1, threadIdx.x = 0
  float sum = 0.0f;
  for (uint32_t col = 0; col < N; col += 4) {  // uniform trip count
    sum += vec4_hsum(vec4_mul(vec4_load(&A[row * N + col]), vec4_load(&x[col])));
  }
  y[row] = sum;
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  uint32_t one_thread_blocks = 1;
  return vx_spawn_threads(1, arg->grid_dim, &one_thread_blocks, (vx_kernel_func_cb)kernel_body, arg);
}
