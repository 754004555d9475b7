// Core, Processor and the execution services of ExecCtx (docs/vortex.md §1.3, §2, §3).
#include "vxsim/core.h"

#include <algorithm>
#include <bit>
#include <iostream>

#include <fmt/format.h>

#include "exec.h"
#include "race_check.h"
#include "runaway.h"
#include "vxsim/bits.h"
#include "vxsim/error.h"
#include "vxsim/host_pool.h"
#include "vxsim/mem_overlay.h"

namespace vxsim {

namespace {

uint32_t full_mask(uint32_t nt) { return nt >= 32 ? 0xFFFFFFFFu : ((1u << nt) - 1); }

std::string lane_list(uint32_t mask) {
  std::string s;
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    if (!s.empty()) s += ',';
    s += std::to_string(std::countr_zero(m));
  }
  return "{" + s + "}";
}

/// Functional MPM values: mcycle = warp instructions issued by the core (one per cycle),
/// minstret = thread instructions (what SimX's `PERF: instrs=` reports, docs §12). Others 0.
class FunctionalCounters final : public CounterSource {
 public:
  explicit FunctionalCounters(const Processor& p) : p_(p) {}
  uint64_t mpm_counter(uint32_t core_id, uint32_t index, uint32_t /*mpm_class*/) const override {
    const Core& c = p_.core(core_id);
    if (index == 0) return c.warp_instrs();
    if (index == 2) return c.thread_instrs();
    return 0;
  }

 private:
  const Processor& p_;
};

}  // namespace

void Config::validate() const {
  auto bad = [](const std::string& m) { return SimError(ErrorKind::kConfig, "invalid config: " + m); };
  if (clusters < 1) throw bad("clusters must be ≥ 1");
  if (cores < 1 || cores > 64) throw bad(fmt::format("cores per cluster must be 1..64 (got {})", cores));
  if (warps < 1 || warps > kMaxWarps) throw bad(fmt::format("warps must be 1..{} (got {})", kMaxWarps, warps));
  if (threads < 1 || threads > kMaxThreads)
    throw bad(fmt::format("threads must be 1..{} (got {})", kMaxThreads, threads));
  if (clusters * cores > 1024) throw bad(fmt::format("at most 1024 cores in total (got {})", clusters * cores));
  if (lmem_log_size < 2 || lmem_log_size > 16)
    throw bad(fmt::format("lmem_log_size must be 2..16 so LMEM fits below 2^32 (got {})", lmem_log_size));
  if (!(time_limit_s >= 0.0) || time_limit_s > 1e9)
    throw bad(fmt::format("time limit must be 0 (none) or a number of seconds (got {})", time_limit_s));
  if ((startup_addr & 3) != 0) throw bad(fmt::format("startup address {:#x} is not 4-byte aligned", startup_addr));
}

// ---------------------------------------------------------------------------------------------
// Processor

/// The registers, unit and control flag of a decoded word as ExecutedInstr lists them
/// (describe_operands), kept with the decoded page so that a timing run does not derive them again
/// at every execution.
struct OperandInfo {
  uint16_t op_id = 0;
  UnitClass unit = UnitClass::kAlu;
  bool is_control = false;
  uint8_t num_src = 0;
  bool has_dst = false;
  std::array<RegRef, 3> src{};
  RegRef dst{};
};

struct DecodedPage {
  std::array<Decoded, Memory::kPageSize / 4> d;
  std::array<OperandInfo, Memory::kPageSize / 4> ops;
};

namespace {
/// Round-robin rounds (each ready warp of a core steps once) per epoch of a partitioned
/// functional run: long enough that committing the epoch costs little, short enough that cores
/// see each other's stores soon.
constexpr uint32_t kEpochRounds = 1024;
/// Rounds of an epoch in which the endless-loop detector watches (partitions run in turn): few
/// enough that every partition runs within the detector's window (RunawayGuard::watch).
constexpr uint32_t kProbeRounds = 128;
}  // namespace

Processor::Processor(const Config& cfg) : cfg_(cfg), console_(&std::cout), guard_(std::make_unique<RunawayGuard>()) {
  cfg_.validate();
  for (uint32_t cl = 0; cl < cfg_.clusters; ++cl) {
    for (uint32_t c = 0; c < cfg_.cores; ++c) {
      cores_.push_back(std::make_unique<Core>(*this, cl * cfg_.cores + c, cl));
    }
  }
  functional_counters_ = std::make_unique<FunctionalCounters>(*this);
  console_lines_.resize(cores_.size() * kIoCoutSize);  // one set of lines per core, as SimX
  console_out_.resize(cores_.size());
  cluster_gbar_arrived_.assign(cfg_.clusters, 0);
  dcr_startup_addr_[0] = cfg_.startup_addr;
  guard_->reset(*this);
  guard_at_ = guard_->next_check();
}

Processor::~Processor() = default;

const CounterSource& Processor::counter_source() const {
  return counters_ != nullptr ? *counters_ : *functional_counters_;
}

void Processor::dcr_write(uint32_t addr, uint32_t value) {
  switch (addr) {
    case 0x001: dcr_startup_addr_[0] = value; break;
    case 0x002: dcr_startup_addr_[1] = value; break;
    case 0x003: dcr_startup_arg_[0] = value; break;
    case 0x004: dcr_startup_arg_[1] = value; break;
    case 0x005: dcr_mpm_class_ = value; break;
    default: throw sim_error(ErrorKind::kRuntime, "DCR write to unknown address {:#05x}", addr);
  }
}

