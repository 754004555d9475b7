// suite build and suite job (docs/suite.md "Build", "Resume").
#include <algorithm>
#include <ctime>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "suite_files.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What must agree between the plan on disk and the one these arguments make for --resume.
void require_same_plan(const json& old_plan, const json& fresh, const fs::path& out) {
  for (const char* k : {"options", "bundles", "benchmarks"}) {
    json a = old_plan[k], b = fresh[k];
    if (std::string(k) == "bundles")
      for (json* v : {&a, &b})
        for (json& e : *v) e.erase("source");  // the same bundle may be passed from another path
    if (a != b)
      throw make_error("{}: --resume: the suite's plan.json field '{}' differs from what these arguments select "
                       "({} vs {}); resume with the bundles and options the suite was started with, or choose a "
                       "new -o",
                       out.string(), k, a.dump().substr(0, 200), b.dump().substr(0, 200));
  }
}

// Refuses an -o that holds something other than a suite, or a suite without --resume.
void check_out_dir(const fs::path& out, bool resume, const json& fresh) {
  const bool exists = fs::exists(out) && !(fs::is_directory(out) && fs::is_empty(out));
  if (!exists) {
    if (resume) throw make_error("--resume: {} holds no suite; drop --resume to start one there", out.string());
    return;
  }
  if (!fs::is_directory(out)) throw make_error("-o {}: exists and is not a directory", out.string());
  if (!fs::exists(out / kPlanFile))
    throw make_error("-o {}: the directory is not empty and holds no suite (no plan.json); vxsynth writes only into "
                     "a new or empty directory or one holding its own suite: choose a new or empty -o",
                     out.string());
  const json old_plan = read_plan(out);
  if (!resume)
    throw make_error("-o {}: already holds a suite; pass --resume to continue it or choose a new -o", out.string());
  require_same_plan(old_plan, fresh, out);
}

void write_references(const fs::path& out, const json& plan) {
  for (const json& b : plan["bundles"]) {
    const fs::path dst = out / b["file"].get<std::string>();
    if (fs::exists(dst) && sha256_file(dst) == b["sha256"]) continue;
    fs::create_directories(dst.parent_path());
    write_file_atomic(dst, read_file(b["source"].get<std::string>()));
  }
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<std::string> job_argv(const BuildOptions& o, const Tools& t, const std::string& name) {
  std::vector<std::string> a{t.vxsynth.string(), "suite", "job", fs::absolute(o.out).string(), name, "--sdk",
                             t.sdk.string(), "--ncu", t.ncu, "--build-timeout", fmt::format("{}", o.build_timeout_s),
                             "--run-timeout", fmt::format("{}", o.run_timeout_s)};
  if (!t.python_dir.empty()) a.insert(a.end(), {"--python-dir", t.python_dir.string()});
  return a;
}

}  // namespace

int build(const BuildOptions& opts, const Tools& tools) {
  BuildOptions o = opts;
  o.out = suite_path(o.out);
  const json plan = make_plan(o.bundles, o.plan);
  check_out_dir(o.out, o.resume, plan);
  fs::create_directories(o.out);
  const DirectoryOwnerLock owner(o.out);  // one build per suite directory (suite collect says so)
  const fs::path state = o.out / kStateDir;
  fs::create_directories(state / "jobs");
  fs::create_directories(state / "logs");
  write_file_atomic(o.out / kPlanFile, plan.dump(1));
  write_references(o.out, plan);

  // Longest expected first (the op's multiply-accumulates; ties in plan order), so that the kernels
  // that take longest start at once and the short ones fill the slots they leave.
  std::vector<json> order(plan["benchmarks"].begin(), plan["benchmarks"].end());
  std::stable_sort(order.begin(), order.end(), [](const json& a, const json& b) {
    return a.value("macs", int64_t{0}) > b.value("macs", int64_t{0});
  });
  std::vector<Job> jobs;
  size_t done = 0;
  for (const json& b : order) {
    const std::string name = b["name"].get<std::string>();
    if (benchmark_complete(o.out / name)) {
      ++done;
      continue;
    }
    std::error_code ec;
    fs::remove(state / "jobs" / (name + ".json"), ec);  // a stale outcome of an earlier attempt
    jobs.push_back({name, job_argv(o, tools, name)});
  }
  std::cout << fmt::format("[suite] {}: {} benchmarks planned ({} built already, {} to build) from {} bundles; "
                           "executor {}, {} at once\n",
                           o.out.string(), plan["benchmarks"].size(), done, jobs.size(), plan["bundles"].size(),
                           o.executor, o.exec.parallel)
            << std::flush;
  ExecutorOptions eo = o.exec;
  eo.state_dir = state;
  const std::unique_ptr<Executor> ex = make_executor(o.executor, eo);
  const ExecutorOutcome r = ex->run(jobs, {tools.vxsynth.string(), "suite", "collect", o.out.string()});
  if (r.detached) return 0;
  if (!r.collected) throw make_error("{}: the collect step failed ({})", o.out.string(), r.note);
  std::cout << fmt::format("[suite] {}: {} of {} jobs failed; suite.json, SUITE.md, Makefile, manifest.json written\n",
                           o.out.string(), r.failed_jobs, jobs.size());
  return r.failed_jobs == 0 ? 0 : 1;
}

