#include "vxsim/timing/timing_model.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "vxsim/bits.h"
#include "vxsim/error.h"
#include "vxsim/host_pool.h"
#include "vxsynth/common/error.h"

namespace vxsim::timing {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kNumRegs = 64;  // x0..x31, f0..f31
/// The destination of an instruction that writes no register: an extra scoreboard entry that issue
/// writes instead of testing for it, and that no instruction waits for.
constexpr uint8_t kNoReg = kNumRegs;
constexpr std::size_t kNumUnitClasses = static_cast<std::size_t>(UnitClass::kTcu) + 1;

/// unit_group and scrb_class of each unit class, as tables (the switches compile into branches).
constexpr auto kGroupOf = [] {
  std::array<UnitGroup, kNumUnitClasses> a{};
  for (std::size_t u = 0; u < a.size(); ++u) a[u] = unit_group(static_cast<UnitClass>(u));
  return a;
}();
constexpr auto kScrbClassOf = [] {
  std::array<ScrbClass, kNumUnitClasses> a{};
  for (std::size_t u = 0; u < a.size(); ++u) a[u] = scrb_class(static_cast<UnitClass>(u));
  return a;
}();
UnitGroup group_of(UnitClass u) { return kGroupOf[static_cast<std::size_t>(u)]; }
ScrbClass scrb_class_of(UnitClass u) { return kScrbClassOf[static_cast<std::size_t>(u)]; }

uint8_t reg_id(const RegRef& r) { return static_cast<uint8_t>((r.index & 31u) + (r.fp ? 32u : 0u)); }

/// Stall increments of one cycle; repeated for cycles skipped because nothing could change.
struct CycleDelta {
  uint64_t sched_idle;
  uint64_t sched_stalls;
  uint64_t ibuf_stalls;
  uint64_t scrb_stalls;
  uint64_t opds_stalls;
  std::array<uint64_t, kNumScrbClasses> scrb;
  uint64_t active_warps;
};

void apply(CoreCounters& c, const CycleDelta& d, uint64_t times) {
  c.sched_idle += d.sched_idle * times;
  c.sched_stalls += d.sched_stalls * times;
  c.ibuf_stalls += d.ibuf_stalls * times;
  c.scrb_stalls += d.scrb_stalls * times;
  c.opds_stalls += d.opds_stalls * times;
  if (d.scrb_stalls != 0) {  // the classes are charged only in a scoreboard stall
    for (std::size_t i = 0; i < kNumScrbClasses; ++i) c.scrb[i] += d.scrb[i] * times;
  }
  c.active_warp_cycles += d.active_warps * times;
}

void add_once(CoreCounters& c, const CycleDelta& d) {
  c.sched_idle += d.sched_idle;
  c.sched_stalls += d.sched_stalls;
  c.ibuf_stalls += d.ibuf_stalls;
  c.scrb_stalls += d.scrb_stalls;
  c.opds_stalls += d.opds_stalls;
  if (d.scrb_stalls != 0) {  // the classes are charged only in a scoreboard stall
    for (std::size_t i = 0; i < kNumScrbClasses; ++i) c.scrb[i] += d.scrb[i];
  }
  c.active_warp_cycles += d.active_warps;
}

}  // namespace

/// A decoded instruction waiting in a warp's instruction buffer.
struct Slot {
  uint64_t ready_at = 0;  ///< cycle it is decoded and may issue
  UnitClass unit = UnitClass::kAlu;
  MemKind mem = MemKind::kNone;
  AddrSpace space = AddrSpace::kGlobal;
  bool control = false;
  uint8_t dst = kNoReg;
  uint8_t nsrc = 0;
  std::array<uint8_t, 3> src{};
  uint8_t lanes = 0;
  uint32_t fp_flops = 0;
  uint32_t tcu_uops = 0;
  uint64_t tcu_macs = 0;
  uint32_t lmem_cycles = 0;
  uint32_t lmem_words = 0;
  uint64_t pc = 0;
  uint32_t word = 0;
  uint8_t stack_lanes = 0;  ///< profiled runs: active lanes addressing the per-hart stacks
  Coalesced co;
};

namespace {

/// Adds one issued global memory instruction's D-cache side to its profile row.
void note_issue(PcTraffic& row, const Slot& s) {
  ++row.warp_instrs;
  row.lane_accesses += s.lanes;
  row.stack_lanes += s.stack_lanes;
  row.requests += s.co.num_blocks;
  row.sectors += s.co.sectors;
}

}  // namespace

/// Warps waiting for a cycle (their fetch time, their head's decode or scoreboard clear), by
/// cycle, so that a tick finds the warps whose cycle has come without looking at each warp. A warp
/// is in a queue at most once: it enters when its cycle is set and lies ahead, and that cycle
/// cannot change before it comes. The cycles mostly arrive in order (a warp's next fetch and its
/// decode are a constant delay after its fetch), so an insertion from the back rarely moves an
/// entry.
class WarpQueue {
 public:
  WarpQueue() { at_[0] = kNever; }
  /// Adds warp w, whose cycle is t: entries with a later cycle move back by one.
  void push(uint64_t t, uint32_t w) {
    uint32_t i = end_;
    end_ = (end_ + 1) & kMask;
    at_[end_] = kNever;  // the sentinel after the last entry
    for (uint32_t prev = (i - 1) & kMask; i != first_ && at_[prev] > t; i = prev, prev = (i - 1) & kMask) {
      at_[i] = at_[prev];
      warp_[i] = warp_[prev];
    }
    at_[i] = t;
    warp_[i] = static_cast<uint8_t>(w);
  }
  /// Removes the warps whose cycle is t or earlier; returns them as a mask.
  uint32_t pop_due(uint64_t t) {
    uint32_t due = 0;
    for (; at_[first_] <= t; first_ = (first_ + 1) & kMask) due |= 1u << warp_[first_];
    return due;
  }
  /// The earliest cycle in the queue (kNever when empty).
  [[nodiscard]] uint64_t next() const { return at_[first_]; }

