// Sparse paged memory and the ACL.
#include <gtest/gtest.h>

#include "vxsim/error.h"
#include "vxsim/memory.h"

namespace vxsim {
namespace {

TEST(Memory, SparsePagesReadZeroUntilWritten) {
  Memory m;
  EXPECT_EQ(m.read32(0x12345678 & ~3u), 0u);
  EXPECT_EQ(m.pages_allocated(), 0u);
  uint8_t buf[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  m.write(0x1FFB, buf, 10);  // straddles two pages
  EXPECT_EQ(m.pages_allocated(), 2u);
  uint8_t back[10] = {};
  m.read(0x1FFB, back, 10);
  EXPECT_EQ(0, std::memcmp(buf, back, 10));
  EXPECT_EQ(m.load<uint32_t>(0x2000), 0x09080706u);  // bytes 6..9 land at 0x2000
  m.store<uint16_t>(0xFFFFFFFE, 0xBEEF);
  EXPECT_EQ(m.load<uint16_t>(0xFFFFFFFE), 0xBEEF);
  EXPECT_THROW(m.write(0xFFFFFFFF, buf, 2), SimError);
  EXPECT_THROW(m.read(0x100000000ull, back, 1), SimError);
}

TEST(Memory, AclRegionsSplitAndClear) {
  Memory m;
  EXPECT_TRUE(m.acl_allows(0x10000, 4, true));  // unregistered passes
  m.set_acl(0x10000, 0x3000, kAclRead);
  EXPECT_TRUE(m.acl_allows(0x10000, 4, false));
  EXPECT_FALSE(m.acl_allows(0x10000, 4, true));
  EXPECT_FALSE(m.acl_allows(0x12FFC, 4, true));
  EXPECT_TRUE(m.acl_allows(0x13000, 4, true));
  // Punch a writable hole in the middle (sub-page: mixed pages use the slow path).
  m.set_acl(0x11010, 0x20, kAclRead | kAclWrite);
  EXPECT_TRUE(m.acl_allows(0x11010, 4, true));
  EXPECT_TRUE(m.acl_allows(0x1102C, 4, true));
  EXPECT_FALSE(m.acl_allows(0x11030, 4, true));
  EXPECT_FALSE(m.acl_allows(0x1100C, 4, true));
  EXPECT_FALSE(m.acl_allows(0x1102E, 4, true));  // straddles the hole's end
  EXPECT_TRUE(m.acl_allows(0x11030, 4, false));
  m.clear_acl(0x10000, 0x3000);
  EXPECT_TRUE(m.acl_allows(0x11030, 4, true));
  EXPECT_TRUE(m.acl_allows(0x10000, 4, true));
  // A write-only region cannot be read (the classic VX_MEM_WRITE output-buffer mistake).
  m.set_acl(0x20000, 64, kAclWrite);
  EXPECT_FALSE(m.acl_allows(0x20000, 4, false));
  EXPECT_TRUE(m.acl_allows(0x20040, 4, false));
}

}  // namespace
}  // namespace vxsim
