// printf: shared host/device layout (tests/regression layout, docs/vortex.md §6.1).
#ifndef PRINTF_COMMON_H
#define PRINTF_COMMON_H

#include <stdint.h>

// Line printed by every task; the kernel stores vx_printf's return value (bytes printed) and the
// host checks it against snprintf of the same line.
#define PRINTF_FORMAT "printf: task=%u value=%d half=%.2f\n"

typedef struct {
  uint32_t num_points;  // thread mode grid
  uint32_t pad;
  uint64_t src_addr;    // int32_t[num_points]
  uint64_t dst_addr;    // int32_t[num_points]: bytes printed by each task
} kernel_arg_t;

#endif
