// mstress: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef MSTRESS_COMMON_H
#define MSTRESS_COMMON_H

#include <stdint.h>

#define NUM_LOADS 8  // dependent table loads per output point

typedef struct {
  uint32_t num_tasks;   // grid_dim[0]: cores * warps * threads, from vx_dev_caps
  uint32_t stride;      // output points per task
  uint64_t table_addr;  // uint32_t next index per point (random, < num_points)
  uint64_t src_addr;    // float value per point
  uint64_t dst_addr;    // float result per point
} kernel_arg_t;

#endif
