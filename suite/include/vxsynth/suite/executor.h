#pragma once
/// \file
/// Executors: how a suite's per-kernel jobs and its collect step are run (docs/suite.md
/// "Executors"). One implementation per file: `executor_local.cc` (a thread pool on this machine),
/// `executor_slurm.cc` (a Slurm job array plus a dependent collect job). A job is a command line
/// (`vxsynth suite job SUITE NAME`) that decides by itself whether its kernel is done, to be
/// resumed or to be started, so any executor may run it again after an interruption.

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vxsynth::suite {

/// One job: a benchmark's name and the command that builds it.
struct Job {
  std::string name;
  std::vector<std::string> argv;
};

/// Settings every executor gets.
struct ExecutorOptions {
  std::filesystem::path state_dir;      ///< SUITE/.suite: scripts, logs, job outcomes
  int parallel = 1;                     ///< jobs at once (local threads; Slurm array throttle %N)
  double job_timeout_s = 6 * 3600.0;    ///< wall-clock limit of one job
  bool detach = false;                  ///< Slurm: return after submitting, do not wait
  std::vector<std::string> slurm_args;  ///< extra sbatch arguments (partition, account, gres…)
  double poll_s = 2.0;                  ///< Slurm: seconds between queue polls while waiting
};

/// What an executor did.
struct ExecutorOutcome {
  int failed_jobs = 0;       ///< jobs that ended with a non-zero status (local; Slurm: from their outcome files)
  bool collected = false;    ///< the collect command ran and succeeded
  bool detached = false;     ///< submitted and returned without waiting
  std::string note;          ///< e.g. the Slurm job ids
};

/// Runs `jobs`, then `collect` once every job has ended (whatever their status).
class Executor {
 public:
  virtual ~Executor() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// Throws vxsynth::Error when the executor itself cannot run (sbatch missing or refusing).
  virtual ExecutorOutcome run(const std::vector<Job>& jobs, const std::vector<std::string>& collect) = 0;
};

[[nodiscard]] std::unique_ptr<Executor> make_local_executor(const ExecutorOptions& options);
[[nodiscard]] std::unique_ptr<Executor> make_slurm_executor(const ExecutorOptions& options);

/// The executor table: name → factory.
struct ExecutorRow {
  std::string_view name;
  std::string_view help;
  std::unique_ptr<Executor> (*make)(const ExecutorOptions&);
};
[[nodiscard]] std::span<const ExecutorRow> executors();
/// The row called `name`; throws vxsynth::Error listing the names when there is none.
[[nodiscard]] std::unique_ptr<Executor> make_executor(std::string_view name, const ExecutorOptions& options);

}  // namespace vxsynth::suite
