// vortex.h on vxsim: the regression-test call sequence, ACL enforcement, copies, caps, errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vortex.h"
#include "vxsim/core.h"
#include "vxsim/loader.h"
#include "vxsynth/common/file_io.h"

namespace {

/// rt_kernel.elf/.bin → .vxbin bytes (16-byte header min_vma/max_vma + raw image).
std::vector<uint8_t> kernel_vxbin() {
  std::string dir = VXSIM_ASM_DIR;
  vxsim::Processor scratch(vxsim::Config{});
  vxsim::Program p = vxsim::load_program(scratch, dir + "/rt_kernel.elf");
  std::string bin = vxsynth::read_file(dir + "/rt_kernel.bin");
  std::vector<uint8_t> out(16);
  uint64_t lo = p.min_vma;
  uint64_t hi = std::max<uint64_t>(p.max_vma, lo + bin.size());
  std::memcpy(out.data(), &lo, 8);
  std::memcpy(out.data() + 8, &hi, 8);
  out.insert(out.end(), bin.begin(), bin.end());
  return out;
}

struct Args {
  uint32_t n;
  uint32_t pad;
  uint64_t src;
  uint64_t dst;
};

class Runtime : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(vx_dev_open(&dev_), 0); }
  void TearDown() override {
    if (dev_ != nullptr) vx_dev_close(dev_);
  }
  /// Runs dst = 2*src+1 on n elements with the given dst flags; returns vx_start's status.
  int launch(int dst_flags, std::vector<uint32_t>& out) {
    const uint32_t n = 37;
    std::vector<uint32_t> in(n);
    for (uint32_t i = 0; i < n; ++i) in[i] = i * 3;
    vx_buffer_h src = nullptr, dst = nullptr, krnl = nullptr, args = nullptr;
    EXPECT_EQ(vx_mem_alloc(dev_, n * 4, VX_MEM_READ, &src), 0);
    EXPECT_EQ(vx_mem_alloc(dev_, n * 4, dst_flags, &dst), 0);
    Args a{n, 0, 0, 0};
    EXPECT_EQ(vx_mem_address(src, &a.src), 0);
    EXPECT_EQ(vx_mem_address(dst, &a.dst), 0);
    EXPECT_NE(a.src, a.dst);
    EXPECT_EQ(vx_copy_to_dev(src, in.data(), 0, n * 4), 0);
    auto image = kernel_vxbin();
    EXPECT_EQ(vx_upload_kernel_bytes(dev_, image.data(), image.size(), &krnl), 0);
    EXPECT_EQ(vx_upload_bytes(dev_, &a, sizeof a, &args), 0);
    int rc = vx_start(dev_, krnl, args);
    int wait_rc = vx_ready_wait(dev_, VX_MAX_TIMEOUT);
    EXPECT_EQ(rc, wait_rc);
    out.assign(n, 0);
    EXPECT_EQ(vx_copy_from_dev(out.data(), dst, 0, n * 4), 0);
    vx_mem_free(src);
    vx_mem_free(dst);
    vx_mem_free(krnl);
    vx_mem_free(args);
    return rc;
  }
  vx_device_h dev_ = nullptr;
};

TEST_F(Runtime, RegressionSequenceComputesAndReportsPerf) {
  // The counter identity below holds in functional mode only; the runtime defaults to timing mode
  // (sim/timing), so this test selects functional mode explicitly.
  ::setenv("VXSIM_TIMING", "0", 1);
  std::vector<uint32_t> out;
  int launched = launch(VX_MEM_READ_WRITE, out);
  ::unsetenv("VXSIM_TIMING");
  ASSERT_EQ(launched, 0);
  for (uint32_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], 2 * (i * 3) + 1) << i;
  uint64_t instrs = 0, cycles = 0;
  ASSERT_EQ(vx_mpm_query(dev_, 0xB02, 0, &instrs), 0);
  ASSERT_EQ(vx_mpm_query(dev_, 0xB00, 0, &cycles), 0);
  EXPECT_GT(instrs, 37u * 8);  // loop body of 8 instructions, one thread
  // Functional: 1 warp × 1 thread, so instrs == cycles at any instant; the kernel read mcycle
  // 4 instructions before minstret.
  EXPECT_EQ(instrs, cycles + 4);
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(vx_dump_perf(dev_, f), 0);
  std::rewind(f);
  char line[256] = {};
  ASSERT_NE(std::fgets(line, sizeof line, f), nullptr);
  std::fclose(f);
  char expect[256];
  std::snprintf(expect, sizeof expect, "PERF: instrs=%llu, cycles=%llu, IPC=%f\n", static_cast<unsigned long long>(instrs),
                static_cast<unsigned long long>(cycles), static_cast<double>(instrs) / static_cast<double>(cycles));
  EXPECT_EQ(std::string(line), expect);
}

