// sgemm host: C = A * B on the device (thread mode), checked against the CPU within FLOAT_ULP.
#include <unistd.h>
#include <vortex.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common.h"

#define FLOAT_ULP 6  // as Vortex's sgemm test (docs/vortex.md §6.5)

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
static uint32_t size = 32;

static vx_device_h device = nullptr;
static vx_buffer_h A_buffer = nullptr, B_buffer = nullptr, C_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void cleanup() {
  if (device) {
    vx_mem_free(A_buffer);
    vx_mem_free(B_buffer);
    vx_mem_free(C_buffer);
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
        std::printf("Usage: [-k kernel.vxbin] [-n matrix size] [-h]\n");
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
  const uint64_t buf_size = uint64_t{n} * n * sizeof(TYPE);
  kernel_arg_t kernel_arg = {};
  kernel_arg.grid_dim[0] = n;
  kernel_arg.grid_dim[1] = n;
  kernel_arg.size = n;
  std::printf("matrix size: %ux%u\n", n, n);

  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &A_buffer));
  RT_CHECK(vx_mem_address(A_buffer, &kernel_arg.A_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &B_buffer));
  RT_CHECK(vx_mem_address(B_buffer, &kernel_arg.B_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &C_buffer));
  RT_CHECK(vx_mem_address(C_buffer, &kernel_arg.C_addr));

  std::vector<TYPE> h_A(n * n), h_B(n * n), h_C(n * n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  for (auto& v : h_A) v = static_cast<TYPE>(dist(rng));
  for (auto& v : h_B) v = static_cast<TYPE>(dist(rng));
  RT_CHECK(vx_copy_to_dev(A_buffer, h_A.data(), 0, buf_size));
  RT_CHECK(vx_copy_to_dev(B_buffer, h_B.data(), 0, buf_size));

  std::printf("upload program\n");
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));

  std::printf("start device\n");
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_C.data(), C_buffer, 0, buf_size));

  int errors = 0;
  for (uint32_t row = 0; row < n; ++row) {
    for (uint32_t col = 0; col < n; ++col) {
      TYPE ref(0);
      for (uint32_t e = 0; e < n; ++e) ref += h_A[row * n + e] * h_B[e * n + col];
      const TYPE got = h_C[row * n + col];
      if (ulp_distance(got, ref) > FLOAT_ULP) {
        if (errors < 100) {
          std::printf("*** error: [%u][%u] expected=%f, actual=%f\n", row, col,
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
