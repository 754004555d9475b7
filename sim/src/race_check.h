#pragma once
// Local-memory race checker of one core (docs/vxsim.md "Local-memory race checker"), on with
// Config::check_races (`vxsim --check-races`, VXSIM_CHECK_RACES=1).
//
// Happens-before model: every warp counts the local (and global) barrier releases it has passed;
// a WSPAWN that starts warps orders everything before it (every warp's count becomes one more than
// the largest). Two accesses to the same byte of local memory by different warps are ordered iff
// the warps' counts differ; with equal counts, when at least one is a store, they race. Shadow
// state per 4-byte word of local memory: the last store (warp, count, bytes, PC, lane) and the two
// most recent loads of the highest count by two different warps. Ordering is by program order
// within a warp: two lanes of one warp never race.

#include <cstdint>
#include <vector>

namespace vxsim {

enum class LmemAccess : uint8_t { kLoad, kStore, kAmo };

class RaceChecker {
 public:
  RaceChecker(uint32_t lmem_bytes, uint32_t warps);
  /// Forgets every access and sets every warp's count to 0 (Core::reset).
  void reset();
  /// Checks one lane's access of `size` bytes (1, 2 or 4, naturally aligned) at byte `offset` of
  /// local memory and records it. Throws SimError(kRace) naming both accesses when it races.
  void access(uint32_t core, uint32_t warp, uint32_t lane, uint32_t pc, uint32_t offset, uint32_t size,
              LmemAccess kind);
  /// The warps of `warp_mask` passed a barrier release.
  void barrier_release(uint32_t warp_mask);
  /// A WSPAWN started warps: everything before is ordered before everything after.
  void spawn();

 private:
  static constexpr uint8_t kNone = 0xFF;
  struct Rec {
    uint32_t pc = 0;
    uint32_t count = 0;
    uint8_t warp = kNone;
    uint8_t lane = 0;
    uint8_t bytes = 0;  ///< bytes of the word touched (bit i = byte i)
    bool amo = false;
  };
  struct Shadow {
    Rec store;
    Rec load;       ///< most recent load at the highest count seen
    Rec prev_load;  ///< most recent load at that count by a warp other than load.warp
  };
  [[noreturn]] void report(const char* kind, const Rec& earlier, uint32_t core, uint32_t warp, uint32_t lane,
                           uint32_t pc, uint32_t offset, uint32_t size, LmemAccess now) const;
  static bool conflicts(const Rec& r, uint32_t warp, uint32_t count, uint8_t bytes, bool amo) {
    return r.warp != kNone && r.warp != warp && r.count == count && (r.bytes & bytes) != 0 && !(r.amo && amo);
  }

  std::vector<uint32_t> count_;  ///< per warp: barrier releases passed
  std::vector<Shadow> shadow_;   ///< per word of local memory
};

}  // namespace vxsim
