#pragma once
// Files of a suite directory shared by build, collect, check and run (docs/suite.md "Layout").

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/core/bundle.h"

namespace vxsynth::suite {

/// The GPU lock in SUITE/.suite: every job's reconstruct holds it (flock) while its candidate runs
/// on the GPU (reconstruct --gpu-lock; docs/suite.md "GPU lock").
inline constexpr const char* kGpuLock = "gpu.lock";
/// Where `suite run` builds and runs the benchmarks, and its CSV.
inline constexpr const char* kRunDir = "run";
inline constexpr const char* kRunCsv = "run.csv";
/// Where the top-level Makefile builds.
inline constexpr const char* kMakeBuildDir = "build";
/// Where `suite materialize` writes the benchmarks' sources by default, under kMakeBuildDir.
inline constexpr const char* kMakeSourceDir = "src";

/// The suite's top-level Makefile (suite/templates/Makefile, embedded at build time).
namespace detail {
[[nodiscard]] std::string_view suite_makefile();
}
/// Its name in the suite.
inline constexpr const char* kSuiteMakefile = "Makefile";

/// `dir` as an absolute, normal path without a trailing separator ("." → "/work/out").
[[nodiscard]] std::filesystem::path suite_path(const std::filesystem::path& dir);

/// SHA-256 of a file's bytes, lowercase hex; throws vxsynth::Error naming the file when unreadable.
[[nodiscard]] std::string sha256_file(const std::filesystem::path& p);

/// A benchmark directory that reconstruct finished: its summary.json and summary.md exist.
[[nodiscard]] bool benchmark_complete(const std::filesystem::path& bench);

/// Files the manifest covers, relative to the suite, sorted: everything except the state
/// directory, `suite run`'s and the Makefile's build directories, run.csv, every revision work
/// directory (<bench>/work/), tensors (*.bin: their SHA-256 are in validation/<bench>/tensors.json)
/// and the manifest itself.
[[nodiscard]] std::vector<std::string> manifest_files(const std::filesystem::path& suite_dir);

/// The reference bundle of a plan benchmark entry (SUITE/references/<workload>.json) and its kernel.
struct BenchmarkReference {
  core::ReferenceBundle bundle;
  const core::BundleKernel* kernel = nullptr;
};
[[nodiscard]] BenchmarkReference benchmark_reference(const std::filesystem::path& suite_dir,
                                                     const nlohmann::json& plan_entry);

}  // namespace vxsynth::suite
