// dogfood kernel: many small operation tests behind one entry, selected by arg->testid through a
// table of kernel functions (a uniform indirect call). The table is filled by a global C++
// constructor (the SDK's startup runs __libc_init_array). Ops: integer add/mul/div/rem, float
// add/sub/mul/fma/div, sqrt as user asm (fsqrt.s) and through <math.h>, conversions, a float clamp
// with fmin/fmax, an integer clamp with std::min/std::max (<algorithm>: branch-free in the SDK),
// sinf on every fourth point, a core barrier and a global barrier in thread mode.
// Divergence (docs/sdk.md "Divergence rules"): per-lane conditions are VX_IF regions; sinf
// branches on its argument, so it runs one lane at a time (vx_serial).
#include <math.h>
#include <vx_print.h>
#include <vx_simt.h>
#include <vx_spawn.h>

#include <algorithm>

#include "common.h"

typedef void (*test_fn)(kernel_arg_t* arg);

// Elementwise test: dst[k] = op(src0[k], src1[k]) for this task's `task_size` points.
template <class A, class B, class D, class Op>
static inline void map2(kernel_arg_t* arg, Op op) {
  auto src0 = reinterpret_cast<const A*>(arg->src0_addr);
  auto src1 = reinterpret_cast<const B*>(arg->src1_addr);
  auto dst = reinterpret_cast<D*>(arg->dst_addr);
  uint32_t count = arg->task_size;
  uint32_t offset = blockIdx.x * count;
  for (uint32_t i = 0; i < count; ++i) dst[offset + i] = op(src0[offset + i], src1[offset + i]);
}

// sqrt written as user inline asm, under the name Vortex's dogfood gives it; picolibc's own
// __ieee754_sqrtf must not clash with it.
inline float __ieee754_sqrtf(float x) {
  __asm__("fsqrt.s %0, %1" : "=f"(x) : "f"(x));
  return x;
}

static void t_iadd(kernel_arg_t* a) { map2<int32_t, int32_t, int32_t>(a, [](int32_t x, int32_t y) { return x + y; }); }
static void t_imul(kernel_arg_t* a) { map2<int32_t, int32_t, int32_t>(a, [](int32_t x, int32_t y) { return x * y; }); }
static void t_idiv(kernel_arg_t* a) { map2<int32_t, int32_t, int32_t>(a, [](int32_t x, int32_t y) { return x / y; }); }
static void t_irem(kernel_arg_t* a) { map2<int32_t, int32_t, int32_t>(a, [](int32_t x, int32_t y) { return x % y; }); }
static void t_fadd(kernel_arg_t* a) { map2<float, float, float>(a, [](float x, float y) { return x + y; }); }
static void t_fsub(kernel_arg_t* a) { map2<float, float, float>(a, [](float x, float y) { return x - y; }); }
static void t_fmul(kernel_arg_t* a) { map2<float, float, float>(a, [](float x, float y) { return x * y; }); }
static void t_fmadd(kernel_arg_t* a) { map2<float, float, float>(a, [](float x, float y) { return fmaf(x, y, y); }); }
static void t_fnmsub(kernel_arg_t* a) { map2<float, float, float>(a, [](float x, float y) { return fmaf(-x, y, y); }); }
static void t_fdiv(kernel_arg_t* a) { map2<float, float, float>(a, [](float x, float y) { return x / y; }); }
static void t_fsqrt_asm(kernel_arg_t* a) { map2<float, float, float>(a, [](float x, float y) { return __ieee754_sqrtf(x * y); }); }
static void t_sqrtf(kernel_arg_t* a) { map2<float, float, float>(a, [](float x, float y) { return sqrtf(x * y); }); }
static void t_ftoi(kernel_arg_t* a) { map2<float, float, int32_t>(a, [](float x, float y) { return static_cast<int32_t>(x + y); }); }
static void t_ftou(kernel_arg_t* a) { map2<float, float, uint32_t>(a, [](float x, float y) { return static_cast<uint32_t>(x + y); }); }
static void t_itof(kernel_arg_t* a) { map2<int32_t, int32_t, float>(a, [](int32_t x, int32_t y) { return static_cast<float>(x + y); }); }
static void t_utof(kernel_arg_t* a) { map2<uint32_t, uint32_t, float>(a, [](uint32_t x, uint32_t y) { return static_cast<float>(x + y); }); }
static void t_fclamp(kernel_arg_t* a) { map2<float, float, float>(a, [](float x, float y) { return fmin(fmax(1.0f, x), y); }); }
static void t_iclamp(kernel_arg_t* a) { map2<int, int, int>(a, [](int x, int y) { return std::min(std::max(1, x), y); }); }

