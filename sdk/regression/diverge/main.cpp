// diverge host: data-dependent control flow on the device, checked against the CPU.
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
static uint32_t count = 131;  // not a multiple of the warp width: exercises the partial pass

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
  std::printf("open device connection\n");
  RT_CHECK(vx_dev_open(&device));

  kernel_arg_t kernel_arg = {};
  kernel_arg.num_points = count;
  const uint64_t src_size = uint64_t{count} * sizeof(int32_t);
  const uint64_t dst_size = src_size * DIVERGE_OUTPUTS;
  std::printf("number of points: %u\n", count);

  RT_CHECK(vx_mem_alloc(device, src_size, VX_MEM_READ, &src_buffer));
  RT_CHECK(vx_mem_address(src_buffer, &kernel_arg.src_addr));
  RT_CHECK(vx_mem_alloc(device, dst_size, VX_MEM_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<int32_t> h_src(count), h_dst(count * DIVERGE_OUTPUTS);
  std::mt19937 rng(99);
  std::uniform_int_distribution<int32_t> dist(0, 100);
  for (auto& v : h_src) v = dist(rng);
  RT_CHECK(vx_copy_to_dev(src_buffer, h_src.data(), 0, src_size));

  std::printf("upload program\n");
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));

  std::printf("start device\n");
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, dst_size));

  int errors = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const int32_t v = h_src[i];
    const int32_t ref[DIVERGE_OUTPUTS] = {diverge_nested(v), diverge_loop_sum(v),
                                          diverge_vote_sum(v),
                                          v > 20 ? (v < 30 ? v : 30) : (v > 5 ? v : 5)};
    for (int o = 0; o < DIVERGE_OUTPUTS; ++o) {
      const int32_t got = h_dst[i * DIVERGE_OUTPUTS + static_cast<uint32_t>(o)];
      if (got != ref[o]) {
        if (errors < 100) {
          std::printf("*** error: [%u].%d (input %d) expected=%d, actual=%d\n", i, o, v, ref[o], got);
        }
        ++errors;
      }
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
