// gbar host: global barrier across all cores; every core must see every core's value.
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

static vx_device_h device = nullptr;
static vx_buffer_h flags_buffer = nullptr, out_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void cleanup() {
  if (device) {
    vx_mem_free(flags_buffer);
    vx_mem_free(out_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "k:h")) != -1) {
    switch (c) {
      case 'k': kernel_file = optarg; break;
      default:
        std::printf("Usage: [-k kernel.vxbin] [-h]\n");
        std::exit(c == 'h' ? 0 : -1);
    }
  }
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  std::printf("open device connection\n");
  RT_CHECK(vx_dev_open(&device));

  uint64_t num_cores = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_CORES, &num_cores));
  const uint32_t nc = static_cast<uint32_t>(num_cores);
  kernel_arg_t kernel_arg = {};
  kernel_arg.num_cores = nc;
  const uint64_t buf_size = uint64_t{GBAR_ROUNDS} * nc * sizeof(uint32_t);
  std::printf("cores: %u\n", nc);

  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ_WRITE, &flags_buffer));
  RT_CHECK(vx_mem_address(flags_buffer, &kernel_arg.flags_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &out_buffer));
  RT_CHECK(vx_mem_address(out_buffer, &kernel_arg.out_addr));
  std::vector<uint32_t> h_flags(GBAR_ROUNDS * nc, 0), h_out(GBAR_ROUNDS * nc);
  RT_CHECK(vx_copy_to_dev(flags_buffer, h_flags.data(), 0, buf_size));

  std::printf("upload program\n");
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));

  std::printf("start device\n");
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_out.data(), out_buffer, 0, buf_size));

  int errors = 0;
  for (uint32_t r = 0; r < GBAR_ROUNDS; ++r) {
    const uint32_t ref = (r + 1) * nc * (nc + 1) / 2;
    for (uint32_t c = 0; c < nc; ++c) {
      if (h_out[r * nc + c] != ref) {
        std::printf("*** error: round %u core %u saw sum=%u, expected=%u\n", r, c, h_out[r * nc + c], ref);
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