static void sin_in_place(void* p) { *static_cast<float*>(p) = sinf(*static_cast<float*>(p)); }

// dst = src0 * src1, replaced by its sine on every fourth point.
static void t_sinf(kernel_arg_t* arg) {
  auto src0 = reinterpret_cast<const float*>(arg->src0_addr);
  auto src1 = reinterpret_cast<const float*>(arg->src1_addr);
  auto dst = reinterpret_cast<float*>(arg->dst_addr);
  uint32_t count = arg->task_size;
  uint32_t offset = blockIdx.x * count;
#pragma GCC unroll 1  // one JOIN per region: no tail duplication (docs/sdk.md "Known hazard")
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t j = offset + i;
    float c = src0[j] * src1[j];
    VX_IF((j & 3u) == 0u) {
      vx_serial(sin_in_place, &c);
    } VX_ENDIF
    dst[j] = c;
  }
}

// Thread 0 of warp 0 of each core copies the core's tasks' words, then a barrier of the core's
// warps, then every task increments its word: dst[t] = src0[t] + 1 only if the barrier held.
static void t_bar(kernel_arg_t* arg) {
  auto src = reinterpret_cast<const uint32_t*>(arg->src0_addr);
  auto dst = reinterpret_cast<uint32_t*>(arg->dst_addr);
  uint32_t per_core = arg->num_tasks / static_cast<uint32_t>(vx_num_cores());
  uint32_t first = static_cast<uint32_t>(vx_core_id()) * per_core;
  VX_IF((vx_warp_id() == 0) & (vx_thread_id() == 0)) {
    for (uint32_t i = 0; i < per_core; ++i) dst[first + i] = src[first + i];
  } VX_ENDIF
  vx_fence();
  vx_barrier(0, vx_num_warps());
  dst[blockIdx.x] += 1;
}

// As t_bar across the whole device: core 0 copies every word, then a barrier of the core's warps
// and a global barrier of the cores. The core barrier is needed on one core: a global barrier
// with a count below 2 does nothing (docs/vortex.md §1.3), it does not wait for the warps.
static void t_gbar(kernel_arg_t* arg) {
  auto src = reinterpret_cast<const uint32_t*>(arg->src0_addr);
  auto dst = reinterpret_cast<uint32_t*>(arg->dst_addr);
  VX_IF((vx_core_id() == 0) & (vx_warp_id() == 0) & (vx_thread_id() == 0)) {
    for (uint32_t i = 0; i < arg->num_tasks; ++i) dst[i] = src[i];
  } VX_ENDIF
  vx_fence();
  vx_barrier(0, vx_num_warps());
  vx_barrier(static_cast<int>(0x80000000u), vx_num_cores());
  dst[blockIdx.x] += 1;
}

static test_fn tests[DF_NUM_TESTS];

// Fills the table at startup: a global constructor, run by the SDK's _start before main.
static struct TestTable {
  TestTable() {
    tests[DF_IADD] = t_iadd;           tests[DF_IMUL] = t_imul;
    tests[DF_IDIV] = t_idiv;           tests[DF_IREM] = t_irem;
    tests[DF_FADD] = t_fadd;           tests[DF_FSUB] = t_fsub;
    tests[DF_FMUL] = t_fmul;           tests[DF_FMADD] = t_fmadd;
    tests[DF_FNMSUB] = t_fnmsub;       tests[DF_FDIV] = t_fdiv;
    tests[DF_FSQRT_ASM] = t_fsqrt_asm; tests[DF_SQRTF] = t_sqrtf;
    tests[DF_FTOI] = t_ftoi;           tests[DF_FTOU] = t_ftou;
    tests[DF_ITOF] = t_itof;           tests[DF_UTOF] = t_utof;
    tests[DF_FCLAMP] = t_fclamp;       tests[DF_ICLAMP] = t_iclamp;
    tests[DF_SINF] = t_sinf;           tests[DF_BAR] = t_bar;
    tests[DF_GBAR] = t_gbar;
  }
} test_table;

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  if (arg->testid >= DF_NUM_TESTS || tests[arg->testid] == nullptr) {
    vx_printf("dogfood: no test %u\n", static_cast<unsigned>(arg->testid));
    return -1;
  }
  return vx_spawn_threads(1, &arg->num_tasks, nullptr, (vx_kernel_func_cb)tests[arg->testid], arg);
}
