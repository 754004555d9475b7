// vxs_kernel_arg.h: the argument block the Vortex host program uploads and the kernel reads from
// MSCRATCH (docs/codegen.md "Vortex candidate"; argument passing: docs/sdk.md).
#ifndef VXS_KERNEL_ARG_H
#define VXS_KERNEL_ARG_H

#include <stdint.h>

#include "vxs_dims.h"

/// Kernel arguments; identical layout on the 64-bit host and the RV32 device (64-bit fields first).
typedef struct {
  uint64_t a_addr;     // GEMM A
  uint64_t b_addr;     // GEMM B
  uint64_t bias_addr;  // bias (0 when the op has none)
  uint64_t out_addr;   // output
  uint64_t ws_addr;    // fp32 split-K / epilogue workspace (0 when unused)
  uint32_t grid_dim[3];
  uint32_t block_dim[3];
  uint32_t phase;      // 0 = GEMM kernel, 1 = reduce/epilogue kernel
  vxs_dims_t dims;
} kernel_arg_t;

#endif  // VXS_KERNEL_ARG_H
