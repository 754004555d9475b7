#pragma once
/// \file
/// Memory side of the timing model: set-associative caches with banks and MSHRs, a DRAM model with
/// channels and open rows, local-memory bank conflicts and the global-memory coalescer.
///
/// Timing is time-stamped rather than queued: a request arriving at cycle t at a level is served
/// at max(t, the time its bank/channel is free) and the level returns the cycle its data (or its
/// write acknowledgement) is back. Requests are presented in issue order, which is cycle order at
/// the L1; deeper levels see them in that same order (a modelling compromise: a request issued
/// later but arriving earlier at L2 waits behind the earlier one).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vxsim/step.h"
#include "vxsim/timing/config.h"
#include "vxsim/timing/counters.h"
#include "vxsim/timing/mem_profile.h"

namespace vxsim::timing {

/// Division by a divisor fixed at construction (a cache's sets and banks, the DRAM geometry): a shift
/// or mask when it is a power of two; else, for a dividend and divisor below 2^32, a multiplication
/// by the precomputed ceil(2^64 / d) (Lemire, Kaser and Kurz, "Faster remainder by direct
/// computation", 2019: exact for every 32-bit dividend and divisor), and 64-bit division otherwise.
/// The same quotient and remainder as `/` and `%` in every case. A divisor of 0 counts as 1.
class Divisor {
 public:
  Divisor() = default;
  explicit Divisor(uint64_t d)
      : d_(d == 0 ? 1 : d),
        shift_(static_cast<uint32_t>(std::countr_zero(d_))),
        pow2_(std::has_single_bit(d_)),
        magic_(pow2_ || d_ >> 32 != 0 ? 0 : ~uint64_t{0} / d_ + 1) {}
  /// The divisor (1 where it was constructed from 0).
  [[nodiscard]] uint64_t value() const { return d_; }
  [[nodiscard]] uint64_t div(uint64_t x) const {
    if (pow2_) return x >> shift_;
    if (x >> 32 == 0 && magic_ != 0) return high64(magic_, x);
    return x / d_;
  }
  [[nodiscard]] uint64_t mod(uint64_t x) const {
    if (pow2_) return x & (d_ - 1);
    if (x >> 32 == 0 && magic_ != 0) return high64(magic_ * x, d_);  // the fraction's bits times d
    return x % d_;
  }

 private:
  /// The upper 64 bits of the 128-bit product a·b.
  static uint64_t high64(uint64_t a, uint64_t b) {
    __extension__ using Wide = unsigned __int128;
    return static_cast<uint64_t>((static_cast<Wide>(a) * b) >> 64);
  }
  uint64_t d_ = 1;
  uint32_t shift_ = 0;
  bool pow2_ = true;
  uint64_t magic_ = 0;  ///< ceil(2^64 / d) for a divisor below 2^32 that is no power of two, else 0
};

/// A level of the memory hierarchy below the LSU/fetch unit. Addresses are block numbers
/// (byte address / block size). `core` is the global id of the requesting core (for counters).
class MemLevel {
 public:
  virtual ~MemLevel() = default;
  /// Read of block `blk` arriving at cycle `t`; returns the cycle the data is back.
  virtual uint64_t read(uint64_t blk, uint64_t t, uint32_t core) = 0;
  /// Write of block `blk` arriving at `t`; returns the cycle it is acknowledged (DRAM: posted,
  /// acknowledged when its channel took the block).
  virtual uint64_t write(uint64_t blk, uint64_t t, uint32_t core) = 0;
};

/// SimX's memory path below the caches (docs: DramParams): one pending queue of DRAM requests, then
/// `channels` channels with open rows and all-bank refresh.
class Dram final : public MemLevel {
 public:
  explicit Dram(const DramParams& p);
  uint64_t read(uint64_t blk, uint64_t t, uint32_t core) override;
  uint64_t write(uint64_t blk, uint64_t t, uint32_t core) override;
  [[nodiscard]] const DramCounters& counters() const { return ctr_; }