uint32_t Processor::dcr_read(uint32_t addr) const {
  switch (addr) {
    case 0x001: return dcr_startup_addr_[0];
    case 0x002: return dcr_startup_addr_[1];
    case 0x003: return dcr_startup_arg_[0];
    case 0x004: return dcr_startup_arg_[1];
    case 0x005: return dcr_mpm_class_;
    default: throw sim_error(ErrorKind::kRuntime, "DCR read of unknown address {:#05x}", addr);
  }
}

void Processor::reset() {
  if (dcr_startup_addr_[1] != 0 || dcr_startup_arg_[1] != 0) {
    throw sim_error(ErrorKind::kRuntime,
                    "startup address/argument DCRs hold 64-bit values ({:#x}{:08x}, {:#x}{:08x}) on "
                    "an RV32 device", dcr_startup_addr_[1], dcr_startup_addr_[0],
                    dcr_startup_arg_[1], dcr_startup_arg_[0]);
  }
  for (auto& l : console_lines_) l.clear();
  for (auto& l : console_out_) l.clear();
  total_instrs_ = 0;
  std::fill(cluster_gbar_arrived_.begin(), cluster_gbar_arrived_.end(), 0);
  for (auto& c : cores_) c->reset(dcr_startup_addr_[0], dcr_startup_arg_[0]);
  guard_->reset(*this);
  guard_at_ = guard_->next_check();
}

bool Processor::idle() const {
  return std::all_of(cores_.begin(), cores_.end(), [](const auto& c) { return c->idle(); });
}

const Decoded& Core::decoded(uint32_t pc) {
  uint32_t page = pc >> Memory::kPageBits;
  if (page != last_dpage_index_) {
    auto& slot = dcache_[page];
    if (!slot) {
      slot = std::make_unique<DecodedPage>();
      uint32_t base = page << Memory::kPageBits;
      for (uint32_t i = 0; i < slot->d.size(); ++i) {
        slot->d[i] = decode(proc_.mem_.load<uint32_t>(base + 4 * i));
        ExecutedInstr e;
        describe_operands(slot->d[i], e);
        slot->ops[i] = OperandInfo{e.op_id, e.unit, e.is_control, e.num_src, e.has_dst, e.src, e.dst};
      }
    }
    last_dpage_index_ = page;
    last_dpage_ = slot.get();
  }
  return last_dpage_->d[(pc & (Memory::kPageSize - 1)) >> 2];
}

void Processor::set_partitions(const std::vector<uint32_t>& first_cores) {
  overlays_.clear();
  for (auto& c : cores_) c->overlay_ = nullptr;
  guarded_ = first_cores.size() < 2;
  if (guarded_) return;
  for (std::size_t p = 0; p < first_cores.size(); ++p) {
    overlays_.push_back(std::make_unique<MemOverlay>(mem_));
    const uint32_t end = p + 1 < first_cores.size() ? first_cores[p + 1] : num_cores();
    for (uint32_t c = first_cores[p]; c < end; ++c) cores_[c]->overlay_ = overlays_.back().get();
  }
}

void Processor::commit_stores() {
  for (auto& o : overlays_) o->commit(mem_);
  for (auto& out : console_out_) {
    if (!out.empty()) *console_ << out;
    out.clear();
  }
}

void Processor::end_partitions() {
  commit_stores();
  set_partitions({});
}

bool Processor::begin_epoch() {
  guarded_ = overlays_.empty() || guard_->needs_every_instruction(total_instrs_);
  return guarded_;
}

void Processor::commit_epoch() {
  commit_stores();
  total_instrs_ = 0;
  for (auto& c : cores_) {
    total_instrs_ += c->warp_instrs_;
    if (c->gbar_pending_) {
      c->gbar_pending_ = false;
      gbar_arrive(c->cluster_, c->id_, c->gbar_count_);
    }
  }
  guard_->check_epoch(*this);
}

RunResult Processor::run() {
  if (cores_.size() > 1) {
    run_partitioned();
  } else {
    run_serial();
  }
  flush_console();
  RunResult r;
  for (auto& c : cores_) {
    r.warp_instrs += c->warp_instrs();
    r.thread_instrs += c->thread_instrs();
  }
  r.exit_code = exit_code();
  return r;
}

void Processor::run_partitioned() {
  // One partition per core; an epoch is kEpochRounds round-robin rounds of each core.
  std::vector<uint32_t> first(cores_.size());
  for (uint32_t c = 0; c < first.size(); ++c) first[c] = c;
  set_partitions(first);
  const uint32_t n = num_cores();
  HostPool pool(tracing() ? 1 : resolve_host_threads(cfg_.host_threads, n));
  std::vector<uint8_t> worked(n, 0);
  try {
    for (;;) {
      const bool serial = begin_epoch();
      const uint32_t rounds = serial ? kProbeRounds : kEpochRounds;
      pool.run(n, [&](uint32_t p) {
        Core& c = *cores_[p];
        worked[p] = 0;
        for (uint32_t round = 0; round < rounds; ++round) {
          const uint32_t ready = c.ready_mask();
          if (ready == 0) break;
          for (uint32_t m = ready; m != 0; m &= m - 1) {
            const auto w = static_cast<uint32_t>(std::countr_zero(m));
            if (c.warp_ready(w)) c.step_fast(w);
          }
          worked[p] = 1;
        }
      }, serial);
      commit_epoch();
      if (std::find(worked.begin(), worked.end(), 1) == worked.end()) {
        if (idle()) break;
        check_deadlock();
      }
    }
  } catch (...) {
    end_partitions();  // keep the stores and console lines before the fault, as a serial run does
    throw;
  }
  end_partitions();
}

