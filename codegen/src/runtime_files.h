#pragma once
// Internal: the fixed runtime files (codegen/runtime/) that every candidate directory gets a copy of,
// embedded at build time (codegen/cmake/embed_runtime.cmake; public view in
// vxsynth/codegen/runtime_files.h).

#include <string_view>

#include "vxsynth/codegen/runtime_files.h"

namespace vxsynth::codegen::detail {

using codegen::RuntimeFile;
using codegen::runtime_files;

/// The text of the runtime file `name`; throws vxsynth::Error if it is not embedded.
[[nodiscard]] std::string_view runtime_file(std::string_view name);

}  // namespace vxsynth::codegen::detail
