// dogfood host: runs every test of the dogfood kernel (one launch per test id, the same kernel
// and buffers, the arguments rewritten in place with vx_copy_to_dev) and checks each result
// against the CPU: bit for bit, except sinf (picolibc and the host libm may differ by an ULP).
// -t <id> runs one test; the exit code is the number of failed points.
#include <unistd.h>
#include <vortex.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common.h"

#define RT_CHECK(expr)                                                    \
  do {                                                                    \
    int rt_ret_ = (expr);                                                 \
    if (rt_ret_ != 0) {                                                   \
      std::printf("Error: '%s' returned %d!\n", #expr, rt_ret_);          \
      cleanup();                                                          \
      std::exit(-1);                                                      \
    }                                                                     \
  } while (false)

static const char* kernel_file = "kernel.vxbin";
static uint32_t count = 2;
static int only_test = -1;

static vx_device_h device = nullptr;
static vx_buffer_h src0_buffer = nullptr, src1_buffer = nullptr, dst_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void cleanup() {
  if (device) {
    vx_mem_free(src0_buffer);
    vx_mem_free(src1_buffer);
    vx_mem_free(dst_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "n:t:k:h")) != -1) {
    switch (c) {
      case 'n': count = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 't': only_test = std::atoi(optarg); break;
      case 'k': kernel_file = optarg; break;
      default:
        std::printf("Usage: [-k kernel.vxbin] [-n points per task] [-t test id] [-h]\n");
        std::exit(c == 'h' ? 0 : -1);
    }
  }
}

static uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
static float flt(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static uint32_t ubits(int32_t v) { return static_cast<uint32_t>(v); }
static int32_t sval(uint32_t u) { return static_cast<int32_t>(u); }

// Inputs of point i (of n): a kind per test.
using gen_fn = void (*)(uint32_t i, uint32_t* a, uint32_t* b);
static void gen_int(uint32_t i, uint32_t* a, uint32_t* b) {  // both signs, divisor never 0
  *a = ubits(static_cast<int32_t>(i * 37 % 201) - 100);
  int32_t d = static_cast<int32_t>(i * 53 % 97) - 48;
  *b = ubits(d == 0 ? 7 : d);
}
static void gen_big(uint32_t i, uint32_t* a, uint32_t* b) {  // sums above 2^24 and 2^31: rounding
  *a = 0x7f000000u + i * 99991u;
  *b = i * 12345u + 1u;
}
static void gen_float(uint32_t i, uint32_t* a, uint32_t* b) {  // a of both signs, b > 0
  *a = bits(static_cast<float>(static_cast<int32_t>(i % 17) - 8) * 0.37f + 0.01f);
  *b = bits(static_cast<float>(i * 7 % 13 + 1) * 0.21f);
}
static void gen_pos(uint32_t i, uint32_t* a, uint32_t* b) {  // a, b > 0
  *a = bits(static_cast<float>(i % 17 + 1) * 0.37f);
  *b = bits(static_cast<float>(i * 7 % 13 + 1) * 0.21f);
}
static void gen_word(uint32_t i, uint32_t* a, uint32_t* b) { *a = i * 3u + 5u; *b = 0; }

// Expected result word of point i.
using ref_fn = uint32_t (*)(uint32_t a, uint32_t b, uint32_t i);

struct TestCase {
  const char* name;
  gen_fn gen;
  ref_fn ref;
  int ulp;       // allowed distance in ULP (floats), 0: exact
  bool per_task; // one word per task (barrier tests) instead of task_size words
};

static const TestCase kTests[DF_NUM_TESTS] = {
  {"iadd", gen_int, [](uint32_t a, uint32_t b, uint32_t) { return a + b; }, 0, false},
  {"imul", gen_int, [](uint32_t a, uint32_t b, uint32_t) { return ubits(sval(a) * sval(b)); }, 0, false},
  {"idiv", gen_int, [](uint32_t a, uint32_t b, uint32_t) { return ubits(sval(a) / sval(b)); }, 0, false},
  {"irem", gen_int, [](uint32_t a, uint32_t b, uint32_t) { return ubits(sval(a) % sval(b)); }, 0, false},
  {"fadd", gen_float, [](uint32_t a, uint32_t b, uint32_t) { return bits(flt(a) + flt(b)); }, 0, false},
  {"fsub", gen_float, [](uint32_t a, uint32_t b, uint32_t) { return bits(flt(a) - flt(b)); }, 0, false},
  {"fmul", gen_float, [](uint32_t a, uint32_t b, uint32_t) { return bits(flt(a) * flt(b)); }, 0, false},
  {"fmadd", gen_float, [](uint32_t a, uint32_t b, uint32_t) { return bits(std::fma(flt(a), flt(b), flt(b))); }, 0, false},
  {"fnmsub", gen_float, [](uint32_t a, uint32_t b, uint32_t) { return bits(std::fma(-flt(a), flt(b), flt(b))); }, 0, false},
  {"fdiv", gen_float, [](uint32_t a, uint32_t b, uint32_t) { return bits(flt(a) / flt(b)); }, 0, false},
  {"fsqrt-asm", gen_pos, [](uint32_t a, uint32_t b, uint32_t) { return bits(std::sqrt(flt(a) * flt(b))); }, 0, false},
  {"sqrtf", gen_pos, [](uint32_t a, uint32_t b, uint32_t) { return bits(std::sqrt(flt(a) * flt(b))); }, 0, false},
  {"ftoi", gen_float, [](uint32_t a, uint32_t b, uint32_t) { return ubits(static_cast<int32_t>(flt(a) + flt(b))); }, 0, false},
  {"ftou", gen_pos, [](uint32_t a, uint32_t b, uint32_t) { return static_cast<uint32_t>(flt(a) + flt(b)); }, 0, false},
  {"itof", gen_int, [](uint32_t a, uint32_t b, uint32_t) { return bits(static_cast<float>(sval(a) + sval(b))); }, 0, false},
  {"utof", gen_big, [](uint32_t a, uint32_t b, uint32_t) { return bits(static_cast<float>(a + b)); }, 0, false},
  {"fclamp", gen_float, [](uint32_t a, uint32_t b, uint32_t) { return bits(std::fmin(std::fmax(1.0f, flt(a)), flt(b))); }, 0, false},
  {"iclamp", gen_int, [](uint32_t a, uint32_t b, uint32_t) { return ubits(std::min(std::max(1, sval(a)), sval(b))); }, 0, false},
  {"sinf", gen_float, [](uint32_t a, uint32_t b, uint32_t i) {
     const float c = flt(a) * flt(b);
     return bits(i % 4 == 0 ? std::sin(c) : c);
   }, 2, false},
  {"bar", gen_word, [](uint32_t a, uint32_t, uint32_t) { return a + 1; }, 0, true},
  {"gbar", gen_word, [](uint32_t a, uint32_t, uint32_t) { return a + 1; }, 0, true},
};

static uint32_t distance(uint32_t x, uint32_t y) { return x > y ? x - y : y - x; }

// Runs test t; returns its number of wrong points.
static int run_test(uint32_t t, kernel_arg_t& kernel_arg, uint32_t num_points) {
  const TestCase& tc = kTests[t];
  const uint64_t buf_size = uint64_t{num_points} * 4;
  std::vector<uint32_t> a(num_points), b(num_points), dst(num_points, 0xdeadbeefu);
  for (uint32_t i = 0; i < num_points; ++i) tc.gen(i, &a[i], &b[i]);
  RT_CHECK(vx_copy_to_dev(src0_buffer, a.data(), 0, buf_size));
  RT_CHECK(vx_copy_to_dev(src1_buffer, b.data(), 0, buf_size));
  RT_CHECK(vx_copy_to_dev(dst_buffer, dst.data(), 0, buf_size));
  kernel_arg.testid = t;
  RT_CHECK(vx_copy_to_dev(args_buffer, &kernel_arg, 0, sizeof(kernel_arg_t)));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(dst.data(), dst_buffer, 0, buf_size));

  const uint32_t checked = tc.per_task ? kernel_arg.num_tasks : num_points;
  int errors = 0;
  for (uint32_t i = 0; i < checked; ++i) {
    const uint32_t ref = tc.ref(a[i], b[i], i);
    if (distance(ref, dst[i]) > static_cast<uint32_t>(tc.ulp)) {
      if (errors < 10) {
        std::printf("*** error: %s [%u] expected=0x%08x, actual=0x%08x\n", tc.name, i, ref, dst[i]);
      }
      ++errors;
    }
  }
  std::printf("Test%u-%s %s\n", t, tc.name, errors == 0 ? "passed" : "FAILED!");
  return errors;
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  if (count == 0) count = 1;
  RT_CHECK(vx_dev_open(&device));

  uint64_t num_cores = 0, num_warps = 0, num_threads = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_CORES, &num_cores));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));
  const auto num_tasks = static_cast<uint32_t>(num_cores * num_warps * num_threads);
  const uint32_t num_points = count * num_tasks;
  const uint64_t buf_size = uint64_t{num_points} * 4;
  std::printf("%u tasks, %u points per task\n", num_tasks, count);

  kernel_arg_t kernel_arg = {};
  kernel_arg.num_tasks = num_tasks;
  kernel_arg.task_size = count;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src0_buffer));
  RT_CHECK(vx_mem_address(src0_buffer, &kernel_arg.src0_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src1_buffer));
  RT_CHECK(vx_mem_address(src1_buffer, &kernel_arg.src1_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));
  RT_CHECK(vx_mem_alloc(device, sizeof(kernel_arg_t), VX_MEM_READ, &args_buffer));
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));

  int errors = 0;
  for (uint32_t t = 0; t < DF_NUM_TESTS; ++t) {
    if (only_test >= 0 && static_cast<uint32_t>(only_test) != t) continue;
    errors += run_test(t, kernel_arg, num_points);
  }

  cleanup();
  if (errors != 0) {
    std::printf("Found %d errors!\nFAILED!\n", errors);
    return errors;
  }
  std::printf("PASSED!\n");
  return 0;
}