TEST_F(Runtime, SignatureWithoutTheAdapterIsAClearError) {
  // This test program links the runtime alone, without core/'s signature adapter (the hook object
  // vxsynth_vortex_signature_hook): $VXSIM_SIGNATURE must fail the launch and say what to link,
  // not write a file without metrics.
  const std::string path = ::testing::TempDir() + "vortex_runtime_no_adapter.json";
  std::remove(path.c_str());
  ::setenv("VXSIM_SIGNATURE", path.c_str(), 1);
  ::testing::internal::CaptureStderr();
  std::vector<uint32_t> out;
  const int rc = launch(VX_MEM_READ_WRITE, out);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ::unsetenv("VXSIM_SIGNATURE");
  EXPECT_NE(rc, 0);
  EXPECT_NE(err.find("vxsynth_vortex_signature_hook"), std::string::npos) << err;
  std::FILE* f = std::fopen(path.c_str(), "r");
  EXPECT_EQ(f, nullptr) << path << " was written";
  if (f != nullptr) std::fclose(f);
}

TEST_F(Runtime, WriteToReadOnlyBufferIsAnAccessViolation) {
  std::vector<uint32_t> out;
  testing::internal::CaptureStderr();
  int rc = launch(VX_MEM_READ, out);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, -1);
  EXPECT_NE(err.find("memory access violation"), std::string::npos) << err;
  EXPECT_NE(err.find("VX_MEM_WRITE"), std::string::npos) << err;
  EXPECT_NE(err.find("lane 0"), std::string::npos) << err;
  EXPECT_EQ(out[0], 0u);
}

TEST_F(Runtime, CopiesAreBoundsChecked) {
  vx_buffer_h b = nullptr;
  ASSERT_EQ(vx_mem_alloc(dev_, 100, VX_MEM_READ_WRITE, &b), 0);
  std::vector<uint8_t> host(200, 7);
  testing::internal::CaptureStderr();
  EXPECT_EQ(vx_copy_to_dev(b, host.data(), 50, 51), -1);
  EXPECT_EQ(vx_copy_from_dev(host.data(), b, 0, 101), -1);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("overflows the buffer of 100 bytes"), std::string::npos) << err;
  EXPECT_EQ(vx_copy_to_dev(b, host.data(), 50, 50), 0);
  std::vector<uint8_t> back(100, 1);
  EXPECT_EQ(vx_copy_from_dev(back.data(), b, 0, 100), 0);
  EXPECT_EQ(back[49], 0);
  EXPECT_EQ(back[50], 7);
  EXPECT_EQ(vx_mem_free(b), 0);
}

TEST_F(Runtime, AllocatorAndMemInfo) {
  uint64_t free0 = 0, used0 = 0;
  ASSERT_EQ(vx_mem_info(dev_, &free0, &used0), 0);
  EXPECT_EQ(used0, 0u);
  vx_buffer_h a = nullptr, b = nullptr;
  ASSERT_EQ(vx_mem_alloc(dev_, 5000, VX_MEM_READ, &a), 0);
  ASSERT_EQ(vx_mem_alloc(dev_, 10, VX_MEM_READ, &b), 0);
  uint64_t aa = 0, ba = 0;
  vx_mem_address(a, &aa);
  vx_mem_address(b, &ba);
  EXPECT_EQ(aa, 0x10000u);       // USER_BASE_ADDR
  EXPECT_EQ(ba, 0x10000u + 8192);  // 4 KiB pages
  uint64_t free1 = 0, used1 = 0;
  vx_mem_info(dev_, &free1, &used1);
  EXPECT_EQ(used1, 3u * 4096);
  EXPECT_EQ(free0 - free1, 3u * 4096);
  vx_mem_free(a);
  vx_buffer_h c = nullptr;
  ASSERT_EQ(vx_mem_alloc(dev_, 4096, VX_MEM_READ, &c), 0);
  uint64_t ca = 0;
  vx_mem_address(c, &ca);
  EXPECT_EQ(ca, 0x10000u);  // first fit reuses the freed range
  testing::internal::CaptureStderr();
  vx_buffer_h r = nullptr;
  EXPECT_EQ(vx_mem_reserve(dev_, 0x10800, 16, VX_MEM_READ, &r), -1);  // overlaps c
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("overlaps"), std::string::npos) << err;
}

