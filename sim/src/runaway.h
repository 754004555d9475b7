#pragma once
// Runaway-kernel guard of a Processor (docs/vxsim.md "Runaway kernels"): the instruction budget,
// the wall-clock limit and the endless-loop detector. Processor::execute calls check() only when
// its warp-instruction count reaches next_check(), so the fast path costs one comparison.
//
// Endless-loop detector. Every kProbeInterval warp instructions it watches the device for a
// window: it records each ready warp's whole architectural state (PC, thread mask, fcsr, IPDOM
// stack, every lane's x and f registers) the first time the warp executes in the window, and
// marks the warp as looping when it comes back to that PC with exactly that state. When every
// ready warp of every core loops and no instruction of the window wrote memory (no store, AMO,
// LR/SC, console byte), executed warp control or accessed a CSR, the kernel can never finish:
// memory is constant, so each warp's loop repeats forever and only warp control could release a
// waiting warp. The window ends without a verdict when any of those happened or after
// window_instrs() instructions, and the next probe comes kProbeInterval instructions later. A
// loop whose registers keep changing (a counter) is not detected; the budgets stop it.

#include <chrono>
#include <cstdint>
#include <vector>

#include "vxsim/core.h"
#include "vxsim/isa.h"

namespace vxsim {

class RunawayGuard {
 public:
  /// Warp instructions between two probes of the endless-loop detector.
  static constexpr uint64_t kProbeInterval = uint64_t{1} << 22;
  /// Warp instructions between two reads of the wall clock.
  static constexpr uint64_t kClockInterval = uint64_t{1} << 16;

  /// Starts a run (Processor::reset): budget and time limit from the processor's Config.
  void reset(const Processor& p);
  /// Warp-instruction count at which Processor::execute must call check() next.
  [[nodiscard]] uint64_t next_check() const { return next_check_; }
  /// Called before warp `w` of `core` executes `d` once the count reached next_check(). Throws
  /// SimError(kBudget) for an exhausted budget or wall-clock limit, SimError(kRunaway) when the
  /// endless-loop detector proves the kernel cannot finish.
  void check(Processor& p, Core& core, uint32_t w, const Decoded& d);
  /// The budget and wall-clock checks of a partitioned run, at the end of an epoch
  /// (Processor::commit_epoch); names the first active warp. The endless-loop detector needs every
  /// instruction in order and does not run there (the wall-clock limit stops such a kernel).
  void check_epoch(const Processor& p);
  /// The detector watches (or starts to at the next instruction) after `instrs` warp instructions.
  [[nodiscard]] bool needs_every_instruction(uint64_t instrs) const { return watching_ || instrs >= next_probe_; }

 private:
  struct Snapshot {
    uint64_t window = 0;  ///< window id the snapshot belongs to (0 = none)
    bool looped = false;
    uint64_t instrs = 0;  ///< the warp's instruction count at the snapshot
    uint64_t period = 0;  ///< instructions of one loop iteration, once looped
    uint32_t pc = 0, tmask = 0, fcsr = 0;
    std::vector<IpdomEntry> ipdom;
    std::vector<uint32_t> x, f;
  };
  void check_clock(const Processor& p, uint32_t pc, uint32_t core, uint32_t w);
  void watch(Processor& p, Core& core, uint32_t w, const Decoded& d);
  void end_window(uint64_t instrs);
  [[nodiscard]] bool all_looping(const Processor& p) const;
  [[noreturn]] void report(const Processor& p) const;
  [[nodiscard]] static uint64_t memory_writes(const Processor& p);
  void update_next(uint64_t instrs);

  uint64_t budget_ = 0;
  double time_limit_s_ = 0.0;
  std::chrono::steady_clock::time_point start_;
  uint64_t next_check_ = 0;
  uint64_t next_clock_ = 0;
  uint64_t next_probe_ = 0;
  bool watching_ = false;
  uint64_t window_ = 0;       ///< id of the current window
  uint64_t window_end_ = 0;   ///< warp-instruction count at which the window gives up
  uint64_t writes_at_start_ = 0;
  std::vector<Snapshot> snaps_;  ///< per global warp (core × warps + warp)
};

}  // namespace vxsim