 private:
  static constexpr uint32_t kMask = 2 * kMaxWarps - 1;  // room for every warp and the sentinel
  static_assert(std::has_single_bit(2 * kMaxWarps), "the ring index wraps with a mask");
  static_assert(kMaxWarps <= 256, "warp numbers are stored in a byte");
  std::array<uint64_t, 2 * kMaxWarps> at_{};
  std::array<uint8_t, 2 * kMaxWarps> warp_{};
  uint32_t first_ = 0;  ///< the entry with the earliest cycle
  uint32_t end_ = 0;    ///< the sentinel after the last entry
};

struct Warp {
  /// The instruction buffer: a ring of a power-of-two size ≥ ibuf_size (an index wraps with a
  /// mask), of which at most ibuf_size entries are used.
  std::vector<Slot> ibuf;
  uint32_t head = 0;
  uint32_t count = 0;
  uint64_t fetch_ready = 0;     ///< earliest cycle the warp may be scheduled again
  bool fetch_blocked = false;   ///< a control instruction is in flight
  std::array<uint64_t, kNumRegs + 1> reg_ready{};    ///< the last entry: kNoReg
  std::array<ScrbClass, kNumRegs + 1> reg_class{};  ///< scoreboard class of each register's producer
};

/// A warp's instruction-buffer head as issue and next_event read it, in one cache line per warp.
/// Set when the head changes (set_head): its operands' ready times cannot change while it waits,
/// since only the warp's own issue writes its scoreboard and its mem_done.
struct alignas(64) Head {
  uint64_t ready_at = 0;             ///< decoded: may issue from this cycle
  uint64_t clear_at = 0;             ///< the scoreboard is clear: the latest entry of wait
  std::array<uint64_t, 4> wait{};    ///< in check order: sources, destination (or a fence's mem_done)
  const uint64_t* unit_free = nullptr;  ///< the cycle its unit block is free (Core::unit_free)
  uint8_t nwait = 0;                 ///< valid entries of wait
  uint8_t pend = 0;                  ///< first entry of wait still pending at the last look (time only grows)
  std::array<uint8_t, 4> wait_class{};  ///< ScrbClass charged when entry i is the first pending one
};
static_assert(sizeof(Head) == 64);

struct TimingModel::Core {
  uint32_t id = 0;
  uint32_t part_first = 0;  ///< the core's partition: cores [part_first, part_end)
  uint32_t part_end = 0;
  uint64_t now = 0;         ///< the cycle this core is at (a partition runs ahead of the others in an epoch)
  Cache* icache = nullptr;  ///< its socket's L1 caches (MemorySystem::icache/dcache, kept to skip the division)
  Cache* dcache = nullptr;
  std::vector<Warp> warps;
  uint32_t active_mask = 0;
  uint32_t ready_mask = 0;
  uint32_t active_count = 0;   ///< popcount(active_mask), kept with it
  uint32_t nonempty = 0;       ///< bit w: warp w has an instruction buffered
  uint32_t full = 0;           ///< bit w: warp w's instruction buffer is full
  std::vector<Head> heads;     ///< per warp: its buffered head (valid while nonempty)
  /// Bit w: warp w's head is decoded (ready_at) / its scoreboard clear (clear_at). Both only
  /// become true as time grows: set_head sets them when the cycle has come, else queues the head
  /// in decode_queue / clear_queue, from which the tick of that cycle sets them.
  uint32_t decoded = 0;
  uint32_t clear = 0;
  WarpQueue decode_queue;
  WarpQueue clear_queue;
  /// Bit w: warp w's fetch time (fetch_at[w]) has come: set when the tick of that cycle takes the
  /// warp off fetch_queue, cleared when fetch_at[w] changes (sync_fetch). The schedule stage picks
  /// among these warps; the others wait in fetch_queue or for a control instruction (kNever).
  uint32_t fetchable = 0;
  WarpQueue fetch_queue;
  /// Per warp: the cycle it may be scheduled again (kNever while a control instruction is in
  /// flight), i.e. Warp::fetch_blocked ? never : Warp::fetch_ready.
  std::vector<uint64_t> fetch_at;
  /// Per warp: its last outstanding memory acknowledgement (fences wait for it).
  std::vector<uint64_t> mem_done;
  std::vector<uint32_t> rr;  ///< per issue slot: the warp to try first (last issued + 1; past the last: warp 0)
  /// Cycle each unit block is free: unit_free[block][group]; block = unit_block(warp, group).
  std::vector<std::array<uint64_t, kNumUnitGroups>> unit_free;
  CoreCounters ctr;
  CycleDelta delta{};
  /// Per-core skipping of idle cycles: the core is ticked again at `wake` (the cycle after a
  /// tick that did work, else its next_event), or earlier when another core's warp control
  /// refreshes its warps. Until then its state, hence its stall increments (delta), is constant;
  /// ctr holds them for the cycles before `synced` and the rest are added before the next tick.
  uint64_t wake = 0;
  uint64_t synced = 0;
  uint64_t last_done = 0;
  bool did_work = false;
};

