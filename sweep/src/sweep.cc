// vxsynth sweep (docs/sweep.md): plan, list the skipped points, hand the jobs to the executor.
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "sweep_files.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void print_plan(const json& plan, const Grid& g, const fs::path& dir) {
  const size_t rows = plan["benchmarks"].size() * g.points.size();
  std::cout << fmt::format("[sweep] {} benchmarks × {} points = {} rows; {} skipped; baseline point {} ({})\n",
                           plan["benchmarks"].size(), g.points.size(), rows, plan["skipped"].size(),
                           plan["baseline"].get<int>(), g.points.at(plan["baseline"].get<size_t>()).label());
  for (const json& s : plan["skipped"])
    std::cout << fmt::format("[sweep] skip {} at point {} ({}): {}\n", s["benchmark"].get<std::string>(),
                             s["point"].get<int>(), g.points.at(s["point"].get<size_t>()).label(),
                             s["reason"].get<std::string>());
  std::cout << fmt::format("[sweep] output {}\n", dir.string()) << std::flush;
}

}  // namespace

int sweep(const SweepOptions& o, const suite::Tools& tools) {
  const fs::path suite_dir = fs::absolute(o.suite).lexically_normal();
  const fs::path dir = fs::absolute(o.out).lexically_normal();
  const std::vector<Benchmark> benchmarks = suite_benchmarks(suite_dir, o.only);
  const json plan = make_plan(suite_dir, o.grid, o.baseline, benchmarks);
  claim_output(dir, plan, o.resume);
  print_plan(plan, o.grid, dir);
  const int parallel = std::max(1, o.exec.parallel);
  const unsigned host_threads =
      o.host_threads != 0 ? o.host_threads
                          : std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(parallel));
  std::vector<suite::Job> jobs;
  size_t todo = 0, again = 0;
  for (const Benchmark& b : benchmarks) {
    std::set<int> done = finished_points(dir, b.name, o.grid);
    again += point_attempts(dir, b.name, o.grid).size() - done.size();
    for (const json& s : plan["skipped"])
      if (s["benchmark"] == b.name) done.insert(s["point"].get<int>());
    const size_t left = o.grid.points.size() - done.size();
    if (left == 0) continue;
    todo += left;
    jobs.push_back({b.name, {tools.vxsynth.string(), "sweep-job", dir.string(), b.name, "--sdk", tools.sdk.string(),
                             "--host-threads", std::to_string(host_threads), "--timeout",
                             fmt::format("{}", o.point_timeout_s)}});
  }
  std::cout << fmt::format("[sweep] {} rows to run in {} jobs ({} at once, {} host threads each); {} of them failed "
                           "before and run again\n",
                           todo, jobs.size(), parallel, host_threads, again)
            << std::flush;
  suite::ExecutorOptions exec = o.exec;
  exec.state_dir = dir / kStateDir;
  exec.job_timeout_s = o.point_timeout_s * static_cast<double>(o.grid.points.size()) + 600;
  fs::create_directories(exec.state_dir);
  const suite::ExecutorOutcome out = suite::make_executor(o.executor, exec)->run(
      jobs, {tools.vxsynth.string(), "sweep-collect", dir.string()});
  if (out.detached) {
    std::cout << "[sweep] submitted: " << out.note << "\n";
    return 0;
  }
  if (!out.collected) throw make_error("{}: the collect step did not finish ({})", dir.string(), out.note);
  const json c = parse_json_file(exec.state_dir / "collect.json");
  return out.failed_jobs == 0 && c.value("failed", 0) == 0 && c["rows"] == c["expected"] ? 0 : 1;
}

}  // namespace vxsynth::sweep
