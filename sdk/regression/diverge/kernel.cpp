// diverge kernel: data-dependent control flow written for GCC, which (unlike Vortex's LLVM) does
// not insert SPLIT/JOIN: nested VX_IF regions (vx_split/vx_join), a PRED loop (asm), a loop
// with a vx_vote_any exit test, and branch-free selects. Thread mode; inputs make lanes disagree.
#include <vx_simt.h>
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src = reinterpret_cast<int32_t*>(arg->src_addr);
  auto dst = reinterpret_cast<int32_t*>(arg->dst_addr);
  uint32_t i = blockIdx.x;
  int32_t v = src[i];

  // 1. nested if/else, two levels of IPDOM entries
  int32_t r = 0;
  VX_IF(v > 50) {
    r = v * 2;
    VX_IF(v & 1) {
      r += 1;
    } VX_ENDIF
  } VX_ELSE {
    VX_IF(v < 10) {
      r = -v;
    } VX_ELSE {
      r = v + 100;
    } VX_ENDIF
  } VX_ENDIF
  dst[i * DIVERGE_OUTPUTS + 0] = r;

  // 2. PRED loop: lanes leave as their trip count is reached. Written as one asm block so there
  //    is a single PRED site and the condition stays in one register (see vx_simt.h).
  int tmask = vx_active_threads();
  int32_t n = v % 7;
  int32_t acc, k, c, t;
  __asm__ __volatile__ (
      "li    %[k], 0\n\t"
      "li    %[acc], 0\n\t"
      "1:\n\t"
      "slt   %[c], %[k], %[n]\n\t"
      ".insn r 0x0B, 5, 0, x0, %[c], %[m]\n\t"   // pred c, tmask
      "beqz  %[c], 2f\n\t"                      // uniform: all active lanes agree after PRED
      "mul   %[t], %[k], %[k]\n\t"
      "add   %[acc], %[acc], %[t]\n\t"
      "addi  %[k], %[k], 1\n\t"
      "j     1b\n\t"
      "2:"
      : [k] "=&r"(k), [acc] "=&r"(acc), [c] "=&r"(c), [t] "=&r"(t)
      : [n] "r"(n), [m] "r"(tmask)
      : "memory");
  dst[i * DIVERGE_OUTPUTS + 1] = acc;

  // 3. uniform exit test (vote) + guarded body
  int32_t m = v % 5;
  int32_t prod = 1;
  for (int32_t k = 0; vx_vote_any(k < m); ++k) {
    VX_IF(k < m) {
      prod = prod * 3 + k;
    } VX_ENDIF
  }
  dst[i * DIVERGE_OUTPUTS + 2] = prod;

  // 4. branch-free min / select
  dst[i * DIVERGE_OUTPUTS + 3] = vx_select_i(v > 20, vx_min_i(v, 30), vx_max_i(v, 5));
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->num_points, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
