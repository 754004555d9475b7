// Runaway-kernel guard: instruction budget, wall-clock limit, endless-loop detector (runaway.h).
#include "runaway.h"

#include <algorithm>
#include <bit>
#include <limits>

#include <fmt/format.h>

#include "vxsim/error.h"

namespace vxsim {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

bool same_ipdom(const std::vector<IpdomEntry>& a, const std::vector<IpdomEntry>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const IpdomEntry& x, const IpdomEntry& y) {
    return x.orig_mask == y.orig_mask && x.other_mask == y.other_mask && x.pc == y.pc &&
           x.fallthrough == y.fallthrough;
  });
}

}  // namespace

void RunawayGuard::reset(const Processor& p) {
  budget_ = p.config().instr_budget;
  time_limit_s_ = p.config().time_limit_s;
  start_ = std::chrono::steady_clock::now();
  next_clock_ = kClockInterval;
  next_probe_ = kProbeInterval;
  watching_ = false;
  snaps_.resize(static_cast<std::size_t>(p.num_cores()) * p.config().warps);
  update_next(0);
}

void RunawayGuard::update_next(uint64_t instrs) {
  uint64_t next = budget_ != 0 ? budget_ : kNever;
  if (time_limit_s_ > 0) next = std::min(next, next_clock_);
  next = std::min(next, watching_ ? instrs + 1 : next_probe_);
  next_check_ = next;
}

void RunawayGuard::check(Processor& p, Core& core, uint32_t w, const Decoded& d) {
  const uint64_t n = p.warp_instrs();
  const uint32_t pc = core.warp(w).pc;
  if (budget_ != 0 && n >= budget_) {
    throw sim_error(ErrorKind::kBudget,
                    "instruction budget of {} warp instructions exhausted (runaway kernel?) at PC "
                    "{:#010x} (core {}, warp {}); raise it with --budget / VXSIM_BUDGET",
                    budget_, pc, core.id(), w);
  }
  if (time_limit_s_ > 0 && n >= next_clock_) {
    check_clock(p, pc, core.id(), w);
    next_clock_ = n + kClockInterval;
  }
  if (!watching_ && n >= next_probe_) {
    watching_ = true;
    ++window_;
    window_end_ = n + 65536 + 256 * snaps_.size();
    writes_at_start_ = memory_writes(p);
  }
  if (watching_) watch(p, core, w, d);
  update_next(n);
}

void RunawayGuard::check_epoch(const Processor& p) {
  const uint64_t n = p.warp_instrs();
  const bool over_budget = budget_ != 0 && n >= budget_;
  if (!over_budget && time_limit_s_ <= 0) return;
  uint32_t core = 0, w = 0;
  for (uint32_t c = 0; c < p.num_cores(); ++c) {
    const uint32_t m = p.core(c).active_mask();
    if (m != 0) {
      core = c;
      w = static_cast<uint32_t>(std::countr_zero(m));
      break;
    }
  }
  const uint32_t pc = p.core(core).warp(w).pc;
  if (over_budget) {
    throw sim_error(ErrorKind::kBudget,
                    "instruction budget of {} warp instructions exhausted (runaway kernel?) at PC "
                    "{:#010x} (core {}, warp {}); raise it with --budget / VXSIM_BUDGET",
                    budget_, pc, core, w);
  }
  check_clock(p, pc, core, w);
}

void RunawayGuard::check_clock(const Processor& p, uint32_t pc, uint32_t core, uint32_t w) {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  if (elapsed.count() <= time_limit_s_) return;
  throw sim_error(ErrorKind::kBudget,
                  "wall-clock limit of {} s exceeded after {} warp instructions (runaway kernel?) at PC "
                  "{:#010x} (core {}, warp {}); raise it with --time-limit / VXSIM_TIME_LIMIT (0 = none)",
                  time_limit_s_, p.warp_instrs(), pc, core, w);
}

void RunawayGuard::end_window(uint64_t instrs) {
  watching_ = false;
  next_probe_ = instrs + kProbeInterval;
}

void RunawayGuard::watch(Processor& p, Core& core, uint32_t w, const Decoded& d) {
  const uint64_t n = p.warp_instrs();
  // Warp control and CSRs change state outside the warp's registers (other warps, barriers,
  // counters): such a window proves nothing. An illegal word throws right after this call.
  const UnitClass unit = d.op == kIllegalOp ? UnitClass::kAlu : instr_table()[d.op].unit;
  if (unit == UnitClass::kSfuWctl || unit == UnitClass::kSfuCsr || n >= window_end_) {
    end_window(n);
    return;
  }
  const Warp& wp = core.warp(w);
  Snapshot& s = snaps_[static_cast<std::size_t>(core.id()) * p.config().warps + w];
  if (s.window != window_) {
    s.window = window_;
    s.looped = false;
    s.instrs = wp.instrs;
    s.pc = wp.pc;
    s.tmask = wp.tmask;
    s.fcsr = wp.fcsr;
    s.ipdom = wp.ipdom;
    s.x = wp.x;
    s.f = wp.f;
    return;
  }
  if (s.looped || wp.pc != s.pc || wp.tmask != s.tmask || wp.fcsr != s.fcsr || !same_ipdom(wp.ipdom, s.ipdom) ||
      wp.x != s.x || wp.f != s.f) {
    return;
  }
  s.looped = true;
  s.period = wp.instrs - s.instrs;
  if (!all_looping(p)) return;
  if (memory_writes(p) != writes_at_start_) {
    end_window(n);
    return;
  }
  report(p);
}

uint64_t RunawayGuard::memory_writes(const Processor& p) {
  uint64_t n = 0;
  for (uint32_t c = 0; c < p.num_cores(); ++c) n += p.core(c).stores() + p.core(c).atomics();
  return n;
}

bool RunawayGuard::all_looping(const Processor& p) const {
  const uint32_t warps = p.config().warps;
  for (uint32_t c = 0; c < p.num_cores(); ++c) {
    for (uint32_t w = 0; w < warps; ++w) {
      if (!p.core(c).warp_ready(w)) continue;
      const Snapshot& s = snaps_[static_cast<std::size_t>(c) * warps + w];
      if (s.window != window_ || !s.looped) return false;
    }
  }
  return true;
}

void RunawayGuard::report(const Processor& p) const {
  const uint32_t warps = p.config().warps;
  std::string loops;
  uint32_t listed = 0, more = 0;
  for (uint32_t c = 0; c < p.num_cores(); ++c) {
    for (uint32_t w = 0; w < warps; ++w) {
      if (!p.core(c).warp_ready(w)) continue;
      const Snapshot& s = snaps_[static_cast<std::size_t>(c) * warps + w];
      if (listed == 8) {
        ++more;
        continue;
      }
      loops += fmt::format("{}core {} warp {} at PC {:#010x} (every {} instructions)", listed == 0 ? "" : "; ", c, w,
                           s.pc, s.period);
      ++listed;
    }
  }
  if (more != 0) loops += fmt::format("; and {} more warps", more);
  throw sim_error(ErrorKind::kRunaway,
                  "endless loop after {} warp instructions: every active warp repeats a loop that writes no "
                  "memory and returns to the same registers, so the kernel can never finish: {}. (A warp "
                  "waiting for a value no warp writes, e.g. a flag or a lock, spins like this.)",
                  p.warp_instrs(), loops);
}

}  // namespace vxsim
