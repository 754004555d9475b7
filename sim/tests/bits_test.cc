// popcount32 (include/vxsim/bits.h) against std::popcount.
#include <gtest/gtest.h>

#include <bit>

#include "vxsim/bits.h"

namespace vxsim::test {
namespace {

TEST(Bits, Popcount32MatchesStdPopcount) {
  static_assert(popcount32(0) == 0 && popcount32(0xFFFFFFFFu) == 32);
  for (uint32_t k = 0; k < 32; ++k) {
    const uint32_t one = 1u << k;
    EXPECT_EQ(popcount32(one), 1u) << k;
    EXPECT_EQ(popcount32(one - 1), k) << k;                // the low k bits
    EXPECT_EQ(popcount32(~(one - 1)), 32 - k) << k;        // the high 32 - k bits
  }
  // A million values of a 32-bit linear congruential sequence (Numerical Recipes' constants).
  uint32_t x = 12345;
  for (int i = 0; i < 1000000; ++i) {
    x = x * 1664525u + 1013904223u;
    ASSERT_EQ(popcount32(x), static_cast<uint32_t>(std::popcount(x))) << x;
  }
}

}  // namespace
}  // namespace vxsim::test
