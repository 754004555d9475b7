#pragma once
/// \file
/// Which kernels a suite builds (paper §4.1: the top kernels by GPU time of each workload on each
/// platform; docs/suite.md "Selection"). The plan is written once, as `SUITE/plan.json`, before any
/// benchmark is built; every later step (the per-kernel jobs, collect, resume) reads it.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vxsynth::suite {

inline constexpr const char* kPlanSchema = "vxsynth.suite-plan";
inline constexpr int kPlanVersion = 1;
inline constexpr const char* kPlanFile = "plan.json";
/// The suite's state directory (job logs, job outcomes, executor scripts, the GPU lock): never part
/// of the manifest.
inline constexpr const char* kStateDir = ".suite";

/// What the suite's selection made of one bundle kernel.
enum class KernelRole : uint8_t {
  kOperator,     ///< an operator kernel (linear, matmul, bmm, conv1d, conv2d) that the suite builds
  kBeyondTop,    ///< an operator kernel ranked after the top N operators of its workload
  kDuplicate,    ///< the same (platform, kernel, shape, precision) as a benchmark of an earlier workload
  kHelper,       ///< a helper of an operator (kernel-name role `helper`): counted in coverage, not rebuilt
  kOther,        ///< op `other`: the trace did not say which operator launched it
  kUnprofiled,   ///< an operator kernel without an ncu signature: nothing to reconstruct against
  kNotRequested, ///< a selected operator kernel left out by PlanOptions::only (`--kernel`)
};
/// "operator", "beyond-top", "duplicate", "helper", "other", "unprofiled", "not-requested".
[[nodiscard]] std::string_view to_string(KernelRole r);

/// Options of the selection, recorded in the plan (a resumed build must use the same).
struct PlanOptions {
  std::size_t top = 5;              ///< operator kernels per workload × platform (paper §4.1)
  int budget = 12;                  ///< revisions after the seed per kernel (reconstruct --budget)
  std::string profile = "vxsim";    ///< reconstruct --profile
  std::string agent = "builtin";    ///< reconstruct --agent
  uint64_t seed = 1;                ///< reconstruct --seed
  std::string order = "cuda-first"; ///< reconstruct --order with --profile ncu (refine/order.h)
  std::string profile_in = "auto";  ///< reconstruct --profile-in with --profile ncu (auto, workload, standalone)
  /// Restrict the build to these WORKLOAD:KERNEL pairs (empty: every selected kernel).
  std::vector<std::string> only;
};

/// Reads every bundle (core's reader: every field validated), classifies its kernels with the
/// bundle's context (op, helper_kernel from core's kernel-name rules), selects per bundle the top
/// `top` operator kernels that have a signature, drops repeats of the same (platform, kernel name,
/// op, shape, precision path) across bundles (each benchmark with `macs`, the op's
/// multiply-accumulates per launch), and returns the plan as JSON (schema
/// vxsynth.suite-plan v1; docs/suite.md). `bundle_files` are the paths as given; `copies` the
/// paths, relative to the suite, that the bundles are copied to (references/<workload>.json).
/// Throws vxsynth::Error for an unreadable bundle, two bundles of the same workload and platform,
/// or an `only` entry that names no selected kernel.
[[nodiscard]] nlohmann::json make_plan(const std::vector<std::filesystem::path>& bundle_files,
                                       const PlanOptions& options);

/// Reads SUITE/plan.json; throws vxsynth::Error naming the file and field when it is missing,
/// not JSON, or of another schema or version.
[[nodiscard]] nlohmann::json read_plan(const std::filesystem::path& suite_dir);

/// The plan's benchmark entry called `name`; throws vxsynth::Error listing the names when absent.
[[nodiscard]] const nlohmann::json& plan_benchmark(const nlohmann::json& plan, const std::string& name);

}  // namespace vxsynth::suite
