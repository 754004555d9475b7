#include "vxsim/timing/memory.h"

#include <algorithm>
#include <bit>

namespace vxsim::timing {

CacheCounters& CacheCounters::operator+=(const CacheCounters& o) {
  reads += o.reads;
  writes += o.writes;
  read_misses += o.read_misses;
  write_misses += o.write_misses;
  bank_stalls += o.bank_stalls;
  mshr_stalls += o.mshr_stalls;
  return *this;
}

DramCounters& DramCounters::operator+=(const DramCounters& o) {
  reads += o.reads;
  writes += o.writes;
  read_latency += o.read_latency;
  bank_stalls += o.bank_stalls;
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  return *this;
}

// ---------------------------------------------------------------------------------------------
// DRAM

Dram::Dram(const DramParams& p)
    : p_(p),
      per_block_(std::max(1u, p.block / std::max(1u, p.request_bytes))),
      req_bytes_(p.block / per_block_),
      interleave_(p.interleave),
      channels_(p.channels),
      row_size_(p.row_size),
      banks_(p.banks),
      pseudo_(p.pseudo_channels),
      refresh_(p.refresh_interval),
      channel_free_(static_cast<std::size_t>(p.channels) * p.pseudo_channels, 0),
      open_row_(static_cast<std::size_t>(p.channels) * p.banks, 0),
      last_use_(static_cast<std::size_t>(p.channels) * p.banks, 0),
      last_write_(p.channels, 0) {}

uint64_t Dram::after_refresh(uint64_t t) const {
  // All-bank refresh: every refresh_interval cycles the channels are blocked refresh_cycles.
  if (p_.refresh_interval == 0) return t;
  const uint64_t phase = refresh_.mod(t);
  return phase < p_.refresh_cycles ? t + (p_.refresh_cycles - phase) : t;
}

Dram::Served Dram::access(uint64_t blk, uint64_t t, bool write) {
  Served s{0, 0};
  for (uint32_t i = 0; i < per_block_; ++i) {
    // SimX's pending queue hands one request per queue_cycles to the controller, in arrival order.
    const uint64_t issued = std::max(t, queue_free_);
    queue_free_ = issued + p_.queue_cycles;
    // DRAM address of the request (SimX: block number x request size + i x request size), then
    // RoBaRaCoCh: channel above the transaction offset, columns, then banks, then rows.
    const uint64_t addr = (blk + i) * req_bytes_;
    const uint64_t tx = interleave_.div(addr);
    const uint64_t ch = channels_.mod(tx);
    const uint64_t in_ch = channels_.div(tx) * p_.interleave + interleave_.mod(addr);
    const uint64_t chunk = row_size_.div(in_ch);
    const uint64_t bank = banks_.mod(chunk);  // its low bits: the pseudo-channel (Ra above Co)
    const uint64_t row = banks_.div(chunk);
    uint64_t& bus = channel_free_[ch * p_.pseudo_channels + pseudo_.mod(bank)];
    uint64_t start = after_refresh(std::max(issued, bus));
    if ((last_write_[ch] != 0) != write) start += p_.rw_turnaround;  // bus turnaround (tWTR/tRTW)
    last_write_[ch] = write ? 1 : 0;
    ctr_.bank_stalls += start - issued;
    bus = start + p_.burst_cycles;
    const std::size_t b = ch * p_.banks + bank;
    uint64_t& open = open_row_[b];
    // A refresh between the bank's last access and this one closed its row.
    if (p_.refresh_interval != 0 && refresh_.div(last_use_[b]) != refresh_.div(start)) open = 0;
    last_use_[b] = start;
    const uint64_t latency = (open == row + 1) ? p_.row_hit_latency : p_.row_miss_latency;
    open = row + 1;
    if (i == 0) s = Served{issued, start + latency};
  }
  return s;
}

uint64_t Dram::read(uint64_t blk, uint64_t t, uint32_t /*core*/) {
  const uint64_t done = access(blk, t, false).first;
  ++ctr_.reads;
  ctr_.read_latency += done - t;
  ctr_.bytes_read += p_.block;
  return done;
}

uint64_t Dram::write(uint64_t blk, uint64_t t, uint32_t /*core*/) {
  // Posted: SimX acknowledges a write when its first DRAM request entered the controller; the
  // requests still occupy the queue, the channels and the banks.
  const uint64_t ack = access(blk, t, true).accepted;
  ++ctr_.writes;
  ctr_.bytes_written += p_.block;
  return ack + 1;
}

// ---------------------------------------------------------------------------------------------
// Port

uint64_t Port::pass(uint64_t t) {
  if (p_.cycles_per_request == 0) return t + p_.latency;
  const uint64_t start = std::max(t, free_);
  free_ = start + p_.cycles_per_request;
  return start + p_.latency;
}

uint64_t Port::read(uint64_t blk, uint64_t t, uint32_t core) { return next_->read(blk, pass(t), core) + p_.latency; }

uint64_t Port::write(uint64_t blk, uint64_t t, uint32_t core) { return next_->write(blk, pass(t), core) + p_.latency; }

// ---------------------------------------------------------------------------------------------
// Cache

Cache::Cache(const CacheParams& p, uint32_t banks, uint32_t num_cores, MemLevel* next)
    : p_(p),
      banks_(std::max(1u, banks)),
      sets_(p.size / (p.line * p.ways)),
      bank_of_(banks_),
      set_of_(sets_),
      next_(next),
      ways_(static_cast<std::size_t>(sets_) * p.ways),
      bank_free_(banks_, 0),
      mshr_done_(p.mshrs, 0),
      wbuf_done_(p.mshrs, 0),
      ctr_(num_cores) {}

Cache::Way* Cache::lookup(uint64_t blk) {
  // The way hit or filled last first: fetches and neighbouring accesses stay in one block. A block
  // is held by at most one way (it is filled only after a miss), so a match is the set's match.
  if (ways_[mru_].tag == blk + 1) return &ways_[mru_];
  Way* set = &ways_[static_cast<std::size_t>(set_of_.mod(blk)) * p_.ways];
  for (uint32_t i = 0; i < p_.ways; ++i) {
    if (set[i].tag == blk + 1) return &set[i];
  }
  return nullptr;
}

bool Cache::contains(uint64_t blk) const { return const_cast<Cache*>(this)->lookup(blk) != nullptr; }

uint64_t Cache::read_lookup(uint64_t blk, uint64_t start, uint32_t core) {
  CacheCounters& c = ctr_[core];
  if (Way* w = lookup(blk)) return read_found(*w, start, c);
  const uint64_t tag_done = start + p_.latency;
  ++c.read_misses;
  last_hit_ = false;
  // Allocate an MSHR: the one freeing earliest; wait if it is still busy.
  auto it = std::min_element(mshr_done_.begin(), mshr_done_.end());
  uint64_t send = tag_done;
  if (*it > send) {
    c.mshr_stalls += *it - send;
    last_accept_ = start + (*it - send);  // the request holds the bank's input until an MSHR frees
    send = *it;
  }
  uint64_t fill = next_->read(blk, send, core);
  *it = fill;
  // Victim: invalid way first, else least recently used.
  Way* set = &ways_[static_cast<std::size_t>(set_of_.mod(blk)) * p_.ways];
  Way* victim = &set[0];
  for (uint32_t i = 0; i < p_.ways; ++i) {
    if (set[i].tag == 0) {
      victim = &set[i];
      break;
    }
    if (set[i].lru < victim->lru) victim = &set[i];
  }
  victim->tag = blk + 1;
  victim->lru = ++stamp_;
  victim->fill = fill;
  mru_ = static_cast<std::size_t>(victim - ways_.data());
  return fill;
}

uint64_t Cache::write(uint64_t blk, uint64_t t, uint32_t core) {
  CacheCounters& c = ctr_[core];
  ++c.writes;
  uint64_t start = bank_start(blk, t, c);
  if (Way* w = lookup(blk)) {
    w->lru = ++stamp_;
    mru_ = static_cast<std::size_t>(w - ways_.data());
  } else {
    ++c.write_misses;
  }
  // Write-through: every write goes on to the next level through a write buffer of `mshrs`
  // entries; a full buffer holds the request (counted with the MSHR stalls) — this is the
  // backpressure that keeps posted stores from queueing without bound.
  auto it = std::min_element(wbuf_done_.begin(), wbuf_done_.end());
  uint64_t send = start + p_.latency;
  last_accept_ = start;
  if (*it > send) {
    c.mshr_stalls += *it - send;
    last_accept_ = start + (*it - send);
    send = *it;
  }
  uint64_t ack = next_->write(blk, send, core);
  *it = ack;
  return ack;
}

CacheCounters Cache::total() const {
  CacheCounters t;
  for (const auto& c : ctr_) t += c;
  return t;
}

// ---------------------------------------------------------------------------------------------
// Local memory and coalescer

uint32_t lmem_conflict_cycles(const ExecutedInstr& in, uint32_t banks, uint32_t& words) {
  // Distinct words per bank; lanes ≤ 32, so a small linear scan is the fastest. Only the first
  // nseen words are read and only the banks below min(banks, 32) counted: no further zero fill.
  std::array<uint64_t, kMaxThreads> seen;
  uint32_t nseen = 0;
  uint64_t max_word = 0;  // the highest distinct word so far (valid when nseen > 0)
  std::array<uint32_t, kMaxThreads> per_bank;
  std::fill_n(per_bank.begin(), std::min(banks, kMaxThreads), 0u);
  const bool pow2 = std::has_single_bit(banks);
  uint32_t worst = 0;
  uint32_t mask = in.active_mask;
  while (mask != 0) {
    uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    mask &= mask - 1;
    uint64_t word = in.lanes[lane].addr >> 2;
    // A word above every earlier one (ascending lanes) is new without a scan.
    if (nseen != 0 && word <= max_word) {
      bool dup = false;
      for (uint32_t i = 0; i < nseen; ++i) {
        if (seen[i] == word) {
          dup = true;
          break;
        }
      }
      if (dup) continue;
    }
    seen[nseen++] = word;
    max_word = std::max(max_word, word);
    const uint64_t in_bank = pow2 ? word & (banks - 1) : word % banks;
    uint32_t b = static_cast<uint32_t>(in_bank) % kMaxThreads;
    worst = std::max(worst, ++per_bank[b]);
  }
  words = nseen;
  return std::max(worst, 1u);
}

StackInterleave::StackInterleave(uint64_t harts, uint32_t threads)
    : bottom_(bottom(harts)), threads_(threads) {}

uint64_t StackInterleave::map(uint64_t addr) const {
  if (addr < bottom_ || addr >= kTop) return addr;
  constexpr uint64_t kWords = (uint64_t{1} << kLog2Stack) / 4;  // 4-byte words per stack
  const uint64_t off = addr - bottom_;
  const uint64_t stack = off >> kLog2Stack;  // counted from the window's bottom
  const uint64_t lane = stack & (threads_ - 1);
  const uint64_t group = stack / threads_;
  const uint64_t word = ((off >> 2) & (kWords - 1)) ^ (group & (kWords - 1));
  return bottom_ + ((group * kWords + word) * threads_ + lane) * 4 + (off & 3);
}

namespace {

/// coalesce for the two common patterns, whose lanes touch one contiguous byte range: a broadcast
/// (every active lane at the first one's address; the others are duplicates, whatever their size)
/// and a unit stride (each active lane, in lane order, right after the previous one, all of one
/// size). Every block and sector of the range is touched, in ascending order, which is the result
/// of coalesce_any. The lanes are tested without a data-dependent branch. Returns false (`out`
/// unchanged) for any other pattern.
bool coalesce_range(const ExecutedInstr& in, uint32_t block_shift, Coalesced& out) {
  uint32_t mask = in.active_mask;
  if (mask == 0) return false;
  const LaneAccess& a0 = in.lanes[static_cast<uint32_t>(std::countr_zero(mask))];
  const uint64_t size = std::max<uint32_t>(a0.size, 1);
  bool same = true;
  bool unit = true;
  uint64_t expect = a0.addr;  // a unit stride's next address
  for (; mask != 0; mask &= mask - 1) {
    const LaneAccess& a = in.lanes[static_cast<uint32_t>(std::countr_zero(mask))];
    same &= a.addr == a0.addr;
    unit &= (a.addr == expect) & (a.size == a0.size);
    expect += size;
  }
  const uint64_t first = a0.addr;
  // A unit stride: all lanes' bytes, else (a broadcast) the first lane's; selected with a mask.
  const uint64_t bytes = size + ((expect - first - size) & (uint64_t{0} - static_cast<uint64_t>(unit)));
  const uint64_t last = first + bytes - 1;
  const uint64_t block = first >> block_shift;
  const uint64_t nblocks = (last >> block_shift) - block + 1;
  if (!(same | unit) || last < first || nblocks > out.blocks.size()) return false;
  for (uint32_t i = 0; i < nblocks; ++i) out.blocks[i] = block + i;
  out.num_blocks = static_cast<uint32_t>(nblocks);
  out.sectors = static_cast<uint32_t>((last >> 5) - (first >> 5) + 1);
  out.bytes = static_cast<uint32_t>(bytes);
  return true;
}

/// coalesce for lanes in any order: each address, block and sector is looked up among those listed.
void coalesce_any(const ExecutedInstr& in, uint32_t block_shift, Coalesced& out) {
  out.num_blocks = 0;
  out.sectors = 0;
  out.bytes = 0;
  // Only the first n entries of these lists are ever read: no zero fill.
  std::array<uint64_t, kMaxThreads * 2> sectors;
  std::array<uint64_t, kMaxThreads> addrs;
  uint32_t naddrs = 0;
  uint64_t max_addr = 0;  // the highest distinct lane address so far (valid when naddrs > 0)
  // Appends v unless listed. Neighbouring lanes mostly touch the block (sector) added last, so
  // that entry is compared first; the list and its order are those of a plain scan.
  auto add_unique = [](auto& arr, uint32_t& n, uint64_t v) {
    if (n != 0 && arr[n - 1] == v) return;
    for (uint32_t i = 0; i + 1 < n; ++i) {
      if (arr[i] == v) return;
    }
    arr[n++] = v;
  };
  uint32_t mask = in.active_mask;
  while (mask != 0) {
    uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    mask &= mask - 1;
    const LaneAccess& a = in.lanes[lane];
    uint32_t size = std::max<uint32_t>(a.size, 1);
    // Bytes requested count once per distinct lane address: lanes reading the same word (a
    // broadcast) do not make the useful bytes of a sector exceed 32 (ncu's metric is ≤ 100 %).
    // An address above every earlier one (ascending lanes: unit and larger strides) is new
    // without a scan.
    if (naddrs != 0 && a.addr <= max_addr) {
      bool dup = false;
      for (uint32_t i = 0; i < naddrs; ++i) {
        if (addrs[i] == a.addr) {
          dup = true;
          break;
        }
      }
      if (dup) continue;
    }
    addrs[naddrs++] = a.addr;
    max_addr = std::max(max_addr, a.addr);
    out.bytes += size;
    uint64_t first = a.addr;
    uint64_t last = a.addr + size - 1;
    add_unique(out.blocks, out.num_blocks, first >> block_shift);
    if ((last >> block_shift) != (first >> block_shift)) add_unique(out.blocks, out.num_blocks, last >> block_shift);
    add_unique(sectors, out.sectors, first >> 5);
    if ((last >> 5) != (first >> 5)) add_unique(sectors, out.sectors, last >> 5);
  }
}

}  // namespace

void coalesce(const ExecutedInstr& in, uint32_t block_bytes, Coalesced& out) {
  const auto block_shift = static_cast<uint32_t>(std::countr_zero(block_bytes));
  if (!coalesce_range(in, block_shift, out)) coalesce_any(in, block_shift, out);
}

// ---------------------------------------------------------------------------------------------
// Hierarchy

namespace {

/// Passes requests on unchanged and charges each to the instruction its core is serving.
class ProfileMeter final : public MemLevel {
 public:
  ProfileMeter(MemProfile& profile, MemLevel* next) : profile_(profile), next_(next) {}
  uint64_t read(uint64_t blk, uint64_t t, uint32_t core) override {
    profile_.dram(core, false);
    return next_->read(blk, t, core);
  }
  uint64_t write(uint64_t blk, uint64_t t, uint32_t core) override {
    profile_.dram(core, true);
    return next_->write(blk, t, core);
  }

