// Speed of vxsim's timing mode (and, for reference, functional mode) on a 128×128 sgemm and a
// 3×3 convolution of a 128×128 image, on 1 core × 4 warps × 4 threads and 4 cores × 8 warps ×
// 8 threads. Counters: thread_instrs/s, warp_instrs/s, sim_cycles/s per wall-clock second, and
// thread_instrs/cpu_s, sim_cycles/cpu_s per CPU second of the simulating thread (the honest figure
// on a shared machine). Every run's output is checked against a CPU reference.
// Numbers, command, machine and date are recorded in docs/timing.md.
#include <benchmark/benchmark.h>

#include "bench_host.h"

namespace {

using vxsim::bench::BenchRun;

vxsim::Config shape(int64_t cores, int64_t warps, int64_t threads) {
  vxsim::Config c;
  c.cores = static_cast<uint32_t>(cores);
  c.warps = static_cast<uint32_t>(warps);
  c.threads = static_cast<uint32_t>(threads);
  return c;
}

// Args: kernel, n, cores, warps, threads, timing (1) or functional (0).
void BM_Vxsim(benchmark::State& state) {
  const auto kernel = static_cast<bench_kernel_t>(state.range(0));
  const auto n = static_cast<uint32_t>(state.range(1));
  const vxsim::Config cfg = shape(state.range(2), state.range(3), state.range(4));
  const bool timing = state.range(5) != 0;
  double seconds = 0, cpu_seconds = 0, thread_instrs = 0, warp_instrs = 0, cycles = 0;
  for (auto _ : state) {
    BenchRun r = vxsim::bench::run_bench(kernel, n, cfg, timing ? std::optional(vxsim::timing::TimingConfig{}) : std::nullopt);
    state.SetIterationTime(r.seconds);
    seconds += r.seconds;
    cpu_seconds += r.cpu_seconds;
    thread_instrs += static_cast<double>(r.thread_instrs);
    warp_instrs += static_cast<double>(r.warp_instrs);
    cycles += static_cast<double>(r.cycles);
  }
  state.SetLabel(fmt::format("{} n={} {}c{}w{}t {}", vxsim::bench::kernel_name(kernel), n, cfg.cores, cfg.warps,
                             cfg.threads, timing ? "timing" : "functional"));
  state.counters["thread_instrs/s"] = thread_instrs / seconds;
  state.counters["thread_instrs/cpu_s"] = thread_instrs / cpu_seconds;
  state.counters["warp_instrs/s"] = warp_instrs / seconds;
  state.counters["thread_instrs"] = thread_instrs / static_cast<double>(state.iterations());
  if (timing) {
    state.counters["sim_cycles/s"] = cycles / seconds;
    state.counters["sim_cycles/cpu_s"] = cycles / cpu_seconds;
    state.counters["sim_cycles"] = cycles / static_cast<double>(state.iterations());
  }
}

void Args(benchmark::internal::Benchmark* b) {
  for (int64_t kernel : {kBenchSgemm, kBenchConv3}) {
    for (auto [c, w, t] : {std::tuple<int64_t, int64_t, int64_t>{1, 4, 4}, {4, 8, 8}}) {
      for (int64_t timing : {1, 0}) b->Args({kernel, 128, c, w, t, timing});
    }
  }
}

BENCHMARK(BM_Vxsim)->Apply(Args)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
