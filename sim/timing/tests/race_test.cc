// The local-memory race checker (Config::check_races, docs/vxsim.md "Local-memory race checker")
// on real kernels built with the SDK (tests/kernels/race.cpp), in functional and in timing mode:
// racy kernels stop with SimError(kRace) naming both accesses, the same kernels with the barrier
// run to the end with correct results.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "vxsim/core.h"
#include "vxsim/error.h"
#include "vxsim/loader.h"
#include "vxsim/timing/simulator.h"

namespace vxsim::timing {
namespace {

struct Outcome {
  bool raced = false;
  std::string message = "no error";
  uint32_t exit_code = 0xFFFFFFFF;
};

Outcome run(const char* elf, bool timing, bool check = true) {
  Config cfg;  // 1 core x 4 warps x 4 threads: two block slots of two warps
  cfg.check_races = check;
  Processor p(cfg);
  std::ostringstream console;
  p.set_console(&console);
  load_program(p, elf);
  p.reset();
  Outcome o;
  try {
    if (timing) {
      TimingSimulator sim(p, TimingConfig{});
      sim.run();
    } else {
      p.run();
    }
    o.exit_code = p.exit_code();
  } catch (const SimError& e) {
    o.raced = e.kind() == ErrorKind::kRace;
    o.message = e.what();
  }
  return o;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

class Race : public ::testing::TestWithParam<bool> {};

TEST_P(Race, StoreInOneWarpLoadInAnotherWithoutBarrierIsReported) {
  const Outcome o = run(RACE_NO_BARRIER_ELF, GetParam());
  ASSERT_TRUE(o.raced) << o.message;
  EXPECT_TRUE(has(o.message, "local-memory race (write-read) at 0xffff00") ||
              has(o.message, "local-memory race (read-write) at 0xffff00")) << o.message;
  // Both accesses: PC, core, warp and lane of each.
  EXPECT_TRUE(has(o.message, "(core 0, warp 0, lane ")) << o.message;
  EXPECT_TRUE(has(o.message, "(core 0, warp 1, lane ")) << o.message;
  EXPECT_TRUE(has(o.message, "4-byte load at PC 0x8") || has(o.message, "4-byte store at PC 0x8")) << o.message;
  EXPECT_TRUE(has(o.message, "follows the load of the same word at PC 0x8") || has(o.message, "follows the store of the same word at PC 0x8")) << o.message;
}

TEST_P(Race, TheSameKernelWithABarrierPasses) {
  const Outcome o = run(RACE_BARRIER_ELF, GetParam());
  EXPECT_EQ(o.message, "no error");
  EXPECT_EQ(o.exit_code, 0u);  // main() checked warp 1's loads
}

TEST_P(Race, AliasedAccumulatorTileWithoutBlockEndBarrierIsReported) {
  // Two blocks per slot: block b+1's As fill by one warp against block b's Cs reads by the other.
  const Outcome o = run(RACE_ALIAS_ELF, GetParam());
  ASSERT_TRUE(o.raced) << o.message;
  EXPECT_TRUE(has(o.message, "(write-read)") || has(o.message, "(read-write)")) << o.message;
}

TEST_P(Race, AliasedAccumulatorTileWithBlockEndBarrierPasses) {
  const Outcome o = run(RACE_ALIAS_FIXED_ELF, GetParam());
  EXPECT_EQ(o.message, "no error");
  EXPECT_EQ(o.exit_code, 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, Race, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Timing" : "Functional"; });

TEST(Race, OffByDefault) {
  EXPECT_FALSE(Config{}.check_races);
  EXPECT_EQ(run(RACE_NO_BARRIER_ELF, false, /*check=*/false).message, "no error");
}

}  // namespace
}  // namespace vxsim::timing
