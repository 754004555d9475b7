// Runaway kernels stop, in functional and in timing mode, with a clear error: real kernels built
// with the SDK (tests/kernels/runaway.cpp). The wall-clock bound is generous on purpose (a shared
// CI machine); it only shows that nothing runs for minutes.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>

#include "vxsim/core.h"
#include "vxsim/error.h"
#include "vxsim/loader.h"
#include "vxsim/timing/simulator.h"

namespace vxsim::timing {
namespace {

struct Stop {
  ErrorKind kind = ErrorKind::kRuntime;
  std::string message = "no error";
  double seconds = 0;
};

Stop run(const char* elf, bool timing, Config cfg) {
  Processor p(cfg);
  std::ostringstream console;
  p.set_console(&console);
  load_program(p, elf);
  p.reset();
  Stop s;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    if (timing) {
      TimingSimulator sim(p, TimingConfig{});
      sim.run();
    } else {
      p.run();
    }
  } catch (const SimError& e) {
    s.kind = e.kind();
    s.message = e.what();
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

Config shape(uint32_t cores, uint32_t warps, uint32_t threads) {
  Config c;
  c.cores = cores;
  c.warps = warps;
  c.threads = threads;
  return c;
}

class Runaway : public ::testing::TestWithParam<bool> {};

TEST_P(Runaway, SpinOnAFlagNobodySetsIsAnEndlessLoopEvenWithoutABudget) {
  for (const Config& base : {shape(1, 4, 4), shape(2, 8, 8)}) {
    Config cfg = base;
    cfg.instr_budget = 0;  // unlimited: only the detector can stop it
    Stop s = run(RUNAWAY_SPIN_ELF, GetParam(), cfg);
    EXPECT_EQ(s.kind, ErrorKind::kRunaway) << s.message;
    EXPECT_NE(s.message.find("endless loop"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("core 0 warp 0 at PC 0x8"), std::string::npos) << s.message;
    EXPECT_LT(s.seconds, 30.0);
  }
}

TEST_P(Runaway, EmptyEndlessLoopIsDetected) {
  Config cfg;
  cfg.instr_budget = 0;
  Stop s = run(RUNAWAY_EMPTY_ELF, GetParam(), cfg);
  EXPECT_EQ(s.kind, ErrorKind::kRunaway) << s.message;
  EXPECT_NE(s.message.find("(every 1 instructions)"), std::string::npos) << s.message;
  EXPECT_LT(s.seconds, 30.0);
}

TEST_P(Runaway, CountingLoopStopsAtTheInstructionBudget) {
  Config cfg;
  cfg.instr_budget = 3'000'000;
  Stop s = run(RUNAWAY_COUNT_ELF, GetParam(), cfg);
  EXPECT_EQ(s.kind, ErrorKind::kBudget) << s.message;
  EXPECT_NE(s.message.find("instruction budget of 3000000 warp instructions exhausted"), std::string::npos)
      << s.message;
  EXPECT_LT(s.seconds, 30.0);
}

TEST_P(Runaway, CountingLoopStopsAtTheWallClockLimit) {
  Config cfg;
  cfg.instr_budget = 0;
  cfg.time_limit_s = 1.0;
  Stop s = run(RUNAWAY_COUNT_ELF, GetParam(), cfg);
  EXPECT_EQ(s.kind, ErrorKind::kBudget) << s.message;
  EXPECT_NE(s.message.find("wall-clock limit of 1 s exceeded"), std::string::npos) << s.message;
  EXPECT_GE(s.seconds, 1.0);
  EXPECT_LT(s.seconds, 30.0);
}

INSTANTIATE_TEST_SUITE_P(Modes, Runaway, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Timing" : "Functional"; });

TEST(Runaway, AFinishingKernelIsNotReported) {
  // The detector watches every few million instructions; a kernel that loops with changing state
  // and then finishes must run to its end untouched (the same image with a short budget would not).
  Config cfg = shape(1, 4, 4);
  Stop s = run(RUNAWAY_FINITE_ELF, false, cfg);
  EXPECT_EQ(s.message, "no error");
  s = run(RUNAWAY_FINITE_ELF, true, cfg);
  EXPECT_EQ(s.message, "no error");
}

}  // namespace
}  // namespace vxsim::timing
