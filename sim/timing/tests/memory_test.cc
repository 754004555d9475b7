#include "vxsim/timing/memory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace vxsim::timing {
namespace {

/// Fixed-latency memory that records what reaches it (the level below a cache under test).
class CountingMemory final : public MemLevel {
 public:
  explicit CountingMemory(uint64_t latency) : latency_(latency) {}
  uint64_t read(uint64_t blk, uint64_t t, uint32_t /*core*/) override {
    reads.push_back(blk);
    return t + latency_;
  }
  uint64_t write(uint64_t blk, uint64_t t, uint32_t /*core*/) override {
    writes.push_back(blk);
    return t + latency_;
  }
  std::vector<uint64_t> reads;
  std::vector<uint64_t> writes;

 private:
  uint64_t latency_;
};

CacheParams l1() { return CacheParams{true, 16384, 4, 64, 1, 16, 2}; }

// Divisor's multiply path (32-bit dividend and divisor, no power of two) and its shift and 64-bit
// paths give `/` and `%` exactly: edge dividends and random ones for small, large and odd divisors.
TEST(Divisor, QuotientAndRemainderEqualDivision) {
  const std::vector<uint64_t> divisors{0, 1, 2, 3, 5, 6, 7, 10, 12, 48, 64, 100, 641, 3900, 7800, 65535,
                                       65537, 1000003, 0x7FFFFFFF, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF,
                                       0x100000000, 0x100000001, 0xFFFFFFFFFFFFFFFF};
  std::mt19937_64 rng(7);
  for (const uint64_t d : divisors) {
    const Divisor div(d);
    const uint64_t e = d == 0 ? 1 : d;
    std::vector<uint64_t> xs{0, 1, e - 1, e, e + 1, 2 * e - 1, 0xFFFFFFFF, 0xFFFFFFFE, 0x100000000, ~uint64_t{0}};
    for (int i = 0; i < 20000; ++i) xs.push_back(i % 2 == 0 ? rng() >> 32 : rng() >> (rng() % 64));
    for (const uint64_t x : xs) {
      ASSERT_EQ(div.div(x), x / e) << x << " / " << e;
      ASSERT_EQ(div.mod(x), x % e) << x << " % " << e;
    }
  }
}

TEST(Cache, HitAfterFillAndCounterIdentity) {
  CountingMemory below(100);
  Cache c(l1(), 1, 1, &below);
  uint64_t t = 0;
  uint64_t d = c.read(7, t, 0);
  EXPECT_FALSE(c.last_hit());
  EXPECT_EQ(d, 0 + 2 + 100u);  // tag check, then the fill
  d = c.read(7, 200, 0);
  EXPECT_TRUE(c.last_hit());
  EXPECT_EQ(d, 202u);
  const CacheCounters& k = c.counters(0);
  EXPECT_EQ(k.reads, 2u);
  EXPECT_EQ(k.read_misses, 1u);
  EXPECT_EQ(below.reads.size(), k.read_misses);
}

TEST(Cache, SecondaryMissWaitsForPendingFill) {
  CountingMemory below(100);
  Cache c(l1(), 1, 1, &below);
  uint64_t first = c.read(3, 0, 0);
  uint64_t second = c.read(3, 5, 0);
  EXPECT_EQ(second, first);            // merged into the same fill
  EXPECT_EQ(below.reads.size(), 1u);   // no second request below
  EXPECT_EQ(c.counters(0).read_misses, 2u);
}

TEST(Cache, WorkingSetThatFitsHitsOneThatThrashesMisses) {
  // 16 KiB, 4-way, 64 B lines = 64 sets. Blocks 0, 64, 128, ... map to set 0.
  auto run = [](uint32_t distinct) {
    CountingMemory below(10);
    Cache c(l1(), 1, 1, &below);
    uint64_t t = 0;
    for (int pass = 0; pass < 10; ++pass) {
      for (uint32_t i = 0; i < distinct; ++i) t = c.read(uint64_t{i} * 64, t + 1, 0);
    }
    return c.counters(0);
  };
  CacheCounters fits = run(4);
  EXPECT_EQ(fits.read_misses, 4u);      // compulsory only
  CacheCounters thrash = run(5);        // 5 blocks cycling through a 4-way set under LRU
  EXPECT_EQ(thrash.read_misses, thrash.reads);
}

TEST(Cache, MshrsLimitOutstandingMisses) {
  CacheParams p = l1();
  p.mshrs = 2;
  CountingMemory below(100);
  Cache c(p, 4, 1, &below);
  // Four distinct misses at the same cycle on four banks: the third and fourth wait for an MSHR.
  uint64_t d0 = c.read(0, 0, 0);
  uint64_t d1 = c.read(1, 0, 0);
  uint64_t d2 = c.read(2, 0, 0);
  uint64_t d3 = c.read(3, 0, 0);
  EXPECT_EQ(d0, 102u);
  EXPECT_EQ(d1, 102u);
  EXPECT_EQ(d2, 202u);
  EXPECT_EQ(d3, 202u);
  EXPECT_EQ(c.counters(0).mshr_stalls, 200u);
}

TEST(Cache, BanksSerialiseSameBankRequests) {
  CountingMemory below(1);
  Cache c(l1(), 2, 1, &below);
  c.read(0, 10, 0);  // bank 0
  c.read(2, 10, 0);  // bank 0 again: waits one cycle
  c.read(1, 10, 0);  // bank 1: free
  EXPECT_EQ(c.counters(0).bank_stalls, 1u);
}

TEST(Cache, WriteThroughNoAllocate) {
  CountingMemory below(50);
  Cache c(l1(), 1, 1, &below);
  c.write(9, 0, 0);
  EXPECT_EQ(c.counters(0).write_misses, 1u);
  EXPECT_FALSE(c.contains(9));           // no write-allocate
  c.read(9, 10, 0);
  c.write(9, 200, 0);
  EXPECT_EQ(c.counters(0).write_misses, 1u);  // the second write hits
  EXPECT_EQ(below.writes.size(), 2u);          // both went through
  EXPECT_EQ(c.counters(0).writes, 2u);
}

TEST(Cache, PerCoreCountersOfASharedCache) {
  CountingMemory below(10);
  Cache c(l1(), 1, 2, &below);
  c.read(1, 0, 0);
  c.read(1, 100, 1);
  EXPECT_EQ(c.counters(0).read_misses, 1u);
  EXPECT_EQ(c.counters(1).read_misses, 0u);  // core 1 hits the line core 0 brought in
  EXPECT_EQ(c.total().reads, 2u);
}

TEST(Dram, RowHitsAreFasterAndChannelsLimitBandwidth) {
  DramParams p;
  p.refresh_interval = 0;
  Dram d(p);
  uint64_t first = d.read(0, 0, 0);  // row miss; answered with the block's first DRAM request
  EXPECT_EQ(first, p.row_miss_latency);
  uint64_t second = d.read(0, 1000, 0);  // same row, still open: row hit
  EXPECT_EQ(second, 1000u + p.row_hit_latency);
  {
    // A block is block / request_bytes = 4 DRAM requests leaving one queue at one per cycle: with
    // one-cycle bursts (no channel wait) a second block arriving in the same cycle is answered 4
    // cycles after the first.
    DramParams q = p;
    q.burst_cycles = 1;
    Dram e(q);
    (void)e.read(64, 0, 0);  // opens the row
    const uint64_t a = e.read(64, 1500, 0);
    const uint64_t b = e.read(65, 1500, 0);
    EXPECT_EQ(a, 1500u + q.row_hit_latency);
    EXPECT_EQ(b - a, 4u);
  }
  // 64 blocks back to back: 256 requests of burst_cycles each over 2 channels bound the run.
  uint64_t last = 0;
  for (uint64_t i = 0; i < 64; ++i) last = d.read(128 + i, 2000, 0);
  const uint64_t bus = 64u * 4 * p.burst_cycles / p.channels;
  EXPECT_GE(last, 2000u + bus - 4 * p.burst_cycles);
  EXPECT_LE(last, 2000u + bus + p.row_miss_latency);
  EXPECT_GT(d.counters().bank_stalls, 0u);
  EXPECT_EQ(d.counters().reads, 66u);
  EXPECT_EQ(d.counters().bytes_read, 66u * 64);
}

TEST(Dram, WritesArePostedAndRefreshBlocksTheChannels) {
  DramParams p;
  Dram d(p);
  // A write is acknowledged once its first request left the queue (SimX's dram_sim).
  EXPECT_EQ(d.write(10, 5000, 0), 5001u);
  // The write's 4 requests still hold the queue (and its channels): a read right behind it leaves
  // the queue 4 cycles later at the earliest.
  EXPECT_GE(d.read(40, 5000, 0), 5004u + p.row_hit_latency);  // the row the write opened
  // Inside a refresh (the first refresh_cycles of every refresh_interval) nothing is served, and the
  // refresh closes the rows: the re-read of block 40 after it is a row miss.
  const uint64_t t = 2 * uint64_t{p.refresh_interval} + 10;
  EXPECT_EQ(d.read(40, t, 0), 2 * uint64_t{p.refresh_interval} + p.refresh_cycles + p.row_miss_latency);
  EXPECT_EQ(d.counters().writes, 1u);
  EXPECT_EQ(d.counters().bytes_written, 64u);
}

ExecutedInstr strided_load(uint32_t lanes, uint64_t base, uint64_t stride, uint32_t mask = 0xFFFFFFFFu) {
  ExecutedInstr in;
  in.mem = MemKind::kLoad;
  in.unit = UnitClass::kLsu;
  in.active_mask = (lanes == 32 ? 0xFFFFFFFFu : ((1u << lanes) - 1)) & mask;
  for (uint32_t i = 0; i < lanes; ++i) in.lanes[i] = LaneAccess{base + i * stride, 4};
  return in;
}

TEST(Coalescer, UnitStrideVsStride32) {
  Coalesced co;
  coalesce(strided_load(8, 0x1000, 4), 64, co);
  EXPECT_EQ(co.num_blocks, 1u);
  EXPECT_EQ(co.sectors, 1u);
  EXPECT_EQ(co.bytes, 32u);  // 32 B requested / 1 sector × 32 B = 100 %
  coalesce(strided_load(8, 0x1000, 128), 64, co);
  EXPECT_EQ(co.num_blocks, 8u);
  EXPECT_EQ(co.sectors, 8u);  // 32 / (8 × 32) = 12.5 %
  coalesce(strided_load(8, 0x1000, 4, 0x55), 64, co);  // even lanes only
  EXPECT_EQ(co.bytes, 16u);
  EXPECT_EQ(co.sectors, 1u);
  // A broadcast (every lane reads one word) requests 4 bytes of one sector: 12.5 %, never > 100 %.
  coalesce(strided_load(16, 0x1000, 0), 64, co);
  EXPECT_EQ(co.bytes, 4u);
  EXPECT_EQ(co.sectors, 1u);
  EXPECT_EQ(co.num_blocks, 1u);
  // A 4-byte access straddling a block boundary touches two blocks and two sectors.
  ExecutedInstr in = strided_load(1, 62, 0);
  coalesce(in, 64, co);
  EXPECT_EQ(co.num_blocks, 2u);
  EXPECT_EQ(co.sectors, 2u);
}

/// coalesce's result by a plain scan: distinct lane addresses, blocks and sectors in first-touch order.
Coalesced coalesce_reference(const ExecutedInstr& in, uint32_t block_bytes) {
  Coalesced out;
  std::vector<uint64_t> addrs, sectors;
  auto add = [](auto& list, uint64_t v) {
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
  };
  std::vector<uint64_t> blocks;
  for (uint32_t lane = 0; lane < kMaxThreads; ++lane) {
    if ((in.active_mask >> lane & 1u) == 0) continue;
    const LaneAccess& a = in.lanes[lane];
    if (std::find(addrs.begin(), addrs.end(), a.addr) != addrs.end()) continue;
    addrs.push_back(a.addr);
    const uint64_t size = std::max<uint64_t>(a.size, 1);
    out.bytes += static_cast<uint32_t>(size);
    for (uint64_t end : {a.addr, a.addr + size - 1}) {
      add(blocks, end / block_bytes);
      add(sectors, end / 32);
    }
  }
  out.num_blocks = static_cast<uint32_t>(blocks.size());
  std::copy(blocks.begin(), blocks.end(), out.blocks.begin());
  out.sectors = static_cast<uint32_t>(sectors.size());
  return out;
}

TEST(Coalescer, FastPathsEqualPlainScan) {
  // Unit strides, broadcasts (also of mixed sizes), larger strides, holes in the mask and random
  // addresses, at offsets that straddle sectors and blocks: coalesce's fast path for one contiguous
  // range must give what the plain scan gives.
  std::mt19937_64 rng(7);
  for (uint32_t block : {16u, 64u}) {
    for (int iter = 0; iter < 20000; ++iter) {
      ExecutedInstr in;
      const uint32_t lanes = 1 + static_cast<uint32_t>(rng() % kMaxThreads);
      const uint64_t base = 0x1000 + rng() % 200;
      const uint64_t stride = std::array<uint64_t, 6>{0, 1, 2, 4, 8, 36}[rng() % 6];
      const auto size = static_cast<uint8_t>(std::array<uint32_t, 4>{1, 2, 4, 4}[rng() % 4]);
      const uint32_t pattern = static_cast<uint32_t>(rng() % 4);
      for (uint32_t i = 0; i < lanes; ++i) {
        const uint64_t addr = pattern == 3 ? base + rng() % 64 : base + i * stride;
        const auto lane_size = pattern == 2 ? static_cast<uint8_t>(rng() % 5) : size;
        in.lanes[i] = LaneAccess{addr, lane_size};
      }
      in.active_mask = lanes == 32 ? ~0u : (1u << lanes) - 1;
      if (pattern == 1) in.active_mask &= static_cast<uint32_t>(rng());
      Coalesced co;
      coalesce(in, block, co);
      const Coalesced ref = coalesce_reference(in, block);
      ASSERT_EQ(co.num_blocks, ref.num_blocks) << iter;
      for (uint32_t i = 0; i < ref.num_blocks; ++i) ASSERT_EQ(co.blocks[i], ref.blocks[i]) << iter;
      ASSERT_EQ(co.sectors, ref.sectors) << iter;
      ASSERT_EQ(co.bytes, ref.bytes) << iter;
    }
  }
}

TEST(StackInterleave, AWarpsFrameSlotIsOneBlockAndWarpsUseDifferentSets) {
  // 2 cores × 2 warps × 8 threads = 32 stacks of 8 KiB below 0xFFFF0000 (docs/vortex.md §3.1).
  constexpr uint64_t kTop = StackInterleave::kTop, kStack = 8192;
  const StackInterleave m(32, 8);
  auto slot = [&](uint64_t hart, uint64_t off) { return m.map(kTop - hart * kStack - off); };
  // The word at 12 below each lane's initial sp: the 8 lanes of warp 1 (harts 8..15) in one block.
  std::vector<uint64_t> blocks;
  for (uint64_t h = 8; h < 16; ++h) blocks.push_back(slot(h, 12) / 64);
  EXPECT_EQ(std::count(blocks.begin(), blocks.end(), blocks[0]), 8);
  EXPECT_EQ(slot(9, 12), slot(8, 12) - 4);  // lane t+1's stack is lower: the word before
  // The same slot of the four warps: without the map all in one set of a 64-set, 64-B-line
  // D-cache (8 KiB apart); with it in two sets (the XOR flips the word index, and two 32-B warp
  // slots share a line index, so warps 2k and 2k+1 pair up).
  std::vector<uint64_t> sets;
  for (uint64_t w = 0; w < 4; ++w) sets.push_back(slot(w * 8, 12) / 64 % 64);
  std::sort(sets.begin(), sets.end());
  EXPECT_EQ(std::unique(sets.begin(), sets.end()) - sets.begin(), 2);
  EXPECT_NE(slot(0, 12) / 64, slot(8, 12) / 64);  // different blocks all the same
  // A bijection of the window (every word lands on a distinct word inside it); outside unchanged.
  std::vector<uint64_t> image;
  for (uint64_t a = kTop - 32 * kStack; a < kTop; a += 4) image.push_back(m.map(a));
  std::sort(image.begin(), image.end());
  EXPECT_EQ(std::adjacent_find(image.begin(), image.end()), image.end());
  EXPECT_EQ(image.front(), kTop - 32 * kStack);
  EXPECT_EQ(image.back(), kTop - 4);
  EXPECT_EQ(m.map(kTop), kTop);                          // local memory above the stacks
  EXPECT_EQ(m.map(kTop - 32 * kStack - 4), kTop - 32 * kStack - 4);
  EXPECT_EQ(m.map(0x80001234), 0x80001234u);
  EXPECT_EQ(m.map(kTop - 5 * kStack - 13) % 4, 3u);      // the byte within its word is kept
}

TEST(LocalMemory, BankConflicts) {
  uint32_t words = 0;
  // 8 lanes, unit stride over 8 banks: conflict-free.
  EXPECT_EQ(lmem_conflict_cycles(strided_load(8, 0, 4), 8, words), 1u);
  EXPECT_EQ(words, 8u);
  // Stride of 8 words: every lane hits bank 0 at a different word: 8-way conflict.
  EXPECT_EQ(lmem_conflict_cycles(strided_load(8, 0, 32), 8, words), 8u);
  // Stride of 2 words: two lanes per bank.
  EXPECT_EQ(lmem_conflict_cycles(strided_load(8, 0, 8), 8, words), 2u);
  // All lanes read the same word: a broadcast, one cycle, one word.
  EXPECT_EQ(lmem_conflict_cycles(strided_load(8, 64, 0), 8, words), 1u);
  EXPECT_EQ(words, 1u);
}

TEST(MemorySystem, SocketsShareL1AndL2IsOptional) {
  TimingConfig cfg;
  cfg.cores = 4;
  MemorySystem m(cfg);
  EXPECT_EQ(&m.dcache(0), &m.dcache(3));  // socket of 4 cores
  EXPECT_EQ(m.l2(0), nullptr);
  cfg.l2.enabled = true;
  cfg.socket_size = 1;
  MemorySystem m2(cfg);
  EXPECT_NE(&m2.dcache(0), &m2.dcache(1));
  ASSERT_NE(m2.l2(0), nullptr);
  m2.dcache(0).read(5, 0, 0);
  m2.dcache(1).read(5, 1000, 1);  // misses its own L1, hits the shared L2
  EXPECT_EQ(m2.l2(0)->total().reads, 2u);
  EXPECT_EQ(m2.l2(0)->total().read_misses, 1u);
  EXPECT_EQ(m2.dram().counters().reads, 1u);
}

}  // namespace
}  // namespace vxsim::timing