TEST_F(Runtime, CapsAndOccupancy) {
  uint64_t v = 0;
  ASSERT_EQ(vx_dev_caps(dev_, VX_CAPS_NUM_THREADS, &v), 0);
  EXPECT_EQ(v, 4u);
  ASSERT_EQ(vx_dev_caps(dev_, VX_CAPS_NUM_WARPS, &v), 0);
  EXPECT_EQ(v, 4u);
  ASSERT_EQ(vx_dev_caps(dev_, VX_CAPS_NUM_CORES, &v), 0);
  EXPECT_EQ(v, 1u);
  ASSERT_EQ(vx_dev_caps(dev_, VX_CAPS_LOCAL_MEM_SIZE, &v), 0);
  EXPECT_EQ(v, 16384u);
  ASSERT_EQ(vx_dev_caps(dev_, VX_CAPS_ISA_FLAGS, &v), 0);
  EXPECT_EQ(VX_ISA_ARCH(v), 32);
  EXPECT_NE(v & VX_ISA_STD_F, 0u);
  EXPECT_NE(v & VX_ISA_EXT_ZICOND, 0u);
  testing::internal::CaptureStderr();
  EXPECT_EQ(vx_dev_caps(dev_, 0x42, &v), -1);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("invalid caps id"), std::string::npos);
  uint32_t lmem = 0;
  ASSERT_EQ(vx_check_occupancy(dev_, 8, &lmem), 0);  // 2 warps per group, 2 groups per core
  EXPECT_EQ(lmem, 8192u);
  ASSERT_EQ(vx_check_occupancy(dev_, 1, &lmem), 0);
  EXPECT_EQ(lmem, 4096u);
  testing::internal::CaptureStderr();
  EXPECT_EQ(vx_check_occupancy(dev_, 17, &lmem), -1);
  testing::internal::GetCapturedStderr();
}

TEST_F(Runtime, BadKernelImagesAreRejected) {
  vx_buffer_h k = nullptr;
  uint8_t tiny[10] = {};
  testing::internal::CaptureStderr();
  EXPECT_EQ(vx_upload_kernel_bytes(dev_, tiny, sizeof tiny, &k), -1);
  EXPECT_EQ(vx_upload_kernel_file(dev_, "/nonexistent/kernel.vxbin", &k), -1);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("truncated .vxbin"), std::string::npos) << err;
  EXPECT_NE(err.find("/nonexistent/kernel.vxbin"), std::string::npos) << err;
}

TEST_F(Runtime, DcrsRoundTrip) {
  uint32_t v = 0;
  ASSERT_EQ(vx_dcr_read(dev_, 0x001, &v), 0);
  EXPECT_EQ(v, 0x80000000u);
  ASSERT_EQ(vx_dcr_write(dev_, 0x005, 2), 0);
  ASSERT_EQ(vx_dcr_read(dev_, 0x005, &v), 0);
  EXPECT_EQ(v, 2u);
  testing::internal::CaptureStderr();
  EXPECT_EQ(vx_dcr_write(dev_, 0x7FF, 1), -1);
  testing::internal::GetCapturedStderr();
}

}  // namespace

namespace {

TEST(RuntimeEnv, DeviceShapeComesFromTheEnvironment) {
  ::setenv("VXSIM_CORES", "2", 1);
  ::setenv("VXSIM_THREADS", "8", 1);
  vx_device_h dev = nullptr;
  ASSERT_EQ(vx_dev_open(&dev), 0);
  uint64_t v = 0;
  vx_dev_caps(dev, VX_CAPS_NUM_CORES, &v);
  EXPECT_EQ(v, 2u);
  vx_dev_caps(dev, VX_CAPS_NUM_THREADS, &v);
  EXPECT_EQ(v, 8u);
  // Nothing was launched: closing prints no PERF lines (zeros would read like a measurement).
  testing::internal::CaptureStdout();
  vx_dev_close(dev);
  const std::string closed = testing::internal::GetCapturedStdout();
  EXPECT_EQ(closed.find("PERF"), std::string::npos) << closed;
  ::setenv("VXSIM_WARPS", "abc", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(vx_dev_open(&dev), -1);
  ::setenv("VXSIM_WARPS", "64", 1);
  EXPECT_EQ(vx_dev_open(&dev), -1);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("VXSIM_WARPS='abc' is not an unsigned integer"), std::string::npos) << err;
  EXPECT_NE(err.find("warps must be 1..32 (got 64)"), std::string::npos) << err;
  ::unsetenv("VXSIM_CORES");
  ::unsetenv("VXSIM_THREADS");
  ::unsetenv("VXSIM_WARPS");
}

}  // namespace
