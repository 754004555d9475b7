// vxsynth suite build|job|collect|check|export|materialize|run: the benchmark suite (paper §4.1, Table 6;
// docs/suite.md). The work is suite/ (library vxsynth_suite); this file reads the options.
#include <memory>
#include <string>

#include <fmt/format.h>

#include "format.h"
#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/refine/order.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::cli {
namespace {

namespace fs = std::filesystem;

struct ToolOptions {
  std::string sdk, ncu = "ncu", python_dir;
};

void add_tool_options(CLI::App& app, ToolOptions& t) {
  app.add_option("--sdk", t.sdk, "directory holding the Vortex SDK's sdk.mk (default: <build>/sdk)");
  app.add_option("--ncu", t.ncu, "Nsight Compute CLI for --profile ncu (run through the suite's GPU lock)")
      ->capture_default_str();
  app.add_option("--python-dir", t.python_dir,
                 "folder holding vxsynth_torch, passed to every reconstruct for in-workload profiling (default: "
                 "reconstruct's own)");
}

suite::Tools tools_of(const ToolOptions& t) {
  suite::Tools tools;
  tools.vxsynth = self_executable();
  tools.sdk = fs::absolute(t.sdk.empty() ? default_sdk_dir() : fs::path(t.sdk));
  tools.ncu = t.ncu;
  if (!t.python_dir.empty()) tools.python_dir = fs::absolute(t.python_dir);
  if (!tools.python_dir.empty() && !has_vxsynth_torch(tools.python_dir))
    throw make_error("--python-dir {}: no vxsynth_torch package there ({} missing)", tools.python_dir.string(),
                     (tools.python_dir / "vxsynth_torch" / "__init__.py").string());
  if (!fs::is_regular_file(tools.sdk / "sdk.mk"))
    throw make_error("--sdk {}: no sdk.mk there (it is generated in <build>/sdk by the CMake build)",
                     tools.sdk.string());
  return tools;
}

std::string executor_help() {
  std::string s = "how the per-kernel jobs run:";
  for (const suite::ExecutorRow& r : suite::executors()) s += fmt::format(" {} ({});", r.name, r.help);
  return s;
}

std::vector<std::string> order_keys() {
  std::vector<std::string> k;
  for (const refine::OrderInfo& r : refine::order_table()) k.emplace_back(r.key);
  return k;
}

std::string order_help() {
  std::string s = "reconstruct's refinement order with --profile ncu:";
  for (const refine::OrderInfo& r : refine::order_table()) s += fmt::format(" {} ({});", r.key, r.what);
  return s;
}

}  // namespace

