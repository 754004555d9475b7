#pragma once
/// \file
/// What `vxsynth --version` and `vxsim --version` print. The definitions are generated at build
/// time by cmake/GitVersion.cmake (target vxsynth_version), so the commit follows the checkout
/// without re-running CMake.

#include <string>
#include <string_view>

namespace vxsynth {

/// The project version (CMakeLists.txt `project(vxsynth VERSION ...)`).
[[nodiscard]] std::string_view project_version();

/// The git commit the program was built from: `git describe --always --dirty --abbrev=12` of the
/// source tree ("<hash>" or "<hash>-dirty" with uncommitted changes); "unknown" outside a git
/// checkout or without git.
[[nodiscard]] std::string_view git_commit();

/// "<program> <version> (commit <commit>)".
[[nodiscard]] std::string version_line(std::string_view program);

}  // namespace vxsynth
