// dogfood: shared host/device layout and the test ids (tests/regression layout, docs/vortex.md
// §6.1). One kernel holds every small test; the host launches it once per test id.
#ifndef DOGFOOD_COMMON_H
#define DOGFOOD_COMMON_H

#include <stdint.h>

// Test ids: the index into the kernel's table and into the host's table (same order).
enum {
  DF_IADD, DF_IMUL, DF_IDIV, DF_IREM, DF_FADD, DF_FSUB, DF_FMUL, DF_FMADD, DF_FNMSUB, DF_FDIV,
  DF_FSQRT_ASM, DF_SQRTF, DF_FTOI, DF_FTOU, DF_ITOF, DF_UTOF, DF_FCLAMP, DF_ICLAMP, DF_SINF,
  DF_BAR, DF_GBAR, DF_NUM_TESTS
};

typedef struct {
  uint32_t num_tasks;  // grid_dim[0]: cores * warps * threads, from vx_dev_caps
  uint32_t task_size;  // points per task
  uint32_t testid;     // DF_*
  uint32_t pad;
  uint64_t src0_addr;  // 32-bit words (int or float by test)
  uint64_t src1_addr;
  uint64_t dst_addr;
} kernel_arg_t;

#endif