int job(const fs::path& suite_dir, const std::string& name, const Tools& tools, double build_timeout_s,
        double run_timeout_s) {
  const fs::path dir = suite_path(suite_dir);
  const json plan = read_plan(dir);
  const json& b = plan_benchmark(plan, name);
  const json& o = plan["options"];
  const fs::path state = dir / kStateDir, bench = dir / name;
  json outcome{{"benchmark", name}, {"started_utc", utc_now()}};
  if (benchmark_complete(bench)) {
    outcome.update(json{{"exit", 0}, {"status", "already built"}, {"wall_s", 0.0}, {"finished_utc", utc_now()}});
    write_file_atomic(state / "jobs" / (name + ".json"), outcome.dump(1));
    std::cout << fmt::format("[suite] {}: already built\n", name);
    return 0;
  }
  const bool resume = fs::exists(bench / "record.jsonl") && fs::file_size(bench / "record.jsonl") > 0;
  std::vector<std::string> argv{tools.vxsynth.string(), "reconstruct", (dir / b["bundle"].get<std::string>()).string(),
                                "--kernel", b["kernel_id"].get<std::string>(), "--profile", o["profile"].get<std::string>(),
                                "--agent", o["agent"].get<std::string>(),
                                "--budget", std::to_string(o["budget"].get<int>()), "--seed",
                                std::to_string(o["seed"].get<uint64_t>()), "-o", bench.string(), "--sdk",
                                tools.sdk.string(), "--build-timeout", fmt::format("{}", build_timeout_s),
                                "--run-timeout", fmt::format("{}", run_timeout_s)};
  if (o["profile"] == "ncu")
    argv.insert(argv.end(), {"--ncu", tools.ncu, "--gpu-lock", (state / kGpuLock).string(), "--order",
                             o.value("order", "cuda-first"), "--profile-in", o.value("profile_in", "auto")});
  if (!tools.python_dir.empty()) argv.insert(argv.end(), {"--python-dir", tools.python_dir.string()});
  if (resume) argv.push_back("--resume");
  ProcessOptions po{7 * 24 * 3600.0};
  po.max_output = size_t{4} << 20;
  // The log grows as the job runs (a build killed mid-job keeps what its job printed), then is
  // rewritten whole at the end.
  const fs::path log = state / "logs" / (name + ".log");
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
  write_file_atomic(log, "$ " + command + "\n");
  po.tee = log;
  const ProcessResult r = run_process(argv, po);
  write_file_atomic(log, "$ " + r.command + "\n" + r.output);
  // Exit 3: the agent failed on every revision, and the seed benchmark was written (reconstruct).
  const int status = r.exit_code == 3 ? 0 : (r.ok() ? 0 : (r.exit_code > 0 ? r.exit_code : 1));
  outcome.update(json{{"exit", status}, {"status", r.status_text()}, {"resumed", resume}, {"wall_s", r.wall_s},
                  {"command", r.command}, {"finished_utc", utc_now()},
                  {"tail", status == 0 ? std::string() : tail_lines(r.output, 6)}});
  write_file_atomic(state / "jobs" / (name + ".json"), outcome.dump(1));
  std::cout << fmt::format("[suite] {}: {} ({}, {:.1f} s)\n", name, status == 0 ? "built" : "FAILED",
                           r.status_text(), r.wall_s);
  return status;
}

}  // namespace vxsynth::suite
