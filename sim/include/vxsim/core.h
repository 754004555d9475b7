#pragma once
/// \file
/// vxsim's functional machine: Processor → cores → warps → lanes (docs/vortex.md §8.5).
///
/// Driving it:
///   - Functional mode: `Processor p(cfg); load_program(p, path); p.reset(); p.run();`
///     run() round-robins the ready warps of every core until all cores are idle.
///   - Timing mode (sim/timing): after reset(), the timing model owns scheduling. Each cycle it
///     asks `Core::warp_ready(w)` and calls `Core::step(w)` for the warp it issues; the returned
///     ExecutedInstr (step.h) tells it units, registers and per-lane addresses. It stops when
///     `Processor::idle()`. If no warp of any core is ready while some are active, it calls
///     `Processor::check_deadlock()`, which throws SimError(kDeadlock). MPM CSRs (mcycle, …) are
///     read through the CounterSource the timing model installs with set_counter_source().
/// Every fault raises vxsim::SimError naming PC, warp, lane and address; the host never aborts.

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "vxsim/config.h"
#include "vxsim/isa.h"
#include "vxsim/memory.h"
#include "vxsim/step.h"

namespace vxsim {

class Processor;
class RunawayGuard;
class MemOverlay;
class RaceChecker;
struct DecodedPage;

/// Supplies the values of the MPM counter CSRs 0xB00–0xB1F (low) / 0xB80–0xB9F (high)
/// (docs/vortex.md §2.2). Index 0 = mcycle, 2 = minstret, 3..31 = class-specific counters.
class CounterSource {
 public:
  virtual ~CounterSource() = default;
  /// 64-bit value of counter `index` (0..31) of core `core_id` under MPM class `mpm_class`.
  [[nodiscard]] virtual uint64_t mpm_counter(uint32_t core_id, uint32_t index,
                                             uint32_t mpm_class) const = 0;
};

/// One IPDOM stack entry pushed by a divergent SPLIT (docs/vortex.md §1.3).
struct IpdomEntry {
  uint32_t orig_mask = 0;   ///< mask before the split (restored by the second JOIN)
  uint32_t other_mask = 0;  ///< the set not taken first
  uint32_t pc = 0;          ///< PC after the SPLIT, where the other set resumes
  bool fallthrough = false; ///< the other set has been started
};

/// Architectural state of one warp. Register files are lane-minor: x[reg * threads + lane].
struct Warp {
  uint32_t pc = 0;
  uint32_t tmask = 0;                ///< thread mask; 0 = inactive
  std::vector<uint32_t> x;           ///< 32 integer registers per lane
  std::vector<uint32_t> f;           ///< 32 FP registers per lane (binary32 bit patterns)
  std::vector<IpdomEntry> ipdom;     ///< capacity NUM_THREADS-1
  uint32_t fcsr = 0;                 ///< frm (7:5) and fflags (4:0), per warp as in SimX
  bool barrier_wait = false;         ///< suspended at a BAR
  bool spawn_wait = false;           ///< suspended by WSPAWN until it is the only active warp
  uint64_t instrs = 0;               ///< warp instructions executed
};

/// One core: NUM_WARPS warps, its local memory, MSCRATCH and barrier state.
class Core {
 public:
  Core(Processor& proc, uint32_t core_id, uint32_t cluster_id);
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  /// Global core id (cluster · cores_per_cluster + index), the value of VX_CSR_CORE_ID.
  [[nodiscard]] uint32_t id() const { return id_; }
  [[nodiscard]] uint32_t cluster_id() const { return cluster_; }
  [[nodiscard]] uint32_t num_warps() const { return static_cast<uint32_t>(warps_.size()); }
  /// True if warp `w` has a non-zero thread mask and is not suspended (barrier, wspawn-wait).
  [[nodiscard]] bool warp_ready(uint32_t w) const {
    const Warp& wp = warps_[w];
    return wp.tmask != 0 && !wp.barrier_wait && !wp.spawn_wait;
  }
  [[nodiscard]] bool warp_active(uint32_t w) const { return warps_[w].tmask != 0; }
  /// True when no warp of this core is active.
  [[nodiscard]] bool idle() const { return active_mask() == 0; }
  /// Bit w set if warp w is active (VX_CSR_ACTIVE_WARPS).
  [[nodiscard]] uint32_t active_mask() const;
  /// Bit w set if warp w is ready.
  [[nodiscard]] uint32_t ready_mask() const;

