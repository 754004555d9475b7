// Runtime test kernel: linear out[m][n] = sum_k x[m][k] * weight[n][k] + bias[n], one thread per
// output, every access guarded with VXS_GLD / VXS_GST (vxs_device.h). The grid has more threads
// than outputs, so the last block's warps diverge on the guard; the simulator runs in
// strict-divergence mode.
#include <stdint.h>
#include <vx_intrinsics.h>
#include <vx_spawn.h>

#include "vxs_device.h"
#include "vxs_kernel_arg.h"

static void linear_kernel(kernel_arg_t* arg) {
  const float* x = (const float*)(uintptr_t)arg->a_addr;
  const float* w = (const float*)(uintptr_t)arg->b_addr;
  const float* bias = (const float*)(uintptr_t)arg->bias_addr;
  uint16_t* out = (uint16_t*)(uintptr_t)arg->out_addr;
  const vxs_dims_t d = arg->dims;
  const int i = (int)blockIdx.x * (int)arg->block_dim[0] + (int)threadIdx.x;
  const int ok = i < d.M * d.N;
  const int m = i / d.N;
  const int n = i - m * d.N;
  float acc = 0.0f;
  for (int k = 0; k < d.K; ++k) {
    float a = 0.0f, b = 0.0f;
    VXS_GLD(a, &x[m * d.K + k], ok);
    VXS_GLD(b, &w[n * d.K + k], ok);
    acc += a * b;
  }
  float bv = 0.0f;
  VXS_GLD(bv, &bias[n], ok);
  // bf16 output through the device conversion; the bf16 -> fp32 -> bf16 round trip must be exact.
  const uint16_t h = vxs_f2bf(acc + bv);
  VXS_GST(&out[i], vxs_f2bf(vxs_bf2f(h)), ok);
}

int main() {
  kernel_arg_t* arg = (kernel_arg_t*)csr_read(VX_CSR_MSCRATCH);
  return vx_spawn_threads(1, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)linear_kernel, arg);
}
