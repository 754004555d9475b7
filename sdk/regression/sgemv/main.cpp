// sgemv host: y = A * x on the device, checked against the same summation order on the CPU.
#include <unistd.h>
#include <vortex.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common.h"

#define FLOAT_ULP 6  // as Vortex's float checks (docs/vortex.md §6.5)

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
static uint32_t M = 37, N = 32;

static vx_device_h device = nullptr;
static vx_buffer_h A_buffer = nullptr, x_buffer = nullptr, y_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void cleanup() {
  if (device) {
    vx_mem_free(A_buffer);
    vx_mem_free(x_buffer);
    vx_mem_free(y_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "m:n:k:h")) != -1) {
    switch (c) {
      case 'm': M = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 'n': N = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 'k': kernel_file = optarg; break;
      default:
        std::printf("Usage: [-k kernel.vxbin] [-m rows] [-n columns, multiple of 4] [-h]\n");
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
  if (N % 4 != 0) {
    std::printf("Error: N=%u is not a multiple of 4\nFAILED!\n", N);
    return -1;
  }
  RT_CHECK(vx_dev_open(&device));

  kernel_arg_t kernel_arg = {};
  kernel_arg.grid_dim[0] = M;
  kernel_arg.grid_dim[1] = 1;
  kernel_arg.M = M;
  kernel_arg.N = N;
  RT_CHECK(vx_mem_alloc(device, uint64_t{M} * N * 4, VX_MEM_READ, &A_buffer));
  RT_CHECK(vx_mem_address(A_buffer, &kernel_arg.A_addr));
  RT_CHECK(vx_mem_alloc(device, uint64_t{N} * 4, VX_MEM_READ, &x_buffer));
  RT_CHECK(vx_mem_address(x_buffer, &kernel_arg.x_addr));
  RT_CHECK(vx_mem_alloc(device, uint64_t{M} * 4, VX_MEM_WRITE, &y_buffer));
  RT_CHECK(vx_mem_address(y_buffer, &kernel_arg.y_addr));

  std::vector<float> h_A(M * N), h_x(N), h_y(M);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& v : h_A) v = dist(rng);
  for (auto& v : h_x) v = dist(rng);
  RT_CHECK(vx_copy_to_dev(A_buffer, h_A.data(), 0, uint64_t{M} * N * 4));
  RT_CHECK(vx_copy_to_dev(x_buffer, h_x.data(), 0, uint64_t{N} * 4));
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_y.data(), y_buffer, 0, uint64_t{M} * 4));

  int errors = 0;
  for (uint32_t row = 0; row < M; ++row) {
    float ref = 0.0f;
    for (uint32_t col = 0; col < N; col += 4) {
      const float* a = &h_A[row * N + col];  // the kernel's order: (x + y) + (z + w) per step
      ref += (a[0] * h_x[col] + a[1] * h_x[col + 1]) + (a[2] * h_x[col + 2] + a[3] * h_x[col + 3]);
    }
    if (ulp_distance(h_y[row], ref) > FLOAT_ULP) {
      if (errors < 100) {
        std::printf("*** error: [%u] expected=%f, actual=%f\n", row, static_cast<double>(ref),
                    static_cast<double>(h_y[row]));
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
