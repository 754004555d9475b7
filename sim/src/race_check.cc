// Local-memory race checker (race_check.h; docs/vxsim.md "Local-memory race checker").
#include "race_check.h"

#include <algorithm>

#include "vxsim/config.h"
#include "vxsim/error.h"

namespace vxsim {

namespace {
const char* verb(LmemAccess k) {
  switch (k) {
    case LmemAccess::kLoad: return "load";
    case LmemAccess::kStore: return "store";
    case LmemAccess::kAmo: return "AMO";
  }
  return "access";
}
}  // namespace

RaceChecker::RaceChecker(uint32_t lmem_bytes, uint32_t warps) : count_(warps, 0), shadow_((lmem_bytes + 3) / 4) {}

void RaceChecker::reset() {
  std::fill(count_.begin(), count_.end(), 0);
  std::fill(shadow_.begin(), shadow_.end(), Shadow{});
}

void RaceChecker::barrier_release(uint32_t warp_mask) {
  for (uint32_t w = 0; w < count_.size(); ++w) count_[w] += (warp_mask >> w) & 1;
}

void RaceChecker::spawn() {
  const uint32_t next = *std::max_element(count_.begin(), count_.end()) + 1;
  std::fill(count_.begin(), count_.end(), next);
}

void RaceChecker::access(uint32_t core, uint32_t warp, uint32_t lane, uint32_t pc, uint32_t offset, uint32_t size,
                         LmemAccess kind) {
  Shadow& s = shadow_[offset >> 2];
  const uint32_t count = count_[warp];
  const auto bytes = static_cast<uint8_t>(((1u << size) - 1) << (offset & 3));
  const bool amo = kind == LmemAccess::kAmo;
  const Rec now{pc, count, static_cast<uint8_t>(warp), static_cast<uint8_t>(lane), bytes, amo};
  const auto fail = [&](const char* what, const Rec& earlier) {
    report(what, earlier, core, warp, lane, pc, offset, size, kind);
  };
  if (conflicts(s.store, warp, count, bytes, amo)) fail(kind == LmemAccess::kLoad ? "write-read" : "write-write", s.store);
  if (kind == LmemAccess::kLoad) {
    if (s.load.warp == kNone || count > s.load.count) {  // a newer interval: forget older loads
      s.load = now;
      s.prev_load = Rec{};
    } else if (count == s.load.count) {
      if (s.load.warp != warp) s.prev_load = s.load;
      s.load = now;
    }  // a load at a lower count than the remembered ones is not remembered
    return;
  }
  if (conflicts(s.load, warp, count, bytes, amo)) fail("read-write", s.load);
  if (conflicts(s.prev_load, warp, count, bytes, amo)) fail("read-write", s.prev_load);
  s.store = now;
}

void RaceChecker::report(const char* kind, const Rec& earlier, uint32_t core, uint32_t warp, uint32_t lane,
                         uint32_t pc, uint32_t offset, uint32_t size, LmemAccess now) const {
  const bool earlier_load = kind[0] == 'r';
  throw sim_error(ErrorKind::kRace,
                  "local-memory race ({}) at {:#010x}: {}-byte {} at PC {:#010x} (core {}, warp {}, lane {}) "
                  "follows the {} of the same word at PC {:#010x} (core {}, warp {}, lane {}) with no barrier "
                  "between them (both warps in barrier interval {}: barrier releases and WSPAWNs passed since "
                  "the launch); put a barrier (vx_barrier / __syncthreads) between the two accesses",
                  kind, kLmemBaseAddr + offset, size, verb(now), pc, core, warp, lane,
                  earlier_load ? "load" : (earlier.amo ? "AMO" : "store"), earlier.pc, core,
                  static_cast<uint32_t>(earlier.warp), static_cast<uint32_t>(earlier.lane), earlier.count);
}

}  // namespace vxsim
