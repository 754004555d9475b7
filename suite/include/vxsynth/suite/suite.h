#pragma once
/// \file
/// `vxsynth suite build|job|collect|check|export|materialize|run` (docs/suite.md): from reference bundles to a
/// validated, runnable benchmark suite (paper §4.1, Table 6).

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/suite/executor.h"
#include "vxsynth/suite/plan.h"

namespace vxsynth::suite {

inline constexpr const char* kSuiteSchema = "vxsynth.suite";
inline constexpr int kSuiteVersion = 1;
inline constexpr const char* kSuiteFile = "suite.json";
inline constexpr const char* kManifestFile = "manifest.json";

/// Tools a suite step runs.
struct Tools {
  std::filesystem::path vxsynth;   ///< the vxsynth executable the jobs run (`reconstruct`, `suite job`)
  std::filesystem::path sdk;       ///< directory holding sdk.mk
  std::string ncu = "ncu";         ///< Nsight Compute (--profile ncu), run under the suite's GPU lock
  std::filesystem::path python_dir;  ///< reconstruct's --python-dir (vxsynth_torch); empty: its default
};

struct BuildOptions {
  std::vector<std::filesystem::path> bundles;
  std::filesystem::path out;
  PlanOptions plan;
  std::string executor = "local";
  ExecutorOptions exec;
  bool resume = false;
  double build_timeout_s = 300, run_timeout_s = 600;  ///< reconstruct's sandbox limits
};

/// Plans (or, with `resume`, re-reads and compares the plan), copies the bundles into
/// SUITE/references/, writes the GPU lock wrapper, and hands the unfinished kernels' jobs and the
/// collect step to the executor. Returns the process exit status: 0 every benchmark built and
/// collected, 1 some job failed (the suite lists it), 2 is thrown as vxsynth::Error (bad input, an
/// -o that is not a suite, a plan that differs on resume).
int build(const BuildOptions& options, const Tools& tools);

/// One kernel of the suite (`vxsynth suite job SUITE NAME`, what an executor runs): nothing when its
/// benchmark is complete, `reconstruct --resume` when its record holds revisions, else a new
/// reconstruct run. Writes SUITE/.suite/logs/NAME.log and SUITE/.suite/jobs/NAME.json
/// (`exit`, `status`, `wall_s`, `command`, `finished_utc`). Returns reconstruct's exit status
/// (3, "agent failed on every revision", is a built benchmark and returns 0).
int job(const std::filesystem::path& suite_dir, const std::string& name, const Tools& tools,
        double build_timeout_s, double run_timeout_s);

/// Collects the built benchmarks: SUITE/validation/<name>/tensors.json, suite.json, SUITE.md, the
/// top-level Makefile, then manifest.json (SHA-256 of every file, last). A benchmark of the plan
/// that is not built is listed in suite.json with its reason. Returns 0; throws vxsynth::Error
/// when a built benchmark's files cannot be read.
int collect(const std::filesystem::path& suite_dir);

/// Checks a suite: suite.json's schema and fields, every manifest entry's SHA-256, every
/// benchmark's required files, the sampled tensors when present. Prints each problem naming the
/// file; returns 0 when there is none, else 1.
int check_suite(const std::filesystem::path& suite_dir);

/// Copies what a repository keeps of a collected suite into the new or empty directory `out`
/// (docs/suite.md "A suite to commit"): every file of the manifest (each SHA-256 verified) and the
/// manifest, each revision's measurements (ncu CSV and log, Vortex run logs) and the job records;
/// no tensors, generated revision sources, build outputs or ncu reports. The runtime copies this
/// vxsynth carries and the locked benchmark's generated sources that it renders again
/// byte-identically from the record are left out and listed in the manifest with their SHA-256
/// (the others are kept, with the reason). `suite check`, `suite materialize` and `suite run` work
/// on the copy. Returns 0; throws vxsynth::Error for a suite without a manifest, a manifest file
/// missing or modified, a listed file that cannot be produced, or an `out` that is not new or empty.
int export_suite(const std::filesystem::path& suite_dir, const std::filesystem::path& out);

/// Writes every built benchmark's cuda/ and vortex/ sources, the left-out runtime files and
/// generated sources included (each SHA-256 checked), to `out`/<name>/ (default, `out` empty:
/// SUITE/build/src, where the suite's Makefile builds from). `out` must be new, empty or an earlier
/// materialize output. Returns 0; throws vxsynth::Error naming the benchmark, file and both SHA-256
/// when a listed file cannot be produced.
int materialize(const std::filesystem::path& suite_dir, const std::filesystem::path& out);

struct RunOptions {
  std::filesystem::path suite;
  std::vector<std::string> set;   ///< timing-model overrides key=value (VXSIM_SET)
  int parallel = 1;
  std::filesystem::path csv;      ///< default SUITE/run.csv
  double timeout_s = 3600;        ///< per benchmark: build + run
  std::vector<std::string> only;  ///< benchmark names (empty: all)
};

/// What one build and run of a benchmark on vxsim gave (`suite run` per benchmark, `sweep` per point).
struct BenchmarkRun {
  std::string status = "error";  ///< PASSED, FAILED (ran, a check failed) or error (did not run)
  std::string detail, output_check;
  bool self_check = false;       ///< the benchmark printed PASSED!
  double max_abs = 0, max_rel = 0, wall_s = 0;
};
struct BenchmarkRunOptions {
  std::filesystem::path work;              ///< build and run directory (make rebuilds only what changed)
  std::filesystem::path signature;         ///< VXSIM_SIGNATURE file the run writes (removed first)
  std::map<std::string, std::string> env;  ///< more environment: VXSIM_SET, VXSIM_CORES, VXSIM_HOST_THREADS…
  bool stage_tensors = true;               ///< write work/data from the validation tensors first
  double timeout_s = 3600;                 ///< build + run
};

/// Builds the suite benchmark `entry` (a suite.json `benchmarks[]` element) in `o.work` with its own
/// Makefile and the SDK, runs it on vxsim in timing mode with `-d work/data`, and checks its
/// PASSED! and its out.bin against the reference output (candidate check of its precision path).
/// Throws vxsynth::Error when suite.json's entry or the validation tensors cannot be read.
[[nodiscard]] BenchmarkRun run_benchmark(const std::filesystem::path& suite_dir, const nlohmann::json& entry,
                                         const BenchmarkRunOptions& o, const Tools& tools);

/// Builds and runs every benchmark on vxsim (timing mode) against its validation tensors, checks
/// PASSED and the output, and writes one CSV row per benchmark (cycles, instructions, IPC,
/// Vortex-side D and the ten metrics). Returns 0 when every benchmark passed, else 1.
int run_suite(const RunOptions& options, const Tools& tools);

}  // namespace vxsynth::suite