 private:
  MemProfile& profile_;
  MemLevel* next_;
};

}  // namespace

/// A partition's private copy of the shared tail (cluster ports → DRAM) and its request log.
struct MemorySystem::Tail {
  struct Request {
    uint64_t t;
    uint64_t blk;
    uint32_t core;
    uint32_t cluster;
    bool write;
  };
  /// Entry of one cluster's requests into the private tail: records, then forwards.
  class Recorder final : public MemLevel {
   public:
    Recorder(Tail& tail, uint32_t cluster) : tail_(tail), cluster_(cluster) {}
    uint64_t read(uint64_t blk, uint64_t t, uint32_t core) override {
      tail_.log.push_back({t, blk, core, cluster_, false});
      return tail_.ports[cluster_]->read(blk, t, core);
    }
    uint64_t write(uint64_t blk, uint64_t t, uint32_t core) override {
      tail_.log.push_back({t, blk, core, cluster_, true});
      return tail_.ports[cluster_]->write(blk, t, core);
    }

   private:
    Tail& tail_;
    uint32_t cluster_;
  };
  std::unique_ptr<Dram> dram;
  std::vector<std::unique_ptr<Port>> ports;
  std::vector<std::unique_ptr<Recorder>> entries;
  std::vector<Request> log;
};

MemorySystem::MemorySystem(const TimingConfig& cfg, const std::vector<uint32_t>& first_cores, MemProfile* profile)
    : block_(cfg.dram.block), socket_size_(cfg.eff_socket_size()), cores_per_cluster_(cfg.cores) {
  const uint32_t ncores = cfg.total_cores();
  const bool partitioned = first_cores.size() > 1;
  // The profile's meter above a DRAM the cores' requests reach as they are made.
  auto metered = [&](Dram* dram) -> MemLevel* {
    if (profile == nullptr) return dram;
    meters_.push_back(std::make_unique<ProfileMeter>(*profile, dram));
    return meters_.back().get();
  };
  dram_ = std::make_unique<Dram>(cfg.dram);
  MemLevel* below = partitioned ? dram_.get() : metered(dram_.get());
  if (cfg.l3.enabled) {
    l3_ = std::make_unique<Cache>(cfg.l3, cfg.l3.banks, ncores, below);
    below = l3_.get();
  }
  for (uint32_t c = 0; c < cfg.clusters; ++c) cluster_ports_.push_back(std::make_unique<Port>(cfg.cluster_port, below));
  // Where a cluster's requests enter the shared tail, seen from the partition of core `core`.
  auto entry = [&](uint32_t core, uint32_t cluster) -> MemLevel* {
    if (tails_.empty()) return cluster_ports_[cluster].get();
    const auto part = static_cast<std::size_t>(std::upper_bound(first_cores.begin(), first_cores.end(), core) -
                                               first_cores.begin() - 1);
    return tails_[part]->entries[cluster].get();
  };
  if (partitioned) {
    for (std::size_t p = 0; p < first_cores.size(); ++p) {
      auto tail = std::make_unique<Tail>();
      tail->dram = std::make_unique<Dram>(cfg.dram);
      MemLevel* tail_below = metered(tail->dram.get());
      for (uint32_t c = 0; c < cfg.clusters; ++c) {
        tail->ports.push_back(std::make_unique<Port>(cfg.cluster_port, tail_below));
        tail->entries.push_back(std::make_unique<Tail::Recorder>(*tail, c));
      }
      tails_.push_back(std::move(tail));
    }
  }
  for (uint32_t c = 0; c < cfg.clusters; ++c) {
    if (cfg.l2.enabled) l2_.push_back(std::make_unique<Cache>(cfg.l2, cfg.l2.banks, ncores, entry(c * cfg.cores, c)));
  }
  const uint32_t sockets = (ncores + socket_size_ - 1) / socket_size_;
  for (uint32_t s = 0; s < sockets; ++s) {
    const uint32_t cluster = (s * socket_size_) / cores_per_cluster_;
    MemLevel* next = l2_.empty() ? entry(s * socket_size_, cluster) : l2_[cluster].get();
    socket_ports_.push_back(std::make_unique<Port>(cfg.socket_port, next));
    icaches_.push_back(std::make_unique<Cache>(cfg.icache, cfg.icache.banks, ncores, socket_ports_.back().get()));
    dcaches_.push_back(std::make_unique<Cache>(cfg.dcache, cfg.eff_dcache_banks(), ncores, socket_ports_.back().get()));
  }
}

MemorySystem::~MemorySystem() = default;

void MemorySystem::begin_epoch(uint32_t part) {
  if (tails_.empty()) return;
  Tail& t = *tails_[part];
  *t.dram = *dram_;
  for (std::size_t c = 0; c < t.ports.size(); ++c) t.ports[c]->copy_state(*cluster_ports_[c]);
  t.log.clear();
}

void MemorySystem::end_epoch() {
  if (tails_.empty()) return;
  std::vector<Tail::Request> all;
  for (const auto& t : tails_) all.insert(all.end(), t->log.begin(), t->log.end());
  // Partition order, then each partition's own order, is kept among requests of the same cycle.
  std::stable_sort(all.begin(), all.end(), [](const Tail::Request& a, const Tail::Request& b) { return a.t < b.t; });
  for (const Tail::Request& r : all) {
    Port& port = *cluster_ports_[r.cluster];
    if (r.write) {
      (void)port.write(r.blk, r.t, r.core);
    } else {
      (void)port.read(r.blk, r.t, r.core);
    }
  }
}

MemLevel& MemorySystem::below_l1(uint32_t core) { return *socket_ports_[core / socket_size_]; }

}  // namespace vxsim::timing
