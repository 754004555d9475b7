// Known-answer tests of the timing model on real kernels: tests/kernels/micro.cpp compiled with
// the SDK (riscv64-unknown-elf-g++), loaded and executed by the functional core, timed here.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "micro.h"
#ifdef VXSIM_TCU_ELF
#include "common.h"      // sdk/regression/sgemm_tcu: kernel_arg_t
#include "tensor_cfg.h"  // sdk/include: WMMA tile geometry
#endif
#include "vxsim/core.h"
#include "vxsim/isa.h"
#include "vxsim/loader.h"
#include "vxsim/timing/perf_report.h"
#include "vxsim/timing/simulator.h"
#include "vxsynth/core/vortex_signature.h"

namespace vxsim::timing {
namespace {

using vxsynth::core::MetricId;
using vxsynth::core::vortex_signature;

constexpr uint32_t kArgAddr = 0x10000;
constexpr uint32_t kSrcAddr = 0x100000;
constexpr uint32_t kDstAddr = 0x4000000;

struct MicroRun {
  uint64_t cycles = 0;
  DeviceCounters c;
  vxsynth::core::Signature sig;
  std::vector<uint64_t> dump;  ///< core 0's perf-dump block (32 slots) written by the kernel at exit
  std::string perf;            ///< PERF report read back from the dump block
  std::vector<uint32_t> dst;
  std::vector<std::pair<uint64_t, PcTraffic>> profile;  ///< per-PC rows when run with a memory profile
  PcTraffic fetch;                                      ///< the profile's instruction-fetch row
};

vxsim::Config shape(uint32_t cores, uint32_t warps, uint32_t threads) {
  vxsim::Config c;
  c.cores = cores;
  c.warps = warps;
  c.threads = threads;
  return c;
}

MicroRun run_micro(micro_arg_t arg, const vxsim::Config& fcfg, const TimingConfig& tcfg = {},
                   MpmClass cls = MpmClass::kNone, bool profile = false) {
  Processor p(fcfg);
  std::ostringstream console;
  p.set_console(&console);
  load_program(p, VXSIM_MICRO_ELF);
  uint64_t floats = uint64_t{arg.iters} * arg.n * std::max(arg.stride, 1u) + 64;
  std::vector<float> src(floats, 1.0f);
  p.memory().write(kSrcAddr, src.data(), src.size() * sizeof(float));
  arg.src = kSrcAddr;
  arg.dst = kDstAddr;
  p.memory().write(kArgAddr, &arg, sizeof arg);
  p.dcr_write(0x003, kArgAddr);
  p.dcr_write(0x004, 0);
  p.dcr_write(0x005, static_cast<uint32_t>(cls));
  p.reset();
  TimingSimulator sim(p, tcfg);
  if (profile) sim.enable_mem_profile();
  MicroRun r;
  r.cycles = sim.run();
  if (profile) {
    r.profile = sim.mem_profile()->rows();
    r.fetch = sim.mem_profile()->outside();
  }
  EXPECT_EQ(p.exit_code(), 0u) << console.str();
  r.c = sim.counters();
  r.sig = vortex_signature(r.c, sim.config());
  for (uint32_t i = 0; i < 32; ++i) {
    uint64_t lo = p.memory().read32(0x80 + 8 * i);
    uint64_t hi = p.memory().read32(0x80 + 8 * i + 4);
    r.dump.push_back(lo | (hi << 32));
  }
  PerfReportInfo info;
  info.num_cores = p.num_cores();
  info.mpm_class = cls;
  r.perf = format_perf_report(info, [&](uint32_t core, uint32_t index) {
    uint32_t base = 0x80 + 256 * core + 8 * index;
    return uint64_t{p.memory().read32(base)} | (uint64_t{p.memory().read32(base + 4)} << 32);
  });
  for (uint32_t i = 0; i < arg.n; ++i) r.dst.push_back(p.memory().read32(kDstAddr + 4 * i));
  return r;
}

micro_arg_t stride_load(uint32_t n, uint32_t stride, uint32_t iters, uint32_t reps) {
  micro_arg_t a{};
  a.mode = kMicroStrideLoad;
  a.n = n;
  a.stride = stride;
  a.iters = iters;
  a.reps = reps;
  return a;
}

/// One line with the numbers a failing expectation needs.
std::string describe(const MicroRun& r) {
  const CoreCounters t = r.c.total();
  std::string s = fmt::format("cycles={} warp_instrs={} thread_instrs={} dcache r={} rm={} w={} gld={} bytes={} "
                              "sectors={} dram r={} w={} barriers={} sched_st={}",
                              r.cycles, t.warp_instrs, t.thread_instrs, t.dcache.reads, t.dcache.read_misses,
                              t.dcache.writes, t.gld_instrs, t.gld_bytes, t.gld_sectors, r.c.dram.reads,
                              r.c.dram.writes, t.barriers, t.sched_stalls);
  static constexpr const char* kKeys[] = {"l1", "l2", "coal", "peak", "tmfu", "atom", "ai", "bw", "lanes", "occ"};
  for (std::size_t i = 0; i < r.sig.values.size(); ++i) {
    s += fmt::format(" {}={}", kKeys[i], r.sig.values[i] ? fmt::format("{:.3f}", *r.sig.values[i]) : "NA");
  }
  return s;
}

double metric(const MicroRun& r, MetricId id) {
  EXPECT_TRUE(r.sig[id].has_value());
  return r.sig[id].value_or(-1.0);
}

TEST(KernelTiming, CoalescingUnitStrideVsStride32) {
  // 8 threads × 4 B = one 32-B sector per warp load when unit-stride; 128-B apart when stride 32.
  // The loop's 65536 loads dominate the ~640 loads of startup and spawn code (which mostly
  // read one word per warp).
  MicroRun unit = run_micro(stride_load(32, 1, 64, 256), shape(1, 4, 8));
  MicroRun strided = run_micro(stride_load(32, 32, 64, 256), shape(1, 4, 8));
  EXPECT_FLOAT_EQ(std::bit_cast<float>(unit.dst[0]), 64.0f * 256);
  EXPECT_FLOAT_EQ(std::bit_cast<float>(strided.dst[5]), 64.0f * 256);
  EXPECT_NEAR(metric(unit, MetricId::kCoalescing), 100.0, 3.0) << describe(unit);
  EXPECT_NEAR(metric(strided, MetricId::kCoalescing), 12.5, 3.0) << describe(strided);
  EXPECT_GT(strided.c.total().coalescer_misses, unit.c.total().coalescer_misses);
  // Known FLOP count: one FADD per lane per iteration (startup code has no FP).
  EXPECT_EQ(unit.c.total().fp_flops, uint64_t{64} * 256 * 32);
  EXPECT_GT(strided.cycles, unit.cycles);
}

TEST(KernelTiming, EvenLanesGiveHalfActiveLanes) {
  micro_arg_t a{};
  a.mode = kMicroEvenLanes;
  a.n = 32;
  a.iters = 2000;
  MicroRun even = run_micro(a, shape(1, 4, 8));
  a.mode = kMicroAllLanes;
  MicroRun all = run_micro(a, shape(1, 4, 8));
  EXPECT_NEAR(metric(even, MetricId::kActiveLanes), 0.5, 0.03) << describe(even);
  EXPECT_NEAR(metric(all, MetricId::kActiveLanes), 1.0, 0.03) << describe(all);
  EXPECT_EQ(even.dst[2], all.dst[2]);  // even lanes computed the same value
  EXPECT_NE(even.dst[1], all.dst[1]);  // odd lanes skipped the loop
}

TEST(KernelTiming, WorkingSetThatFitsL1VsOneThatThrashes) {
  // Stride 16 words = one 64-B line per lane; 32 threads: iters × 2 KiB of lines. Startup code
  // misses often (per-hart stacks are 8 KiB apart, all in one set), so the loops are long.
  MicroRun fits = run_micro(stride_load(32, 16, 4, 64), shape(1, 4, 8));    // 8 KiB
  MicroRun thrash = run_micro(stride_load(32, 16, 32, 8), shape(1, 4, 8));  // 64 KiB > 16 KiB
  EXPECT_GT(metric(fits, MetricId::kL1HitRate), 80.0) << describe(fits);
  EXPECT_LT(metric(thrash, MetricId::kL1HitRate), 20.0) << describe(thrash);
  // A 128 KiB L1 holds the larger working set again.
  TimingConfig big;
  big.dcache.size = 131072;
  MicroRun roomy = run_micro(stride_load(32, 16, 32, 8), shape(1, 4, 8), big);
  EXPECT_GT(metric(roomy, MetricId::kL1HitRate), 80.0) << describe(roomy);
  EXPECT_LT(roomy.cycles, thrash.cycles);
  // Identity: a read is a hit or a miss; DRAM bytes are whole blocks.
  const CoreCounters t = thrash.c.total();
  EXPECT_LE(t.dcache.read_misses, t.dcache.reads);
  EXPECT_EQ(thrash.c.dram.bytes_read, 64 * thrash.c.dram.reads);
  EXPECT_EQ(thrash.c.dram.bytes_written, 64 * thrash.c.dram.writes);
  EXPECT_FALSE(fits.sig[MetricId::kL2HitRate].has_value());  // no L2 configured: NA
}

TEST(KernelTiming, L2HitRateMeasuredWhenL2IsOn) {
  TimingConfig cfg;
  cfg.l2.enabled = true;
  MicroRun r = run_micro(stride_load(32, 16, 32, 8), shape(1, 4, 8), cfg);
  // The 64 KiB working set thrashes the L1 but fits the 1 MiB L2.
  EXPECT_GT(metric(r, MetricId::kL2HitRate), 70.0) << describe(r);
  EXPECT_LT(metric(r, MetricId::kL1HitRate), 20.0) << describe(r);
}

TEST(KernelTiming, LocalMemoryBankConflicts) {
  micro_arg_t a{};
  a.mode = kMicroLmem;
  a.n = 32;
  a.iters = 100;
  a.stride = 1;  // lanes on consecutive banks
  MicroRun free = run_micro(a, shape(1, 4, 8));
  a.stride = 8;  // 8 banks: every lane of a warp on bank 0
  MicroRun conflict = run_micro(a, shape(1, 4, 8));
  const CoreCounters f = free.c.total();
  const CoreCounters k = conflict.c.total();
  EXPECT_EQ(f.lmem_bank_stalls, 0u);
  EXPECT_EQ(f.lmem_reads, k.lmem_reads);
  // 4 warps × 100 iterations × (1 load + 1 store) × 7 extra cycles, plus the final read.
  EXPECT_EQ(k.lmem_bank_stalls, 4u * (100 * 2 + 1) * 7);
  EXPECT_GT(conflict.cycles, free.cycles);
}

TEST(KernelTiming, BarrierHeavyKernel) {
  micro_arg_t a{};
  a.n = 32;  // one block of 4 warps × 8 threads
  a.iters = 200;
  a.mode = kMicroBarrier;
  MicroRun bar = run_micro(a, shape(1, 4, 8));
  a.mode = kMicroNoBarrier;
  MicroRun nobar = run_micro(a, shape(1, 4, 8));
  EXPECT_EQ(bar.dst[7], nobar.dst[7]);
  EXPECT_GE(bar.c.total().barriers, 3u * 200) << describe(bar);  // the last arrival of each round does not wait
  EXPECT_GT(bar.cycles, nobar.cycles);
  EXPECT_GT(bar.c.total().sched_stalls, nobar.c.total().sched_stalls);
  EXPECT_DOUBLE_EQ(metric(bar, MetricId::kTensorMfu), 0.0);  // no TCU instruction
  EXPECT_DOUBLE_EQ(metric(bar, MetricId::kAtomicsPerInst), 0.0);
}

TEST(KernelTiming, DeterministicCyclesAndCounters) {
  MicroRun a = run_micro(stride_load(64, 3, 16, 2), shape(2, 4, 4));
  MicroRun b = run_micro(stride_load(64, 3, 16, 2), shape(2, 4, 4));
  EXPECT_EQ(a.cycles, b.cycles);
  for (std::size_t i = 0; i < a.c.cores.size(); ++i) {
    EXPECT_EQ(a.c.cores[i].thread_instrs, b.c.cores[i].thread_instrs);
    EXPECT_EQ(a.c.cores[i].sched_stalls, b.c.cores[i].sched_stalls);
    EXPECT_EQ(a.c.cores[i].dcache.read_misses, b.c.cores[i].dcache.read_misses);
  }
  EXPECT_EQ(a.c.dram.reads, b.c.dram.reads);
  EXPECT_EQ(a.dump, b.dump);
}

/// Checks that a profiled run of `arg` has the cycles and counters of an unprofiled one and that
/// its rows account for every D-cache read miss and DRAM byte; returns the profiled run.
MicroRun profiled_run_matches(micro_arg_t arg, const vxsim::Config& fcfg, const TimingConfig& tcfg) {
  const MicroRun plain = run_micro(arg, fcfg, tcfg);
  MicroRun prof = run_micro(arg, fcfg, tcfg, MpmClass::kNone, true);
  EXPECT_EQ(prof.cycles, plain.cycles);
  EXPECT_EQ(prof.dump, plain.dump);
  EXPECT_EQ(prof.c.dram.reads, plain.c.dram.reads);
  EXPECT_EQ(prof.c.dram.writes, plain.c.dram.writes);
  PcTraffic sum = prof.fetch;
  uint64_t cache_requests = 0, cache_instrs = 0, load_sectors = 0;
  for (const auto& [pc, row] : prof.profile) {
    sum += row;
    cache_requests += row.kind == MemKind::kAmo ? 0 : row.requests;  // AMOs bypass the L1
    cache_instrs += row.kind == MemKind::kAmo ? 0 : row.warp_instrs;
    load_sectors += row.kind == MemKind::kLoad ? row.sectors : 0;
  }
  const CoreCounters t = prof.c.total();
  EXPECT_EQ(t.dcache.read_misses, plain.c.total().dcache.read_misses);
  EXPECT_EQ(sum.read_misses, t.dcache.read_misses);
  EXPECT_EQ(cache_requests, t.dcache.reads + t.dcache.writes);
  EXPECT_EQ(load_sectors, t.gld_sectors);
  EXPECT_EQ(cache_instrs, t.gld_instrs + t.gst_instrs);
  EXPECT_EQ(64 * sum.dram_reads, prof.c.dram.bytes_read);
  EXPECT_EQ(64 * sum.dram_writes, prof.c.dram.bytes_written);
  EXPECT_GT(prof.fetch.dram_reads, 0u);  // the I-cache's cold misses
  return prof;
}

/// The profile row of the load with the most DRAM reads.
std::pair<uint64_t, PcTraffic> busiest_load(const MicroRun& r) {
  std::pair<uint64_t, PcTraffic> best{0, {}};
  for (const auto& [pc, row] : r.profile) {
    if (row.kind == MemKind::kLoad && row.dram_reads >= best.second.dram_reads) best = {pc, row};
  }
  return best;
}

TEST(MemProfile, ChargesEveryMissAndDramByteToAnInstructionWithoutChangingTheRun) {
  // Stride 16 words: every lane's load is a line of its own, 32 threads × 32 iterations × 8 reps
  // = 8192 lane loads over a 64 KiB working set that thrashes the 16 KiB D-cache.
  const micro_arg_t arg = stride_load(32, 16, 32, 8);
  const MicroRun r = profiled_run_matches(arg, shape(1, 4, 8), {});
  const auto [pc, load] = busiest_load(r);
  EXPECT_EQ(load.lane_accesses, uint64_t{32} * 32 * 8) << fmt::format("pc {:#x}", pc);
  EXPECT_EQ(load.requests, load.lane_accesses);  // one block per lane
  EXPECT_EQ(load.stack_lanes, 0u);               // the source array, not a stack
  EXPECT_GT(load.dram_reads, r.c.dram.reads * 8 / 10) << describe(r);
  EXPECT_EQ(load.dram_writes, 0u);
  // The kernel's one global store per thread writes 32 words: 4 warps × 1 block.
  uint64_t stores = 0;
  for (const auto& [at, row] : r.profile) stores += row.kind == MemKind::kStore ? row.dram_writes : 0;
  EXPECT_EQ(64 * stores, r.c.dram.bytes_written);
}

TEST(MemProfile, PartitionedRunAndL2KeepTheSums) {
  // 8 cores = 2 sockets = 2 partitions simulated on their own host threads, then one core with
  // the L2 of configs/l2.toml (1 MiB): the working set's second pass hits the L2, not DRAM.
  (void)profiled_run_matches(stride_load(256, 16, 8, 4), shape(8, 4, 8), {});
  TimingConfig l2;
  l2.l2.enabled = true;
  const MicroRun with_l2 = profiled_run_matches(stride_load(32, 16, 32, 8), shape(1, 4, 8), l2);
  const auto [pc, load] = busiest_load(with_l2);
  EXPECT_GT(load.read_misses, 4 * load.dram_reads) << describe(with_l2);  // misses in L1, hits in L2
}

TEST(KernelTiming, StackInterleaveMakesEveryFullWarpStackAccessOneRequest) {
  // Vortex [N]'s LSU stack interleave (stack_interleave = true): the same results and
  // instructions, and each sp-relative word access of 8 lanes is one D-cache request instead of 8
  // (without it every lane's stack is 8 KiB from its neighbour's). Seen per instruction through the
  // memory profile.
  const micro_arg_t arg = stride_load(64, 1, 16, 2);
  TimingConfig on;
  on.stack_interleave = true;
  const MicroRun plain = run_micro(arg, shape(2, 4, 8), {}, MpmClass::kNone, true);
  const MicroRun inter = run_micro(arg, shape(2, 4, 8), on, MpmClass::kNone, true);
  EXPECT_EQ(inter.dst, plain.dst);
  EXPECT_EQ(inter.c.total().thread_instrs, plain.c.total().thread_instrs);
  uint64_t stack_rows = 0, plain_requests = 0, inter_requests = 0;
  for (std::size_t i = 0; i < plain.profile.size(); ++i) {
    const auto& [pc, p] = plain.profile[i];
    const auto& [pc2, q] = inter.profile[i];
    ASSERT_EQ(pc, pc2);
    const std::string text = disasm(decode(p.word), static_cast<uint32_t>(pc));
    if (text.find("(sp)") == std::string::npos || p.lane_accesses != 8 * p.warp_instrs) continue;
    ++stack_rows;
    EXPECT_EQ(p.stack_lanes, p.lane_accesses) << text;  // sp-relative: every lane on its stack
    plain_requests += p.requests;
    inter_requests += q.requests;
    EXPECT_EQ(p.requests, p.lane_accesses) << text;
    // Warp 0's thread 0 enters the spawn from main's deeper frame, so on each of the 2 cores that
    // warp's lanes may touch two blocks.
    EXPECT_LE(q.requests, q.warp_instrs + 2) << text;
  }
  EXPECT_GT(stack_rows, 5u);
  EXPECT_LT(inter_requests * 6, plain_requests);
  EXPECT_LT(inter.c.total().dcache.read_misses, plain.c.total().dcache.read_misses) << describe(inter);
  EXPECT_LT(inter.c.dram.writes, plain.c.dram.writes) << describe(inter);
}

TEST(KernelTiming, CounterIdentitiesAndPerfDump) {
  MicroRun r = run_micro(stride_load(32, 1, 32, 2), shape(1, 4, 8), {}, MpmClass::kMem);
  const CoreCounters t = r.c.total();
  EXPECT_EQ(t.ifetches, t.warp_instrs);        // each warp instruction is fetched once
  EXPECT_EQ(t.icache.reads, t.ifetches);
  EXPECT_EQ(t.dcache.writes, r.c.dram.writes);  // write-through, no L2
  EXPECT_EQ(t.busy[static_cast<std::size_t>(UnitGroup::kTcu)], 0u);
  EXPECT_LE(t.active_warp_cycles, r.cycles * 4);
  // The kernel's exit path stored the timing model's counters into the perf-dump block: cycles and
  // thread instructions up to that point, and (class 2) the D-cache reads.
  EXPECT_GT(r.dump[0], r.cycles / 2);
  EXPECT_LE(r.dump[0], r.cycles);
  EXPECT_GT(r.dump[2], t.thread_instrs * 9 / 10);
  EXPECT_LE(r.dump[2], t.thread_instrs);
  EXPECT_GT(r.dump[6], 0u);
  EXPECT_LE(r.dump[6], t.dcache.reads);
  EXPECT_NE(r.perf.find("PERF: core0: dcache reads="), std::string::npos) << r.perf;
  EXPECT_NE(r.perf.find("PERF: instrs="), std::string::npos) << r.perf;
}

TEST(KernelTiming, MoreWarpsKeepMoreWarpsActiveAndHideLatency) {
  // Same work (256 threads, loads missing the L1) on 2 and on 8 warps per core. With the default
  // DRAM path these loads are bandwidth-bound (one block per 4-8 cycles for the device), where more
  // warps cannot help; a long DRAM latency makes them latency-bound, which more warps hide.
  TimingConfig slow;
  slow.dram.row_hit_latency = 400;
  slow.dram.row_miss_latency = 400;
  MicroRun w2 = run_micro(stride_load(256, 16, 8, 4), shape(1, 2, 8), slow);
  MicroRun w8 = run_micro(stride_load(256, 16, 8, 4), shape(1, 8, 8), slow);
  double active2 = metric(w2, MetricId::kOccupancy) / 100.0 * 2;
  double active8 = metric(w8, MetricId::kOccupancy) / 100.0 * 8;
  EXPECT_GT(active8, 2 * active2) << describe(w2) << "\n" << describe(w8);
  EXPECT_LT(w8.cycles, w2.cycles) << describe(w2) << "\n" << describe(w8);
  // A percentage of peak stays a percentage with two issue slots (32 warps).
  MicroRun w32 = run_micro(stride_load(256, 16, 8, 4), shape(1, 32, 8));
  EXPECT_LE(metric(w32, MetricId::kPeakCompute), 100.0) << describe(w32);
}

TEST(KernelTiming, MoreCoresContendingTakeNoFewerCycles) {
  // The same work per core (256 threads of strided loads that miss the L1) on 1 core and on 4:
  // the four share the socket's L1s, its memory port and the DRAM channels, so they cannot finish
  // sooner than one core alone; and a slower memory path never makes them faster.
  MicroRun c1 = run_micro(stride_load(256, 16, 8, 4), shape(1, 4, 8));
  MicroRun c4 = run_micro(stride_load(1024, 16, 8, 4), shape(4, 4, 8));
  EXPECT_GE(c4.cycles, c1.cycles) << describe(c1) << "\n" << describe(c4);
  TimingConfig slow;
  slow.dram.burst_cycles *= 2;
  slow.socket_port.cycles_per_request = 2;
  MicroRun s4 = run_micro(stride_load(1024, 16, 8, 4), shape(4, 4, 8), slow);
  EXPECT_GE(s4.cycles, c4.cycles) << describe(c4) << "\n" << describe(s4);
}

#ifdef VXSIM_TCU_ELF
// A real WMMA kernel: sdk/regression/sgemm_tcu (fp16 → fp32, 4-thread warps), C = A·B with
// A = B = 1.0 on 32×32×32, so every C element is 32 and the TCU performs exactly 32³ MACs.
TEST(KernelTiming, TensorKernelKeepsTheTcuBusy) {
  using cfg = vortex::tensor::wmma_config_t<4, vortex::tensor::fp16, vortex::tensor::fp32>;
  constexpr uint32_t n = 32, kArgs = 0x10000, kA = 0x100000, kB = 0x200000, kC = 0x300000;
  Processor p(shape(1, 4, 4));
  std::ostringstream console;
  p.set_console(&console);
  load_program(p, VXSIM_TCU_ELF);
  std::vector<uint16_t> ones(n * n, 0x3C00);  // fp16 1.0
  p.memory().write(kA, ones.data(), ones.size() * 2);
  p.memory().write(kB, ones.data(), ones.size() * 2);
  kernel_arg_t a{};
  a.grid_dim[0] = n / cfg::tileN;
  a.grid_dim[1] = n / cfg::tileM;
  a.block_dim[0] = 4;
  a.block_dim[1] = 1;
  a.M = a.N = a.K = n;
  a.A_addr = kA;
  a.B_addr = kB;
  a.C_addr = kC;
  p.memory().write(kArgs, &a, sizeof a);
  p.dcr_write(0x003, kArgs);
  p.reset();
  TimingSimulator sim(p, TimingConfig{});
  sim.run();
  ASSERT_EQ(p.exit_code(), 0u) << console.str();
  uint32_t c0 = p.memory().read32(kC);
  EXPECT_FLOAT_EQ(std::bit_cast<float>(c0), 32.0f);
  const DeviceCounters c = sim.counters();
  EXPECT_EQ(c.total().tcu_macs, uint64_t{n} * n * n);
  EXPECT_GT(c.total().busy[static_cast<std::size_t>(UnitGroup::kTcu)], 0u);
  vxsynth::core::Signature sig = vortex_signature(c, sim.config());
  EXPECT_GT(sig[MetricId::kTensorMfu].value_or(0.0), 0.0);
  EXPECT_LE(sig[MetricId::kTensorMfu].value_or(0.0), 100.0);
}
#endif

}  // namespace
}  // namespace vxsim::timing
