// demo: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef DEMO_COMMON_H
#define DEMO_COMMON_H

#include <stdint.h>

#ifndef TYPE
#define TYPE int32_t
#endif

typedef struct {
  uint32_t num_tasks;  // grid_dim[0]: cores * warps * threads, from vx_dev_caps
  uint32_t task_size;  // consecutive points per task
  uint64_t src0_addr;
  uint64_t src1_addr;
  uint64_t dst_addr;
} kernel_arg_t;

#endif