 private:
  struct Served {
    uint64_t accepted;  ///< the first DRAM request left the pending queue (a write's acknowledgement)
    uint64_t first;     ///< the first request's data is back (a read's response)
  };
  Served access(uint64_t blk, uint64_t t, bool write);
  [[nodiscard]] uint64_t after_refresh(uint64_t t) const;
  DramParams p_;
  uint32_t per_block_;      ///< DRAM requests per block
  uint64_t req_bytes_;      ///< bytes of one DRAM request (block / per_block_)
  Divisor interleave_, channels_, row_size_, banks_, pseudo_, refresh_;  ///< of p_
  std::vector<uint64_t> channel_free_;  ///< per (channel, pseudo-channel): its data bus is free
  std::vector<uint64_t> open_row_;   ///< channels x banks; row + 1, 0 = closed
  std::vector<uint64_t> last_use_;   ///< channels x banks: cycle of the last access (a refresh closes rows)
  std::vector<uint8_t> last_write_;  ///< per channel: the last access was a write
  uint64_t queue_free_ = 0;          ///< the pending queue passes its next request
  DramCounters ctr_;
};

/// A shared request port (PortParams): requests pass one per `cycles_per_request` cycles (0 = no
/// limit) in arrival order, plus `latency` cycles on the way down and on the way back.
class Port final : public MemLevel {
 public:
  Port(const PortParams& p, MemLevel* next) : p_(p), next_(next) {}
  uint64_t read(uint64_t blk, uint64_t t, uint32_t core) override;
  uint64_t write(uint64_t blk, uint64_t t, uint32_t core) override;
  /// Takes over `o`'s occupancy (a partition's private copy at an epoch's start).
  void copy_state(const Port& o) { free_ = o.free_; }

 private:
  uint64_t pass(uint64_t t);
  PortParams p_;
  MemLevel* next_;
  uint64_t free_ = 0;
};

/// Set-associative, LRU, write-through, no-write-allocate cache with line-interleaved banks,
/// MSHRs for read misses and an equally deep write buffer for the write-through traffic. Counters are kept per requesting core so a cache shared by a socket or cluster can report
/// per core (the MPM CSRs of SimX are per core).
class Cache final : public MemLevel {
 public:
  /// `banks` is the effective bank count (config 0 = auto resolved by the caller); `num_cores` the
  /// number of global core ids that may request.
  Cache(const CacheParams& p, uint32_t banks, uint32_t num_cores, MemLevel* next);
  /// Inline up to the way hit or filled last (an instruction fetch's usual case), the rest in
  /// read_lookup.
  uint64_t read(uint64_t blk, uint64_t t, uint32_t core) override {
    CacheCounters& c = ctr_[core];
    ++c.reads;
    const uint64_t start = bank_start(blk, t, c);
    last_accept_ = start;
    Way& mru = ways_[mru_];
    if (mru.tag == blk + 1) return read_found(mru, start, c);
    return read_lookup(blk, start, core);
  }
  uint64_t write(uint64_t blk, uint64_t t, uint32_t core) override;
  /// Last read was a hit (primary or not). For tests and the LSU's latency bookkeeping.
  [[nodiscard]] bool last_hit() const { return last_hit_; }
  /// Cycle the last request was accepted: its bank slot, later if it waited for an MSHR or a
  /// write-buffer entry. The LSU stays busy until then (backpressure).
  [[nodiscard]] uint64_t last_accept() const { return last_accept_; }
  /// True when `blk` is resident (filled or being filled).
  [[nodiscard]] bool contains(uint64_t blk) const;
  [[nodiscard]] const CacheCounters& counters(uint32_t core) const { return ctr_[core]; }
  [[nodiscard]] CacheCounters total() const;