  /// Executes the next instruction of warp `w` (which must be ready) and reports it.
  /// Throws SimError on any fault, when a budget is exhausted and on an endless loop.
  ExecutedInstr step(uint32_t w);
  /// Same as step() without filling the record (functional fast path).
  void step_fast(uint32_t w);

  [[nodiscard]] const Warp& warp(uint32_t w) const { return warps_[w]; }
  [[nodiscard]] Warp& warp(uint32_t w) { return warps_[w]; }
  /// Warp instructions issued by this core since reset (the functional mcycle).
  [[nodiscard]] uint64_t warp_instrs() const { return warp_instrs_; }
  /// Thread instructions (active lanes summed) since reset (minstret; SimX's PERF instrs).
  [[nodiscard]] uint64_t thread_instrs() const { return thread_instrs_; }
  /// Conditional branches whose lanes disagreed (only counted with strict divergence off).
  [[nodiscard]] uint64_t divergent_branches() const { return divergent_branches_; }
  /// Memory-instruction counts for the functional counters.
  [[nodiscard]] uint64_t loads() const { return loads_; }
  [[nodiscard]] uint64_t stores() const { return stores_; }
  [[nodiscard]] uint64_t atomics() const { return atomics_; }
  /// If the core was stopped by ECALL/EBREAK: a description ("ebreak at PC 0x…, warp 0"), else "".
  [[nodiscard]] const std::string& halt_reason() const { return halt_reason_; }
  /// The core's local memory (2^LMEM_LOG_SIZE bytes at kLmemBaseAddr).
  [[nodiscard]] std::vector<uint8_t>& lmem() { return lmem_; }
  [[nodiscard]] uint32_t mscratch() const { return mscratch_; }

  /// Resets all warps: warp 0 with thread 0 active at `pc`, MSCRATCH = `arg`.
  void reset(uint32_t pc, uint32_t arg);
  /// Describes the suspended warps (for deadlock messages).
  [[nodiscard]] std::string describe_waits() const;
  /// The decoded instruction at `pc` (this core's decode cache; cleared by reset()).
  const Decoded& decoded(uint32_t pc);

 private:
  friend struct ExecCtx;
  friend class Processor;
  template <bool kRecord>
  void execute(uint32_t w, ExecutedInstr* rec);
  const Decoded& fetch(uint32_t pc, uint32_t w);
  void on_warp_exit();
  void try_release_spawn();
  void release_local_barrier(uint32_t id);
  void check_global_barrier();
  void release_global_barrier_wait();

