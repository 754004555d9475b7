// Feasibility rules on the locked design points of the committed H200 runs (docs/sweep.md
// "Feasibility"): block size, local memory and warp width against the point's machine.
#include <bit>
#include <sstream>

#include <fmt/format.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/file_io.h"
#include "vxsynth/sweep/feasibility.h"

namespace vxsynth::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kRuns = fs::path(VXSYNTH_SOURCE_DIR) / "data" / "evidence" / "h200" / "reconstruct-ncu-2026-12-01";

codegen::DesignPoint locked(const std::string& run, const fs::path& runs = kRuns) {
  const int rev = json::parse(read_file(runs / run / "summary.json")).at("locked_revision").get<int>();
  std::istringstream lines(read_file(runs / run / "record.jsonl"));
  for (std::string l; std::getline(lines, l);) {
    const json r = json::parse(l);
    if (r.at("revision") == rev) return codegen::design_point_from_json(r.at("design"));
  }
  ADD_FAILURE() << run << ": no locked revision";
  return {};
}

std::string reason(const codegen::DesignPoint& d, const std::string& grid) {
  return infeasible_reason(d, parse_grid(grid).points.at(0));
}

TEST(SweepFeasibility, TheBenchmarksOwnMachineIsFeasible) {
  for (const char* run : {"act-k4", "act-k5", "diffusion_policy-k2", "pi0-k1"}) {
    const codegen::DesignPoint d = locked(run);
    EXPECT_EQ(reason(d, "dcache.size=16384"), "") << run;
    EXPECT_EQ(reason(d, fmt::format("warps={} threads={}", d.vortex.warps, d.vortex.threads)), "") << run;
  }
}

TEST(SweepFeasibility, BlockSizeAboveWarpsTimesThreads) {
  const codegen::DesignPoint d = locked("act-k4");  // block 256 on 32 warps x 8 threads
  ASSERT_EQ(d.fixed.block_size, 256u);
  EXPECT_NE(reason(d, "warps=16").find("design: fixed: block size 256 exceeds the Vortex core's 16 warps x 8 threads"),
            std::string::npos)
      << reason(d, "warps=16");
  EXPECT_NE(reason(d, "threads=4").find("block size 256 exceeds the Vortex core's 32 warps x 4 threads"),
            std::string::npos);
  EXPECT_EQ(reason(d, "warps=32 cores=4"), "");
  EXPECT_EQ(reason(d, "warps=16 threads=16"), "");  // SIMT, block 256 = 16 x 16: no warp-width dependence
}

TEST(SweepFeasibility, LocalMemoryOfTheResidentBlocks) {
  const codegen::DesignPoint d = locked("act-k5");  // TCU, block 128 on 16 warps x 8 threads
  const uint32_t bytes = codegen::vortex_local_mem_bytes(d);
  ASSERT_GT(2 * bytes, 16384u) << "two resident blocks must not fit for this case";
  const std::string r = reason(d, "warps=32");  // 32 / (128 / 8) = 2 blocks per core
  EXPECT_NE(r.find(fmt::format("{} B of local memory per block x 2 resident blocks per core exceeds the Vortex core's "
                               "16384 B", bytes)),
            std::string::npos)
      << r;
}

TEST(SweepFeasibility, LocalMemorySizeOfThePoint) {
  const codegen::DesignPoint d = locked("act-k5");  // one resident block at its own 16 warps
  const uint32_t bytes = codegen::vortex_local_mem_bytes(d);
  ASSERT_GT(bytes, 4096u);
  EXPECT_EQ(reason(d, "lmem.size=16384"), "");
  // Two resident blocks at 32 warps fit in 64 KiB, not in the default 16 KiB.
  EXPECT_EQ(reason(d, "warps=32 lmem.size=65536"), "");
  EXPECT_NE(reason(d, "warps=32 lmem.size=16384").find("exceeds the Vortex core's 16384 B"), std::string::npos);
  // A point below the block's own need is skipped, naming the point's size.
  const uint32_t small = std::bit_floor(bytes - 1);
  const std::string r = reason(d, fmt::format("lmem.size={}", small));
  EXPECT_NE(r.find(fmt::format("{} B of local memory per block x 1 resident blocks per core exceeds the Vortex core's "
                               "{} B", bytes, small)),
            std::string::npos)
      << r;
}

// A design that stages K in steps (design space 6) keeps the depth it was generated with: π0 k4's
// locked design of the H100 design-space-6 run with a 192x128x64 tile, generated for 32 KiB of local
// memory, stages 32 deep (20480 B per block); a 16-KiB point would stage 16 deep (12288 B, the
// accumulator scratch) and pass validation, but the built kernel still needs 20480 B.
TEST(SweepFeasibility, AKStepDesignKeepsItsGeneratedDepth) {
  const fs::path run = fs::path(VXSYNTH_SOURCE_DIR) / "data/evidence/h100/design-space-6-pi0-k4-k5-2026-12-07/run";
  codegen::DesignPoint d = locked("pi0-k4", run);
  ASSERT_TRUE(d.vortex.k_steps);
  d.axes.tile = {192, 128, 64};
  d.vortex.local_mem_bytes = 32768;
  ASSERT_EQ(codegen::validation_errors(d), "");
  ASSERT_EQ(codegen::vortex_stage_k(d), 32u);
  ASSERT_EQ(codegen::vortex_local_mem_bytes(d), 20480u);
  EXPECT_EQ(reason(d, "lmem.size=32768"), "");
  EXPECT_EQ(reason(d, "lmem.size=65536"), "");  // deeper on that machine, but the built 20480 B fit
  const std::string r = reason(d, "lmem.size=16384");
  EXPECT_NE(r.find("design: the candidate stages K 32 deep (generated for 32768 B of local memory): 20480 B per "
                   "block x 1 resident blocks per core exceeds the point's 16384 B"),
            std::string::npos)
      << r;
}

TEST(SweepFeasibility, WarpWidthOfTensorCoreCandidates) {
  const codegen::DesignPoint d = locked("pi0-k1");  // TCU tile generated for 8-thread warps
  ASSERT_TRUE(d.axes.tensor_core.enabled);
  const std::string r = reason(d, "threads=16");
  EXPECT_NE(r.find("warp-width: the candidate's TCU tile is generated for 8-thread warps, the point has 16"),
            std::string::npos)
      << r;
  EXPECT_EQ(feasibility_rules().size(), 2u);
}

}  // namespace
}  // namespace vxsynth::sweep
