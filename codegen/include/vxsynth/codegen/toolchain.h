#pragma once
/// \file
/// Drivers around the generated candidates: compile a CUDA candidate with nvcc (compile-only on
/// this machine), and build + run a Vortex candidate on vxsim through its Makefile and the SDK's
/// sdk.mk, collecting exit status, console/PERF output and the output tensor. Every child runs
/// through vxsynth::run_process (common/process.h).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/common/process.h"

namespace vxsynth::codegen {

/// nvcc to use: $NVCC if set and executable, else /usr/local/cuda/bin/nvcc if it exists.
[[nodiscard]] std::optional<std::filesystem::path> find_nvcc();

/// Outcome of compiling a CUDA candidate.
struct NvccResult {
  bool ok = false;
  std::string diagnostics;  ///< nvcc's output (warnings and errors)
  std::string command;
  double wall_seconds = 0.0;
};

/// Compiles `cu` to an object file with `nvcc <core::nvcc_target_flag(arch)> -std=c++17 -O2 -c` (compile-only;
/// no GPU needed). `extra` flags are appended (e.g. "-DVXS_TORCH_EXTENSION" plus torch includes).
/// Throws vxsynth::Error when nvcc is absent (callers check find_nvcc first).
[[nodiscard]] NvccResult compile_cuda(const std::filesystem::path& cu, const std::filesystem::path& object,
                                      const std::vector<std::string>& extra = {}, const std::string& arch = "sm_90",
                                      double timeout_seconds = 300.0);

/// Where to build and how to run a Vortex candidate.
struct VortexRunOptions {
  std::filesystem::path sdk_dir;   ///< VXSDK: the directory holding sdk.mk (<build>/sdk)
  std::filesystem::path data_dir;  ///< inputs <name>.bin are read from here and out.bin written here
  double build_timeout_seconds = 300.0;
  double run_timeout_seconds = 300.0;
  /// Extra environment for the run (e.g. the runtime's device-configuration variables).
  std::map<std::string, std::string> run_env;
  /// Extra arguments of the host program after `-d DIR` (e.g. `-b IDS`, a sampled-tile check).
  std::vector<std::string> run_args;
};

/// Outcome of building and running a Vortex candidate.
struct VortexRunResult {
  bool built = false;
  ProcessResult build;
  bool ran = false;          ///< the program was started
  ProcessResult run;
  bool output_written = false;  ///< data_dir/out.bin exists after the run
  /// One line for reports: "build ok (3.1 s), run exit 0 (12.4 s)" or the failure.
  [[nodiscard]] std::string summary() const;
};

/// Runs `make VXSDK=<sdk_dir>` in `candidate_dir` (which holds the emitted Makefile), then
/// `./vxs_candidate -d <data_dir>` there, with a time limit on each. A stale data_dir/out.bin is
/// removed first so an output always comes from this run. Never throws for a failing build or
/// run (see the result); throws vxsynth::Error if the candidate directory has no Makefile or
/// sdk_dir has no sdk.mk.
[[nodiscard]] VortexRunResult build_and_run_vortex(const std::filesystem::path& candidate_dir,
                                                   const VortexRunOptions& options);

/// The sdk.mk directory of a vxsynth build tree (<build>/sdk) if it exists.
[[nodiscard]] std::optional<std::filesystem::path> find_sdk_dir(const std::filesystem::path& build_dir);

}  // namespace vxsynth::codegen