  Processor& proc_;
  uint32_t id_;
  uint32_t cluster_;
  uint32_t nt_;
  std::vector<Warp> warps_;
  std::vector<uint8_t> lmem_;
  uint32_t mscratch_ = 0;
  // Barriers: per local id, the mask of arrived warps and the expected count.
  std::vector<uint32_t> bar_arrived_;
  std::vector<uint32_t> bar_count_;
  uint32_t gbar_arrived_ = 0;   ///< warps waiting at the global barrier
  uint32_t gbar_id_ = 0;
  uint32_t gbar_count_ = 0;     ///< cores expected at the cluster-level barrier
  bool gbar_registered_ = false;
  // Pending WSPAWN.
  bool spawn_pending_ = false;
  uint32_t spawn_caller_ = 0;
  uint32_t spawn_count_ = 0;
  uint32_t spawn_pc_ = 0;
  uint64_t warp_instrs_ = 0;
  uint64_t thread_instrs_ = 0;
  uint64_t divergent_branches_ = 0;
  uint64_t loads_ = 0, stores_ = 0, atomics_ = 0;
  std::string halt_reason_;
  // LR/SC reservation per lane of each warp (address+1, 0 = none).
  std::vector<uint64_t> reservation_;
  /// The partition's view of global memory in a partitioned run (Processor::set_partitions), else null.
  MemOverlay* overlay_ = nullptr;
  bool gbar_pending_ = false;  ///< arrived at the global barrier; Processor::commit_epoch registers it
  // Decode cache: page index → decoded words of that page (one per core, so cores decode in parallel).
  std::unordered_map<uint32_t, std::unique_ptr<DecodedPage>> dcache_;
  uint32_t last_dpage_index_ = 0xFFFFFFFF;
  DecodedPage* last_dpage_ = nullptr;
  /// Local-memory race checker (Config::check_races), else null.
  std::unique_ptr<RaceChecker> races_;
};

/// Result of a functional run.
struct RunResult {
  uint64_t warp_instrs = 0;    ///< summed over cores
  uint64_t thread_instrs = 0;  ///< summed over cores
  uint32_t exit_code = 0;      ///< 32-bit word at IO_MPM_EXITCODE (0x88)
};

/// The whole device: cores, global memory, DCRs, console.
class Processor {
 public:
  /// Validates `cfg` (SimError kConfig) and builds the cores.
  explicit Processor(const Config& cfg);
  ~Processor();
  Processor(const Processor&) = delete;
  Processor& operator=(const Processor&) = delete;

  [[nodiscard]] const Config& config() const { return cfg_; }
  [[nodiscard]] Memory& memory() { return mem_; }
  [[nodiscard]] const Memory& memory() const { return mem_; }
  [[nodiscard]] uint32_t num_cores() const { return static_cast<uint32_t>(cores_.size()); }
  [[nodiscard]] Core& core(uint32_t i) { return *cores_[i]; }
  [[nodiscard]] const Core& core(uint32_t i) const { return *cores_[i]; }

  /// Device configuration registers (docs/vortex.md §2.3): 0x001/0x002 startup address,
  /// 0x003/0x004 startup argument, 0x005 MPM class. Unknown addresses raise SimError(kRuntime).
  void dcr_write(uint32_t addr, uint32_t value);
  [[nodiscard]] uint32_t dcr_read(uint32_t addr) const;
  [[nodiscard]] uint32_t mpm_class() const { return dcr_mpm_class_; }

  /// Resets every core (warp 0 / thread 0 at the startup DCR address, MSCRATCH = startup arg),
  /// clears the decode cache, the console buffers and the counters. Memory is kept.
  void reset();
  /// True when no core has an active warp.
  [[nodiscard]] bool idle() const;
  /// Functional run: round-robins ready warps on every core until idle. Throws SimError on a
  /// fault, on deadlock, when a budget of Config is exhausted and on an endless loop (kRunaway).
  RunResult run();
  /// Throws SimError(kDeadlock) describing every waiting warp if some warp is active but none is
  /// ready. Returns normally otherwise.
  void check_deadlock() const;

  /// Installs the MPM counter source (not owned; nullptr = functional counts).
  void set_counter_source(const CounterSource* src) { counters_ = src; }
  [[nodiscard]] const CounterSource& counter_source() const;
  /// Console sink (default std::cout) and trace sink (default none).
  void set_console(std::ostream* os) { console_ = os; }
  void set_trace(std::ostream* os) { trace_ = os; }
  /// Prints every partly filled console line (SimX prints them when the run ends).
  void flush_console();
  /// Records the address range [lo, hi) that a loader filled with the program image (load_program
  /// calls it; lo == hi means unknown). It only refines error messages: an undecodable word
  /// fetched at a PC outside this range is reported as "PC ... is outside the loaded image".
  /// Kept across reset(), like memory.
  void set_image_range(uint32_t lo, uint32_t hi) {
    image_lo_ = lo;
    image_hi_ = hi;
  }
  /// True if an image range is known and `pc` lies outside it.
  [[nodiscard]] bool pc_outside_image(uint32_t pc) const {
    return image_lo_ < image_hi_ && (pc < image_lo_ || pc >= image_hi_);
  }
  /// Word at IO_MPM_EXITCODE.
  [[nodiscard]] uint32_t exit_code() const { return mem_.read32(kIoExitCodeAddr); }
  /// Warp instructions executed since reset, over all cores.
  [[nodiscard]] uint64_t warp_instrs() const { return total_instrs_; }
  [[nodiscard]] bool tracing() const { return trace_ != nullptr; }