 private:
  struct Way {
    uint64_t tag = 0;   ///< block + 1; 0 = invalid
    uint64_t lru = 0;   ///< last-use stamp
    uint64_t fill = 0;  ///< cycle the data arrives
  };
  /// The cycle a request arriving at t gets its bank (one request per bank and cycle).
  uint64_t bank_start(uint64_t blk, uint64_t t, CacheCounters& c) {
    uint64_t& free = bank_free_[bank_of_.mod(blk)];
    const uint64_t start = std::max(t, free);
    c.bank_stalls += start - t;
    free = start + 1;
    return start;
  }
  /// A read whose block is resident in `w` (filled, or being filled: a secondary miss).
  uint64_t read_found(Way& w, uint64_t start, CacheCounters& c) {
    w.lru = ++stamp_;
    mru_ = static_cast<std::size_t>(&w - ways_.data());
    const uint64_t tag_done = start + p_.latency;
    if (w.fill <= start) {
      last_hit_ = true;
      return tag_done;
    }
    // Secondary miss: merged into the pending MSHR, data arrives with the fill.
    ++c.read_misses;
    last_hit_ = false;
    return std::max(tag_done, w.fill);
  }
  /// read() after the bank: the set's lookup, then a hit or a miss through an MSHR.
  uint64_t read_lookup(uint64_t blk, uint64_t start, uint32_t core);
  Way* lookup(uint64_t blk);
  CacheParams p_;
  uint32_t banks_;
  uint32_t sets_;
  Divisor bank_of_, set_of_;  ///< block → bank (banks_), block → set (sets_)
  MemLevel* next_;
  std::vector<Way> ways_;
  std::vector<uint64_t> bank_free_;
  std::vector<uint64_t> mshr_done_;
  std::vector<uint64_t> wbuf_done_;  ///< write-buffer entries: cycle each is acknowledged
  std::vector<CacheCounters> ctr_;
  uint64_t stamp_ = 0;
  std::size_t mru_ = 0;  ///< index in ways_ of the way hit or filled last (lookup tries it first)
  bool last_hit_ = false;
  uint64_t last_accept_ = 0;
};

/// Cycles a local-memory instruction occupies the banks: the largest number of distinct 4-byte
/// words any one bank must serve (lanes reading the same word are merged, a broadcast). `words`
/// receives the number of distinct (bank, word) accesses. Addresses are byte addresses.
[[nodiscard]] uint32_t lmem_conflict_cycles(const ExecutedInstr& in, uint32_t banks, uint32_t& words);

/// The LSU's stack interleave of Vortex's 2026 line ([N], docs/vortex.md §3.4): an address map
/// applied before coalescing. Hart h's stack is the 8 KiB below STACK_BASE_ADDR − h·8 KiB; the
/// window holds the stacks of every hart. Within each group of `threads` consecutive stacks, the
/// byte at (stack t of the group, word w, byte b) moves to word w XOR (group mod words), lane t,
/// byte b: a warp's same frame slot becomes `threads` consecutive words, and the XOR puts the
/// slot of different warps in different cache sets. A bijection of the window; other addresses
/// are unchanged. Only the timing model's view of addresses changes, never memory contents.
class StackInterleave {
 public:
  static constexpr uint64_t kTop = 0xFFFF0000;  ///< STACK_BASE_ADDR (docs/vortex.md §3.1)
  static constexpr uint32_t kLog2Stack = 13;    ///< STACK_LOG2_SIZE: 8 KiB per hart (§3.1)
  /// `harts`: stacks in the window (cores × warps × threads); `threads` a power of two.
  StackInterleave(uint64_t harts, uint32_t threads);
  /// Lowest address of the stacks of `harts` harts (the window is [bottom, kTop)).
  [[nodiscard]] static uint64_t bottom(uint64_t harts) { return kTop - std::min(harts << kLog2Stack, kTop); }
  [[nodiscard]] uint64_t map(uint64_t addr) const;

