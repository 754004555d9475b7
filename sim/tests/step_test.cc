// The Core::step()/warp_ready() contract the timing model drives (include/vxsim/step.h, core.h).
#include <gtest/gtest.h>

#include "harness.h"
#include "vxsim/error.h"

namespace vxsim::test {
namespace {

/// Drives a processor like a timing model would: each "cycle", every core issues its
/// lowest-numbered ready warp (SimX's scheduler, docs §8.5). Returns the records.
std::vector<ExecutedInstr> drive(Processor& p) {
  std::vector<ExecutedInstr> out;
  while (!p.idle()) {
    bool any = false;
    for (uint32_t c = 0; c < p.num_cores(); ++c) {
      Core& core = p.core(c);
      for (uint32_t w = 0; w < core.num_warps(); ++w) {
        if (core.warp_ready(w)) {
          out.push_back(core.step(w));
          any = true;
          break;
        }
      }
    }
    if (!any) p.check_deadlock();
  }
  return out;
}

TEST(Step, RecordsDescribeUnitsRegistersAndAccesses) {
  AsmMachine m("simt_vote");
  std::vector<ExecutedInstr> recs = drive(*m.proc);
  ASSERT_FALSE(recs.empty());
  // First instruction: li t0, -1 (addi t0, zero, -1) on lane 0.
  EXPECT_EQ(recs[0].pc, 0x80000000u);
  EXPECT_EQ(recs[0].active_mask, 1u);
  EXPECT_EQ(recs[0].unit, UnitClass::kAlu);
  EXPECT_TRUE(recs[0].has_dst);
  EXPECT_EQ(recs[0].dst.index, 5);
  EXPECT_EQ(recs[0].num_src, 0);  // x0 is not a source
  // Second: vx_tmc t0 — warp control, reads t0, full mask afterwards.
  EXPECT_EQ(recs[1].unit, UnitClass::kSfuWctl);
  EXPECT_TRUE(recs[1].is_control);
  EXPECT_EQ(recs[1].num_src, 1);
  EXPECT_EQ(recs[2].active_mask, 0xFu);
  // The per-lane stores of `sw t1, 0(s0)` into shfl[] have consecutive addresses.
  bool found = false;
  for (const auto& r : recs) {
    if (r.mem == MemKind::kStore && r.active_mask == 0xF && r.lanes[1].addr == r.lanes[0].addr + 4) {
      EXPECT_EQ(r.lanes[3].addr, r.lanes[0].addr + 12);
      EXPECT_EQ(r.lanes[0].size, 4);
      EXPECT_EQ(r.space, AddrSpace::kGlobal);
      EXPECT_EQ(r.unit, UnitClass::kLsu);
      found = true;
      break;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(recs.back().warp_exited);
  // Same results as the functional run.
  EXPECT_EQ(m.word("vote", 3), 0xAu);
}

TEST(Step, BarrierStallsAndStepDrivenRunMatchesFunctionalRun) {
  Config cfg;
  cfg.cores = 2;
  AsmMachine m("simt_bar", cfg);
  std::vector<ExecutedInstr> recs = drive(*m.proc);
  size_t stalls = 0;
  for (const auto& r : recs) stalls += r.warp_stalled ? 1 : 0;
  EXPECT_GE(stalls, 8u);  // every warp of both cores waits at both barriers (the last arrival does not)
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(m.word("sums", i), 4u);
    EXPECT_EQ(m.word("gsums", i), 8u);
  }
  EXPECT_THROW(m.proc->core(0).step(0), SimError);  // not ready: the warp has exited
}

TEST(Step, FloatingPointRecordsCountFlops) {
  AsmMachine m("fp");
  std::vector<ExecutedInstr> recs = drive(*m.proc);
  uint32_t fma_flops = 0;
  for (const auto& r : recs) {
    if (r.unit == UnitClass::kFpuFma && r.num_src == 3) fma_flops = r.fp_flops;
  }
  EXPECT_EQ(fma_flops, 2u);  // one lane × FMA = 2 FLOPs
}

}  // namespace
}  // namespace vxsim::test
