// The SDK's tools come from the variables of its sdk.mk, so a relocated toolchain (a GPU machine's
// pack, scripts/device-pack.sh) is used for every step, not whatever is on PATH.
#include "tool_probe.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "vxsynth/common/file_io.h"

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

}  // namespace
}  // namespace vxsynth::refine
