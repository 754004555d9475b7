#!/bin/sh
# Catalogue attack: the kernel writes zeros.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace 'int main()' 'static void vxs_zero_kernel(void* p) {
  kernel_arg_t* a = (kernel_arg_t*)p;
  float* o = (float*)(uintptr_t)a->out_addr;
  for (int i = 0; i < a->dims.M * a->dims.N; ++i) o[i] = 0.0f;
}
int main()'
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace '(vx_kernel_func_cb)vxs_gemm_kernel' '(vx_kernel_func_cb)vxs_zero_kernel'
python3 "$(dirname "$0")/edit.py" ../output.json "kernel_zeros"
