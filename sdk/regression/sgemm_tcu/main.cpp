// sgemm_tcu host: C = A * B (fp16 in, fp32 out) on the tensor-core unit, checked against the CPU.
// Exits with 77 (CTest "skipped") when the device has no TCU (VX_ISA_EXT_TCU) or its warp width
// differs from the kernel's NUM_THREADS.
#include <unistd.h>
#include <vortex.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common.h"
#include "tensor_cfg.h"

#define SKIPPED 77

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
static uint32_t size = 32;  // M = N = K

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

// binary16 -> binary32 for the host reference (normal numbers and zero only: inputs are small
// dyadic values, so every product and partial sum is exact in binary32).
static float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
  const uint32_t exp = static_cast<uint32_t>(h >> 10) & 0x1fu, man = h & 0x3ffu;
  const uint32_t bits = exp == 0 ? sign : sign | ((exp + 112u) << 23) | (man << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

static uint16_t quarter_to_half(int q) {  // q / 4 for q in [-8, 8] as binary16
  if (q == 0) return 0;
  const uint32_t sign = q < 0 ? 0x8000u : 0u;
  int e = -2;  // value v / 4 = 1.f * 2^(e + shift)
  uint32_t v = static_cast<uint32_t>(q < 0 ? -q : q);
  int shift = 0;
  while ((v >> shift) > 1) ++shift;
  e += shift;
  const uint32_t frac = (v - (1u << shift)) << (10 - shift);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(e + 15) << 10) | frac);
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  std::printf("open device connection\n");
  RT_CHECK(vx_dev_open(&device));

  uint64_t isa = 0, threads = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_ISA_FLAGS, &isa));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &threads));
  if ((isa & VX_ISA_EXT_TCU) == 0 || threads != NUM_THREADS) {
    std::printf("SKIPPED: device has %s, %lu threads per warp (kernel built for %d)\n",
                (isa & VX_ISA_EXT_TCU) ? "a TCU" : "no TCU", static_cast<unsigned long>(threads),
                NUM_THREADS);
    cleanup();
    return SKIPPED;
  }
  using cfg = vortex::tensor::wmma_config_t<NUM_THREADS, vortex::tensor::fp16, vortex::tensor::fp32>;
  const uint32_t n = size;
  if (n % cfg::tileM != 0 || n % cfg::tileN != 0 || n % cfg::tileK != 0) {
    std::printf("Error: size %u is not a multiple of the %ux%ux%u tile\n", n, cfg::tileM, cfg::tileN,
                cfg::tileK);
    cleanup();
    return -1;
  }
  kernel_arg_t kernel_arg = {};
  kernel_arg.grid_dim[0] = n / cfg::tileN;
  kernel_arg.grid_dim[1] = n / cfg::tileM;
  kernel_arg.block_dim[0] = NUM_THREADS;
  kernel_arg.block_dim[1] = 1;
  kernel_arg.M = kernel_arg.N = kernel_arg.K = n;
  const uint64_t in_size = uint64_t{n} * n * sizeof(uint16_t);
  const uint64_t out_size = uint64_t{n} * n * sizeof(float);
  std::printf("matrix size: %ux%u, tile %ux%ux%u\n", n, n, cfg::tileM, cfg::tileN, cfg::tileK);

  RT_CHECK(vx_mem_alloc(device, in_size, VX_MEM_READ, &A_buffer));
  RT_CHECK(vx_mem_address(A_buffer, &kernel_arg.A_addr));
  RT_CHECK(vx_mem_alloc(device, in_size, VX_MEM_READ, &B_buffer));
  RT_CHECK(vx_mem_address(B_buffer, &kernel_arg.B_addr));
  RT_CHECK(vx_mem_alloc(device, out_size, VX_MEM_WRITE, &C_buffer));
  RT_CHECK(vx_mem_address(C_buffer, &kernel_arg.C_addr));

  std::vector<uint16_t> h_A(n * n), h_B(n * n);
  std::vector<float> h_C(n * n);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> dist(-8, 8);
  for (auto& v : h_A) v = quarter_to_half(dist(rng));
  for (auto& v : h_B) v = quarter_to_half(dist(rng));
  RT_CHECK(vx_copy_to_dev(A_buffer, h_A.data(), 0, in_size));
  RT_CHECK(vx_copy_to_dev(B_buffer, h_B.data(), 0, in_size));

  std::printf("upload program\n");
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));

  std::printf("start device\n");
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_C.data(), C_buffer, 0, out_size));

  int errors = 0;
  for (uint32_t row = 0; row < n; ++row) {
    for (uint32_t col = 0; col < n; ++col) {
      float ref = 0.0f;
      for (uint32_t e = 0; e < n; ++e) ref += half_to_float(h_A[row * n + e]) * half_to_float(h_B[e * n + col]);
      const float got = h_C[row * n + col];
      if (got != ref) {
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