TimingModel::TimingModel(const TimingConfig& cfg, FunctionalDevice& dev) : cfg_(cfg), dev_(dev) {
  cfg_.validate();
  simd_ = cfg_.eff_simd_width();
  issue_width_ = cfg_.eff_issue_width();
  lsu_blocks_ = cfg_.lsu_blocks != 0 ? cfg_.lsu_blocks : issue_width_;
  sfu_blocks_ = cfg_.sfu_blocks != 0 ? cfg_.sfu_blocks : issue_width_;
  unit_occupancy_ = (cfg_.threads + simd_ - 1) / simd_;
  state_in_record_ = dev_.records_warp_state();
  ibuf_mask_ = std::bit_ceil(cfg_.ibuf_size) - 1;
  block_shift_ = static_cast<uint32_t>(std::countr_zero(cfg_.dram.block));  // a power of two (validate)
  dcache_banks_ = Divisor(std::max(1u, cfg_.eff_dcache_banks()));
  const LatencyParams& l = cfg_.lat;
  auto set = [&](UnitClass u, uint32_t v) { latency_[static_cast<std::size_t>(u)] = v; };
  set(UnitClass::kAlu, l.alu);
  set(UnitClass::kMul, l.mul);
  set(UnitClass::kDiv, l.div);
  set(UnitClass::kFpuFma, l.fma);
  set(UnitClass::kFpuDivSqrt, l.fdiv);
  set(UnitClass::kFpuCvt, l.fcvt);
  set(UnitClass::kFpuMisc, l.fmisc);
  set(UnitClass::kLsu, l.lsu);
  set(UnitClass::kSfuWctl, l.sfu);
  set(UnitClass::kSfuCsr, l.csr);
  set(UnitClass::kTcu, l.tcu);
  const uint32_t ss = cfg_.eff_socket_size();
  if (!cfg_.l3.enabled && cfg_.cores % ss == 0) {
    const uint32_t unit = cfg_.l2.enabled ? cfg_.cores : ss;
    for (uint32_t c = 0; c < cfg_.total_cores(); c += unit) partitions_.push_back(c);
  }
  if (partitions_.size() < 2) partitions_.assign(1, 0);
  stack_bottom_ = StackInterleave::bottom(uint64_t{cfg_.total_cores()} * cfg_.warps * cfg_.threads);
  if (cfg_.stack_interleave) {
    stacks_.emplace(uint64_t{cfg_.total_cores()} * cfg_.warps * cfg_.threads, cfg_.threads);
  }
  init_slots();
  reset();
}

TimingModel::~TimingModel() = default;

uint8_t TimingModel::count_stack_lanes(const ExecutedInstr& in) const {
  if (in.mem == MemKind::kNone || in.mem == MemKind::kFence || in.space != AddrSpace::kGlobal) return 0;
  uint32_t n = 0;
  for (uint32_t m = in.active_mask; m != 0; m &= m - 1) {
    const uint64_t a = in.lanes[static_cast<uint32_t>(std::countr_zero(m))].addr;
    n += (a >= stack_bottom_ && a < StackInterleave::kTop) ? 1u : 0u;
  }
  return static_cast<uint8_t>(n);  // ≤ kMaxThreads
}

uint32_t TimingModel::latency(UnitClass u) const { return latency_[static_cast<std::size_t>(u)]; }

uint32_t TimingModel::unit_block(uint32_t warp, UnitGroup g) const {
  return block_of_[static_cast<std::size_t>(g)][warp];
}

void TimingModel::init_slots() {
  // SimX dispatches ALU/FPU/TCU work to the block of the warp's issue slot; the LSU and the SFU
  // have fewer blocks (1 by default) that every issue slot shares.
  slot_mask_.assign(issue_width_, 0);
  all_warps_ = cfg_.warps >= 32 ? ~0u : (1u << cfg_.warps) - 1;
  for (uint32_t w = 0; w < kMaxWarps; ++w) {
    if (w < cfg_.warps) slot_mask_[w % issue_width_] |= 1u << w;
    for (std::size_t g = 0; g < kNumUnitGroups; ++g) {
      const auto group = static_cast<UnitGroup>(g);
      const uint32_t blocks = group == UnitGroup::kLsu ? lsu_blocks_ : group == UnitGroup::kSfu ? sfu_blocks_ : issue_width_;
      block_of_[g][w] = static_cast<uint8_t>(w % blocks);
    }
  }
}

void TimingModel::reset() {
  if (profile_ != nullptr) profile_->clear();
  mem_ = std::make_unique<MemorySystem>(cfg_, partitions_, profile_);
  cores_.clear();
  for (uint32_t c = 0; c < cfg_.total_cores(); ++c) {
    auto core = std::make_unique<Core>();
    core->id = c;
    const auto p = std::upper_bound(partitions_.begin(), partitions_.end(), c) - partitions_.begin();
    core->part_first = partitions_[static_cast<std::size_t>(p - 1)];
    core->part_end = static_cast<std::size_t>(p) < partitions_.size() ? partitions_[static_cast<std::size_t>(p)]
                                                                      : cfg_.total_cores();
    core->warps.resize(cfg_.warps);
    core->ctr.warp_flops.assign(cfg_.warps, 0);
    for (Warp& w : core->warps) w.ibuf.resize(ibuf_mask_ + 1);
    core->rr.assign(issue_width_, 0);
    core->nonempty = 0;
    core->full = 0;
    core->heads.assign(cfg_.warps, Head{});
    core->fetch_at.assign(cfg_.warps, 0);
    core->fetchable = all_warps_;  // every fetch_at is 0
    core->mem_done.assign(cfg_.warps, 0);
    core->unit_free.assign(std::max({issue_width_, lsu_blocks_, sfu_blocks_}), {});
    core->icache = &mem_->icache(c);
    core->dcache = &mem_->dcache(c);
    cores_.push_back(std::move(core));
  }
  now_ = 0;
}

void TimingModel::refresh_warp(Core& core, uint32_t w) { set_warp_state(core, w, dev_.warp_state(core.id, w)); }

inline void TimingModel::set_warp_state(Core& core, uint32_t w, uint32_t state) {
  const uint32_t bit = 1u << w;
  const uint32_t was = core.active_mask;
  core.active_mask = (state & 1u) != 0 ? was | bit : was & ~bit;
  if (core.active_mask != was) core.active_count = popcount32(core.active_mask);
  core.ready_mask = (state & 2u) != 0 ? core.ready_mask | bit : core.ready_mask & ~bit;
}

void TimingModel::refresh_all() { refresh_cores(0, cfg_.total_cores()); }

void TimingModel::refresh_cores(uint32_t first, uint32_t end) {
  for (uint32_t c = first; c < end; ++c) {
    for (uint32_t w = 0; w < cfg_.warps; ++w) refresh_warp(*cores_[c], w);
  }
}

