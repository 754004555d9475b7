#pragma once
// Finding the tools a backend drives and the versions it records in every revision.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vxsynth::refine {

// The line of `argv`'s output naming its version ("Version 2025.3.1.0 (build …)" is ncu's third
// line), else the first line; "unavailable" when it cannot run.
[[nodiscard]] std::string tool_version(const std::vector<std::string>& argv);

// The tool an sdk.mk variable names (`VX_OBJDUMP := …`), else `fallback` (a name looked up on PATH).
[[nodiscard]] std::string sdk_tool(const std::filesystem::path& sdk_dir, std::string_view variable,
                                   std::string_view fallback);

// The Vortex C++ compiler the SDK's sdk.mk names (VX_CXX := …; a relocated toolchain on a GPU
// machine, scripts/device-pack.sh), else the one on PATH.
[[nodiscard]] std::string sdk_compiler(const std::filesystem::path& sdk_dir);

// The tools every backend uses: the SDK's riscv compiler, nvcc when present (its path in `nvcc`),
// vxsynth itself and the version of codegen's output.
[[nodiscard]] std::map<std::string, std::string> common_tool_versions(const std::filesystem::path& sdk_dir,
                                                                      std::optional<std::filesystem::path>& nvcc);

}  // namespace vxsynth::refine
