// mstress host: chains of dependent random loads on every hardware thread (counted with
// vx_dev_caps), checked bit for bit against the same chains on the CPU.
#include <unistd.h>
#include <vortex.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
static uint32_t count = 2;

static vx_device_h device = nullptr;
static vx_buffer_h table_buffer = nullptr, src_buffer = nullptr, dst_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void cleanup() {
  if (device) {
    vx_mem_free(table_buffer);
    vx_mem_free(src_buffer);
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
  if (count == 0) count = 1;
  RT_CHECK(vx_dev_open(&device));

  uint64_t num_cores = 0, num_warps = 0, num_threads = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_CORES, &num_cores));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));
  const auto num_tasks = static_cast<uint32_t>(num_cores * num_warps * num_threads);
  const uint32_t n = count * num_tasks;
  const uint64_t buf_size = uint64_t{n} * 4;
  std::printf("%u tasks, %u points, %d dependent loads each\n", num_tasks, n, NUM_LOADS);

  kernel_arg_t kernel_arg = {};
  kernel_arg.num_tasks = num_tasks;
  kernel_arg.stride = count;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &table_buffer));
  RT_CHECK(vx_mem_address(table_buffer, &kernel_arg.table_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src_buffer));
  RT_CHECK(vx_mem_address(src_buffer, &kernel_arg.src_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<uint32_t> h_table(n);
  std::vector<float> h_src(n), h_dst(n);
  std::mt19937 rng(50);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  for (uint32_t i = 0; i < n; ++i) {
    h_table[i] = static_cast<uint32_t>(rng() % n);
    h_src[i] = dist(rng);
  }
  RT_CHECK(vx_copy_to_dev(table_buffer, h_table.data(), 0, buf_size));
  RT_CHECK(vx_copy_to_dev(src_buffer, h_src.data(), 0, buf_size));
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, buf_size));

  int errors = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t idx = i;
    float ref = 0.0f;
    for (int j = 0; j < NUM_LOADS; ++j) {
      idx = h_table[idx];
      ref = ref * 0.5f + h_src[idx];
    }
    if (std::memcmp(&ref, &h_dst[i], 4) != 0) {
      if (errors < 100) {
        std::printf("*** error: [%u] expected=%f, actual=%f\n", i, static_cast<double>(ref),
                    static_cast<double>(h_dst[i]));
      }
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
