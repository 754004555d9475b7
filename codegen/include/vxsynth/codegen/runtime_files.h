#pragma once
/// \file
/// The fixed runtime files (codegen/runtime/) that candidates include, as this build embedded them
/// (codegen/cmake/embed_runtime.cmake): what the generator copies into every candidate directory,
/// and what a suite that leaves those copies out is checked and built against (docs/suite.md
/// "Runtime files").

#include <span>
#include <string_view>

namespace vxsynth::codegen {

/// One fixed file: its name in a candidate directory, its path under codegen/runtime/
/// ("vortex/vxs_host.cpp", "common/vxs_dims.h") and its text.
struct RuntimeFile {
  std::string_view name;
  std::string_view path;
  std::string_view text;
};

/// Every embedded runtime file.
[[nodiscard]] std::span<const RuntimeFile> runtime_files();

/// The embedded runtime file named `name` (a candidate directory's file name), or nullptr.
[[nodiscard]] const RuntimeFile* find_runtime_file(std::string_view name);

}  // namespace vxsynth::codegen
