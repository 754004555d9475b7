#pragma once
/// \file
/// vxsim's cycle-level timing model, in the spirit of SimX (docs/vortex.md §8.1, §8.5).
///
/// Per core, every cycle:
///  1. **Issue** (one per issue slot): among warps whose instruction-buffer head has been decoded,
///     starting after the last warp that issued (round-robin), the first whose source and
///     destination registers are not pending in the scoreboard and whose functional-unit group is
///     free issues. Its result is ready after the unit's latency (memory: when the data is back).
///  2. **Schedule + fetch** (one per issue slot): the lowest-numbered warp that is active and
///     not stalled in the functional core, not waiting on a control instruction, not between fetch
///     and decode, and has instruction-buffer room, is stepped by the functional core
///     (`FunctionalDevice::step`) and fetched through the I-cache. A control instruction
///     (`ExecutedInstr::is_control`) stalls the warp's fetch until it completes (SimX's fetch_stall:
///     no speculation past control flow).
/// Cycles in which no core can do anything are skipped in one step, and each core skips on its
/// own the cycles in which it can do nothing while others work; the stall counters of the skipped
/// cycles are added as if each had been ticked (the core's state is constant across them).
///
/// The functional core executes an instruction architecturally when it is *scheduled*; the timing
/// model only decides when. Memory values therefore follow schedule order, which is a legal
/// interleaving of the warps.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "vxsim/step.h"
#include "vxsim/timing/config.h"
#include "vxsim/timing/counters.h"
#include "vxsim/timing/memory.h"

namespace vxsim::timing {

/// What the timing model needs from the functional simulator: warp state and `step`. Core ids are
/// global (cluster × cores + core). simcore's Core/Processor is adapted to this in the runtime glue.
class FunctionalDevice {
 public:
  virtual ~FunctionalDevice() = default;
  /// The warp has a non-zero thread mask.
  [[nodiscard]] virtual bool warp_active(uint32_t core, uint32_t warp) const = 0;
  /// The warp is active and not stalled (barrier, wspawn wait): it may execute its next instruction.
  [[nodiscard]] virtual bool warp_ready(uint32_t core, uint32_t warp) const = 0;
  /// Both of the above in one call: bit 0 active, bit 1 ready (the timing model asks after every
  /// step; one virtual call instead of two).
  [[nodiscard]] virtual uint32_t warp_state(uint32_t core, uint32_t warp) const {
    return (warp_active(core, warp) ? 1u : 0u) | (warp_ready(core, warp) ? 2u : 0u);
  }
  /// Executes the warp's next instruction and describes it. Throws vxsim::SimError on a
  /// simulated-program fault.
  virtual ExecutedInstr step(uint32_t core, uint32_t warp) = 0;
  /// True when step()'s warp_exited and warp_stalled give the stepped warp's state after the step
  /// exactly as warp_state() would (active = !warp_exited, ready = active && !warp_stalled); the
  /// model then reads them instead of calling warp_state() after an instruction that is not warp
  /// control (fixed for the device's lifetime).
  [[nodiscard]] virtual bool records_warp_state() const { return false; }
  /// Called when no warp can ever proceed; may throw a more specific SimError(kDeadlock) naming
  /// the waits. If it returns, the timing model throws its own.
  virtual void check_deadlock() const {}
  /// Partitioned runs (docs/vxsim.md "Parallel simulation"): the partitions' first cores, set
  /// before the run and cleared ({}) after it; then, after every epoch, commit_epoch() merges what
  /// the partitions did to shared functional state (memory, console, global barriers, budgets).
  virtual void set_partitions(const std::vector<uint32_t>& /*first_cores*/) {}
  virtual void commit_epoch() {}
  /// Starts an epoch; true = run the partitions one after another on one thread this time.
  virtual bool begin_epoch() { return false; }
  /// Host threads to use for `partitions` partitions (results do not depend on it).
  [[nodiscard]] virtual uint32_t host_threads(uint32_t /*partitions*/) const { return 1; }
};

/// MPM counter classes held in DCR 0x005 (docs/vortex.md §2.2).
enum class MpmClass : uint32_t { kNone = 0, kCore = 1, kMem = 2 };

/// The timing model of a whole device.
class TimingModel {
 public:
  /// Throws vxsynth::Error when `cfg` is invalid.
  TimingModel(const TimingConfig& cfg, FunctionalDevice& dev);
  ~TimingModel();
  TimingModel(const TimingModel&) = delete;
  TimingModel& operator=(const TimingModel&) = delete;

  /// Runs one kernel launch from the functional core's current state until no warp is active on
  /// any core and every issued instruction has completed. Counters, caches and DRAM state are reset
  /// first (SimX resets its counters at each launch, §12). Returns the device's cycles.
  /// Throws vxsim::SimError(kDeadlock) when active warps remain but none can ever proceed, and
  /// vxsynth::Error when `max_cycles` is exceeded.
  uint64_t run();

  /// The current cycle (live during run(), the final cycle count after it).
  [[nodiscard]] uint64_t now() const { return now_; }

  /// Reads MPM CSR `csr` (0xB00..0xB1F low word, 0xB80..0xB9F high word) of `core` for the MPM
  /// class `cls` as SimX defines it (docs/vortex.md §2.2), live. Unknown or class-less CSRs
  /// read 0 (as in SimX). The full 64-bit value is returned by mpm_value().
  [[nodiscard]] uint32_t mpm_read(uint32_t core, uint32_t csr, MpmClass cls) const;
  /// 64-bit value of MPM slot `index` (0..31) for `core` and `cls`.
  [[nodiscard]] uint64_t mpm_value(uint32_t core, uint32_t index, MpmClass cls) const;

