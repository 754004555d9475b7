// Properties of the instruction table itself.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "vxsim/isa.h"

namespace vxsim {
namespace {

// No word may match two rows (Spike's check-opcode-overlap): rows i and j overlap iff their match
// values agree on every bit both masks cover.
TEST(InstrTable, NoTwoEncodingsOverlap) {
  auto t = instr_table();
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].match & ~t[i].mask, 0u) << t[i].name << ": match has bits outside its mask";
    for (size_t j = i + 1; j < t.size(); ++j) {
      uint32_t common = t[i].mask & t[j].mask;
      EXPECT_NE(t[i].match & common, t[j].match & common) << t[i].name << " overlaps " << t[j].name;
    }
  }
}

TEST(InstrTable, NamesAreUniqueAndDecodeFindsEachRow) {
  auto t = instr_table();
  std::set<std::string> names;
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_TRUE(names.insert(t[i].name).second) << t[i].name;
    EXPECT_EQ(decode(t[i].match).op, i) << t[i].name;
  }
  EXPECT_GE(t.size(), 100u);
}

TEST(InstrTable, DecodeAndDisassemble) {
  // add a0, a1, a2
  Decoded d = decode(0x00C58533);
  ASSERT_NE(d.op, kIllegalOp);
  EXPECT_EQ(disasm(d, 0), "add a0, a1, a2");
  // lw a0, -4(sp)
  EXPECT_EQ(disasm(decode(0xFFC12503), 0), "lw a0, -4(sp)");
  // beq a0, a1, +16 at 0x80000000
  EXPECT_EQ(disasm(decode(0x00B50863), 0x80000000), "beq a0, a1, 0x80000010");
  // fadd.s fa0, fa1, fa2 (dynamic rounding) and with rtz
  EXPECT_EQ(disasm(decode(0x00C5F553), 0), "fadd.s fa0, fa1, fa2");
  EXPECT_EQ(disasm(decode(0x00C59553), 0), "fadd.s fa0, fa1, fa2, rtz");
  // vx_split a0, a1 and vx_split.n (rs2 = x1)
  EXPECT_EQ(disasm(decode(0x0005A50B), 0), "vx_split a0, a1");
  EXPECT_EQ(disasm(decode(0x0015A50B), 0), "vx_split.n a0, a1");
  // vx_pred.n: rd = x1
  EXPECT_EQ(disasm(decode(0x00C5D08B), 0), "vx_pred.n a1, a2");
  EXPECT_EQ(disasm(decode(0x00C5D00B), 0), "vx_pred a1, a2");
  EXPECT_EQ(decode(0xFFFFFFFF).op, kIllegalOp);
  EXPECT_EQ(disasm(decode(0xFFFFFFFF), 0), "unknown 0xffffffff");
}

TEST(InstrTable, OperandListsForTheTimingModel) {
  ExecutedInstr e;
  describe_operands(decode(0x00C58533), e);  // add a0, a1, a2
  EXPECT_EQ(e.unit, UnitClass::kAlu);
  ASSERT_EQ(e.num_src, 2);
  EXPECT_EQ(e.src[0].index, 11);
  EXPECT_EQ(e.src[1].index, 12);
  EXPECT_TRUE(e.has_dst);
  EXPECT_EQ(e.dst.index, 10);
  EXPECT_FALSE(e.dst.fp);
  // fmadd.s fa0, fa1, fa2, fa3 (dyn): 3 FP sources
  describe_operands(decode(0x68C5F543), e);
  EXPECT_EQ(e.unit, UnitClass::kFpuFma);
  ASSERT_EQ(e.num_src, 3);
  EXPECT_TRUE(e.src[2].fp);
  EXPECT_EQ(e.src[2].index, 13);
}

}  // namespace
}  // namespace vxsim
