// Host side of the benchmark kernels (bench/kernels/bench_kernels.cpp): places inputs and
// arguments in a vxsim::Processor, runs it in timing or functional mode, and checks the output
// against a CPU reference, so every speed figure comes from a run that computed the right answer.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench_kernels.h"
#include "vxsim/core.h"
#include "vxsim/loader.h"
#include "vxsynth/core/vortex_signature.h"
#include "vxsim/timing/simulator.h"
#include "vxsynth/common/error.h"

namespace vxsim::bench {

/// One run's numbers.
struct BenchRun {
  uint64_t cycles = 0;           ///< timing mode only
  uint64_t thread_instrs = 0;
  uint64_t warp_instrs = 0;
  double seconds = 0;            ///< host wall time of the simulation itself (load and check excluded)
  double cpu_seconds = 0;        ///< CPU time of this thread over the same span (robust on a shared machine)
  timing::DeviceCounters counters;
  vxsynth::core::Signature signature;
};

inline const char* kernel_name(bench_kernel_t k) { return k == kBenchSgemm ? "sgemm" : "conv3"; }

/// Runs `kernel` of size `n` on a device of `cfg`'s shape. `tcfg` = nullopt runs functional mode.
/// Throws vxsynth::Error when the output disagrees with the CPU reference (relative 1e-4).
inline BenchRun run_bench(bench_kernel_t kernel, uint32_t n, const vxsim::Config& cfg,
                          const std::optional<timing::TimingConfig>& tcfg) {
  constexpr uint32_t kArg = 0x10000, kA = 0x100000;
  Processor p(cfg);
  std::ostringstream console;
  p.set_console(&console);
  load_program(p, VXSIM_BENCH_KERNEL_ELF);
  const uint32_t in_n = kernel == kBenchSgemm ? n : n + 2;
  std::vector<float> a(static_cast<std::size_t>(in_n) * in_n), b(kernel == kBenchSgemm ? n * n : 9);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7 + 3) % 13) * 0.25f - 1.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5 + 1) % 11) * 0.125f - 0.5f;
  const uint32_t kB = kA + static_cast<uint32_t>(a.size() * 4 + 4096) / 4096 * 4096;
  const uint32_t kC = kB + static_cast<uint32_t>(b.size() * 4 + 4096) / 4096 * 4096;
  p.memory().write(kA, a.data(), a.size() * 4);
  p.memory().write(kB, b.data(), b.size() * 4);
  bench_arg_t arg{kernel, n, n * n, 0, kA, kB, kC};
  p.memory().write(kArg, &arg, sizeof arg);
  p.dcr_write(0x003, kArg);
  p.dcr_write(0x004, 0);
  p.reset();

  BenchRun r;
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  const double c0 = cpu_now();
  auto t0 = std::chrono::steady_clock::now();
  if (tcfg) {
    timing::TimingSimulator sim(p, *tcfg);
    r.cycles = sim.run();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.cpu_seconds = cpu_now() - c0;
    r.counters = sim.counters();
    r.signature = vxsynth::core::vortex_signature(r.counters, sim.config());
    r.thread_instrs = r.counters.total().thread_instrs;
    r.warp_instrs = r.counters.total().warp_instrs;
  } else {
    RunResult f = p.run();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.cpu_seconds = cpu_now() - c0;
    r.thread_instrs = f.thread_instrs;
    r.warp_instrs = f.warp_instrs;
  }
  // CPU reference (the kernels are compiled with FMA contraction, so compare with a tolerance).
  for (uint32_t id = 0; id < n * n; id += 37) {
    double ref = 0;
    const uint32_t y = id / n, x = id % n;
    if (kernel == kBenchSgemm) {
      for (uint32_t k = 0; k < n; ++k) ref += double(a[y * n + k]) * double(b[k * n + x]);
    } else {
      for (uint32_t dy = 0; dy < 3; ++dy)
        for (uint32_t dx = 0; dx < 3; ++dx) ref += double(a[(y + dy) * (n + 2) + x + dx]) * double(b[dy * 3 + dx]);
    }
    uint32_t bits = p.memory().read32(kC + 4 * id);
    float got;
    std::memcpy(&got, &bits, 4);
    if (std::fabs(got - ref) > 1e-4 * std::max(1.0, std::fabs(ref))) {
      throw vxsynth::make_error("{} n={}: output[{}] = {} but the CPU reference is {}", kernel_name(kernel), n, id,
                                got, ref);
    }
  }
  return r;
}

}  // namespace vxsim::bench
