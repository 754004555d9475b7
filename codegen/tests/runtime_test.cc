// The fixed runtime files (codegen/runtime/): every candidate carries verbatim copies of the ones it
// includes, so its directory builds on its own; the CUDA header compiles with nvcc for sm_90
// (skipped without nvcc). The Vortex runtime runs on vxsim in the CTest
// codegen.runtime.vortex_host_and_device (codegen/CMakeLists.txt).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "test_points.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/toolchain.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;

const fs::path kRuntime = fs::path(VXSYNTH_SOURCE_DIR) / "codegen/runtime";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every `#include "name"` of `c` names a file of `c` (the directory is self-contained).
void expect_self_contained(const Candidate& c, const std::string& what) {
  const std::regex inc(R"re(#include "([^"]+)")re");
  for (const auto& f : c.files) {
    for (auto it = std::sregex_iterator(f.text.begin(), f.text.end(), inc); it != std::sregex_iterator(); ++it) {
      EXPECT_NO_THROW((void)c.file((*it)[1].str())) << what << ": " << f.name << " includes " << (*it)[1].str();
    }
  }
}

TEST(Runtime, CandidatesCarryVerbatimCopiesOfTheFixedFiles) {
  for (const auto& tc : testing_points::all_cases()) {
    const Candidate vx = emit_vortex(tc.point);
    const Candidate cu = emit_cuda(tc.point);
    for (const char* f : {"common/vxs_dims.h", "vortex/vxs_kernel_arg.h", "vortex/vxs_device.h", "vortex/vxs_sample.h",
                          "vortex/vxs_driver.h", "vortex/vxs_driver.cpp"}) {
      EXPECT_EQ(vx.file(fs::path(f).filename().string()).text, slurp(kRuntime / f)) << tc.name << " " << f;
    }
    for (const char* f : {"common/vxs_dims.h", "cuda/vxs_cuda.cuh"}) {
      EXPECT_EQ(cu.file(fs::path(f).filename().string()).text, slurp(kRuntime / f)) << tc.name << " " << f;
    }
    if (tc.point.axes.tensor_core.enabled) {
      EXPECT_EQ(cu.file("vxs_tc.cuh").text, slurp(kRuntime / "cuda/vxs_tc.cuh")) << tc.name;
      // A warpgroup shape carries the wgmma header instead of the WMMA one.
      const char* mma = warpgroup_mma(tc.point.axes.tensor_core.shape) ? "vxs_wgmma.cuh" : "vxs_wmma.cuh";
      EXPECT_EQ(cu.file(mma).text, slurp(kRuntime / "cuda" / mma)) << tc.name;
    } else {
      EXPECT_THROW((void)cu.file("vxs_tc.cuh"), Error) << tc.name << ": SIMT candidates do not carry vxs_tc.cuh";
      EXPECT_THROW((void)cu.file("vxs_wmma.cuh"), Error) << tc.name << ": SIMT candidates do not carry vxs_wmma.cuh";
    }
    expect_self_contained(vx, tc.name);
    expect_self_contained(cu, tc.name);
  }
}

TEST(Runtime, CudaHeaderCompilesWithNvccForSm90) {
  if (!find_nvcc()) GTEST_SKIP() << "nvcc not found (/usr/local/cuda/bin/nvcc or $NVCC)";
  const fs::path obj = fs::temp_directory_path() / ("vxsynth_runtime_test_" + std::to_string(::getpid()) + ".o");
  const NvccResult r = compile_cuda(kRuntime / "tests/cuda/runtime_test.cu", obj,
                                    {"-I" + (kRuntime / "common").string(), "-I" + (kRuntime / "cuda").string()});
  EXPECT_TRUE(r.ok) << r.command << "\n" << r.diagnostics;
  EXPECT_EQ(r.diagnostics.find("warning"), std::string::npos) << r.diagnostics;
  std::error_code ec;
  fs::remove(obj, ec);
}

}  // namespace
}  // namespace vxsynth::codegen
