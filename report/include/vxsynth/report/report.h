#pragma once
/// \file
/// `vxsynth report SUITE|RUNDIR... -o DIR` (docs/report.md): reads the runs, writes the numbers as
/// JSON and CSV (DIR/data/), then has the figure layer (python/vxsynth_torch/figures.py, matplotlib)
/// draw them as SVG and PDF (DIR/figures/) and write the self-contained page DIR/index.html.
///
/// DIR is the report's own: vxsynth writes only into a directory that does not exist, is empty, or
/// holds a report it wrote (DIR/report.json, schema vxsynth.report v1, written first; it lists the
/// files of the report, which a new report into the same DIR replaces). Any other DIR is refused
/// before anything is written.

#include <filesystem>
#include <string>
#include <vector>

namespace vxsynth::report {

inline constexpr const char* kReportSchema = "vxsynth.report";
inline constexpr int kReportVersion = 1;
inline constexpr const char* kReportFile = "report.json";

struct ReportOptions {
  std::vector<std::filesystem::path> inputs;  ///< one suite directory, or run directories
  std::filesystem::path out;
  bool figures = true;                        ///< false: data files only (no Python)
  std::string python = "python3";             ///< interpreter of the figure layer
  std::filesystem::path python_path;          ///< directory holding the vxsynth_torch package
  double figure_timeout_s = 600.0;
  /// A sweep of the suite (vxsynth sweep -o DIR; docs/sweep.md): adds the `sweep` field to the data
  /// (sweep::sweep_data), data/sweep.csv and the page's sweep section. Empty: none.
  std::filesystem::path sweep;
};

/// Throws vxsynth::Error, naming the directory and why, when `out` exists and is not a directory,
/// or is a non-empty directory whose report.json is missing, not JSON, of another schema or
/// version. Reads only.
void check_report_dir(const std::filesystem::path& out);

/// Writes the report; returns the files written, relative to `out`. Throws vxsynth::Error for bad
/// input (nothing written then), a refused `out`, or a figure layer that failed (its output's
/// tail in the message).
std::vector<std::string> write_report(const ReportOptions& options);

}  // namespace vxsynth::report
