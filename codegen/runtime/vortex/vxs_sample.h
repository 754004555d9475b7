// vxs_sample.h: the launch block of a vxsynth Vortex candidate with its sampled-tile check
// (docs/vxsim.md "Sampled-tile check"): kernel_arg_t followed by the list of GEMM block ids the
// check runs. Host and kernel; the kernel reads it from MSCRATCH like kernel_arg_t.
#ifndef VXS_SAMPLE_H
#define VXS_SAMPLE_H

#include <stdint.h>

#include "vxs_kernel_arg.h"

/// kernel_arg_t first, so the kernel's kernel_arg_t* points at it.
typedef struct {
  kernel_arg_t arg;
  uint64_t sample_addr;   // uint32 GEMM block ids to run (0 when the whole grid runs)
  uint32_t sample_count;  // number of ids at sample_addr; 0 = the whole grid_dim
  uint32_t reserved;
} vxs_launch_t;

#if defined(__riscv)
#include <vx_spawn.h>

/// Block k of a launch over sample_count blocks stands for GEMM block ids[k] of the whole grid
/// arg.grid_dim: sets blockIdx to that block's index (x fastest, as vx_spawn_threads decomposes);
/// uniform over the block.
static inline void vxs_sampled_block(const vxs_launch_t* l) {
  const uint32_t* ids = (const uint32_t*)(uintptr_t)l->sample_addr;
  const uint32_t id = ids[blockIdx.x];
  const uint32_t gx = l->arg.grid_dim[0], gy = l->arg.grid_dim[1];
  blockIdx.x = id % gx;
  blockIdx.y = (id / gx) % gy;
  blockIdx.z = id / (gx * gy);
}
#endif

#endif  // VXS_SAMPLE_H
