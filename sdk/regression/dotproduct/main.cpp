// dotproduct host: sum of src0 * src1 reduced per block on the device (local memory, barriers);
// the host adds the block sums. Checked against the kernel's own order on the CPU (bit for bit)
// and loosely against a double-precision sum (384 ULP: float rounding of 1000 terms).
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
static uint32_t threads_per_block = 8;
static uint32_t blocks = 5;

static vx_device_h device = nullptr;
static vx_buffer_h src0_buffer = nullptr, src1_buffer = nullptr, dst_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void cleanup() {
  if (device) {
    vx_mem_free(src0_buffer);
    vx_mem_free(src1_buffer);
    vx_mem_free(dst_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "n:t:b:k:h")) != -1) {
    switch (c) {
      case 'n': count = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 't': threads_per_block = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 'b': blocks = static_cast<uint32_t>(std::atoi(optarg)); break;
      case 'k': kernel_file = optarg; break;
      default:
        std::printf("Usage: [-k kernel.vxbin] [-n points] [-t threads per block] [-b blocks] [-h]\n");
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

// The kernel's order for one block: grid-stride partial sums, then the halving tree.
static TYPE block_sum(const std::vector<TYPE>& a, const std::vector<TYPE>& b, uint32_t block) {
  std::vector<TYPE> t(threads_per_block);
  const uint32_t stride = threads_per_block * blocks;
  for (uint32_t tid = 0; tid < threads_per_block; ++tid) {
    TYPE acc(0);
    for (uint32_t i = block * threads_per_block + tid; i < count; i += stride) acc += a[i] * b[i];
    t[tid] = acc;
  }
  for (uint32_t d = threads_per_block / 2; d > 0; d /= 2) {
    for (uint32_t tid = 0; tid < d; ++tid) t[tid] += t[tid + d];
  }
  return t[0];
}

int main(int argc, char** argv) {
  parse_args(argc, argv);
  if (threads_per_block < 2 || (threads_per_block & (threads_per_block - 1)) != 0) {
    std::printf("Error: threads per block must be a power of two >= 2\nFAILED!\n");
    return -1;
  }
  RT_CHECK(vx_dev_open(&device));
  uint32_t max_localmem = 0;
  RT_CHECK(vx_check_occupancy(device, threads_per_block, &max_localmem));
  if (threads_per_block * sizeof(TYPE) > max_localmem) {
    std::printf("Error: %u B of local memory per block, need %lu\nFAILED!\n", max_localmem,
                static_cast<unsigned long>(threads_per_block * sizeof(TYPE)));
    cleanup();
    return -1;
  }

  const uint64_t buf_size = uint64_t{count} * sizeof(TYPE);
  kernel_arg_t kernel_arg = {};
  kernel_arg.grid_dim[0] = blocks;
  kernel_arg.block_dim[0] = threads_per_block;
  kernel_arg.num_points = count;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src0_buffer));
  RT_CHECK(vx_mem_address(src0_buffer, &kernel_arg.src0_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src1_buffer));
  RT_CHECK(vx_mem_address(src1_buffer, &kernel_arg.src1_addr));
  RT_CHECK(vx_mem_alloc(device, uint64_t{blocks} * sizeof(TYPE), VX_MEM_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<TYPE> h_src0(count), h_src1(count), h_dst(blocks);
  std::mt19937 rng(50);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  for (uint32_t i = 0; i < count; ++i) {
    h_src0[i] = static_cast<TYPE>(dist(rng));
    h_src1[i] = static_cast<TYPE>(dist(rng));
  }
  RT_CHECK(vx_copy_to_dev(src0_buffer, h_src0.data(), 0, buf_size));
  RT_CHECK(vx_copy_to_dev(src1_buffer, h_src1.data(), 0, buf_size));
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, uint64_t{blocks} * sizeof(TYPE)));

  int errors = 0;
  TYPE total(0);
  for (uint32_t blk = 0; blk < blocks; ++blk) {
    const TYPE ref = block_sum(h_src0, h_src1, blk);
    total += h_dst[blk];
    if (std::memcmp(&ref, &h_dst[blk], sizeof(TYPE)) != 0) {
      if (errors < 100) {
        std::printf("*** error: block %u expected=%f, actual=%f\n", blk, static_cast<double>(ref),
                    static_cast<double>(h_dst[blk]));
      }
      ++errors;
    }
  }
  double exact = 0.0;
  for (uint32_t i = 0; i < count; ++i) exact += static_cast<double>(h_src0[i]) * h_src1[i];
  std::printf("dot product %f (double precision %f)\n", static_cast<double>(total), exact);
  if (ulp_distance(total, static_cast<float>(exact)) > 6 * 64) {  // float sums of 1000 terms
    std::printf("*** error: far from the double-precision sum\n");
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
