// Pipeline tests on instruction streams written out by hand. The real functional core is
// exercised by the kernel tests (kernel_timing_test.cc); these pin the pipeline's rules.
#include "vxsim/timing/timing_model.h"

#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "vxsim/error.h"

namespace vxsim::timing {
namespace {

/// Per-warp queues of ExecutedInstr, replayed in order; a warp is active while its queue is not empty.
class TraceDevice final : public FunctionalDevice {
 public:
  TraceDevice(uint32_t cores, uint32_t warps) : q_(cores, std::vector<std::deque<ExecutedInstr>>(warps)) {}
  void push(uint32_t core, uint32_t warp, const ExecutedInstr& in) { q_[core][warp].push_back(in); }
  bool warp_active(uint32_t core, uint32_t warp) const override { return !q_[core][warp].empty(); }
  bool warp_ready(uint32_t core, uint32_t warp) const override { return !q_[core][warp].empty() && !stuck_; }
  ExecutedInstr step(uint32_t core, uint32_t warp) override {
    ExecutedInstr out = q_[core][warp].front();
    q_[core][warp].pop_front();
    ++steps;
    return out;
  }
  bool stuck_ = false;
  uint64_t steps = 0;

 private:
  std::vector<std::vector<std::deque<ExecutedInstr>>> q_;
};

ExecutedInstr alu(uint8_t dst, uint8_t src, uint32_t mask = 0xF, uint64_t pc = 0x80000000) {
  ExecutedInstr in;
  in.pc = pc;
  in.unit = UnitClass::kAlu;
  in.active_mask = mask;
  in.has_dst = true;
  in.dst = RegRef{dst, false};
  in.num_src = 1;
  in.src[0] = RegRef{src, false};
  return in;
}

ExecutedInstr load(uint8_t dst, uint64_t base, uint64_t stride, uint32_t lanes = 4) {
  ExecutedInstr in = alu(dst, 1);
  in.unit = UnitClass::kLsu;
  in.mem = MemKind::kLoad;
  in.active_mask = (1u << lanes) - 1;
  for (uint32_t i = 0; i < lanes; ++i) in.lanes[i] = LaneAccess{base + i * stride, 4};
  return in;
}

TimingConfig small() {
  TimingConfig c;
  c.warps = 4;
  c.threads = 4;
  return c;
}

TEST(TimingModel, DependentChainIsSlowerThanIndependent) {
  auto run = [](bool dependent) {
    TraceDevice dev(1, 4);
    for (int i = 0; i < 64; ++i) {
      uint8_t dst = static_cast<uint8_t>(dependent ? 5 : 5 + (i % 8));
      uint8_t src = static_cast<uint8_t>(dependent ? 5 : 1);
      ExecutedInstr in = alu(dst, src, 0xF, 0x80000000 + 4u * (i % 16));
      in.unit = UnitClass::kFpuFma;  // latency 6 > the 4-cycle fetch-decode loop of one warp
      dev.push(0, 0, in);
    }
    TimingModel m(small(), dev);
    m.run();
    return m.counters();
  };
  DeviceCounters dep = run(true);
  DeviceCounters ind = run(false);
  EXPECT_EQ(dep.cores[0].warp_instrs, 64u);
  EXPECT_EQ(dep.cores[0].thread_instrs, 256u);
  EXPECT_GT(dep.cycles, ind.cycles);
  EXPECT_GT(dep.cores[0].scrb_stalls, 0u);
  EXPECT_EQ(dep.cores[0].scrb[static_cast<std::size_t>(ScrbClass::kFpu)], dep.cores[0].scrb_stalls);
  EXPECT_EQ(ind.cores[0].scrb_stalls, 0u);
}

TEST(TimingModel, MoreWarpsHideLatency) {
  auto cycles = [](uint32_t warps) {
    TraceDevice dev(1, warps);
    const int total = 256;
    for (int i = 0; i < total; ++i) {
      uint32_t w = static_cast<uint32_t>(i) % warps;
      dev.push(0, w, alu(5, 5, 0xF, 0x80000000 + 4u * ((i / warps) % 16)));
    }
    TimingConfig c = small();
    c.warps = warps;
    TimingModel m(c, dev);
    return m.run();
  };
  EXPECT_LT(cycles(4), cycles(1));
}

TEST(TimingModel, ControlInstructionStallsFetchUntilResolved) {
  auto cycles = [](bool control) {
    TraceDevice dev(1, 1);
    for (int i = 0; i < 32; ++i) {
      ExecutedInstr in = alu(static_cast<uint8_t>(5 + i % 8), 1, 0xF, 0x80000000 + 4u * (i % 16));
      in.is_control = control;
      dev.push(0, 0, in);
    }
    TimingConfig c = small();
    c.warps = 1;
    TimingModel m(c, dev);
    return m.run();
  };
  EXPECT_GT(cycles(true), cycles(false));
}

TEST(TimingModel, InstructionCacheMissesThenHits) {
  TraceDevice dev(1, 1);
  for (int i = 0; i < 100; ++i) dev.push(0, 0, alu(5, 1, 0xF, 0x80000000 + 4u * (i % 32)));
  TimingConfig c = small();
  c.warps = 1;
  TimingModel m(c, dev);
  m.run();
  CoreCounters k = m.counters().cores[0];
  EXPECT_EQ(k.ifetches, 100u);
  EXPECT_EQ(k.icache.reads, 100u);
  EXPECT_EQ(k.icache.read_misses, 2u);  // 32 instructions = 128 B = two 64-B lines
}

TEST(TimingModel, LoadLatencyAndDCacheIdentities) {
  TraceDevice dev(1, 1);
  for (int i = 0; i < 16; ++i) dev.push(0, 0, load(static_cast<uint8_t>(5 + i % 4), 0x10000 + 64u * (i % 4), 4));
  TimingConfig c = small();
  c.warps = 1;
  TimingModel m(c, dev);
  m.run();
  DeviceCounters d = m.counters();
  const CoreCounters& k = d.cores[0];
  EXPECT_EQ(k.loads, 16u);
  EXPECT_EQ(k.dcache.reads, 16u);
  EXPECT_EQ(k.dcache.read_misses, 4u);   // four distinct lines, then hits
  EXPECT_EQ(d.dram.reads, 4u + 1u);      // + the I-cache line
  EXPECT_EQ(d.dram.bytes_read, 5u * 64);
  EXPECT_EQ(k.gld_bytes, 16u * 16);
  EXPECT_EQ(k.gld_sectors, 16u);
  EXPECT_GT(k.load_latency, 16u * (c.lat.lsu + c.dcache.latency));
}

TEST(TimingModel, StoresGoThroughToDram) {
  TraceDevice dev(1, 1);
  for (int i = 0; i < 8; ++i) {
    ExecutedInstr st = load(0, 0x20000 + 64u * static_cast<uint32_t>(i), 4);
    st.mem = MemKind::kStore;
    st.has_dst = false;
    dev.push(0, 0, st);
  }
  TimingConfig c = small();
  c.warps = 1;
  TimingModel m(c, dev);
  m.run();
  DeviceCounters d = m.counters();
  EXPECT_EQ(d.cores[0].stores, 8u);
  EXPECT_EQ(d.cores[0].dcache.writes, 8u);
  EXPECT_EQ(d.cores[0].dcache.write_misses, 8u);
  EXPECT_EQ(d.dram.writes, 8u);
  EXPECT_EQ(d.dram.bytes_written, 8u * 64);
}

TEST(TimingModel, LocalMemoryBankConflictsCostCycles) {
  auto run = [](uint64_t stride) {
    TraceDevice dev(1, 1);
    for (int i = 0; i < 32; ++i) {
      ExecutedInstr in = load(static_cast<uint8_t>(5 + i % 4), 0xFFFF0000, stride, 4);
      in.space = AddrSpace::kLocal;
      dev.push(0, 0, in);
    }
    TimingConfig c = small();
    c.warps = 1;
    TimingModel m(c, dev);
    m.run();
    return m.counters();
  };
  DeviceCounters free = run(4);      // 4 lanes over 4 banks
  DeviceCounters conflict = run(16); // all lanes in bank 0
  EXPECT_EQ(free.cores[0].lmem_bank_stalls, 0u);
  EXPECT_EQ(conflict.cores[0].lmem_bank_stalls, 32u * 3);
  EXPECT_EQ(free.cores[0].lmem_reads, 32u * 4);
  EXPECT_GT(conflict.cycles, free.cycles);
  EXPECT_EQ(free.cores[0].dcache.reads, 0u);  // local memory bypasses the D-cache
}

TEST(TimingModel, DeterministicAndResetBetweenRuns) {
  auto fill = [](TraceDevice& dev) {
    for (uint32_t w = 0; w < 4; ++w) {
      for (int i = 0; i < 50; ++i) {
        dev.push(0, w, load(5, 0x10000 + 256u * static_cast<uint32_t>(i) + 64 * w, 4));
        dev.push(0, w, alu(6, 5));
      }
    }
  };
  TraceDevice a(1, 4);
  fill(a);
  TimingModel ma(small(), a);
  uint64_t ca = ma.run();
  TraceDevice b(1, 4);
  fill(b);
  TimingModel mb(small(), b);
  uint64_t cb = mb.run();
  EXPECT_EQ(ca, cb);
  EXPECT_EQ(ma.counters().cores[0].sched_stalls, mb.counters().cores[0].sched_stalls);
  EXPECT_EQ(ma.counters().cores[0].scrb_stalls, mb.counters().cores[0].scrb_stalls);
  fill(a);
  EXPECT_EQ(ma.run(), ca);  // caches and counters reset at each launch
}

TEST(TimingModel, StallCountersPartitionCycles) {
  TraceDevice dev(1, 2);
  for (int i = 0; i < 40; ++i) dev.push(0, 0, load(5, 0x40000 + 4096u * static_cast<uint32_t>(i), 4));
  for (int i = 0; i < 10; ++i) dev.push(0, 1, alu(6, 6));
  TimingConfig c = small();
  c.warps = 2;
  TimingModel m(c, dev);
  uint64_t cycles = m.run();
  const CoreCounters k = m.counters().cores[0];
  // Every ticked cycle is exactly one of: scheduled, idle, stalled, ibuffer-stalled.
  uint64_t scheduled = k.warp_instrs;
  EXPECT_LE(scheduled + k.sched_idle + k.sched_stalls + k.ibuf_stalls, cycles);
  EXPECT_GE(scheduled + k.sched_idle + k.sched_stalls + k.ibuf_stalls + 100, cycles);
  EXPECT_GT(k.active_warp_cycles, 0u);
  EXPECT_LE(k.active_warp_cycles, 2 * cycles);
}

TEST(TimingModel, DeadlockIsReportedNotHung) {
  TraceDevice dev(1, 4);
  dev.push(0, 0, alu(5, 1));
  dev.stuck_ = true;  // active but never ready
  TimingModel m(small(), dev);
  try {
    m.run();
    FAIL() << "no deadlock reported";
  } catch (const SimError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDeadlock);
    EXPECT_NE(std::string(e.what()).find("core 0"), std::string::npos);
  }
}

TEST(TimingModel, MpmCsrsReadTheCounters) {
  TraceDevice dev(1, 4);
  for (int i = 0; i < 10; ++i) dev.push(0, 0, alu(5, 1, 0x3));
  TimingModel m(small(), dev);
  uint64_t cycles = m.run();
  EXPECT_EQ(m.mpm_read(0, 0xB00, MpmClass::kNone), cycles);
  EXPECT_EQ(m.mpm_read(0, 0xB80, MpmClass::kNone), 0u);
  EXPECT_EQ(m.mpm_read(0, 0xB02, MpmClass::kNone), 20u);  // thread instructions
  EXPECT_EQ(m.mpm_read(0, 0xB0E, MpmClass::kCore), 10u);  // ifetches
  EXPECT_EQ(m.mpm_read(0, 0xB03, MpmClass::kMem), 10u);   // icache reads
  EXPECT_EQ(m.mpm_read(0, 0xB04, MpmClass::kMem), 1u);    // icache read misses
  EXPECT_EQ(m.mpm_read(0, 0xB0E, MpmClass::kNone), 0u);   // no class: user counters read 0
}

}  // namespace
}  // namespace vxsim::timing
