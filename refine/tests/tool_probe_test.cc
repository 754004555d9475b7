// The SDK's tools come from the variables of its sdk.mk, so a relocated toolchain (a GPU machine's
// pack, scripts/device-pack.sh) is used for every step, not whatever is on PATH.
#include "tool_probe.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/refine/backends.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

struct SdkDir {
  fs::path dir = fs::temp_directory_path() / ("vxsynth_tool_probe_" + std::to_string(::getpid()));
  explicit SdkDir(const std::string& sdk_mk) {
    fs::create_directories(dir);
    write_file_atomic(dir / "sdk.mk", sdk_mk);
  }
  ~SdkDir() { fs::remove_all(dir); }
};

TEST(ToolProbe, SdkToolReadsTheNamedVariable) {
  const SdkDir sdk(
      "VX_CXX             := /opt/pack/riscv/bin/riscv64-unknown-elf-g++\n"
      "VX_OBJDUMP_FLAGS   := -d\n"
      "VX_OBJDUMP         := /opt/pack/riscv/bin/riscv64-unknown-elf-objdump  \n");
  EXPECT_EQ(sdk_tool(sdk.dir, "VX_OBJDUMP", "objdump"), "/opt/pack/riscv/bin/riscv64-unknown-elf-objdump");
  EXPECT_EQ(sdk_compiler(sdk.dir), "/opt/pack/riscv/bin/riscv64-unknown-elf-g++");
}

TEST(ToolProbe, SdkToolFallsBackWhenTheVariableOrFileIsMissing) {
  const SdkDir sdk("VX_CC := /usr/bin/riscv64-unknown-elf-gcc\n");
  EXPECT_EQ(sdk_tool(sdk.dir, "VX_OBJDUMP", "riscv64-unknown-elf-objdump"), "riscv64-unknown-elf-objdump");
  EXPECT_EQ(sdk_tool(sdk.dir / "absent", "VX_CC", "gcc"), "gcc");
}

// A candidate CSV of the committed suite names the GPU it ran on on every kernel row, and that name
// is the one its bundle's provenance records: the check the ncu backend makes per revision passes
// on the committed evidence and fails for a candidate profiled on another GPU.
TEST(ReferenceGpu, CommittedCandidateRanOnItsBundlesGpuAndAnotherGpuIsRefused) {
  const fs::path src(VXSYNTH_SOURCE_DIR);
  const core::ReferenceBundle bundle = core::read_bundle(src / "data/references/h200/act/bundle.json");
  ASSERT_TRUE(bundle.provenance.gpu.has_value());
  const core::NcuReport rep =
      core::read_ncu_csv(src / "data/suite/vx-robotics-h200/act-k4/work/revisions/r0000/cuda/ncu_raw.csv");
  ASSERT_FALSE(rep.kernels.empty());
  for (const core::NcuKernel& k : rep.kernels) {
    const core::NcuCell* gpu = k.find(core::kGpuNameMetric);
    ASSERT_NE(gpu, nullptr) << "kernel " << k.name;
    EXPECT_EQ(reference_gpu_mismatch(gpu->text, *bundle.provenance.gpu, "ncu"), "");
  }
  const std::string why = reference_gpu_mismatch("NVIDIA H100 80GB HBM3", *bundle.provenance.gpu, "nvidia-smi");
  EXPECT_NE(why.find("'NVIDIA H100 80GB HBM3' (nvidia-smi)"), std::string::npos) << why;
  EXPECT_NE(why.find("'" + *bundle.provenance.gpu + "'"), std::string::npos) << why;
  EXPECT_NE(why.find("scripts/device-profile.sh"), std::string::npos) << why;
}

TEST(ReferenceGpu, AnUnknownNameOnEitherSideIsNotAMismatch) {
  EXPECT_EQ(reference_gpu_mismatch("", "NVIDIA H200", "ncu"), "");
  EXPECT_EQ(reference_gpu_mismatch("NVIDIA H200", "", "ncu"), "");
  EXPECT_NE(reference_gpu_mismatch("NVIDIA H200 NVL", "NVIDIA H200", "ncu"), "");
}

}  // namespace
}  // namespace vxsynth::refine