inline void TimingModel::set_head(Core& core, uint32_t w) {
  const Warp& warp = core.warps[w];
  const Slot& s = warp.ibuf[warp.head];
  Head& h = core.heads[w];
  h.ready_at = s.ready_at;
  h.nwait = 0;
  h.pend = 0;
  h.clear_at = 0;
  auto wait_for = [&](uint64_t at, ScrbClass cls) {
    h.wait[h.nwait] = at;
    h.wait_class[h.nwait++] = static_cast<uint8_t>(cls);
    h.clear_at = std::max(h.clear_at, at);
  };
  for (uint32_t i = 0; i < s.nsrc; ++i) wait_for(warp.reg_ready[s.src[i]], warp.reg_class[s.src[i]]);
  if (s.dst != kNoReg) wait_for(warp.reg_ready[s.dst], warp.reg_class[s.dst]);
  // A fence names no register (at most 3 sources and a destination otherwise: 4 entries).
  if (s.mem == MemKind::kFence && h.nwait < h.wait.size()) wait_for(core.mem_done[w], ScrbClass::kLsu);
  const UnitGroup g = group_of(s.unit);
  h.unit_free = &core.unit_free[unit_block(w, g)][static_cast<std::size_t>(g)];
  const uint64_t t = core.now;
  const uint32_t bit = 1u << w;
  if (h.ready_at <= t) {
    core.decoded |= bit;
  } else {
    core.decoded &= ~bit;
    core.decode_queue.push(h.ready_at, w);
  }
  if (h.clear_at <= t) {
    core.clear |= bit;
  } else {
    core.clear &= ~bit;
    core.clear_queue.push(h.clear_at, w);
  }
}

inline void TimingModel::sync_fetch(Core& core, uint32_t w) {
  const Warp& warp = core.warps[w];
  const uint64_t at = warp.fetch_blocked ? kNever : warp.fetch_ready;
  core.fetch_at[w] = at;
  core.fetchable &= ~(1u << w);
  if (at != kNever) core.fetch_queue.push(at, w);
}

void TimingModel::schedule(Core& core, uint32_t w) {
  Warp& warp = core.warps[w];
  ExecutedInstr in = dev_.step(core.id, w);
  const uint8_t stack_lanes = profile_ != nullptr ? count_stack_lanes(in) : 0;
  if (stacks_ && in.mem != MemKind::kNone && in.space == AddrSpace::kGlobal) {
    for (uint32_t m = in.active_mask; m != 0; m &= m - 1) {
      LaneAccess& a = in.lanes[static_cast<uint32_t>(std::countr_zero(m))];
      a.addr = stacks_->map(a.addr);
    }
  }

  CoreCounters& c = core.ctr;
  // Fetch through the I-cache (the instruction word's block), then decode.
  const uint64_t request = core.now + cfg_.fetch_latency;
  uint64_t fetched = core.icache->read(in.pc >> block_shift_, request, core.id);
  ++c.ifetches;
  c.ifetch_latency += fetched - request;

  Slot& s = warp.ibuf[(warp.head + warp.count) & ibuf_mask_];
  ++warp.count;
  core.nonempty |= 1u << w;
  s.ready_at = fetched + cfg_.decode_latency;
  s.unit = in.unit;
  s.mem = in.mem;
  s.space = in.space;
  s.control = in.is_control;
  const bool writes = in.has_dst & ((in.dst.index != 0) | in.dst.fp);  // x0 is no destination
  s.dst = writes ? reg_id(in.dst) : kNoReg;
  s.nsrc = std::min<uint8_t>(in.num_src, 3);
  for (uint32_t i = 0; i < 3; ++i) s.src[i] = reg_id(in.src[i]);  // all three: no loop on nsrc
  s.lanes = static_cast<uint8_t>(popcount32(in.active_mask));
  s.fp_flops = in.fp_flops;
  s.tcu_uops = in.tcu_micro_ops;
  s.tcu_macs = in.tcu_macs;
  s.pc = in.pc;
  s.word = in.word;
  s.stack_lanes = stack_lanes;
  s.co.num_blocks = 0;
  if (in.mem == MemKind::kLoad || in.mem == MemKind::kStore || in.mem == MemKind::kAmo) {
    if (in.space == AddrSpace::kGlobal) {
      coalesce(in, mem_->block_bytes(), s.co);
    } else if (in.space == AddrSpace::kLocal) {
      uint32_t words = 0;
      s.lmem_cycles = lmem_conflict_cycles(in, cfg_.eff_lmem_banks(), words);
      s.lmem_words = words;
    }
  }

  // The warp waits for decode before it can be scheduled again; a control instruction holds it
  // until the instruction resolves (set at issue).
  warp.fetch_ready = s.ready_at;
  if (in.is_control) warp.fetch_blocked = true;
  if (warp.count == 1) set_head(core, w);
  sync_fetch(core, w);
  if (warp.count == cfg_.ibuf_size) core.full |= 1u << w;
  if (in.warp_stalled) ++c.barriers;
  core.did_work = true;

  // Only warp control can change other warps' state (TMC, WSPAWN, BAR release, also across the
  // cores of the partition; across partitions only commit_epoch() does, and run refreshes after it).
  if (in.unit == UnitClass::kSfuWctl) {
    refresh_cores(core.part_first, core.part_end);
    wake_partition(core);
  } else if (state_in_record_) {
    const bool ready = !in.warp_exited && !in.warp_stalled;
    set_warp_state(core, w, (in.warp_exited ? 0u : 1u) | (ready ? 2u : 0u));
  } else {
    refresh_warp(core, w);
  }
}

