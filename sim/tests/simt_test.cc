// SIMT semantics of the Vortex custom-0 instructions (docs/vortex.md §1.3), each checked by an
// assembly program on vxsim.
#include <gtest/gtest.h>

#include "harness.h"

namespace vxsim::test {
namespace {

TEST(Simt, NestedSplitJoinSplitNAndPredLoop) {
  AsmMachine m("simt_split");
  m.run();
  // value = (tid<2 ? (tid even ? 100 : 200) : 300) + tid
  EXPECT_EQ(m.word("result", 0), 100u);
  EXPECT_EQ(m.word("result", 1), 201u);
  EXPECT_EQ(m.word("result", 2), 302u);
  EXPECT_EQ(m.word("result", 3), 303u);
  // SPLIT returns the depth before its push: outer 0 for every lane, inner 1 for lanes 0,1.
  for (uint32_t t = 0; t < 4; ++t) EXPECT_EQ(m.word("depth", t), 0u) << t;
  EXPECT_EQ(m.word("depth2", 0), 1u);
  EXPECT_EQ(m.word("depth2", 1), 1u);
  EXPECT_EQ(m.word("depth2", 2), 0x77u);  // lanes 2,3 never executed the inner split
  EXPECT_EQ(m.word("depth2", 3), 0x77u);
  EXPECT_EQ(m.word("mask_after"), 0xFu);  // the outer JOIN restored the full mask
  // SPLIT.N negates bit 0: even lanes form the "then" group.
  EXPECT_EQ(m.word("negres", 0), 7u);
  EXPECT_EQ(m.word("negres", 1), 5u);
  EXPECT_EQ(m.word("negres", 2), 7u);
  EXPECT_EQ(m.word("negres", 3), 5u);
  // PRED loop: lane t runs t+1 iterations; the restore mask re-enables all lanes at the end.
  for (uint32_t t = 0; t < 4; ++t) EXPECT_EQ(m.word("count", t), t + 1) << t;
  EXPECT_TRUE(m.proc->idle());
}

TEST(Simt, WspawnStartsWarpsWithThreadZeroAndWaitsForThem) {
  AsmMachine m("simt_wspawn");
  m.run();
  for (uint32_t w = 1; w < 4; ++w) {
    EXPECT_EQ(m.word("wres", w), w + 10) << w;
    EXPECT_EQ(m.word("wmask", w), 1u) << w;
  }
  EXPECT_EQ(m.word("total"), 11u + 12u + 13u);  // warp 0 read only after all had written
}

TEST(Simt, WspawnClampsToNumWarps) {
  Config cfg;
  cfg.warps = 2;  // wspawn(4) starts only warp 1
  AsmMachine m("simt_wspawn", cfg);
  m.run();
  EXPECT_EQ(m.word("wres", 1), 11u);
  EXPECT_EQ(m.word("wres", 2), 0u);
  EXPECT_EQ(m.word("total"), 11u);
}

TEST(Simt, LocalAndGlobalBarriersAcrossTwoCores) {
  Config cfg;
  cfg.cores = 2;
  AsmMachine m("simt_bar", cfg);
  m.run();
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(m.word("sums", i), 4u) << "local barrier, core*4+warp " << i;
    EXPECT_EQ(m.word("gsums", i), 8u) << "global barrier, core*4+warp " << i;
  }
}

TEST(Simt, VoteAndShfl) {
  AsmMachine m("simt_vote");
  m.run();
  EXPECT_EQ(m.word("vote", 0), 0u);    // all(odd)
  EXPECT_EQ(m.word("vote", 1), 1u);    // any(odd)
  EXPECT_EQ(m.word("vote", 2), 0u);    // uni(odd)
  EXPECT_EQ(m.word("vote", 3), 0xAu);  // ballot(odd) = lanes 1,3
  EXPECT_EQ(m.word("vote", 4), 1u);    // all(true)
  EXPECT_EQ(m.word("vote", 5), 1u);    // uni(true)
  const uint32_t up[] = {0, 0, 10, 20}, down[] = {10, 20, 30, 30}, bfly[] = {10, 0, 30, 20},
                 idx[] = {20, 20, 20, 20}, seg_down[] = {10, 10, 30, 30};
  for (uint32_t t = 0; t < 4; ++t) {
    EXPECT_EQ(m.word("shfl", t), up[t]) << "up lane " << t;
    EXPECT_EQ(m.word("shfl", 4 + t), down[t]) << "down lane " << t;
    EXPECT_EQ(m.word("shfl", 8 + t), bfly[t]) << "bfly lane " << t;
    EXPECT_EQ(m.word("shfl", 12 + t), idx[t]) << "idx lane " << t;
    EXPECT_EQ(m.word("shfl", 16 + t), seg_down[t]) << "segmented down lane " << t;
  }
}

}  // namespace
}  // namespace vxsim::test

namespace vxsim::test {
namespace {

TEST(Simt, ThreadLastOperandsPredNAndInactiveShflSource) {
  AsmMachine m("simt_rules");
  m.run();
  EXPECT_EQ(m.word("masks", 0), 0x3u);  // TMC took lane 3's operand
  EXPECT_EQ(m.word("masks", 1), 0x5u);  // PRED.N kept the even lanes
  EXPECT_EQ(m.word("masks", 2), 0xAu);  // restore mask from lane 2, the highest active lane
  EXPECT_EQ(m.word("masks", 3), 0xFu);
  for (uint32_t t = 0; t < 4; ++t) EXPECT_EQ(m.word("jres", t), 13u) << "JALR target of lane 3, lane " << t;
  EXPECT_EQ(m.word("shres", 0), 7u);    // inactive lanes do not write
  EXPECT_EQ(m.word("shres", 1), 100u);  // lane 0's value although lane 0 is inactive
  EXPECT_EQ(m.word("shres", 2), 7u);
  EXPECT_EQ(m.word("shres", 3), 100u);
}

}  // namespace
}  // namespace vxsim::test