 private:
  uint64_t bottom_;
  uint32_t threads_;
};

/// Result of coalescing one global memory instruction.
struct Coalesced {
  uint32_t num_blocks = 0;
  std::array<uint64_t, kMaxThreads * 2> blocks{};  ///< distinct block numbers, first-touch order
  uint32_t sectors = 0;                            ///< distinct 32-byte sectors
  uint32_t bytes = 0;  ///< bytes requested by active lanes, each distinct lane address once
};

/// Groups the active lanes' accesses of `in` by block (`block_bytes`) and counts 32-byte sectors.
/// An access that straddles a block (or sector) boundary touches both. Lanes with the same address
/// (a broadcast) request its bytes once.
void coalesce(const ExecutedInstr& in, uint32_t block_bytes, Coalesced& out);

/// The device's memory hierarchy: L1 I/D per socket → socket port → L2 per cluster (optional) →
/// cluster port → L3 (optional) → DRAM.
///
/// Partitioned (docs/vxsim.md "Parallel simulation"): `first_cores` names the first core of each
/// partition (whole sockets, or whole clusters when the L2 is on; no L3). What lies above the
/// cluster ports belongs to one partition; the cluster ports and the DRAM are shared. During an
/// epoch each partition sends its requests to a private copy of that shared tail, taken from the
/// committed state at the epoch's start (begin_epoch), so it sees its own contention at once and
/// the other partitions' from the next epoch on; end_epoch() replays every partition's requests of
/// the epoch on the committed tail in (cycle, partition, order) order. The committed tail's
/// counters are the device's. With one partition there is no copy and no replay.
///
/// With a `profile`, a meter above the DRAM that the cores' requests reach while they are made
/// (the DRAM itself with one partition, each partition's private copy otherwise; never the
/// replay) charges every DRAM request to the instruction being served (mem_profile.h).
class MemorySystem {
 public:
  MemorySystem(const TimingConfig& cfg, const std::vector<uint32_t>& first_cores = {}, MemProfile* profile = nullptr);
  ~MemorySystem();
  /// Copies the committed shared tail into partition `part`'s view (call from its own thread).
  void begin_epoch(uint32_t part);
  /// Replays the epoch's requests of all partitions on the committed tail (serially).
  void end_epoch();
  [[nodiscard]] Cache& icache(uint32_t core) { return *icaches_[core / socket_size_]; }
  [[nodiscard]] Cache& dcache(uint32_t core) { return *dcaches_[core / socket_size_]; }
  /// The first level below the L1s for `core` (L2, L3 or DRAM): where AMOs go.
  [[nodiscard]] MemLevel& below_l1(uint32_t core);
  [[nodiscard]] const Dram& dram() const { return *dram_; }
  [[nodiscard]] const Cache* l2(uint32_t cluster) const { return l2_.empty() ? nullptr : l2_[cluster].get(); }
  [[nodiscard]] const Cache* l3() const { return l3_.get(); }
  [[nodiscard]] const Cache& icache_at(uint32_t socket) const { return *icaches_[socket]; }
  [[nodiscard]] const Cache& dcache_at(uint32_t socket) const { return *dcaches_[socket]; }
  [[nodiscard]] uint32_t block_bytes() const { return block_; }

 private:
  uint32_t block_;
  uint32_t socket_size_;
  uint32_t cores_per_cluster_;
  std::unique_ptr<Dram> dram_;
  std::vector<std::unique_ptr<MemLevel>> meters_;  ///< profile meters above the DRAM(s) (profiled runs only)
  std::unique_ptr<Cache> l3_;
  std::vector<std::unique_ptr<Port>> cluster_ports_;
  std::vector<std::unique_ptr<Cache>> l2_;
  std::vector<std::unique_ptr<Port>> socket_ports_;
  std::vector<std::unique_ptr<Cache>> icaches_;
  std::vector<std::unique_ptr<Cache>> dcaches_;
  struct Tail;
  std::vector<std::unique_ptr<Tail>> tails_;  ///< per partition; empty with one partition
};

}  // namespace vxsim::timing
