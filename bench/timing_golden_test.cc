// Bit-identical timing results: every counter of a few timing-mode runs (the benchmark kernels of
// bench/kernels at several shapes and memory configurations, the timing micro-kernel's local-memory
// and barrier modes) must equal the values recorded from the model before its speed work. A change
// of the model's behaviour changes these on purpose: record the new values with
//   VXSIM_GOLDEN_PRINT=1 build/release/bench/timing_golden_test
// and say in the commit why the results moved. The kernels are built with the SDK, so a change of
// its startup or vx_spawn_threads moves them too (re-recorded 2026-12-04 for the startup and spawn
// that execute Vortex's instruction counts, docs/sdk.md; the micro kernel's row again for thread
// mode's core count as Vortex's, which moved vx_spawn_threads' code).
#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "bench_host.h"
#include "micro.h"

namespace vxsim::bench {
namespace {

using timing::CacheCounters;
using timing::CoreCounters;
using timing::DeviceCounters;

std::string text(const CacheCounters& c) {
  return fmt::format("{},{},{},{},{},{}", c.reads, c.writes, c.read_misses, c.write_misses, c.bank_stalls,
                     c.mshr_stalls);
}

/// Every counter of the run, in a fixed order.
std::string text(const DeviceCounters& d) {
  std::string s = fmt::format("cycles={}", d.cycles);
  for (const CoreCounters& c : d.cores) {
    s += fmt::format("|{},{},{},{},{},{},{},{},{},{},{},{},{},{}", c.cycles, c.warp_instrs, c.thread_instrs,
                     c.sched_idle, c.sched_stalls, c.ibuf_stalls, c.scrb_stalls, c.opds_stalls, c.ifetches,
                     c.ifetch_latency, c.loads, c.load_latency, c.stores, c.coalescer_misses);
    for (uint64_t v : c.scrb) s += fmt::format(",{}", v);
    s += "/i" + text(c.icache) + "/d" + text(c.dcache);
    s += fmt::format("/{},{},{}", c.lmem_reads, c.lmem_writes, c.lmem_bank_stalls);
    for (uint64_t v : c.busy) s += fmt::format(",{}", v);
    for (uint64_t v : c.unit_instrs) s += fmt::format(",{}", v);
    s += fmt::format("/{},{},{},{},{},{},{},{},{},{},{},{},{}", c.fp_flops, c.tcu_macs, c.tcu_micro_ops, c.amo_instrs,
                     c.active_warp_cycles, c.gld_instrs, c.gld_bytes, c.gld_sectors, c.gst_instrs, c.lmem_instrs,
                     c.branches, c.barriers, c.warp_flops.size());
    for (uint64_t v : c.warp_flops) s += fmt::format(",{}", v);
  }
  for (const CacheCounters& c : d.l2) s += "|l2:" + text(c);
  s += "|l3:" + text(d.l3);
  s += fmt::format("|dram:{},{},{},{},{},{}", d.dram.reads, d.dram.writes, d.dram.read_latency, d.dram.bank_stalls,
                   d.dram.bytes_read, d.dram.bytes_written);
  return s;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64-bit offset basis and prime
  for (const unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

vxsim::Config shape(uint32_t cores, uint32_t warps, uint32_t threads) {
  vxsim::Config c;
  c.cores = cores;
  c.warps = warps;
  c.threads = threads;
  c.host_threads = 1;
  return c;
}

DeviceCounters run_micro(micro_arg_t arg, const vxsim::Config& cfg) {
  constexpr uint32_t kArg = 0x10000, kSrc = 0x100000, kDst = 0x4000000;
  Processor p(cfg);
  std::ostringstream console;
  p.set_console(&console);
  load_program(p, VXSIM_MICRO_ELF);
  const std::vector<float> src(uint64_t{arg.iters} * arg.n * std::max(arg.stride, 1u) + 64, 1.0f);
  p.memory().write(kSrc, src.data(), src.size() * sizeof(float));
  arg.src = kSrc;
  arg.dst = kDst;
  p.memory().write(kArg, &arg, sizeof arg);
  p.dcr_write(0x003, kArg);
  p.dcr_write(0x004, 0);
  p.reset();
  timing::TimingSimulator sim(p, timing::TimingConfig{});
  sim.run();
  return sim.counters();
}

struct Golden {
  const char* name;
  uint64_t cycles;
  uint64_t hash;  ///< fnv1a(text(counters))
};

void expect(const Golden& g, const DeviceCounters& d) {
  const std::string t = text(d);
  if (std::getenv("VXSIM_GOLDEN_PRINT") != nullptr)
    std::cout << fmt::format("      {{\"{}\", {}, {:#018x}ull}},\n", g.name, d.cycles, fnv1a(t));
  EXPECT_EQ(d.cycles, g.cycles) << g.name << ": " << t;
  EXPECT_EQ(fnv1a(t), g.hash) << g.name << ": " << t;
}

timing::TimingConfig with(std::initializer_list<const char*> sets) {
  timing::TimingConfig c;
  for (const char* s : sets) timing::apply_override(c, s);
  return c;
}

TEST(TimingGolden, BenchKernelsAtSeveralShapes) {
  const Golden golden[] = {
      {"sgemm32 1c4w4t", 124290, 0xcf46bee884c73618ull},
      {"conv3 32 1c4w4t", 43133, 0x755e0dd6cb790ee3ull},
      {"sgemm32 4c8w8t", 124828, 0x660b0e7faa474377ull},
      {"conv3 32 4c8w8t", 105497, 0x8c26fa298b2ec072ull},
      {"sgemm32 8c4w4t (2 sockets)", 81844, 0x0faccef51ed5a48full},
      {"sgemm32 1c32w8t", 119930, 0x35094692b1d54b51ull},
      {"sgemm32 2c8w4t l2+l3", 83369, 0x7eb54158d04e50dcull},
      {"conv3 32 8c8w8t l2 (2 sockets)", 185839, 0x3d089497cec5e38eull},
  };
  const timing::TimingConfig base;
  expect(golden[0], run_bench(kBenchSgemm, 32, shape(1, 4, 4), base).counters);
  expect(golden[1], run_bench(kBenchConv3, 32, shape(1, 4, 4), base).counters);
  expect(golden[2], run_bench(kBenchSgemm, 32, shape(4, 8, 8), base).counters);
  expect(golden[3], run_bench(kBenchConv3, 32, shape(4, 8, 8), base).counters);
  expect(golden[4], run_bench(kBenchSgemm, 32, shape(8, 4, 4), base).counters);
  expect(golden[5], run_bench(kBenchSgemm, 32, shape(1, 32, 8), base).counters);
  expect(golden[6], run_bench(kBenchSgemm, 32, shape(2, 8, 4), with({"l2.enabled=true", "l3.enabled=true"})).counters);
  expect(golden[7], run_bench(kBenchConv3, 32, shape(8, 8, 8), with({"l2.enabled=true"})).counters);
}

TEST(TimingGolden, MicroKernelLocalMemoryAndBarriers) {
  const Golden golden[] = {
      {"micro lmem stride 8 1c4w8t", 22265, 0x53a24d61b367aa07ull},
      {"micro barrier 1c4w8t", 27475, 0x1c21db6cd1f49693ull},
      {"micro stride load 2c4w4t", 20225, 0x39f2f10051022174ull},
  };
  micro_arg_t a{};
  a.mode = kMicroLmem;
  a.n = 32;
  a.iters = 100;
  a.stride = 8;
  expect(golden[0], run_micro(a, shape(1, 4, 8)));
  a = {};
  a.mode = kMicroBarrier;
  a.n = 32;
  a.iters = 200;
  expect(golden[1], run_micro(a, shape(1, 4, 8)));
  a = {};
  a.mode = kMicroStrideLoad;
  a.n = 64;
  a.stride = 3;
  a.iters = 16;
  a.reps = 2;
  expect(golden[2], run_micro(a, shape(2, 4, 4)));
}

}  // namespace
}  // namespace vxsim::bench