void TimingModel::issue(Core& core, uint32_t w) {
  Warp& warp = core.warps[w];
  Slot& s = warp.ibuf[warp.head];
  warp.head = (warp.head + 1) & ibuf_mask_;
  core.full &= ~(1u << w);  // one entry left the buffer
  if (--warp.count == 0) core.nonempty &= ~(1u << w);
  CoreCounters& c = core.ctr;
  const uint64_t t = core.now;
  const UnitGroup g = group_of(s.unit);
  const auto gi = static_cast<std::size_t>(g);
  ++c.warp_instrs;
  c.thread_instrs += s.lanes;
  ++c.unit_instrs[gi];
  c.fp_flops += s.fp_flops;
  c.warp_flops[w] += s.fp_flops + 2 * s.tcu_macs;

  uint64_t occupancy = unit_occupancy_;
  const uint64_t te = t + cfg_.operand_latency;  // the unit starts after operand read and dispatch
  uint64_t done = te + latency(s.unit) + occupancy - 1;

  if (s.unit == UnitClass::kTcu) {
    occupancy = std::max<uint64_t>(1, s.tcu_uops);
    done = te + occupancy - 1 + cfg_.lat.tcu;
    c.tcu_macs += s.tcu_macs;
    c.tcu_micro_ops += s.tcu_uops;
  } else if (s.unit == UnitClass::kLsu && s.mem != MemKind::kNone) {
    const uint64_t agen = te + cfg_.lat.lsu;
    uint64_t mem_ack = agen;
    if (s.mem == MemKind::kFence) {
      done = agen;
    } else if (s.space == AddrSpace::kGlobal && s.lanes > 0) {
      Cache& dc = *core.dcache;
      PcTraffic* row = profile_ == nullptr ? nullptr : &profile_->begin(core.id, s.pc, s.word, s.mem);
      c.coalescer_misses += s.co.num_blocks - 1;
      occupancy = std::max<uint64_t>(occupancy, dcache_banks_.div(s.co.num_blocks + dcache_banks_.value() - 1));
      uint64_t last = agen;
      uint64_t accepted = agen;  // the D-cache took the last request (bank, MSHR, write buffer)
      for (uint32_t i = 0; i < s.co.num_blocks; ++i) {
        uint64_t at = agen + dcache_banks_.div(i);
        uint64_t blk = s.co.blocks[i];
        uint64_t d = 0;
        if (s.mem == MemKind::kLoad) {
          d = dc.read(blk, at, core.id);
          if (row != nullptr && !dc.last_hit()) ++row->read_misses;
        } else if (s.mem == MemKind::kStore) {
          d = dc.write(blk, at, core.id);
          mem_ack = std::max(mem_ack, d);
          d = at + 1;  // posted: the LSU is done once the D-cache accepted it
        } else {  // AMO: performed below the L1 (read-modify-write at L2/L3/DRAM)
          MemLevel& below = mem_->below_l1(core.id);
          d = below.read(blk, at, core.id);
          mem_ack = std::max(mem_ack, below.write(blk, d, core.id));
        }
        if (s.mem != MemKind::kAmo) accepted = std::max(accepted, dc.last_accept());
        last = std::max(last, d);
      }
      if (row != nullptr) {
        note_issue(*row, s);
        profile_->end(core.id);
      }
      done = last + 1;
      // Backpressure: the LSU accepts no other instruction until the D-cache took these requests.
      occupancy = std::max<uint64_t>(occupancy, accepted + 1 - agen);
      if (s.mem == MemKind::kLoad) {
        ++c.gld_instrs;
        c.gld_bytes += s.co.bytes;
        c.gld_sectors += s.co.sectors;
      } else if (s.mem == MemKind::kStore) {
        ++c.gst_instrs;
      }
    } else if (s.space == AddrSpace::kLocal && s.lanes > 0) {
      ++c.lmem_instrs;
      c.lmem_bank_stalls += s.lmem_cycles - 1;
      if (s.mem == MemKind::kLoad) {
        c.lmem_reads += s.lmem_words;
      } else if (s.mem == MemKind::kStore) {
        c.lmem_writes += s.lmem_words;
      } else {
        c.lmem_reads += s.lmem_words;
        c.lmem_writes += s.lmem_words;
      }
      occupancy = std::max<uint64_t>(occupancy, s.lmem_cycles);
      done = agen + cfg_.lmem.latency + s.lmem_cycles - 1;
      mem_ack = done;
    } else {  // IO space (console, perf dump) or no active lane
      done = agen + cfg_.lat.io;
      mem_ack = done;
    }
    if (s.mem == MemKind::kLoad) {
      ++c.loads;
      c.load_latency += done - t;
    } else if (s.mem == MemKind::kStore) {
      ++c.stores;
    } else if (s.mem == MemKind::kAmo) {
      ++c.amo_instrs;
    }
    core.mem_done[w] = std::max(core.mem_done[w], mem_ack);
  }

  c.busy[gi] += occupancy;
  core.unit_free[unit_block(w, g)][gi] = t + occupancy;
  warp.reg_ready[s.dst] = done + cfg_.commit_latency;  // kNoReg: the entry no one reads
  warp.reg_class[s.dst] = scrb_class_of(s.unit);
  if (s.control) {
    ++c.branches;
    warp.fetch_blocked = false;
    warp.fetch_ready = std::max(warp.fetch_ready, done);
    sync_fetch(core, w);
  }
  core.last_done = std::max(core.last_done, done + cfg_.commit_latency);
  core.did_work = true;
  if (warp.count > 0) set_head(core, w);
}

void TimingModel::issue_slot(Core& core, uint32_t slot) {
  // Each buffered head of the slot's warps: decoded (ready_at), scoreboard clear (sources (RAW)
  // and destination (WAW) not pending; a fence waits for the warp's memory acknowledgements),
  // unit group free. The first warp with all three from the round-robin start upwards, then
  // wrapping around, issues.
  const uint32_t mine = core.nonempty & slot_mask_[slot];
  const uint32_t decoded = mine & core.decoded;
  const uint32_t clear = decoded & core.clear;
  if (clear != 0) {
    const auto from_start = static_cast<uint32_t>(~uint64_t{0} << core.rr[slot]);  // warps ≥ rr
    if (issue_first_free(core, slot, clear & from_start)) return;
    if (issue_first_free(core, slot, clear & ~from_start)) return;  // wrapped around to warp 0
  }
  if (const uint32_t waiting = decoded & ~core.clear; waiting != 0) {
    charge_scoreboard_stall(core, waiting);
  } else if (clear != 0) {
    ++core.delta.opds_stalls;  // a ready head waited for its busy unit group
  }
}

