#pragma once
// Internal: the fixed runtime files (codegen/runtime/) that every candidate directory gets a copy of,
// embedded at build time (codegen/cmake/embed_runtime.cmake).

#include <span>
#include <string_view>

namespace vxsynth::codegen::detail {

/// One fixed file: its name in the candidate directory and its text.
struct RuntimeFile {
  std::string_view name;
  std::string_view text;
};

/// Every embedded runtime file.
[[nodiscard]] std::span<const RuntimeFile> runtime_files();

/// The text of the runtime file `name`; throws vxsynth::Error if it is not embedded.
[[nodiscard]] std::string_view runtime_file(std::string_view name);

}  // namespace vxsynth::codegen::detail