void Processor::run_serial() {
  for (;;) {
    bool any = false;
    for (auto& cp : cores_) {
      Core& c = *cp;
      uint32_t ready = c.ready_mask();
      for (uint32_t m = ready; m != 0; m &= m - 1) {
        uint32_t w = static_cast<uint32_t>(std::countr_zero(m));
        if (c.warp_ready(w)) {  // an earlier warp this round may have suspended/woken it
          c.step_fast(w);
          any = true;
        }
      }
    }
    if (!any) {
      if (idle()) break;
      check_deadlock();
    }
  }
}

void Processor::check_deadlock() const {
  bool any_active = false;
  for (const auto& c : cores_) {
    if (c->ready_mask() != 0) return;
    any_active = any_active || !c->idle();
  }
  if (!any_active) return;
  std::string msg = "deadlock: active warps exist but none can make progress:";
  for (const auto& c : cores_) {
    if (!c->idle()) msg += "\n  " + c->describe_waits();
  }
  throw SimError(ErrorKind::kDeadlock, msg);
}

void Processor::console_byte(uint32_t core_id, uint32_t offset, uint8_t byte) {
  std::string& line = console_lines_[core_id * kIoCoutSize + offset];
  if (byte == '\n') {
    if (overlays_.empty()) {
      *console_ << '#' << offset << ": " << line << '\n';
    } else {
      console_out_[core_id] += fmt::format("#{}: {}\n", offset, line);
    }
    line.clear();
  } else {
    line += static_cast<char>(byte);
  }
}

void Processor::flush_console() {
  for (uint32_t i = 0; i < console_lines_.size(); ++i) {
    if (!console_lines_[i].empty()) {
      *console_ << '#' << i % kIoCoutSize << ": " << console_lines_[i] << '\n';
      console_lines_[i].clear();
    }
  }
  console_->flush();
}

