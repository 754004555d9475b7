#pragma once
/// \file
/// Running a child process with a wall-clock limit (the sandbox's time limits on builds, runs and
/// external agents, paper §3.3). The child gets its own process group; on timeout the whole group
/// is killed with SIGKILL, so a runaway build or simulator never outlives its limit. The child
/// also gets SIGKILL when its parent dies (PR_SET_PDEATHSIG), so killing the loop stops it.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace vxsynth::refine {

/// Outcome of one child process.
struct ProcessResult {
  int exit_code = -1;       ///< exit status; −1 when killed by a signal
  int term_signal = 0;      ///< signal that ended it (SIGKILL after a timeout), 0 if it exited
  bool timed_out = false;
  double wall_s = 0.0;
  std::string output;       ///< stdout+stderr interleaved; the last `max_output` bytes only
  [[nodiscard]] bool ok() const { return !timed_out && term_signal == 0 && exit_code == 0; }
  /// "exit 2", "killed by signal 9", "timed out after 300 s".
  [[nodiscard]] std::string status_text() const;
};

/// Runs argv[0] (looked up in PATH) with `argv` in `cwd`, extra environment variables set, for at
/// most `timeout_s` seconds. Throws vxsynth::Error only when the process cannot be started.
[[nodiscard]] ProcessResult run_process(const std::vector<std::string>& argv,
                                        const std::filesystem::path& cwd, double timeout_s,
                                        const std::map<std::string, std::string>& env = {},
                                        size_t max_output = 1 << 20);

/// The last `n` lines of `text` (for error messages).
[[nodiscard]] std::string tail_lines(const std::string& text, int n);

}  // namespace vxsynth::refine
