// stencil3d host: 3x3x3 box average of a cube with replicated borders on the device (3-D grid of
// 3-D blocks), checked against the same summation order on the CPU.
#include <unistd.h>
#include <vortex.h>

#include <algorithm>
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
static uint32_t size = 8;
static uint32_t block_size = 2;

static vx_device_h device = nullptr;
static vx_buffer_h A_buffer = nullptr, B_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void cleanup() {
  if (device) {
    vx_mem_free(A_buffer);
    vx_mem_free(B_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "n:b:k:h")) != -1) {
    switch (c) {
      case 'n': size = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 'b': block_size = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 'k': kernel_file = optarg; break;
      default:
        std::printf("Usage: [-k kernel.vxbin] [-n cube edge] [-b block edge] [-h]\n");
        std::exit(c == 'h' ? 0 : -1);
    }
  }
}

// The kernel's computation, in its order: z, then y, then x neighbours; replicated borders.
static TYPE stencil_point(const std::vector<TYPE>& A, int n, int x, int y, int z) {
  TYPE sum = 0;
  for (int dz = -1; dz <= 1; ++dz) {
    const int nz = std::clamp(z + dz, 0, n - 1);
    for (int dy = -1; dy <= 1; ++dy) {
      const int ny = std::clamp(y + dy, 0, n - 1);
      for (int dx = -1; dx <= 1; ++dx) {
        const int nx = std::clamp(x + dx, 0, n - 1);
        sum += A[static_cast<size_t>((nz * n + ny) * n + nx)];
      }
    }
  }
  return sum / TYPE(27);
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  if (block_size == 0 || size % block_size != 0) {
    std::printf("Error: cube edge %u is not a multiple of block edge %u\nFAILED!\n", size, block_size);
    return -1;
  }
  RT_CHECK(vx_dev_open(&device));

  const uint32_t points = size * size * size;
  const uint64_t buf_size = uint64_t{points} * sizeof(TYPE);
  kernel_arg_t kernel_arg = {};
  for (int i = 0; i < 3; ++i) {
    kernel_arg.grid_dim[i] = size / block_size;
    kernel_arg.block_dim[i] = block_size;
  }
  kernel_arg.size = size;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &A_buffer));
  RT_CHECK(vx_mem_address(A_buffer, &kernel_arg.A_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &B_buffer));
  RT_CHECK(vx_mem_address(B_buffer, &kernel_arg.B_addr));

  std::vector<TYPE> h_A(points), h_B(points);
  std::mt19937 rng(50);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  for (auto& v : h_A) v = static_cast<TYPE>(dist(rng));
  RT_CHECK(vx_copy_to_dev(A_buffer, h_A.data(), 0, buf_size));
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_B.data(), B_buffer, 0, buf_size));

  int errors = 0;
  const int n = static_cast<int>(size);
  for (int z = 0; z < n; ++z) {
    for (int y = 0; y < n; ++y) {
      for (int x = 0; x < n; ++x) {
        const TYPE ref = stencil_point(h_A, n, x, y, z);
        const TYPE got = h_B[static_cast<size_t>((z * n + y) * n + x)];
        if (std::memcmp(&ref, &got, sizeof(TYPE)) != 0) {
          if (errors < 100) {
            std::printf("*** error: [%d,%d,%d] expected=%f, actual=%f\n", x, y, z,
                        static_cast<double>(ref), static_cast<double>(got));
          }
          ++errors;
        }
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