  /// Partitioned execution (docs/vxsim.md "Parallel simulation"). `first_cores` lists the first
  /// core of each partition (contiguous core ranges, ascending from 0); fewer than two partitions
  /// turn it off. While on, each partition sees global memory through its own MemOverlay, console
  /// lines and global-barrier arrivals are held back, and budgets are checked by commit_epoch(),
  /// so partitions may execute concurrently on host threads between two commits.
  void set_partitions(const std::vector<uint32_t>& first_cores);
  [[nodiscard]] uint32_t num_partitions() const { return static_cast<uint32_t>(overlays_.size()); }
  /// Ends an epoch of a partitioned run, in partition order: applies each partition's stores to
  /// memory, prints the console lines completed in the epoch, registers global-barrier arrivals
  /// (which may release warps) and checks the instruction budget and the wall-clock limit.
  void commit_epoch();
  /// Starts an epoch of a partitioned run. Returns true when the runaway guard must see every
  /// instruction in this epoch (the endless-loop detector is watching): the partitions must then
  /// run one after another on one thread, in order, which gives the same result.
  bool begin_epoch();
  /// Applies what the partitions stored and printed so far and turns partitioning off (the end of
  /// a partitioned run, also after a fault).
  void end_partitions();

 private:
  friend class Core;
  friend struct ExecCtx;
  /// A byte stored at IO_COUT_ADDR + offset by `core_id`: each core has its own line per offset
  /// (SimX keeps one console buffer per core), so lines of several cores never mix.
  void console_byte(uint32_t core_id, uint32_t offset, uint8_t byte);
  void gbar_arrive(uint32_t cluster, uint32_t core_id, uint32_t count);
  void run_serial();
  void run_partitioned();
  void commit_stores();

  Config cfg_;
  Memory mem_;
  std::vector<std::unique_ptr<Core>> cores_;
  uint32_t dcr_startup_addr_[2] = {kStartupAddr, 0};
  uint32_t dcr_startup_arg_[2] = {0, 0};
  uint32_t dcr_mpm_class_ = 0;
  const CounterSource* counters_ = nullptr;
  std::unique_ptr<CounterSource> functional_counters_;
  std::ostream* console_;
  std::ostream* trace_ = nullptr;
  std::vector<std::string> console_lines_;  ///< [core × kIoCoutSize + offset]
  uint64_t total_instrs_ = 0;
  std::unique_ptr<RunawayGuard> guard_;  ///< budgets and endless-loop detector (src/runaway.h)
  uint64_t guard_at_ = 0;                ///< total_instrs_ at which execute() consults guard_
  uint32_t image_lo_ = 0;  ///< loaded image range (set_image_range), empty if unknown
  uint32_t image_hi_ = 0;
  // Cluster-level global barrier: per cluster, mask of cores arrived and the expected count.
  std::vector<uint64_t> cluster_gbar_arrived_;
  std::vector<std::unique_ptr<MemOverlay>> overlays_;  ///< per partition; empty = not partitioned
  std::vector<std::string> console_out_;               ///< per core: lines completed this epoch
  bool guarded_ = true;  ///< execute() counts total_instrs_ and consults guard_ (off in parallel epochs)
};

}  // namespace vxsim
