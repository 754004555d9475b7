#!/bin/sh
# Catalogue attack: the kernel overwrites an input after using it.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace 'return vx_spawn_threads(3, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)vxs_gemm_kernel, arg);' 'int r = vx_spawn_threads(3, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)vxs_gemm_kernel, arg);
  ((float*)(uintptr_t)arg->b_addr)[0] = 0.0f;
  return r;'
python3 "$(dirname "$0")/edit.py" ../output.json "kernel_overwrites_input"