  /// First core of each partition the model simulates independently between two epoch ends: whole
  /// sockets (whole clusters with the L2 on); one partition with the L3 on or when sockets do not
  /// divide the clusters. With one partition the model is the cycle-by-cycle loop above.
  [[nodiscard]] const std::vector<uint32_t>& partitions() const { return partitions_; }

  /// Charges the D-cache and DRAM traffic of the following runs to their memory instructions
  /// (mem_profile.h); each run clears `profile` first. Null (the default) profiles nothing. The
  /// profile only observes: cycles and counters are those of a run without it.
  void set_mem_profile(MemProfile* profile) { profile_ = profile; }

  /// Snapshot of all counters (per core, L2 per cluster, L3, DRAM).
  [[nodiscard]] DeviceCounters counters() const;
  [[nodiscard]] const TimingConfig& config() const { return cfg_; }

 private:
  struct Core;
  void reset();
  uint64_t run_serial();
  /// run_serial's cycle loop: every core / the only core (until no core is busy).
  void run_cores();
  void run_one_core(Core& core);
  /// Throws when the run passed cfg_.max_cycles (after syncing the counters).
  void check_cycle_limit();
  /// No core can ever proceed: syncs the counters and throws (after the device's own check).
  [[noreturn]] void throw_deadlock();
  uint64_t run_partitioned();
  struct PartRun;
  void run_part(uint32_t part, uint64_t from, uint64_t to, PartRun& st);
  [[nodiscard]] bool busy(const Core& core) const;
  bool tick_core(Core& core);
  /// The issue stage of one issue slot at the core's cycle: issues a warp or charges the stall.
  void issue_slot(Core& core, uint32_t slot);
  /// Issues the lowest-numbered warp of `candidates` (decoded heads with a clear scoreboard) whose
  /// unit is free; false when there is none.
  bool issue_first_free(Core& core, uint32_t slot, uint32_t candidates);
  /// The schedule stage of one issue slot: schedules a warp (true), else adds the slot's ready
  /// warps that could fetch but for a full instruction buffer to `fetch_full`.
  bool schedule_slot(Core& core, uint32_t slot, uint32_t& fetch_full);
  /// Adds a scoreboard stall of the `waiting` heads (decoded, scoreboard not clear) to the delta.
  void charge_scoreboard_stall(Core& core, uint32_t waiting);
  /// Ticks the core at its cycle (Core::now) and sets its wake: the next cycle when it scheduled or
  /// issued (returns true), else its next_event.
  bool tick_and_wake(Core& core);
  /// Ticks at cycle t those of cores [first, end) whose wake has come (Core::wake); sets
  /// any_worked when one of them scheduled or issued. Returns the earliest wake of the cores
  /// after it: t + 1 when one worked, else their earliest next_event.
  uint64_t tick_cores(uint32_t first, uint32_t end, uint64_t t, bool& any_worked);
  /// Adds the core's constant stall increments of its skipped cycles before t to its counters.
  void sync_counters(Core& core, uint64_t t);
  /// After `from`'s warp control refreshed its partition's warps: its cores are ticked again.
  void wake_partition(const Core& from);
  void schedule(Core& core, uint32_t warp);
  void set_head(Core& core, uint32_t warp);
  /// Copies the warp's fetch time to Core::fetch_at after it changed.
  void sync_fetch(Core& core, uint32_t warp);
  void issue(Core& core, uint32_t warp);
  void refresh_warp(Core& core, uint32_t warp);
  /// Sets warp's bits of the active/ready masks from `state` (FunctionalDevice::warp_state's form).
  void set_warp_state(Core& core, uint32_t warp, uint32_t state);
  void refresh_all();
  void refresh_cores(uint32_t first, uint32_t end);
  [[nodiscard]] uint64_t next_event(const Core& core) const;
  [[nodiscard]] uint32_t latency(UnitClass u) const;
  [[nodiscard]] uint32_t unit_block(uint32_t warp, UnitGroup g) const;
  void init_slots();
  [[nodiscard]] uint8_t count_stack_lanes(const ExecutedInstr& in) const;

  TimingConfig cfg_;
  FunctionalDevice& dev_;
  std::unique_ptr<MemorySystem> mem_;
  MemProfile* profile_ = nullptr;
  std::optional<StackInterleave> stacks_;  ///< with stack_interleave: the LSU's stack address map
  uint64_t stack_bottom_ = 0;  ///< lowest address of the per-hart stacks (memory profile)
  std::vector<std::unique_ptr<Core>> cores_;
  std::vector<uint32_t> partitions_;  ///< first core of each partition
  uint64_t now_ = 0;
  uint32_t simd_ = 1;
  uint32_t issue_width_ = 1;
  uint32_t lsu_blocks_ = 1;
  uint32_t sfu_blocks_ = 1;
  bool state_in_record_ = false;  ///< dev_.records_warp_state()
  uint32_t block_shift_ = 0;      ///< log2 of the block size (byte address >> it = block number)
  Divisor dcache_banks_;          ///< the D-cache's banks (one request per bank and cycle)
  uint32_t unit_occupancy_ = 1;  ///< cycles a unit is busy per warp instruction: ceil(threads / SIMD)
  std::array<uint32_t, 11> latency_{};
  std::vector<uint32_t> slot_mask_;  ///< per issue slot: the warps it issues (w % issue width)
  uint32_t all_warps_ = 0;           ///< bit w set for each warp of a core
  uint32_t ibuf_mask_ = 0;           ///< instruction-buffer ring size - 1 (a power of two ≥ ibuf_size)
  /// Unit block of warp w for group g: block_of_[g][w] (see init_slots).
  std::array<std::array<uint8_t, kMaxWarps>, kNumUnitGroups> block_of_{};
};

}  // namespace vxsim::timing
