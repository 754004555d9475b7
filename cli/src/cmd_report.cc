// vxsynth report SUITE|RUNDIR... -o DIR [--data-only]: the suite's figures, tables and page
// (docs/report.md; paper §4.1–4.5, Fig. 3–6, Tables 6–7).
#include <unistd.h>

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "format.h"
#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/report/report.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::vector<std::string> inputs;
  std::string out;
  bool data_only = false;
  std::string python;
  std::string sweep;
  std::string python_dir;
};

// The folder holding the figure layer's vxsynth_torch, resolved when vxsynth runs as reconstruct
// and the suite jobs resolve it (format.h default_python_dir): --python-dir, else
// $VXSYNTH_PYTHON_DIR, else python/ above this executable. Throws vxsynth::Error when the folder
// named lacks the package or none is found.
std::filesystem::path figure_python_dir(const std::string& given) {
  std::string from = "--python-dir";
  const std::filesystem::path dir = !given.empty() ? std::filesystem::absolute(given) : default_python_dir(from);
  if (dir.empty())
    throw make_error("report: no python/vxsynth_torch/workloads {} for the figures (give --python-dir, set "
                     "VXSYNTH_PYTHON_DIR, or write the data only with --data-only)", from);
  if (!has_vxsynth_torch(dir))
    throw make_error("report: {} {}: no vxsynth_torch package there ({} missing)", from, dir.string(),
                     (dir / "vxsynth_torch" / "__init__.py").string());
  return dir;
}

int run(const Options& o) {
  report::ReportOptions ro;
  for (const std::string& i : o.inputs) ro.inputs.emplace_back(i);
  ro.out = o.out;
  ro.figures = !o.data_only;
  ro.sweep = o.sweep;
  if (ro.figures) ro.python_path = figure_python_dir(o.python_dir);
  // Debian's interpreter, which has python3-matplotlib, before whatever python3 PATH finds first.
  ro.python = !o.python.empty() ? o.python : (::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3");
  const std::vector<std::string> files = report::write_report(ro);
  std::cout << fmt::format("report: {} files in {}{}\n", files.size(), o.out,
                           o.data_only ? " (data only)" : fmt::format("; open {}/index.html", o.out));
  return 0;
}

}  // namespace

Runner setup_report(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("inputs", o->inputs, "a suite directory, or reconstruction run directories")->required();
  app.add_option("-o,--output", o->out, "report directory (new, empty, or an earlier report)")->required();
  app.add_flag("--data-only", o->data_only, "write the CSV/JSON data only (no figures, no page)");
  app.add_option("--sweep", o->sweep, "a sweep of the suite (vxsynth sweep -o DIR): adds the sweep section");
  app.add_option("--python", o->python, "Python interpreter of the figure layer (default /usr/bin/python3, else python3 on PATH)");
  app.add_option("--python-dir", o->python_dir,
                 "folder holding the figure layer's vxsynth_torch package (default: $VXSYNTH_PYTHON_DIR, else python/ "
                 "of the nearest directory above the vxsynth executable that has python/vxsynth_torch/workloads/)");
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
