// basic host: device memory round trip, a copy kernel, and the perf counters of the run
// (read through vx_mpm_query from the dump the kernel's exit path writes, docs/vortex.md §3.5).
#include <unistd.h>
#include <VX_types.h>
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
static uint32_t count = 256;

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
        std::printf("Usage: [-k kernel.vxbin] [-n words] [-h]\n");
        std::exit(c == 'h' ? 0 : -1);
    }
  }
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  std::printf("open device connection\n");
  RT_CHECK(vx_dev_open(&device));

  kernel_arg_t kernel_arg = {};
  kernel_arg.count = count;
  const uint64_t buf_size = uint64_t{count} * sizeof(uint32_t);
  std::printf("number of words: %u\n", count);

  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src_buffer));
  RT_CHECK(vx_mem_address(src_buffer, &kernel_arg.src_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<uint32_t> h_src(count), h_dst(count, 0xdeadbeefu), h_back(count);
  for (uint32_t i = 0; i < count; ++i) h_src[i] = 0x9e3779b9u * (i + 1);
  int errors = 0;

  // 1. host round trip through device memory (no kernel)
  RT_CHECK(vx_copy_to_dev(dst_buffer, h_src.data(), 0, buf_size));
  RT_CHECK(vx_copy_from_dev(h_back.data(), dst_buffer, 0, buf_size));
  if (h_back != h_src) {
    std::printf("*** error: host round trip through device memory differs\n");
    ++errors;
  }
  RT_CHECK(vx_copy_to_dev(dst_buffer, h_dst.data(), 0, buf_size));  // poison the output
  RT_CHECK(vx_copy_to_dev(src_buffer, h_src.data(), 0, buf_size));

  // 2. copy kernel
  std::printf("upload program\n");
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  std::printf("start device\n");
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, buf_size));
  for (uint32_t i = 0; i < count; ++i) {
    if (h_dst[i] != h_src[i]) {
      if (errors < 100) std::printf("*** error: [%u] expected=0x%08x, actual=0x%08x\n", i, h_src[i], h_dst[i]);
      ++errors;
    }
  }

  // 3. counters of core 0 for this run
  uint64_t cycles = 0, instrs = 0;
  RT_CHECK(vx_mpm_query(device, VX_CSR_MCYCLE, 0, &cycles));
  RT_CHECK(vx_mpm_query(device, VX_CSR_MINSTRET, 0, &instrs));
  std::printf("core0: cycles=%lu, instrs=%lu\n", static_cast<unsigned long>(cycles),
              static_cast<unsigned long>(instrs));
  if (cycles == 0 || instrs == 0) {
    std::printf("*** error: core 0 reported no cycles or no instructions\n");
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