bool TimingModel::issue_first_free(Core& core, uint32_t slot, uint32_t candidates) {
  for (uint32_t m = candidates; m != 0; m &= m - 1) {
    const auto w = static_cast<uint32_t>(std::countr_zero(m));
    if (*core.heads[w].unit_free <= core.now) {
      issue(core, w);
      core.rr[slot] = w + 1;  // the last warp's successor is none: the scan starts at warp 0
      return true;
    }
  }
  return false;
}

void TimingModel::charge_scoreboard_stall(Core& core, uint32_t waiting) {
  // Each waiting head charges the unit class of the producer of its first pending operand (once
  // per class and cycle).
  const uint64_t t = core.now;
  std::array<bool, kNumScrbClasses> scrb_hit{};
  for (uint32_t m = waiting; m != 0; m &= m - 1) {
    Head& h = core.heads[static_cast<uint32_t>(std::countr_zero(m))];
    while (h.wait[h.pend] <= t) ++h.pend;  // some entry is pending (clear_at > t)
    scrb_hit[h.wait_class[h.pend]] = true;
  }
  CycleDelta& d = core.delta;
  if (d.scrb_stalls++ == 0) d.scrb.fill(0);
  for (std::size_t i = 0; i < kNumScrbClasses; ++i) d.scrb[i] += scrb_hit[i] ? 1 : 0;
}

bool TimingModel::tick_core(Core& core) {
  const uint64_t t = core.now;
  core.did_work = false;
  CycleDelta& d = core.delta;  // this cycle's stall increments, kept for the cycles skipped after it
  d.sched_idle = d.sched_stalls = d.ibuf_stalls = d.scrb_stalls = d.opds_stalls = 0;
  // d.scrb is read only when d.scrb_stalls != 0: cleared at the cycle's first scoreboard stall.
  d.active_warps = core.active_count;

  // 1. Issue, per slot.
  core.decoded |= core.decode_queue.pop_due(t);
  core.clear |= core.clear_queue.pop_due(t);
  if (issue_width_ == 1) {
    issue_slot(core, 0);
  } else {
    for (uint32_t slot = 0; slot < issue_width_; ++slot) issue_slot(core, slot);
  }

  // 2. Schedule + fetch, per slot.
  core.fetchable |= core.fetch_queue.pop_due(t);
  uint32_t fetch_full = 0;  // ready warps whose fetch time has come but whose buffer is full
  bool scheduled = false;
  if (issue_width_ == 1) {
    scheduled = schedule_slot(core, 0, fetch_full);
  } else {
    for (uint32_t slot = 0; slot < issue_width_; ++slot) scheduled |= schedule_slot(core, slot, fetch_full);
  }
  if (!scheduled) {
    if (core.active_mask == 0) {
      ++d.sched_idle;
    } else if (fetch_full != 0) {
      ++d.ibuf_stalls;
    } else {
      ++d.sched_stalls;
    }
  }
  add_once(core.ctr, d);
  return core.did_work;
}

bool TimingModel::schedule_slot(Core& core, uint32_t slot, uint32_t& fetch_full) {
  // The lowest-numbered ready warp of the slot whose fetch time has come and whose instruction
  // buffer has room.
  const uint32_t may = core.ready_mask & core.fetchable & slot_mask_[slot];
  const uint32_t room = may & ~core.full;
  if (room == 0) {
    fetch_full |= may;
    return false;
  }
  schedule(core, static_cast<uint32_t>(std::countr_zero(room)));
  return true;
}

uint64_t TimingModel::next_event(const Core& core) const {
  const uint64_t t = core.now;
  uint64_t next = kNever;
  auto consider = [&](uint64_t v) {
    if (v > t && v < next) next = v;
  };
  for (uint32_t mask = core.nonempty; mask != 0; mask &= mask - 1) {  // the buffered heads
    const uint32_t w = static_cast<uint32_t>(std::countr_zero(mask));
    const Head& h = core.heads[w];
    consider(h.ready_at);
    // The stall class follows the first pending operand and changes only when it clears.
    if (h.clear_at > t) {  // some entry is still pending
      uint32_t i = h.pend;
      while (h.wait[i] <= t) ++i;
      consider(h.wait[i]);
    }
    consider(core.mem_done[w]);
    consider(*h.unit_free);
  }
  // The warps that may fetch: the fetch queue's first time when no warp that waits for its fetch
  // time is stalled or inactive (whose fetch_at must not count).
  const uint32_t fetch_waits = all_warps_ & ~core.fetchable;
  if (core.fetch_queue.next() > t && (fetch_waits & ~core.ready_mask) == 0) {
    consider(core.fetch_queue.next());
  } else {
    for (uint32_t mask = core.ready_mask; mask != 0; mask &= mask - 1) {
      consider(core.fetch_at[static_cast<uint32_t>(std::countr_zero(mask))]);
    }
  }
  return next;
}

void TimingModel::wake_partition(const Core& from) {
  // The cores after `from` are ticked later in this cycle, the others next cycle: as if every core
  // had been ticked every cycle.
  for (uint32_t c = from.part_first; c < from.part_end; ++c) {
    Core& core = *cores_[c];
    core.wake = std::min(core.wake, c > from.id ? from.now : from.now + 1);
  }
}

inline bool TimingModel::tick_and_wake(Core& core) {
  const uint64_t t = core.now;
  sync_counters(core, t);
  const bool worked = tick_core(core);
  core.synced = t + 1;
  core.wake = worked ? t + 1 : next_event(core);
  return worked;
}

