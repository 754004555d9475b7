// Robustness: random instruction words must decode, disassemble and execute without crashing the
// host — every fault is a SimError. (A deterministic stand-in for a decoder fuzzer.)
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "vxsim/core.h"
#include "vxsim/error.h"
#include "vxsim/isa.h"

namespace vxsim {
namespace {

TEST(Fuzz, RandomWordsDecodeAndDisassemble) {
  std::mt19937 gen(7u);
  for (int i = 0; i < 200000; ++i) {
    uint32_t w = static_cast<uint32_t>(gen());
    Decoded d = decode(w);
    std::string s = disasm(d, 0x80000000);
    EXPECT_FALSE(s.empty());
    ExecutedInstr e;
    describe_operands(d, e);
    EXPECT_LE(e.num_src, 3);
  }
}

TEST(Fuzz, RandomProgramsNeverCrashTheHost) {
  std::mt19937 gen(11u);
  auto rows = instr_table();
  int faults = 0;
  int clean = 0;
  for (int prog = 0; prog < 300; ++prog) {
    Config cfg;
    cfg.threads = 1u << (prog % 6);  // 1..32
    cfg.warps = 1 + prog % 4;
    cfg.cores = 1 + prog % 2;
    cfg.instr_budget = 3000;
    Processor p(cfg);
    std::ostringstream console;
    p.set_console(&console);
    for (uint32_t i = 0; i < 256; ++i) {
      // Mostly real instructions with random operand fields, some raw random words.
      uint32_t r = static_cast<uint32_t>(gen());
      const InstrDef& row = rows[r % rows.size()];
      uint32_t word = (gen() % 8 == 0) ? static_cast<uint32_t>(gen()) : (row.match | (static_cast<uint32_t>(gen()) & ~row.mask));
      p.memory().write32(0x80000000u + 4 * i, word);
    }
    p.reset();
    try {
      p.run();
      ++clean;
    } catch (const SimError&) {
      ++faults;
    }
  }
  EXPECT_EQ(faults + clean, 300);
  EXPECT_GT(faults, 0);
}

}  // namespace
}  // namespace vxsim
