// stencil3d kernel: 3x3x3 box average over a cube, one thread per point, 3-D grid of 3-D blocks.
// Neighbours outside the cube are clamped to the border (replicated); the clamp is branch-free
// (vx_max_i/vx_min_i) because edge threads and inner threads share warps.
#include <vx_simt.h>
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto A = reinterpret_cast<const TYPE*>(arg->A_addr);
  auto B = reinterpret_cast<TYPE*>(arg->B_addr);
  int size = static_cast<int>(arg->size);
  int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  int z = static_cast<int>(blockIdx.z * blockDim.z + threadIdx.z);
  TYPE sum = 0;
  for (int dz = -1; dz <= 1; ++dz) {
    int nz = vx_min_i(vx_max_i(z + dz, 0), size - 1);
    for (int dy = -1; dy <= 1; ++dy) {
      int ny = vx_min_i(vx_max_i(y + dy, 0), size - 1);
      for (int dx = -1; dx <= 1; ++dx) {
        int nx = vx_min_i(vx_max_i(x + dx, 0), size - 1);
        sum += A[(nz * size + ny) * size + nx];
      }
    }
  }
  B[(z * size + y) * size + x] = sum / TYPE(27);
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(3, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)kernel_body, arg);
}
