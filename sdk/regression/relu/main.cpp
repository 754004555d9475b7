// relu host: dst = max(src, 0) on the device, checked bit for bit against the CPU.
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
static uint32_t count = 100;

static vx_device_h device = nullptr;
static vx_buffer_h src_buffer = nullptr, dst_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void cleanup() {
  if (device) {
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
        std::printf("Usage: [-k kernel.vxbin] [-n points] [-h]\n");
        std::exit(c == 'h' ? 0 : -1);
    }
  }
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  RT_CHECK(vx_dev_open(&device));

  kernel_arg_t kernel_arg = {};
  kernel_arg.num_points = count;
  const uint64_t buf_size = uint64_t{count} * sizeof(TYPE);
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src_buffer));
  RT_CHECK(vx_mem_address(src_buffer, &kernel_arg.src_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<TYPE> h_src(count), h_dst(count);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);  // both signs: lanes disagree
  for (auto& v : h_src) v = static_cast<TYPE>(dist(rng));
  RT_CHECK(vx_copy_to_dev(src_buffer, h_src.data(), 0, buf_size));
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, buf_size));

  int errors = 0, negatives = 0;
  for (uint32_t i = 0; i < count; ++i) {
    negatives += h_src[i] < 0;
    const TYPE ref = h_src[i] < 0 ? TYPE(0) : h_src[i];
    if (std::memcmp(&h_dst[i], &ref, sizeof(TYPE)) != 0) {
      if (errors < 100) {
        std::printf("*** error: [%u] expected=%f, actual=%f\n", i, static_cast<double>(ref),
                    static_cast<double>(h_dst[i]));
      }
      ++errors;
    }
  }
  std::printf("%u points, %d negative\n", count, negatives);

  cleanup();
  if (errors != 0) {
    std::printf("Found %d errors!\nFAILED!\n", errors);
    return errors;
  }
  std::printf("PASSED!\n");
  return 0;
}
