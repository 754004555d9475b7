#pragma once
/// \file
/// `vxsynth sweep` (docs/sweep.md): every benchmark of a suite on vxsim in timing mode at every
/// point of a configuration grid, one CSV row per (benchmark, point), resumable, run by the
/// suite's executors (local threads or a Slurm job array).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/suite/executor.h"
#include "vxsynth/suite/suite.h"
#include "vxsynth/sweep/grid.h"

namespace vxsynth::sweep {

inline constexpr const char* kSweepSchema = "vxsynth.sweep";
inline constexpr int kSweepVersion = 1;
inline constexpr const char* kSweepFile = "sweep.json";
inline constexpr const char* kSweepCsv = "sweep.csv";
/// Per-benchmark row files (one writer each), merged into sweep.csv by collect.
inline constexpr const char* kRowsDir = "rows";
/// Build and run directories: run/<benchmark>/ (one build), run/<benchmark>/p<index>/ per point.
inline constexpr const char* kRunDir = "run";
/// Executor state: scripts, logs, job outcomes.
inline constexpr const char* kStateDir = ".sweep";

struct SweepOptions {
  std::filesystem::path suite;
  Grid grid;
  std::filesystem::path out;
  int baseline = 0;                     ///< point index the speedups are against
  std::vector<std::string> only;        ///< benchmark names (empty: every built one)
  std::string executor = "local";
  suite::ExecutorOptions exec;          ///< parallel = benchmarks at once
  bool resume = false;
  double point_timeout_s = 3600;        ///< build + run of one (benchmark, point)
  unsigned host_threads = 0;            ///< VXSIM_HOST_THREADS per run; 0 = the host's threads / parallel
};

/// Plans the sweep (benchmarks × points, the infeasible ones with their reasons, printed before
/// anything runs), writes DIR/sweep.json (with `resume`, requires the plan on disk to be equal and
/// says which field differs), and hands one job per benchmark with unfinished points plus the
/// collect step to the executor. Returns 0 when every feasible row passed, 1 when some failed;
/// bad input (suite, grid, an -o that is neither new, empty nor a sweep, a sweep without
/// --resume) throws vxsynth::Error.
int sweep(const SweepOptions& options, const suite::Tools& tools);

/// One benchmark's unfinished points, in order (`vxsynth sweep-job DIR NAME`): builds it once in
/// run/NAME/, runs each point and appends its row to rows/NAME.csv. Writes .sweep/jobs/NAME.json.
/// Returns 0 when every row it wrote passed.
int job(const std::filesystem::path& dir, const std::string& name, const suite::Tools& tools, unsigned host_threads,
        double point_timeout_s);

/// Merges the row files and the skipped rows into sweep.csv (benchmark, point order) and writes
/// .sweep/collect.json. Returns 0.
int collect(const std::filesystem::path& dir);

/// The CSV header: the fixed columns, one per grid parameter, the counters of vxsim's signature
/// file (the MPM counter groups behind the ten metrics), the ten metrics, then wall time, status
/// and detail.
[[nodiscard]] std::vector<std::string> csv_columns(const Grid& grid);

/// The sweep's rows as JSON for the report's sweep section (docs/report.md "Sweep"): benchmarks,
/// points, per row cycles, IPC, the metrics and speedup against the baseline point, and per
/// (metric, parameter) the mean response of each value against the baseline. Throws
/// vxsynth::Error naming the file when sweep.json or sweep.csv is missing or malformed.
[[nodiscard]] nlohmann::json sweep_data(const std::filesystem::path& dir);

}  // namespace vxsynth::sweep