uint64_t TimingModel::tick_cores(uint32_t first, uint32_t end, uint64_t t, bool& any_worked) {
  uint64_t next = kNever;
  for (uint32_t c = first; c < end; ++c) {
    Core& core = *cores_[c];
    core.now = t;
    if (core.wake <= t && tick_and_wake(core)) any_worked = true;
    next = std::min(next, core.wake);
  }
  return next;
}

void TimingModel::sync_counters(Core& core, uint64_t t) {
  if (core.synced < t) apply(core.ctr, core.delta, t - core.synced);
  core.synced = std::max(core.synced, t);
}

bool TimingModel::busy(const Core& core) const { return core.active_mask != 0 || core.nonempty != 0; }

uint64_t TimingModel::run() {
  reset();
  refresh_all();
  if (partitions_.size() < 2) return run_serial();
  dev_.set_partitions(partitions_);
  try {
    const uint64_t end = run_partitioned();
    dev_.set_partitions({});
    return end;
  } catch (...) {
    dev_.set_partitions({});
    throw;
  }
}

void TimingModel::throw_deadlock() {
  for (auto& core : cores_) sync_counters(*core, now_ + 1);
  dev_.check_deadlock();
  std::string who;
  for (auto& core : cores_) {
    if (core->active_mask != 0) who += fmt::format(" core {} warps {:#x};", core->id, core->active_mask);
  }
  throw sim_error(ErrorKind::kDeadlock,
                  "timing: deadlock at cycle {}: active warps that can never proceed (all stalled):{}", now_, who);
}

void TimingModel::check_cycle_limit() {
  if (cfg_.max_cycles != 0 && now_ > cfg_.max_cycles) {
    for (auto& core : cores_) sync_counters(*core, now_);
    throw sim_error(ErrorKind::kBudget,
                    "cycle limit of {} cycles exceeded (runaway kernel?); raise it with --set max_cycles=N "
                    "(0 = none)",
                    cfg_.max_cycles);
  }
}

void TimingModel::run_cores() {
  const auto n = static_cast<uint32_t>(cores_.size());
  while (true) {
    bool any_worked = false;  // not needed here: `next` already says it
    // The next cycle: now_ + 1 when a core worked, else the earliest next_event.
    const uint64_t next = tick_cores(0, n, now_, any_worked);
    bool is_busy = false;
    for (auto& core : cores_) is_busy |= busy(*core);
    if (!is_busy) return;
    if (next == kNever) throw_deadlock();
    now_ = next;
    check_cycle_limit();
  }
}

void TimingModel::run_one_core(Core& core) {
  // run_cores for one core, whose wake is every cycle the loop visits: no loops over the cores.
  while (true) {
    core.now = now_;
    tick_and_wake(core);
    if (!busy(core)) return;
    if (core.wake == kNever) throw_deadlock();
    now_ = core.wake;
    check_cycle_limit();
  }
}

uint64_t TimingModel::run_serial() {
  if (cores_.size() == 1) {
    run_one_core(*cores_[0]);
  } else {
    run_cores();
  }
  uint64_t end = now_ + 1;
  for (auto& core : cores_) {
    sync_counters(*core, now_ + 1);
    core->ctr.cycles = core->last_done + 1;
    end = std::max(end, core->last_done + 1);
  }
  now_ = end;
  return end;
}

/// What one partition did in an epoch (a cache line each: partitions run on different threads).
struct alignas(64) TimingModel::PartRun {
  bool worked = false;   ///< some core scheduled or issued
  bool finished = false; ///< no core of the partition is busy any more
  uint64_t finish = 0;   ///< the cycle after the partition's last busy cycle
};

void TimingModel::run_part(uint32_t part, uint64_t from, uint64_t to, PartRun& st) {
  const uint32_t first = partitions_[part];
  const uint32_t end = part + 1 < partitions_.size() ? partitions_[part + 1] : cfg_.total_cores();
  // The epoch's commit may have changed any core's warps: every core is ticked at its start.
  for (uint32_t c = first; c < end; ++c) cores_[c]->wake = from;
  PartRun run = st;  // updated per cycle in this thread's own copy, stored once at the epoch's end
  run.worked = false;
  uint64_t t = from;
  while (t < to) {
    // The next cycle: t + 1 when a core worked, else the earliest next_event (at most the epoch's end).
    const uint64_t next = tick_cores(first, end, t, run.worked);
    bool is_busy = false;
    for (uint32_t c = first; c < end; ++c) is_busy = is_busy || busy(*cores_[c]);
    if (!is_busy && !run.finished) {
      run.finished = true;
      run.finish = t + 1;
    }
    t = std::min(next, to);
  }
  st = run;
  for (uint32_t c = first; c < end; ++c) {
    sync_counters(*cores_[c], to);
    cores_[c]->now = to;
  }
}

uint64_t TimingModel::run_partitioned() {
  const auto np = static_cast<uint32_t>(partitions_.size());
  HostPool pool(dev_.host_threads(np));
  std::vector<PartRun> runs(np);
  uint32_t idle_epochs = 0;
  for (uint64_t from = 0;; from += cfg_.epoch_cycles) {
    const uint64_t to = from + cfg_.epoch_cycles;
    const bool serial = dev_.begin_epoch();
    pool.run(np, [&](uint32_t p) {
      mem_->begin_epoch(p);
      run_part(p, from, to, runs[p]);
    }, serial);
    now_ = to;
    dev_.commit_epoch();
    mem_->end_epoch();
    refresh_all();  // a global barrier released in commit_epoch() readies warps of other partitions
    bool is_busy = false;
    bool worked = false;
    for (auto& core : cores_) is_busy = is_busy || busy(*core);
    for (const PartRun& r : runs) worked = worked || r.worked;
    if (!is_busy) break;
    idle_epochs = worked ? 0 : idle_epochs + 1;
    if (idle_epochs >= 2) {  // an epoch after the commit that could release a barrier did nothing either
      uint64_t next = kNever;
      for (auto& core : cores_) next = std::min(next, next_event(*core));
      if (next == kNever) {
        dev_.check_deadlock();
        throw sim_error(ErrorKind::kDeadlock,
                        "timing: deadlock at cycle {}: active warps that can never proceed (all stalled)", to);
      }
    }
    if (cfg_.max_cycles != 0 && to > cfg_.max_cycles) {
      throw sim_error(ErrorKind::kBudget,
                      "cycle limit of {} cycles exceeded (runaway kernel?); raise it with --set max_cycles=N "
                      "(0 = none)",
                      cfg_.max_cycles);
    }
  }
  uint64_t end = 1;
  for (const PartRun& r : runs) end = std::max(end, r.finish);
  for (auto& core : cores_) {
    core->ctr.cycles = core->last_done + 1;
    end = std::max(end, core->last_done + 1);
  }
  now_ = end;
  return end;
}

