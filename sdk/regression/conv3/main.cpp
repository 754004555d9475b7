// conv3 host: 3x3 convolution on the device (thread mode), checked against the CPU.
#include <unistd.h>
#include <vortex.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common.h"

#define FLOAT_ULP 6  // as Vortex's regression tests (docs/vortex.md §6.5)

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
static uint32_t size = 64;

static vx_device_h device = nullptr;
static vx_buffer_h I_buffer = nullptr, W_buffer = nullptr, O_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void cleanup() {
  if (device) {
    vx_mem_free(I_buffer);
    vx_mem_free(W_buffer);
    vx_mem_free(O_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "n:k:h")) != -1) {
    switch (c) {
      case 'n': size = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 'k': kernel_file = optarg; break;
      default:
        std::printf("Usage: [-k kernel.vxbin] [-n image width] [-h]\n");
        std::exit(c == 'h' ? 0 : -1);
    }
  }
}

static int ulp_distance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if ((ia < 0) != (ib < 0)) return (a == b) ? 0 : INT32_MAX;
  return ia > ib ? ia - ib : ib - ia;
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  std::printf("open device connection\n");
  RT_CHECK(vx_dev_open(&device));

  const uint32_t n = size;
  const uint32_t pitch = n + 2;
  const uint64_t i_size = uint64_t{pitch} * pitch * sizeof(TYPE);
  const uint64_t w_size = 9 * sizeof(TYPE);
  const uint64_t o_size = uint64_t{n} * n * sizeof(TYPE);
  kernel_arg_t kernel_arg = {};
  kernel_arg.grid_dim[0] = n;
  kernel_arg.grid_dim[1] = n;
  kernel_arg.width = n;
  std::printf("image size: %ux%u\n", n, n);

  RT_CHECK(vx_mem_alloc(device, i_size, VX_MEM_READ, &I_buffer));
  RT_CHECK(vx_mem_address(I_buffer, &kernel_arg.I_addr));
  RT_CHECK(vx_mem_alloc(device, w_size, VX_MEM_READ, &W_buffer));
  RT_CHECK(vx_mem_address(W_buffer, &kernel_arg.W_addr));
  RT_CHECK(vx_mem_alloc(device, o_size, VX_MEM_WRITE, &O_buffer));
  RT_CHECK(vx_mem_address(O_buffer, &kernel_arg.O_addr));

  std::vector<TYPE> h_I(pitch * pitch, TYPE(0)), h_W(9), h_O(n * n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (uint32_t y = 0; y < n; ++y)
    for (uint32_t x = 0; x < n; ++x) h_I[(y + 1) * pitch + (x + 1)] = static_cast<TYPE>(dist(rng));
  for (auto& v : h_W) v = static_cast<TYPE>(dist(rng));
  RT_CHECK(vx_copy_to_dev(I_buffer, h_I.data(), 0, i_size));
  RT_CHECK(vx_copy_to_dev(W_buffer, h_W.data(), 0, w_size));

  std::printf("upload program\n");
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));

  std::printf("start device\n");
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_O.data(), O_buffer, 0, o_size));

  int errors = 0;
  for (uint32_t y = 0; y < n; ++y) {
    for (uint32_t x = 0; x < n; ++x) {
      TYPE ref(0);
      for (uint32_t dy = 0; dy < 3; ++dy)
        for (uint32_t dx = 0; dx < 3; ++dx) ref += h_I[(y + dy) * pitch + (x + dx)] * h_W[dy * 3 + dx];
      const TYPE got = h_O[y * n + x];
      if (ulp_distance(got, ref) > FLOAT_ULP) {
        if (errors < 100) {
          std::printf("*** error: [%u][%u] expected=%f, actual=%f\n", y, x,
                      static_cast<double>(ref), static_cast<double>(got));
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
