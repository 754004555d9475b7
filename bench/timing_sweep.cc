// Prints, as a Markdown table, the ten Vortex-side signature metrics of the benchmark kernels
// (bench/kernels) under a sweep of configurations: L1 size, warps per core, threads per warp.
// Used to fill the "metrics move the expected way" table of docs/timing.md.
//   timing_sweep [n]     (default n = 64)
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench_host.h"

namespace {

constexpr const char* kUsage =
    "usage: timing_sweep [n]\n"
    "Runs the benchmark kernels (sgemm, conv3) of size n (default 64, 1..4096) on the vxsim timing\n"
    "model under a sweep of configurations and prints their signature metrics as Markdown tables\n"
    "(docs/timing.md).\n";

// The problem size from the command line: 0 when the arguments ask for help or are not one size.
uint32_t parse_size(int argc, char** argv, int& status) {
  status = 0;
  if (argc == 1) return 64;
  const std::string_view a = argv[1];
  if (a == "-h" || a == "--help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  uint32_t n = 0;
  const auto r = std::from_chars(a.data(), a.data() + a.size(), n);
  if (argc > 2 || r.ec != std::errc{} || r.ptr != a.data() + a.size() || n < 1 || n > 4096) {
    std::fprintf(stderr, "timing_sweep: error: '%s'%s is not one size n in 1..4096\n%s", argv[1],
                 argc > 2 ? " …" : "", kUsage);
    status = 2;
  }
  return status == 0 ? n : 0;
}

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
  const uint32_t n = parse_size(argc, argv, status);
  if (n == 0) return status;
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
