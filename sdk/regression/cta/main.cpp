// cta host: a 3-D grid of 3-D blocks with per-block local memory and barriers, checked on the CPU.
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
static uint32_t grid[3] = {3, 2, 2};
static uint32_t block[3] = {2, 2, 2};

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
  while ((c = getopt(argc, argv, "x:y:z:a:b:c:k:h")) != -1) {
    auto v = [] { return static_cast<uint32_t>(std::atoi(optarg)); };
    switch (c) {
      case 'x': grid[0] = v(); break;
      case 'y': grid[1] = v(); break;
      case 'z': grid[2] = v(); break;
      case 'a': block[0] = v(); break;
      case 'b': block[1] = v(); break;
      case 'c': block[2] = v(); break;
      case 'k': kernel_file = optarg; break;
      default:
        std::printf("Usage: [-k kernel.vxbin] [-x|-y|-z grid] [-a|-b|-c block] [-h]\n");
        std::exit(c == 'h' ? 0 : -1);
    }
  }
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  RT_CHECK(vx_dev_open(&device));

  const uint32_t cta_size = block[0] * block[1] * block[2];
  const uint32_t cta_count = grid[0] * grid[1] * grid[2];
  const uint32_t total = cta_size * cta_count;
  uint64_t num_threads = 0, num_warps = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));
  uint32_t max_localmem = 0;
  RT_CHECK(vx_check_occupancy(device, cta_size, &max_localmem));
  std::printf("CTA %ux%ux%u (%u threads), grid %ux%ux%u, %u B local memory per CTA\n", block[0],
              block[1], block[2], cta_size, grid[0], grid[1], grid[2], max_localmem);
  if (cta_size < 2 || cta_size > num_threads * num_warps || cta_size * 4 > max_localmem) {
    std::printf("Error: CTA of %u threads does not fit a core\nFAILED!\n", cta_size);
    cleanup();
    return -1;
  }

  kernel_arg_t kernel_arg = {};
  for (int i = 0; i < 3; ++i) {
    kernel_arg.grid_dim[i] = grid[i];
    kernel_arg.block_dim[i] = block[i];
  }
  RT_CHECK(vx_mem_alloc(device, uint64_t{cta_size} * 4, VX_MEM_READ, &src_buffer));
  RT_CHECK(vx_mem_address(src_buffer, &kernel_arg.src_addr));
  RT_CHECK(vx_mem_alloc(device, uint64_t{total} * 8, VX_MEM_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<int32_t> h_src(cta_size), h_dst(2 * total);
  std::mt19937 rng(50);
  for (auto& v : h_src) v = static_cast<int32_t>(rng() % 100000);
  RT_CHECK(vx_copy_to_dev(src_buffer, h_src.data(), 0, uint64_t{cta_size} * 4));
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, uint64_t{total} * 8));

  int errors = 0;
  for (uint32_t g = 0; g < total; ++g) {
    const uint32_t l = g % cta_size, b = g / cta_size;
    const int32_t ref0 = static_cast<int32_t>(g) + h_src[l];
    const int32_t ref1 = static_cast<int32_t>(b * 1000 + (cta_size - 1 - l));
    if (h_dst[2 * g] != ref0 || h_dst[2 * g + 1] != ref1) {
      if (errors < 100) {
        std::printf("*** error: [%u] expected=%d,%d actual=%d,%d\n", g, ref0, ref1, h_dst[2 * g],
                    h_dst[2 * g + 1]);
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