DeviceCounters TimingModel::counters() const {
  DeviceCounters d;
  for (const auto& core : cores_) {
    CoreCounters c = core->ctr;
    c.icache = mem_->icache_at(core->id / cfg_.eff_socket_size()).counters(core->id);
    c.dcache = mem_->dcache_at(core->id / cfg_.eff_socket_size()).counters(core->id);
    if (c.cycles == 0) c.cycles = now_;
    d.cores.push_back(c);
    d.cycles = std::max(d.cycles, c.cycles);
  }
  if (cfg_.l2.enabled) {
    for (uint32_t k = 0; k < cfg_.clusters; ++k) d.l2.push_back(mem_->l2(k)->total());
  }
  if (const Cache* l3 = mem_->l3()) d.l3 = l3->total();
  d.dram = mem_->dram().counters();
  return d;
}

uint64_t TimingModel::mpm_value(uint32_t core_id, uint32_t index, MpmClass cls) const {
  if (core_id >= cores_.size() || index >= 32) return 0;
  const Core& core = *cores_[core_id];
  const CoreCounters& c = core.ctr;
  if (index == 0) return c.cycles != 0 ? c.cycles : core.now;  // MCYCLE
  if (index == 2) return c.thread_instrs;                   // MINSTRET (thread instructions, §12)
  if (cls == MpmClass::kCore) {
    switch (index) {
      case 0x03: return c.sched_idle;
      case 0x04: return c.sched_stalls;
      case 0x05: return c.ibuf_stalls;
      case 0x06: return c.scrb_stalls;
      case 0x07: return c.opds_stalls;
      case 0x08: return c.scrb[static_cast<std::size_t>(ScrbClass::kAlu)];
      case 0x09: return c.scrb[static_cast<std::size_t>(ScrbClass::kFpu)];
      case 0x0A: return c.scrb[static_cast<std::size_t>(ScrbClass::kLsu)];
      case 0x0B:
        return c.scrb[static_cast<std::size_t>(ScrbClass::kCsrs)] + c.scrb[static_cast<std::size_t>(ScrbClass::kWctl)];
      case 0x0C: return c.scrb[static_cast<std::size_t>(ScrbClass::kCsrs)];
      case 0x0D: return c.scrb[static_cast<std::size_t>(ScrbClass::kWctl)];
      case 0x0E: return c.ifetches;
      case 0x0F: return c.loads;
      case 0x10: return c.stores;
      case 0x11: return c.ifetch_latency;
      case 0x12: return c.load_latency;
      case 0x13: return 0;  // SCRB_VPU: no vector unit
      case 0x14: return c.scrb[static_cast<std::size_t>(ScrbClass::kTcu)];
      default: return 0;
    }
  }
  if (cls == MpmClass::kMem) {
    const uint32_t socket = core_id / cfg_.eff_socket_size();
    const CacheCounters& ic = mem_->icache_at(socket).counters(core_id);
    const CacheCounters& dc = mem_->dcache_at(socket).counters(core_id);
    CacheCounters l2;
    if (const Cache* l2c = mem_->l2(core_id / cfg_.cores)) l2 = l2c->total();
    CacheCounters l3;
    if (const Cache* l3c = mem_->l3()) l3 = l3c->total();
    const DramCounters& m = mem_->dram().counters();
    switch (index) {
      case 0x03: return ic.reads;
      case 0x04: return ic.read_misses;
      case 0x05: return ic.mshr_stalls;
      case 0x06: return dc.reads;
      case 0x07: return dc.writes;
      case 0x08: return dc.read_misses;
      case 0x09: return dc.write_misses;
      case 0x0A: return dc.bank_stalls;
      case 0x0B: return dc.mshr_stalls;
      case 0x0C: return l2.reads;
      case 0x0D: return l2.writes;
      case 0x0E: return l2.read_misses;
      case 0x0F: return l2.write_misses;
      case 0x10: return l2.bank_stalls;
      case 0x11: return l2.mshr_stalls;
      case 0x12: return l3.reads;
      case 0x13: return l3.writes;
      case 0x14: return l3.read_misses;
      case 0x15: return l3.write_misses;
      case 0x16: return l3.bank_stalls;
      case 0x17: return l3.mshr_stalls;
      case 0x18: return m.reads;
      case 0x19: return m.writes;
      case 0x1A: return m.read_latency;
      case 0x1B: return c.lmem_reads;
      case 0x1C: return c.lmem_writes;
      case 0x1D: return c.lmem_bank_stalls;
      case 0x1E: return m.bank_stalls;
      case 0x1F: return c.coalescer_misses;
      default: return 0;
    }
  }
  return 0;
}

uint32_t TimingModel::mpm_read(uint32_t core, uint32_t csr, MpmClass cls) const {
  if (csr >= 0xB00 && csr < 0xB20) return static_cast<uint32_t>(mpm_value(core, csr - 0xB00, cls));
  if (csr >= 0xB80 && csr < 0xBA0) return static_cast<uint32_t>(mpm_value(core, csr - 0xB80, cls) >> 32);
  return 0;
}

}  // namespace vxsim::timing