Runner setup_suite_build(CLI::App& app) {
  auto o = std::make_shared<suite::BuildOptions>();
  auto t = std::make_shared<ToolOptions>();
  auto bundles = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  app.add_option("bundles", *bundles, "reference bundles (vxsynth profile import), one per workload × platform")
      ->required();
  app.add_option("-o,--output", *out, "suite directory (new, empty, or a suite with --resume)")->required();
  app.add_option("--top", o->plan.top, "operator kernels per workload × platform")->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--budget", o->plan.budget, "revisions after the seed per kernel")->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  app.add_option("--profile", o->plan.profile, "reconstruct's profile backend: ncu or vxsim")->capture_default_str()
      ->check(CLI::IsMember({"ncu", "vxsim"}));
  app.add_option("--agent", o->plan.agent, "reconstruct's agent (builtin, line-search, cmd:\"…\")")->capture_default_str();
  app.add_option("--seed", o->plan.seed, "reconstruct's seed")->capture_default_str();
  app.add_option("--order", o->plan.order, order_help())->capture_default_str()->check(CLI::IsMember(order_keys()));
  app.add_option("--profile-in", o->plan.profile_in,
                 "with --profile ncu: where each candidate is profiled (reconstruct --profile-in: auto, workload, "
                 "standalone)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "workload", "standalone"}));
  app.add_option("--kernel", o->plan.only, "build only WORKLOAD:KERNEL (repeatable), e.g. act:k4");
  app.add_option("-j,--jobs", o->exec.parallel, "kernels reconstructed at once")->capture_default_str()
      ->check(CLI::Range(1, 4096));
  app.add_option("--executor", o->executor, executor_help())->capture_default_str();
  app.add_flag("--resume", o->resume, "continue the suite in -o: finished kernels are kept, interrupted ones resumed");
  app.add_flag("--detach", o->exec.detach, "slurm: return once the jobs are submitted");
  app.add_option("--slurm-arg", o->exec.slurm_args, "extra sbatch argument (repeatable), e.g. --slurm-arg=--partition=gpu");
  app.add_option("--job-timeout", o->exec.job_timeout_s, "seconds per kernel job")->capture_default_str();
  app.add_option("--build-timeout", o->build_timeout_s, "reconstruct: seconds per candidate build")->capture_default_str();
  app.add_option("--run-timeout", o->run_timeout_s, "reconstruct: seconds per candidate run")->capture_default_str();
  add_tool_options(app, *t);
  app.footer("Exit status: 0 every benchmark built; 1 some kernel failed (suite.json and SUITE.md say why); 2 error.");
  return [o, t, bundles, out] {
    if (o->plan.order != "cuda-first" && o->plan.profile != "ncu")
      throw make_error("--order {}: an order of the ncu backend (--profile ncu); --profile {} scores vxsim counters",
                       o->plan.order, o->plan.profile);
    if (o->plan.profile_in != "auto" && o->plan.profile != "ncu")
      throw make_error("--profile-in {}: where the ncu backend profiles (--profile ncu); --profile {} runs no CUDA",
                       o->plan.profile_in, o->plan.profile);
    suite::BuildOptions b = *o;
    for (const std::string& f : *bundles) b.bundles.emplace_back(f);
    b.out = *out;
    return suite::build(b, tools_of(*t));
  };
}

Runner setup_suite_job(CLI::App& app) {
  auto t = std::make_shared<ToolOptions>();
  auto dir = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  auto timeouts = std::make_shared<std::pair<double, double>>(300, 600);
  app.add_option("suite", *dir, "suite directory")->required();
  app.add_option("name", *name, "benchmark name (plan.json)")->required();
  app.add_option("--build-timeout", timeouts->first, "reconstruct: seconds per candidate build")->capture_default_str();
  app.add_option("--run-timeout", timeouts->second, "reconstruct: seconds per candidate run")->capture_default_str();
  add_tool_options(app, *t);
  return [t, dir, name, timeouts] { return suite::job(*dir, *name, tools_of(*t), timeouts->first, timeouts->second); };
}

Runner setup_suite_collect(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  app.add_option("suite", *dir, "suite directory")->required();
  return [dir] { return suite::collect(*dir); };
}

Runner setup_suite_check(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  app.add_option("suite", *dir, "suite directory")->required();
  app.footer("Exit status: 0 no problem; 1 problems (each printed with the file it concerns); 2 error.");
  return [dir] { return suite::check_suite(*dir); };
}

Runner setup_suite_export(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  app.add_option("suite", *dir, "collected suite directory")->required();
  app.add_option("-o,--output", *out, "new or empty directory to copy it to")->required();
  return [dir, out] { return suite::export_suite(*dir, *out); };
}

Runner setup_suite_materialize(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  app.add_option("suite", *dir, "suite directory")->required();
  app.add_option("-o,--output", *out,
                 "where to write <name>/cuda/ and <name>/vortex/ (default: SUITE/build/src, where the suite's "
                 "Makefile builds from); new, empty, or an earlier materialize output");
  app.footer("Exit status: 0 every built benchmark's sources written; 2 error (a listed file that cannot be "
             "produced, named with both SHA-256).");
  return [dir, out] { return suite::materialize(*dir, *out); };
}

Runner setup_suite_run(CLI::App& app) {
  auto o = std::make_shared<suite::RunOptions>();
  auto t = std::make_shared<ToolOptions>();
  auto dir = std::make_shared<std::string>();
  auto csv = std::make_shared<std::string>();
  app.add_option("suite", *dir, "suite directory")->required();
  app.add_option("--set", o->set, "timing-model override key=value (repeatable; VXSIM_SET, docs/timing.md)");
  app.add_option("-j,--jobs", o->parallel, "benchmarks run at once")->capture_default_str()->check(CLI::Range(1, 4096));
  app.add_option("--csv", *csv, "CSV to write (default SUITE/run.csv)");
  app.add_option("--benchmark", o->only, "run only this benchmark (repeatable)");
  app.add_option("--timeout", o->timeout_s, "seconds per benchmark (build + run)")->capture_default_str();
  app.add_option("--sdk", t->sdk, "directory holding the Vortex SDK's sdk.mk (default: <build>/sdk)");
  app.footer("Exit status: 0 every benchmark passed; 1 some failed (see the CSV's status and detail); 2 error.");
  return [o, t, dir, csv] {
    suite::RunOptions r = *o;
    r.suite = *dir;
    r.csv = *csv;
    return suite::run_suite(r, tools_of(*t));
  };
}

}  // namespace vxsynth::cli