void Processor::gbar_arrive(uint32_t cluster, uint32_t core_id, uint32_t count) {
  uint64_t& arrived = cluster_gbar_arrived_[cluster];
  arrived |= 1ull << (core_id - cluster * cfg_.cores);
  if (static_cast<uint32_t>(std::popcount(arrived)) >= count) {
    uint64_t m = arrived;
    arrived = 0;
    for (; m != 0; m &= m - 1) {
      cores_[cluster * cfg_.cores + static_cast<uint32_t>(std::countr_zero(m))]->release_global_barrier_wait();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Core

Core::Core(Processor& proc, uint32_t core_id, uint32_t cluster_id)
    : proc_(proc), id_(core_id), cluster_(cluster_id), nt_(proc.config().threads) {
  const Config& cfg = proc.config();
  warps_.resize(cfg.warps);
  for (auto& w : warps_) {
    w.x.assign(32u * nt_, 0);
    w.f.assign(32u * nt_, 0);
    w.ipdom.reserve(nt_);
  }
  lmem_.assign(1u << cfg.lmem_log_size, 0);
  uint32_t num_barriers = std::max(1u, (cfg.warps + 1) / 2);  // NUM_BARRIERS = UP(NW/2), §1.3
  bar_arrived_.assign(num_barriers, 0);
  bar_count_.assign(num_barriers, 0);
  reservation_.assign(static_cast<size_t>(cfg.warps) * nt_, 0);
  if (cfg.check_races) races_ = std::make_unique<RaceChecker>(static_cast<uint32_t>(lmem_.size()), cfg.warps);
}

Core::~Core() = default;

uint32_t Core::active_mask() const {
  uint32_t m = 0;
  for (uint32_t i = 0; i < warps_.size(); ++i) m |= (warps_[i].tmask != 0 ? 1u : 0u) << i;
  return m;
}

uint32_t Core::ready_mask() const {
  uint32_t m = 0;
  for (uint32_t i = 0; i < warps_.size(); ++i) m |= (warp_ready(i) ? 1u : 0u) << i;
  return m;
}

void Core::reset(uint32_t pc, uint32_t arg) {
  dcache_.clear();
  last_dpage_index_ = 0xFFFFFFFF;
  last_dpage_ = nullptr;
  gbar_pending_ = false;
  for (auto& w : warps_) {
    std::fill(w.x.begin(), w.x.end(), 0);
    std::fill(w.f.begin(), w.f.end(), 0);
    w.ipdom.clear();
    w.pc = 0;
    w.tmask = 0;
    w.fcsr = 0;
    w.barrier_wait = false;
    w.spawn_wait = false;
    w.instrs = 0;
  }
  warps_[0].pc = pc;
  warps_[0].tmask = 1;
  std::fill(lmem_.begin(), lmem_.end(), 0);
  mscratch_ = arg;
  std::fill(bar_arrived_.begin(), bar_arrived_.end(), 0);
  std::fill(bar_count_.begin(), bar_count_.end(), 0);
  gbar_arrived_ = 0;
  gbar_registered_ = false;
  spawn_pending_ = false;
  warp_instrs_ = thread_instrs_ = divergent_branches_ = 0;
  loads_ = stores_ = atomics_ = 0;
  halt_reason_.clear();
  std::fill(reservation_.begin(), reservation_.end(), 0);
  if (races_) races_->reset();
}

std::string Core::describe_waits() const {
  std::string s = fmt::format("core {}:", id_);
  for (uint32_t i = 0; i < warps_.size(); ++i) {
    const Warp& w = warps_[i];
    if (w.tmask == 0) continue;
    s += fmt::format(" warp {} (PC {:#010x}, mask {:#x}) ", i, w.pc, w.tmask);
    if (w.spawn_wait) {
      s += fmt::format("waits in WSPAWN for the other warps to exit;");
    } else if (w.barrier_wait) {
      bool global = (gbar_arrived_ >> i) & 1;
      if (global) {
        s += fmt::format("waits at global barrier {} for {} cores;", gbar_id_, gbar_count_);
      } else {
        for (uint32_t b = 0; b < bar_arrived_.size(); ++b) {
          if ((bar_arrived_[b] >> i) & 1) {
            s += fmt::format("waits at barrier {} ({} of {} warps arrived);", b,
                             std::popcount(bar_arrived_[b]), bar_count_[b]);
          }
        }
      }
    } else {
      s += "is ready;";
    }
  }
  return s;
}

ExecutedInstr Core::step(uint32_t w) {
  ExecutedInstr rec{ExecutedInstr::LanesUnset{}};
  execute<true>(w, &rec);
  return rec;
}

void Core::step_fast(uint32_t w) { execute<false>(w, nullptr); }

inline const Decoded& Core::fetch(uint32_t pc, uint32_t w) {
  if ((pc & 3) != 0) {
    throw sim_error(ErrorKind::kMisaligned, "misaligned PC {:#010x} (core {}, warp {})", pc, id_, w);
  }
  // The page decoded last (a warp's usual case) without the call; decoded() handles the others.
  if ((pc >> Memory::kPageBits) == last_dpage_index_) return last_dpage_->d[(pc & (Memory::kPageSize - 1)) >> 2];
  return decoded(pc);
}

template <bool kRecord>
void Core::execute(uint32_t w, ExecutedInstr* rec) {
  if (w >= warps_.size() || !warp_ready(w)) {
    throw sim_error(ErrorKind::kRuntime, "step() called for warp {} of core {}, which is not ready", w, id_);
  }
  Warp& wp = warps_[w];
  const Decoded& d = fetch(wp.pc, w);
  // The same word's operands (describe_operands), from the page fetch() just read.
  const OperandInfo& o = last_dpage_->ops[static_cast<std::size_t>(&d - last_dpage_->d.data())];
  // Budgets, wall clock, endless-loop detector; a partitioned run checks them in commit_epoch().
  if (proc_.guarded_ && proc_.total_instrs_ >= proc_.guard_at_) {
    proc_.guard_->check(proc_, *this, w, d);
    proc_.guard_at_ = proc_.guard_->next_check();
  }
  ExecCtx c{*this, wp, w, nt_, wp.tmask, wp.pc, wp.pc + 4, rec};
  if constexpr (kRecord) {
    rec->pc = wp.pc;
    rec->word = d.word;
    rec->active_mask = wp.tmask;
    rec->op_id = o.op_id;
    rec->num_src = o.num_src;
    rec->has_dst = o.has_dst;
    if (d.op != kIllegalOp) {
      rec->unit = o.unit;
      rec->is_control = o.is_control;
      rec->src = o.src;
      rec->dst = o.dst;
    }
  }
  if (proc_.trace_ != nullptr) {
    *proc_.trace_ << fmt::format("core {} warp {} pc {:#010x} mask {:#010x}: {}\n", id_, w, wp.pc, wp.tmask,
                                 disasm(d, wp.pc));
  }
  if (d.op == kIllegalOp) {
    if (proc_.pc_outside_image(wp.pc)) {
      // Execution left the program (a bad jump/return target or a missing exit): say so rather
      // than leaving the user to decode why the zero/garbage word there is not an instruction.
      const std::string why = fmt::format(
          "the PC is outside the loaded image [{:#010x}, {:#010x}) (a jump or return to a bad "
          "address, or a kernel that runs past its end?)",
          proc_.image_lo_, proc_.image_hi_);
      c.illegal(d, why.c_str());
    }
    // RISC-V unprivileged spec §1.5: a 16-bit (compressed, RVC) instruction has bits [1:0] != 11.
    if ((d.word & 3u) != 3u)
      c.illegal(d, "compressed instructions are not supported: the low half-word is a 16-bit RVC encoding "
                   "(bits [1:0] != 11) and Vortex has no C extension; compile with -march=rv32imaf (no 'c')");
    c.illegal(d, "no instruction of RV32IMAF/Zicsr/Zicond/Vortex matches");
  }
  if (proc_.guarded_) ++proc_.total_instrs_;
  ++wp.instrs;
  const uint32_t lanes = popcount32(wp.tmask);  // before TMC/SPLIT change it
  instr_table()[d.op].exec(c, d);
  // Counted once the instruction has executed, so a CSR read of mcycle/minstret sees the
  // instructions before it and not itself (as the timing model, which counts at issue).
  ++warp_instrs_;
  thread_instrs_ += lanes;
  wp.pc = c.next_pc;
  if constexpr (kRecord) {
    rec->warp_exited = wp.tmask == 0;
    rec->warp_stalled = wp.tmask != 0 && (wp.barrier_wait || wp.spawn_wait);
  }
}

template void Core::execute<true>(uint32_t, ExecutedInstr*);
template void Core::execute<false>(uint32_t, ExecutedInstr*);

void Core::on_warp_exit() {
  try_release_spawn();
  check_global_barrier();
}

void Core::try_release_spawn() {
  if (!spawn_pending_ || active_mask() != (1u << spawn_caller_)) return;
  for (uint32_t i = 1; i < spawn_count_; ++i) {
    if (i == spawn_caller_) continue;
    Warp& nw = warps_[i];
    nw.pc = spawn_pc_;
    nw.tmask = 1;
    nw.ipdom.clear();
    nw.barrier_wait = false;
    nw.spawn_wait = false;
  }
  warps_[spawn_caller_].spawn_wait = false;
  spawn_pending_ = false;
  if (races_) races_->spawn();
}

void Core::check_global_barrier() {
  if (gbar_arrived_ == 0 || gbar_registered_) return;
  uint32_t active = active_mask();
  if ((gbar_arrived_ & active) != active) return;
  gbar_registered_ = true;
  if (overlay_ != nullptr) {
    gbar_pending_ = true;  // other cores' state: registered at the end of the epoch
  } else {
    proc_.gbar_arrive(cluster_, id_, gbar_count_);
  }
}

void Core::release_global_barrier_wait() {
  if (races_) races_->barrier_release(gbar_arrived_);
  for (uint32_t m = gbar_arrived_; m != 0; m &= m - 1) {
    warps_[static_cast<uint32_t>(std::countr_zero(m))].barrier_wait = false;
  }
  gbar_arrived_ = 0;
  gbar_registered_ = false;
}

void Core::release_local_barrier(uint32_t id) {
  if (races_) races_->barrier_release(bar_arrived_[id]);
  for (uint32_t m = bar_arrived_[id]; m != 0; m &= m - 1) {
    warps_[static_cast<uint32_t>(std::countr_zero(m))].barrier_wait = false;
  }
  bar_arrived_[id] = 0;
  bar_count_[id] = 0;
}

// ---------------------------------------------------------------------------------------------
// ExecCtx services

uint32_t ExecCtx::num_warps() const { return core.num_warps(); }

void ExecCtx::illegal(const Decoded& d, const char* why) {
  throw sim_error(ErrorKind::kIllegalInstr,
                  "illegal instruction {:#010x} ({}) at PC {:#010x} (core {}, warp {}, lanes {}): {}",
                  d.word, disasm(d, pc), pc, core.id_, wid, lane_list(mask), why);
}

namespace {
enum class Space { kGlobal, kLocal, kConsole, kNull };
}

template <typename T>
T ExecCtx::load(uint32_t lane, uint32_t addr) {
  constexpr uint32_t n = sizeof(T);
  if ((addr & (n - 1)) != 0) {
    throw sim_error(ErrorKind::kMisaligned, "misaligned {}-byte load from {:#010x} at PC {:#010x} (core {}, warp {}, lane {})",
                    n, addr, pc, core.id_, wid, lane);
  }
  if (!mem_counted) {
    ++core.loads_;
    mem_counted = true;
  }
  const uint32_t lmem_size = static_cast<uint32_t>(core.lmem_.size());
  T v{};
  AddrSpace space = AddrSpace::kGlobal;
  if (addr >= kLmemBaseAddr && addr - kLmemBaseAddr < lmem_size) {
    std::memcpy(&v, core.lmem_.data() + (addr - kLmemBaseAddr), n);
    space = AddrSpace::kLocal;
    if (core.races_) core.races_->access(core.id_, wid, lane, pc, addr - kLmemBaseAddr, n, LmemAccess::kLoad);
  } else if (addr < kIoBaseAddr) {
    throw sim_error(ErrorKind::kOutOfRange, "{}-byte load from unmapped address {:#010x} (null pointer?) at PC {:#010x} (core {}, warp {}, lane {})",
                    n, addr, pc, core.id_, wid, lane);
  } else {
    if (!core.proc_.mem_.acl_allows(addr, n, false)) {
      throw sim_error(ErrorKind::kAccessViolation,
                      "memory access violation: {}-byte load from {:#010x}, whose buffer was not allocated with "
                      "VX_MEM_READ, at PC {:#010x} (core {}, warp {}, lane {})", n, addr, pc, core.id_, wid, lane);
    }
    if (addr < kIoEndAddr) space = AddrSpace::kIo;
    v = core.overlay_ != nullptr ? core.overlay_->load<T>(addr) : core.proc_.mem_.load<T>(addr);
  }
  if (rec != nullptr) {
    record_access(MemKind::kLoad, space, lane, LaneAccess{addr, static_cast<uint8_t>(n)});
  }
  return v;
}

template <typename T>
void ExecCtx::store(uint32_t lane, uint32_t addr, T value) {
  constexpr uint32_t n = sizeof(T);
  if ((addr & (n - 1)) != 0) {
    throw sim_error(ErrorKind::kMisaligned, "misaligned {}-byte store to {:#010x} at PC {:#010x} (core {}, warp {}, lane {})",
                    n, addr, pc, core.id_, wid, lane);
  }
  if (!mem_counted) {
    ++core.stores_;
    mem_counted = true;
  }
  const uint32_t lmem_size = static_cast<uint32_t>(core.lmem_.size());
  AddrSpace space = AddrSpace::kGlobal;
  if (addr >= kLmemBaseAddr && addr - kLmemBaseAddr < lmem_size) {
    if (core.races_) core.races_->access(core.id_, wid, lane, pc, addr - kLmemBaseAddr, n, LmemAccess::kStore);
    std::memcpy(core.lmem_.data() + (addr - kLmemBaseAddr), &value, n);
    space = AddrSpace::kLocal;
  } else if (addr < kIoBaseAddr) {
    throw sim_error(ErrorKind::kOutOfRange, "{}-byte store to unmapped address {:#010x} (null pointer?) at PC {:#010x} (core {}, warp {}, lane {})",
                    n, addr, pc, core.id_, wid, lane);
  } else if (addr < kIoCoutAddr + kIoCoutSize) {
    if constexpr (n != 1) {
      throw sim_error(ErrorKind::kOutOfRange, "{}-byte store to the console at {:#010x}: the console accepts only byte stores, at PC {:#010x} (core {}, warp {}, lane {})",
                      n, addr, pc, core.id_, wid, lane);
    } else {
      core.proc_.console_byte(core.id_, addr - kIoCoutAddr, static_cast<uint8_t>(value));
    }
    space = AddrSpace::kIo;
  } else {
    if (!core.proc_.mem_.acl_allows(addr, n, true)) {
      throw sim_error(ErrorKind::kAccessViolation,
                      "memory access violation: {}-byte store to {:#010x}, whose buffer was not allocated with "
                      "VX_MEM_WRITE, at PC {:#010x} (core {}, warp {}, lane {})", n, addr, pc, core.id_, wid, lane);
    }
    if (addr < kIoEndAddr) space = AddrSpace::kIo;
    if (core.overlay_ != nullptr) {
      core.overlay_->store<T>(addr, value);
    } else {
      core.proc_.mem_.store<T>(addr, value);
    }
  }
  if (rec != nullptr) {
    record_access(MemKind::kStore, space, lane, LaneAccess{addr, static_cast<uint8_t>(n)});
  }
}

template uint8_t ExecCtx::load<uint8_t>(uint32_t, uint32_t);
template int8_t ExecCtx::load<int8_t>(uint32_t, uint32_t);
template uint16_t ExecCtx::load<uint16_t>(uint32_t, uint32_t);
template int16_t ExecCtx::load<int16_t>(uint32_t, uint32_t);
template uint32_t ExecCtx::load<uint32_t>(uint32_t, uint32_t);
template void ExecCtx::store<uint8_t>(uint32_t, uint32_t, uint8_t);
template void ExecCtx::store<uint16_t>(uint32_t, uint32_t, uint16_t);
template void ExecCtx::store<uint32_t>(uint32_t, uint32_t, uint32_t);

namespace {
/// Common checks for AMO/LR/SC; returns a pointer to the word (LMEM or global page).
uint32_t* amo_word(ExecCtx& c, Core& core, Memory& mem, std::vector<uint8_t>& lmem, uint32_t lane, uint32_t addr,
                   bool need_write, const char* what) {
  if ((addr & 3) != 0) {
    throw sim_error(ErrorKind::kMisaligned, "misaligned {} at {:#010x} at PC {:#010x} (core {}, warp {}, lane {})",
                    what, addr, c.pc, core.id(), c.wid, lane);
  }
  if (addr >= kLmemBaseAddr && addr - kLmemBaseAddr < lmem.size()) {
    return reinterpret_cast<uint32_t*>(lmem.data() + (addr - kLmemBaseAddr));
  }
  if (addr < kIoEndAddr) {
    throw sim_error(ErrorKind::kOutOfRange, "{} on IO/unmapped address {:#010x} at PC {:#010x} (core {}, warp {}, lane {})",
                    what, addr, c.pc, core.id(), c.wid, lane);
  }
  if (!mem.acl_allows(addr, 4, false) || (need_write && !mem.acl_allows(addr, 4, true))) {
    throw sim_error(ErrorKind::kAccessViolation, "memory access violation: {} on {:#010x} needs {} access, at PC {:#010x} (core {}, warp {}, lane {})",
                    what, addr, need_write ? "VX_MEM_READ_WRITE" : "VX_MEM_READ", c.pc, core.id(), c.wid, lane);
  }
  return nullptr;
}
}  // namespace

uint32_t ExecCtx::amo(uint32_t lane, uint32_t addr, AmoFn op, uint32_t operand) {
  Memory& mem = core.proc_.mem_;
  uint32_t* p = amo_word(*this, core, mem, core.lmem_, lane, addr, true, "AMO");
  if (p != nullptr && core.races_) core.races_->access(core.id_, wid, lane, pc, addr - kLmemBaseAddr, 4, LmemAccess::kAmo);
  if (!mem_counted) {
    ++core.atomics_;
    mem_counted = true;
  }
  uint32_t old = 0;
  if (p != nullptr) {
    std::memcpy(&old, p, 4);
    uint32_t nv = op(old, operand);
    std::memcpy(p, &nv, 4);
  } else {
    if (core.overlay_ != nullptr) {
      old = core.overlay_->load<uint32_t>(addr);
      core.overlay_->store<uint32_t>(addr, op(old, operand));
    } else {
      old = mem.load<uint32_t>(addr);
      mem.store<uint32_t>(addr, op(old, operand));
    }
  }
  if (rec != nullptr) {
    record_access(MemKind::kAmo, p != nullptr ? AddrSpace::kLocal : AddrSpace::kGlobal, lane, LaneAccess{addr, 4});
  }
  return old;
}

void ExecCtx::lr(uint32_t lane, uint32_t addr, uint32_t& out) {
  out = amo(lane, addr, [](uint32_t m, uint32_t) { return m; }, 0);
  core.reservation_[static_cast<size_t>(wid) * nt + lane] = static_cast<uint64_t>(addr) + 1;
}

bool ExecCtx::sc(uint32_t lane, uint32_t addr, uint32_t value) {
  uint64_t& r = core.reservation_[static_cast<size_t>(wid) * nt + lane];
  bool ok = r == static_cast<uint64_t>(addr) + 1;
  r = 0;
  if (ok) {
    amo(lane, addr, [](uint32_t, uint32_t v) { return v; }, value);
    for (auto& other : core.reservation_) {
      if (other == static_cast<uint64_t>(addr) + 1) other = 0;
    }
  } else {
    uint32_t* p = amo_word(*this, core, core.proc_.mem_, core.lmem_, lane, addr, true, "SC");
    if (!mem_counted) {
      ++core.atomics_;
      mem_counted = true;
    }
    if (rec != nullptr) {
      record_access(MemKind::kAmo, p != nullptr ? AddrSpace::kLocal : AddrSpace::kGlobal, lane, LaneAccess{addr, 4});
    }
  }
  return ok;
}


void ExecCtx::fence() {
  if (rec != nullptr) rec->mem = MemKind::kFence;
}

uint32_t ExecCtx::csr_read(uint32_t lane, uint32_t csr) {
  const Config& cfg = core.proc_.cfg_;
  switch (csr) {
    case 0x001: return w.fcsr & 0x1F;
    case 0x002: return (w.fcsr >> 5) & 7;
    case 0x003: return w.fcsr & 0xFF;
    case 0xCC0: return lane;
    case 0xCC1: return wid;
    case 0xCC2: return core.id_;
    case 0xCC3: return core.active_mask();
    case 0xCC4: return w.tmask;
    case 0xFC0: return cfg.threads;
    case 0xFC1: return cfg.warps;
    case 0xFC2: return cfg.total_cores();
    case 0xFC3: return kLmemBaseAddr;
    case 0xF14: return (core.id_ * cfg.warps + wid) * cfg.threads + lane;
    case 0xF11: case 0xF12: case 0xF13: return 0;
    case 0x340: return core.mscratch_;
    case 0x180: case 0x300: case 0x301: case 0x302: case 0x303: case 0x304: case 0x305:
    case 0x341: case 0x342: case 0x744: case 0x3A0: case 0x3B0:
      return 0;
    default: break;
  }
  if ((csr >= 0xB00 && csr <= 0xB1F) || (csr >= 0xB80 && csr <= 0xB9F)) {
    uint64_t v = core.proc_.counter_source().mpm_counter(core.id_, csr & 0x1F, core.proc_.dcr_mpm_class_);
    return csr >= 0xB80 ? static_cast<uint32_t>(v >> 32) : static_cast<uint32_t>(v);
  }
  throw sim_error(ErrorKind::kCsr, "read of unsupported CSR {:#05x} at PC {:#010x} (core {}, warp {}, lane {})", csr, pc,
                  core.id_, wid, lane);
}

void ExecCtx::csr_write(uint32_t lane, uint32_t csr, uint32_t value) {
  switch (csr) {
    case 0x001: w.fcsr = (w.fcsr & ~0x1Fu) | (value & 0x1F); return;
    case 0x002: w.fcsr = (w.fcsr & 0x1Fu) | ((value & 7) << 5); return;
    case 0x003: w.fcsr = value & 0xFF; return;
    case 0x340: core.mscratch_ = value; return;
    case 0x180: case 0x300: case 0x301: case 0x302: case 0x303: case 0x304: case 0x305:
    case 0x341: case 0x342: case 0x744: case 0x3A0: case 0x3B0:
      return;  // read as 0 in SimX; writes have no effect
    default: break;
  }
  // MPM counters are read-only for kernels (SimX aborts on the write), like 0xC00-0xFFF, which
  // the RISC-V CSR map makes read-only.
  bool read_only = (csr >> 10) == 3 || (csr >= 0xB00 && csr <= 0xB1F) || (csr >= 0xB80 && csr <= 0xB9F);
  throw sim_error(ErrorKind::kCsr, "{} CSR {:#05x} at PC {:#010x} (core {}, warp {}, lane {})",
                  read_only ? "write to read-only" : "write to unsupported", csr, pc, core.id_, wid, lane);
}

uint8_t ExecCtx::resolve_rm(uint8_t rm, const Decoded& d) {
  uint8_t r = rm == 7 ? static_cast<uint8_t>((w.fcsr >> 5) & 7) : rm;
  if (r > 4) illegal(d, rm == 7 ? "frm holds a reserved rounding mode" : "reserved rounding mode in the rm field");
  return r;
}

void ExecCtx::branch(uint32_t taken_lanes, uint32_t target) {
  bool taken;
  if (taken_lanes == 0) {
    taken = false;
  } else if (taken_lanes == mask) {
    taken = true;
  } else {
    if (core.proc_.cfg_.strict_divergence) {
      const Decoded& d = core.decoded(pc);
      throw sim_error(ErrorKind::kDivergence,
                      "divergent branch at PC {:#010x} ({}) (core {}, warp {}): lanes {} branch to {:#010x}, "
                      "lanes {} fall through to {:#010x}. Vortex hardware cannot diverge on a plain "
                      "branch; wrap it in vx_split/vx_join or use predication (docs/vortex.md §1.3), "
                      "or run with --no-strict-divergence",
                      pc, disasm(d, pc), core.id_, wid, lane_list(taken_lanes), target, lane_list(mask & ~taken_lanes),
                      pc + 4);
    }
    ++core.divergent_branches_;
    taken = ((taken_lanes >> last_lane()) & 1) != 0;
  }
  if (taken) jump(target);
}

void ExecCtx::jump(uint32_t target) {
  if ((target & 3) != 0) {
    throw sim_error(ErrorKind::kMisaligned, "jump/branch at PC {:#010x} to misaligned target {:#010x} (core {}, warp {})", pc,
                    target, core.id_, wid);
  }
  next_pc = target;
}

void ExecCtx::tmc(uint32_t new_mask) {
  w.tmask = new_mask & full_mask(nt);
  if (w.tmask == 0) core.on_warp_exit();
}

void ExecCtx::wspawn(uint32_t num_warps_req, uint32_t target) {
  uint32_t n = std::min(num_warps_req, num_warps());
  if (n < 2 && core.active_mask() == (1u << wid)) return;
  if ((target & 3) != 0 && n >= 2) {
    throw sim_error(ErrorKind::kMisaligned, "WSPAWN at PC {:#010x} with misaligned target {:#010x} (core {}, warp {})", pc,
                    target, core.id_, wid);
  }
  core.spawn_pending_ = true;
  core.spawn_caller_ = wid;
  core.spawn_count_ = n;
  core.spawn_pc_ = target;
  w.spawn_wait = true;
  core.try_release_spawn();
}

uint32_t ExecCtx::split(uint32_t then_mask) {
  uint32_t depth = static_cast<uint32_t>(w.ipdom.size());
  uint32_t then_set = then_mask & mask;
  uint32_t else_set = mask & ~then_mask;
  if (then_set != 0 && else_set != 0) {
    if (w.ipdom.size() >= nt - 1) {
      throw sim_error(ErrorKind::kIpdomOverflow,
                      "IPDOM stack overflow at PC {:#010x} (core {}, warp {}): a divergent SPLIT needs entry {} but "
                      "the stack holds NUM_THREADS-1 = {} entries",
                      pc, core.id_, wid, depth + 1, nt - 1);
    }
    bool then_first = std::popcount(then_set) >= std::popcount(else_set);
    uint32_t first = then_first ? then_set : else_set;
    uint32_t other = then_first ? else_set : then_set;
    w.ipdom.push_back(IpdomEntry{mask, other, pc + 4, false});
    w.tmask = first;
  }
  return depth;
}

void ExecCtx::join(uint32_t depth) {
  if (depth == w.ipdom.size()) return;  // the matching split was uniform
  if (w.ipdom.empty()) {
    throw sim_error(ErrorKind::kIpdomUnderflow, "JOIN at PC {:#010x} with an empty IPDOM stack (core {}, warp {}, depth operand {})",
                    pc, core.id_, wid, depth);
  }
  IpdomEntry& top = w.ipdom.back();
  if (!top.fallthrough) {
    w.tmask = top.other_mask;
    next_pc = top.pc;
    top.fallthrough = true;
  } else {
    w.tmask = top.orig_mask;
    w.ipdom.pop_back();
  }
}

void ExecCtx::barrier(uint32_t id, uint32_t count) {
  if (count < 2) return;
  bool global = (id & 0x80000000u) != 0;
  uint32_t idx = id & 0x7FFFFFFFu;
  if (global) {
    w.barrier_wait = true;
    core.gbar_arrived_ |= 1u << wid;
    core.gbar_id_ = idx;
    core.gbar_count_ = count;
    core.check_global_barrier();
    return;
  }
  if (idx >= core.bar_arrived_.size()) {
    throw sim_error(ErrorKind::kIllegalInstr, "BAR at PC {:#010x} uses barrier id {} but the core has NUM_BARRIERS = {} (core {}, warp {})",
                    pc, idx, core.bar_arrived_.size(), core.id_, wid);
  }
  if (count > num_warps()) {
    throw sim_error(ErrorKind::kDeadlock, "BAR at PC {:#010x} waits for {} warps but the core has only {} (core {}, warp {})",
                    pc, count, num_warps(), core.id_, wid);
  }
  core.bar_arrived_[idx] |= 1u << wid;
  core.bar_count_[idx] = count;
  w.barrier_wait = true;
  if (static_cast<uint32_t>(std::popcount(core.bar_arrived_[idx])) >= count) core.release_local_barrier(idx);
}

void ExecCtx::pred(uint32_t taken, uint32_t restore_mask) {
  w.tmask = taken != 0 ? taken : (restore_mask & full_mask(nt));
  if (w.tmask == 0) core.on_warp_exit();
}

void ExecCtx::halt(const char* why) {
  core.halt_reason_ = fmt::format("{} at PC {:#010x} (core {}, warp {})", why, pc, core.id_, wid);
  for (auto& other : core.warps_) {
    other.tmask = 0;
    other.barrier_wait = false;
    other.spawn_wait = false;
  }
  core.spawn_pending_ = false;
}

}  // namespace vxsim
