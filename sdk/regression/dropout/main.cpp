// dropout host: device-side pseudo-random dropout, checked bit for bit against the same
// generator on the CPU; the kept fraction must also be near 1 - p.
#include <unistd.h>
#include <vortex.h>

#include <cmath>
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
static uint32_t count = 1000;
static float drop_p = 0.3f;

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
  while ((c = getopt(argc, argv, "n:p:k:h")) != -1) {
    switch (c) {
      case 'n': count = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 'p': drop_p = std::strtof(optarg, nullptr); break;
      case 'k': kernel_file = optarg; break;
      default:
        std::printf("Usage: [-k kernel.vxbin] [-n points] [-p drop probability] [-h]\n");
        std::exit(c == 'h' ? 0 : -1);
    }
  }
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  RT_CHECK(vx_dev_open(&device));

  const uint64_t buf_size = uint64_t{count} * 4;
  kernel_arg_t kernel_arg = {};
  kernel_arg.num_points = count;
  kernel_arg.drop_p = drop_p;
  kernel_arg.scale = 1.0f / (1.0f - drop_p);
  kernel_arg.seed = 0x5eed1234u;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src_buffer));
  RT_CHECK(vx_mem_address(src_buffer, &kernel_arg.src_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<float> h_src(count), h_dst(count);
  std::mt19937 rng(50);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& v : h_src) v = dist(rng);
  RT_CHECK(vx_copy_to_dev(src_buffer, h_src.data(), 0, buf_size));
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, buf_size));

  int errors = 0;
  uint32_t dropped = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const bool drop = dropout_uniform(kernel_arg.seed, i) < drop_p;
    dropped += drop ? 1u : 0u;
    const float ref = drop ? 0.0f : std::fabs(h_src[i]) * kernel_arg.scale;
    if (std::memcmp(&ref, &h_dst[i], 4) != 0) {
      if (errors < 100) {
        std::printf("*** error: [%u] expected=%f, actual=%f\n", i, static_cast<double>(ref),
                    static_cast<double>(h_dst[i]));
      }
      ++errors;
    }
  }
  // Binomial spread: 5 standard deviations of the dropped count.
  const double expect = count * static_cast<double>(drop_p);
  const double sigma = std::sqrt(expect * (1.0 - static_cast<double>(drop_p)));
  std::printf("dropped %u of %u (expected %.1f +- %.1f)\n", dropped, count, expect, sigma);
  if (std::fabs(dropped - expect) > 5.0 * sigma + 1.0) {
    std::printf("*** error: dropped fraction is off\n");
    ++errors;
  }

  cleanup();
  if (errors != 0) {
    std::printf("Found %d errors!\nFAILED!\n", errors);
    return errors;
  }
  std::printf("PASSED!\n");
  return 0;
}
