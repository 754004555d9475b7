// Prints, as a Markdown table, the ten Vortex-side signature metrics of the benchmark kernels
// (bench/kernels) under a sweep of configurations: L1 size, warps per core, threads per warp.
// Used to fill the "metrics move the expected way" table of docs/timing.md.
//   timing_sweep [n]     (default n = 64)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_host.h"

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 64;
  struct Row {
    const char* what;
    uint32_t warps, threads, dcache;
  };
  const Row rows[] = {
      {"base 1c×4w×4t, L1 16 KiB", 4, 4, 16384}, {"L1 4 KiB", 4, 4, 4096},
      {"L1 64 KiB", 4, 4, 65536},                 {"warps 2", 2, 4, 16384},
      {"warps 8", 8, 4, 16384},                   {"threads 8", 4, 8, 16384},
      {"threads 16", 4, 16, 16384},
  };
  try {
    for (bench_kernel_t k : {kBenchSgemm, kBenchConv3}) {
      std::printf("\n%s n=%u\n\n| config | cycles | IPC (thread) | l1_hit_rate %% | coalescing %% | peak_compute %% | "
                  "arith_intensity | dram_bandwidth GB/s | active_lanes | occupancy %% |\n|---|---|---|---|---|---|---|---|---|---|\n",
                  vxsim::bench::kernel_name(k), n);
      for (const Row& r : rows) {
        vxsim::Config cfg;
        cfg.warps = r.warps;
        cfg.threads = r.threads;
        vxsim::timing::TimingConfig t;
        t.dcache.size = r.dcache;
        vxsim::bench::BenchRun b = vxsim::bench::run_bench(k, n, cfg, t);
        using vxsynth::core::MetricId;
        auto v = [&](MetricId id) { return b.signature[id].value_or(-1.0); };
        std::printf("| %s | %llu | %.3f | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f | %.1f |\n", r.what,
                    static_cast<unsigned long long>(b.cycles),
                    static_cast<double>(b.thread_instrs) / static_cast<double>(b.cycles), v(MetricId::kL1HitRate),
                    v(MetricId::kCoalescing), v(MetricId::kPeakCompute), v(MetricId::kArithIntensity),
                    v(MetricId::kDramBandwidth) / 1e9, v(MetricId::kActiveLanes), v(MetricId::kOccupancy));
      }
    }
  } catch (const vxsynth::Error& e) {
    std::fprintf(stderr, "timing_sweep: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
