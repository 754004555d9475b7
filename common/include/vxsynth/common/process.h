#pragma once
/// \file
/// The one way vxsynth runs a child process (builds, simulator runs, nvcc, ncu, external agents;
/// the sandbox's time limits, paper §3.3). The child gets its own process group; after the time
/// limit the whole group gets SIGKILL, so a runaway build or simulator never outlives its limit.
/// The child also gets SIGKILL when its parent dies (PR_SET_PDEATHSIG), so killing vxsynth stops it.
///
/// One convention for how a child ended: `exit_code` is the exit status when it exited (and −1
/// otherwise), `term_signal` the signal that killed it (0 when it exited), `timed_out` whether
/// vxsynth killed it at the time limit (then `term_signal` is SIGKILL).

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace vxsynth {

/// How to run a child process: `{timeout_s}`, `{timeout_s, cwd}` or `{timeout_s, cwd, env}`.
struct ProcessOptions {
  ProcessOptions() = default;
  ProcessOptions(double limit_s, std::filesystem::path dir = {}, std::map<std::string, std::string> extra_env = {})
      : timeout_s(limit_s), cwd(std::move(dir)), env(std::move(extra_env)) {}

  double timeout_s = 300.0;                 ///< wall-clock limit
  std::filesystem::path cwd;                ///< working directory; empty = the caller's
  std::map<std::string, std::string> env;   ///< added to (or replacing in) the inherited environment
  size_t max_output = size_t{1} << 20;      ///< bytes of output kept: the last ones
  std::filesystem::path tee;                ///< when set, every byte of output is also appended here as it arrives
};

/// Outcome of one child process.
struct ProcessResult {
  std::string command;      ///< argv joined by spaces, for reports
  int exit_code = -1;       ///< exit status when the child exited, else −1
  int term_signal = 0;      ///< signal that ended it (SIGKILL after a timeout), 0 when it exited
  bool timed_out = false;   ///< killed at the time limit
  double wall_s = 0.0;
  std::string output;       ///< stdout and stderr interleaved; the last `max_output` bytes only
  bool output_truncated = false;  ///< earlier output was dropped to keep `max_output`
  /// Exited with status 0 (not killed, not timed out).
  [[nodiscard]] bool ok() const { return !timed_out && term_signal == 0 && exit_code == 0; }
  /// "exit 2", "killed by signal 9", "timed out after 300 s".
  [[nodiscard]] std::string status_text() const;
};

/// Runs argv[0] (looked up in PATH) with `argv`. Never throws for a failing child (see the
/// result; a program that cannot be executed exits 127 with the reason in its output); throws
/// vxsynth::Error only when no child can be started (empty argv, pipe or fork failure).
[[nodiscard]] ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options);

/// The last `n` lines of `text` (for error messages).
[[nodiscard]] std::string tail_lines(const std::string& text, int n);

}  // namespace vxsynth
