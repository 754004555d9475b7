// The local executor: a pool of `parallel` threads, each taking the next job and running its
// command line as a child process (common/process.h: own process group, killed with us). GPU runs
// of different jobs never overlap: every job's reconstruct holds the suite's GPU lock while its
// candidate is on the GPU (SUITE/.suite/gpu.lock, reconstruct --gpu-lock; docs/suite.md "GPU lock").
#include <algorithm>
#include <atomic>
#include <iostream>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "vxsynth/common/process.h"
#include "vxsynth/suite/executor.h"

namespace vxsynth::suite {
namespace {

class LocalExecutor final : public Executor {
 public:
  explicit LocalExecutor(ExecutorOptions o) : opts_(std::move(o)) {}
  [[nodiscard]] std::string_view name() const override { return "local"; }

  ExecutorOutcome run(const std::vector<Job>& jobs, const std::vector<std::string>& collect) override {
    ExecutorOutcome out;
    std::atomic<size_t> next{0};
    std::atomic<int> failed{0};
    std::mutex print;
    auto worker = [&] {
      for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
        const ProcessResult r = run_process(jobs[i].argv, {opts_.job_timeout_s});
        if (!r.ok()) ++failed;
        const std::lock_guard<std::mutex> lock(print);
        std::cout << fmt::format("[suite] {}: {} ({:.1f} s){}\n", jobs[i].name, r.ok() ? "done" : r.status_text(),
                                 r.wall_s, r.ok() ? "" : "\n" + tail_lines(r.output, 6))
                  << std::flush;
      }
    };
    const size_t n = std::min<size_t>(jobs.size(), static_cast<size_t>(std::max(1, opts_.parallel)));
    std::vector<std::thread> pool;
    for (size_t t = 0; t < n; ++t) pool.emplace_back(worker);
    for (std::thread& t : pool) t.join();
    out.failed_jobs = failed;
    const ProcessResult c = run_process(collect, {opts_.job_timeout_s});
    std::cout << c.output << std::flush;
    out.collected = c.ok();
    if (!c.ok()) out.note = fmt::format("collect: {}", c.status_text());
    return out;
  }

 private:
  ExecutorOptions opts_;
};

}  // namespace

std::unique_ptr<Executor> make_local_executor(const ExecutorOptions& options) {
  return std::make_unique<LocalExecutor>(options);
}

}  // namespace vxsynth::suite
