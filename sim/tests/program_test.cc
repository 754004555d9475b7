// Known-answer tests of RV32I, M, Zicond, Zicsr and A, run as assembly programs on vxsim.
#include <gtest/gtest.h>

#include "harness.h"

namespace vxsim::test {
namespace {

TEST(Rv32im, KnownAnswers) {
  AsmMachine m("rv32im");
  RunResult r = m.run();
  EXPECT_EQ(r.exit_code, 42u);
  const uint32_t start = m.sym("_start");
  const uint32_t expect[] = {
      0xFFFFFFFC, 0xFFFFFFF6, 24, 1, 0, 0xFFFFFFFA, 0x1FFFFFFF, 0xFFFFFFFF, 0xFFFFFFFB, 1,
      static_cast<uint32_t>(-2055), 0, 1, 6, 0x7F3, 9, 0x80000000, 0xF, 0xFFFFFFFC, 0xABCDE000,
      0x1000 + (m.sym("auipc_here") - start),
      0xFFFFFF80, 0x80, 0xFFFF8001, 0x8001, 0x12345678, 0x80015580, 0x66775678,
      static_cast<uint32_t>(-21), 0x40000000, 0xFFFFFFFE, 0xFFFFFFFF, static_cast<uint32_t>(-2),
      0xFFFFFFFF, 0x55555553, 0, 0xFFFFFFFF, static_cast<uint32_t>(-7), 0xFFFFFFFF,
      static_cast<uint32_t>(-7), 0x80000000, 0, 26, m.sym("after_jal") - start, 0, 77, 77, 0, 0};
  for (uint32_t i = 0; i < std::size(expect); ++i) {
    EXPECT_EQ(m.word("result", i), expect[i]) << "result word " << i;
  }
  // One warp, one thread: warp instructions == thread instructions.
  EXPECT_EQ(r.warp_instrs, r.thread_instrs);
  EXPECT_GT(r.warp_instrs, 100u);
}

}  // namespace
}  // namespace vxsim::test

namespace vxsim::test {
namespace {

TEST(Fp, EndToEndRoundingModesAndFcsr) {
  AsmMachine m("fp");
  m.run();
  const uint32_t expect[] = {0x3EAAAAAA, 0x3EAAAAAB, 0x3EAAAAAA, 1, 9, 0x69, 0x40E00000, 7,
                             0xC0A00000, 2, 1, 0xBF800000, 0x40400000, 0};
  for (uint32_t i = 0; i < std::size(expect); ++i) EXPECT_EQ(m.word("result", i), expect[i]) << "result word " << i;
}

}  // namespace
}  // namespace vxsim::test

namespace vxsim::test {
namespace {

TEST(Atomics, AmoLrScKnownAnswers) {
  AsmMachine m("amo");
  m.run();
  EXPECT_EQ(m.word("counter"), 10u);
  const uint32_t olds[] = {0, 1, 3, 6};
  for (uint32_t t = 0; t < 4; ++t) EXPECT_EQ(m.word("olds", t), olds[t]) << t;
  const uint32_t expect[] = {100, static_cast<uint32_t>(-5), static_cast<uint32_t>(-5), 7, 7, 0xFFFFFFF7, 0xF7, 0x1F7,
                             0x1F4, 0x1F4, 0, 1, 42};
  for (uint32_t i = 0; i < std::size(expect); ++i) EXPECT_EQ(m.word("result", i), expect[i]) << "result word " << i;
  EXPECT_EQ(m.proc->core(0).atomics(), 12u);  // per instruction: amoadd, 8 AMOs, lr.w, 2 × sc.w
}

}  // namespace
}  // namespace vxsim::test
