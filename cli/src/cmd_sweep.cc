// vxsynth sweep | sweep-job | sweep-collect: design-space exploration over a suite (docs/sweep.md).
// The work is sweep/ (library vxsynth_sweep); this file reads the options.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "format.h"
#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/sweep/grid.h"
#include "vxsynth/sweep/sweep.h"

namespace vxsynth::cli {
namespace {

namespace fs = std::filesystem;

suite::Tools sweep_tools(const std::string& sdk) {
  suite::Tools tools;
  tools.vxsynth = self_executable();
  tools.sdk = fs::absolute(sdk.empty() ? default_sdk_dir() : fs::path(sdk));
  if (!fs::is_regular_file(tools.sdk / "sdk.mk"))
    throw make_error("--sdk {}: no sdk.mk there (it is generated in <build>/sdk by the CMake build)",
                     tools.sdk.string());
  return tools;
}

struct SweepArgs {
  sweep::SweepOptions o;
  std::string suite, grid, grid_file, out, sdk;
};

}  // namespace

Runner setup_sweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  // Every host thread busy by default: one benchmark per hardware thread (docs/sweep.md "Host threads").
  a->o.exec.parallel = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  app.add_option("suite", a->suite, "suite directory (vxsynth suite build; its suite.json)")->required();
  app.add_option("--grid", a->grid,
                 "cartesian grid \"key=v1,v2 key2=…\" over vxsim parameters (vxsim --dump-config lists them), "
                 "e.g. \"cores=1,2,4 warps=8,16 dcache.size=16384,65536 l2.enabled=false,true\"");
  app.add_option("--grid-file", a->grid_file, "TOML grid: a [grid] table of arrays, or [[point]] tables");
  app.add_option("-o,--output", a->out, "sweep directory (new, empty, or a sweep with --resume)")->required();
  app.add_option("--baseline", a->o.baseline, "point index the speedups are against")->capture_default_str();
  app.add_option("--benchmark", a->o.only, "sweep only this benchmark (repeatable)");
  app.add_option("-j,--jobs", a->o.exec.parallel, "benchmarks run at once (default: the host's hardware threads)")->capture_default_str()
      ->check(CLI::Range(1, 4096));
  app.add_option("--executor", a->o.executor, "local (threads here) or slurm (a job array)")->capture_default_str();
  app.add_flag("--resume", a->o.resume, "continue the sweep in -o: finished (benchmark, point) rows are kept");
  app.add_option("--timeout", a->o.point_timeout_s, "seconds per (benchmark, point): build + run")
      ->capture_default_str();
  app.add_option("--host-threads", a->o.host_threads,
                 "VXSIM_HOST_THREADS of each run (0: the host's threads / -j)")->capture_default_str();
  app.add_flag("--detach", a->o.exec.detach, "slurm: return once the jobs are submitted");
  app.add_option("--slurm-arg", a->o.exec.slurm_args, "extra sbatch argument (repeatable)");
  app.add_option("--sdk", a->sdk, "directory holding the Vortex SDK's sdk.mk (default: <build>/sdk)");
  app.footer("Exit status: 0 every feasible row passed; 1 some row failed (sweep.csv says why); 2 error.");
  return [a] {
    if (a->grid.empty() == a->grid_file.empty()) throw make_error("give one of --grid and --grid-file");
    sweep::SweepOptions o = a->o;
    o.grid = a->grid.empty() ? sweep::load_grid_file(a->grid_file) : sweep::parse_grid(a->grid);
    o.suite = a->suite;
    o.out = a->out;
    return sweep::sweep(o, sweep_tools(a->sdk));
  };
}

Runner setup_sweep_job(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  auto sdk = std::make_shared<std::string>();
  auto threads = std::make_shared<unsigned>(0);
  auto timeout = std::make_shared<double>(3600);
  app.add_option("sweep", *dir, "sweep directory")->required();
  app.add_option("name", *name, "benchmark name")->required();
  app.add_option("--sdk", *sdk, "directory holding the Vortex SDK's sdk.mk (default: <build>/sdk)");
  app.add_option("--host-threads", *threads, "VXSIM_HOST_THREADS (0: the host's threads)")->capture_default_str();
  app.add_option("--timeout", *timeout, "seconds per point")->capture_default_str();
  return [=] { return sweep::job(*dir, *name, sweep_tools(*sdk), *threads, *timeout); };
}

Runner setup_sweep_collect(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  app.add_option("sweep", *dir, "sweep directory")->required();
  return [dir] { return sweep::collect(*dir); };
}

}  // namespace vxsynth::cli
