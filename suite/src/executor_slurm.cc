// The Slurm executor (docs/suite.md "Slurm"): one job array with a task per kernel
// (SUITE/.suite/slurm/array.sh, `sbatch --array=0-(n-1)%parallel`) and a collect job that depends
// on the whole array (`--dependency=afterany:<array id>`), both on the shared filesystem that holds
// SUITE. Each task runs `vxsynth suite job`, which resumes or skips its kernel by itself, so a
// cancelled or failed array is continued by submitting again (`suite build --resume`). Unless
// detached, it waits until squeue no longer lists either job.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/suite/executor.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;

std::string quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + quote(a);
  return s;
}

std::string array_script(const std::vector<Job>& jobs) {
  std::string s =
      "#!/bin/bash\n# One task per suite kernel, written by vxsynth suite build (docs/suite.md \"Slurm\").\n"
      "case \"${SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}\" in\n";
  for (size_t i = 0; i < jobs.size(); ++i)
    s += fmt::format("  {}) exec {} ;;  # {}\n", i, command_line(jobs[i].argv), jobs[i].name);
  return s + "esac\necho \"no suite kernel at array index $SLURM_ARRAY_TASK_ID\" >&2\nexit 2\n";
}

class SlurmExecutor final : public Executor {
 public:
  explicit SlurmExecutor(ExecutorOptions o) : opts_(std::move(o)), dir_(opts_.state_dir / "slurm") {}
  [[nodiscard]] std::string_view name() const override { return "slurm"; }

  ExecutorOutcome run(const std::vector<Job>& jobs, const std::vector<std::string>& collect) override {
    fs::create_directories(dir_);
    std::error_code ec;
    fs::remove(opts_.state_dir / "collect.json", ec);
    std::string array_id;
    if (!jobs.empty()) {
      write_file_atomic(dir_ / "array.sh", array_script(jobs));
      array_id = submit({fmt::format("--array=0-{}%{}", jobs.size() - 1, std::max(1, opts_.parallel)),
                         "--job-name=vxsuite", "--output=" + (dir_ / "task-%A_%a.out").string(),
                         (dir_ / "array.sh").string()});
    }
    write_file_atomic(dir_ / "collect.sh",
                      "#!/bin/bash\n# The suite's collect step, written by vxsynth suite build.\nexec " +
                          command_line(collect) + "\n");
    std::vector<std::string> c{"--job-name=vxsuite-collect", "--output=" + (dir_ / "collect-%j.out").string()};
    if (!array_id.empty()) c.push_back("--dependency=afterany:" + array_id);
    c.push_back((dir_ / "collect.sh").string());
    const std::string collect_id = submit(c);
    ExecutorOutcome out;
    out.note = fmt::format("slurm: array job {} ({} tasks), collect job {}", array_id.empty() ? "-" : array_id,
                           jobs.size(), collect_id);
    std::cout << "[suite] " << out.note << "\n" << std::flush;
    if (opts_.detach) {
      out.detached = true;
      return out;
    }
    wait_for(array_id.empty() ? collect_id : array_id + "," + collect_id);
    out.failed_jobs = count_failed(jobs);
    out.collected = fs::exists(opts_.state_dir / "collect.json");
    return out;
  }

 private:
  // sbatch --parsable prints "<id>" or "<id>;<cluster>".
  std::string submit(std::vector<std::string> args) {
    args.insert(args.begin(), opts_.slurm_args.begin(), opts_.slurm_args.end());
    args.insert(args.begin(), {"sbatch", "--parsable", "--chdir=" + opts_.state_dir.string()});
    const ProcessResult r = run_process(args, {120.0});
    if (!r.ok()) throw make_error("{}: {}: {}", r.command, r.status_text(), tail_lines(r.output, 4));
    std::string id = r.output.substr(0, r.output.find_first_of(";\n"));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
      throw make_error("{}: printed no job id: {}", r.command, tail_lines(r.output, 4));
    return id;
  }

  void wait_for(const std::string& ids) const {
    while (true) {
      const ProcessResult r = run_process({"squeue", "-h", "-j", ids, "-o", "%i %T"}, {60.0});
      // squeue fails with "Invalid job id" once every listed job has left the queue.
      if (!r.ok() && r.output.find("nvalid job id") == std::string::npos)
        throw make_error("{}: {}: {}", r.command, r.status_text(), tail_lines(r.output, 4));
      if (!r.ok() || r.output.find_first_not_of(" \n") == std::string::npos) return;
      std::this_thread::sleep_for(std::chrono::duration<double>(opts_.poll_s));
    }
  }

  // A job that left no outcome file (cancelled, node failure) counts as failed.
  int count_failed(const std::vector<Job>& jobs) const {
    int failed = 0;
    for (const Job& j : jobs) {
      const fs::path p = opts_.state_dir / "jobs" / (j.name + ".json");
      const nlohmann::json o = fs::exists(p) ? nlohmann::json::parse(read_file(p), nullptr, false) : nlohmann::json();
      if (!o.is_object() || o.value("exit", -1) != 0) ++failed;
    }
    return failed;
  }

  ExecutorOptions opts_;
  fs::path dir_;
};

}  // namespace

std::unique_ptr<Executor> make_slurm_executor(const ExecutorOptions& options) {
  return std::make_unique<SlurmExecutor>(options);
}

}  // namespace vxsynth::suite
