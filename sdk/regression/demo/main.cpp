// demo host: one task per hardware thread (counted with vx_dev_caps), `-n` points per task.
#include <unistd.h>
#include <vortex.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
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
static uint32_t count = 4;

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
  while ((c = getopt(argc, argv, "n:k:h")) != -1) {
    switch (c) {
      case 'n': count = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 'k': kernel_file = optarg; break;
      default:
        std::printf("Usage: [-k kernel.vxbin] [-n points per task] [-h]\n");
        std::exit(c == 'h' ? 0 : -1);
    }
  }
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  RT_CHECK(vx_dev_open(&device));

  uint64_t num_cores = 0, num_warps = 0, num_threads = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_CORES, &num_cores));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));
  const auto num_tasks = static_cast<uint32_t>(num_cores * num_warps * num_threads);
  const uint32_t num_points = count * num_tasks;
  const uint64_t buf_size = uint64_t{num_points} * sizeof(TYPE);
  std::printf("%lu cores x %lu warps x %lu threads: %u tasks, %u points\n",
              static_cast<unsigned long>(num_cores), static_cast<unsigned long>(num_warps),
              static_cast<unsigned long>(num_threads), num_tasks, num_points);

  kernel_arg_t kernel_arg = {};
  kernel_arg.num_tasks = num_tasks;
  kernel_arg.task_size = count;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src0_buffer));
  RT_CHECK(vx_mem_address(src0_buffer, &kernel_arg.src0_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src1_buffer));
  RT_CHECK(vx_mem_address(src1_buffer, &kernel_arg.src1_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<TYPE> h_src0(num_points), h_src1(num_points), h_dst(num_points);
  std::mt19937 rng(50);
  for (uint32_t i = 0; i < num_points; ++i) {
    h_src0[i] = static_cast<TYPE>(rng() % 2000001) - 1000000;
    h_src1[i] = static_cast<TYPE>(rng() % 2000001) - 1000000;
  }
  RT_CHECK(vx_copy_to_dev(src0_buffer, h_src0.data(), 0, buf_size));
  RT_CHECK(vx_copy_to_dev(src1_buffer, h_src1.data(), 0, buf_size));
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, buf_size));

  int errors = 0;
  for (uint32_t i = 0; i < num_points; ++i) {
    const TYPE ref = h_src0[i] + h_src1[i];
    if (h_dst[i] != ref) {
      if (errors < 100) std::printf("*** error: [%u] expected=%d, actual=%d\n", i, ref, h_dst[i]);
      ++errors;
    }
  }

  cleanup();
  if (errors != 0) {
    std::printf("Found %d errors!\nFAILED!\n", errors);
    return errors;
  }
  std::printf("PASSED!\n");
  return 0;
}
