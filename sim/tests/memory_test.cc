// Sparse paged memory and the ACL.
#include <gtest/gtest.h>

#include <atomic>

#include "vxsim/error.h"
#include "vxsim/memory.h"
#include "vxsim/host_pool.h"
#include "vxsim/mem_overlay.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

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

TEST(MemOverlay, LoadsSeeOwnStoresAndCommitMergesInPartitionOrder) {
  vxsim::Memory mem;
  mem.write32(0x10000, 0x11111111);
  vxsim::MemOverlay a(mem), b(mem);
  a.store<uint32_t>(0x10000, 0xAAAAAAAA);
  b.store<uint8_t>(0x10001, 0xBB);
  EXPECT_EQ(a.load<uint32_t>(0x10000), 0xAAAAAAAAu);    // own store
  EXPECT_EQ(b.load<uint32_t>(0x10000), 0x1111BB11u);    // the epoch's start plus its own byte
  EXPECT_EQ(mem.read32(0x10000), 0x11111111u);          // nothing committed yet
  a.commit(mem);
  b.commit(mem);
  EXPECT_EQ(mem.read32(0x10000), 0xAAAABBAAu);          // b (later) wins the byte both wrote
  EXPECT_EQ(a.pages(), 0u);
  EXPECT_EQ(a.load<uint32_t>(0x10000), 0xAAAABBAAu);    // after the commit: the memory
}

TEST(HostPool, RunsEveryIndexAndRethrowsTheLowestFailure) {
  vxsim::HostPool pool(3);
  std::vector<int> seen(10, 0);
  pool.run(10, [&](uint32_t i) { seen[i] += 1; });
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 10);
  // Threads claim partitions as they go: over many runs of uneven work, each index still runs
  // exactly once per run.
  std::vector<std::atomic<int>> runs(17);
  for (int r = 0; r < 200; ++r) {
    pool.run(17, [&](uint32_t i) {
      volatile uint32_t spin = 0;
      for (uint32_t k = 0; k < (i % 4) * 2000; ++k) spin = spin + k;
      runs[i].fetch_add(1);
    });
  }
  for (const auto& n : runs) EXPECT_EQ(n.load(), 200);
  try {
    pool.run(10, [](uint32_t i) {
      if (i == 7 || i == 4) throw std::runtime_error(std::to_string(i));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "4");
  }
  EXPECT_EQ(vxsim::resolve_host_threads(8, 3), 3u);
  EXPECT_EQ(vxsim::resolve_host_threads(2, 16), 2u);
}
