#pragma once
/// \file
/// Device configuration of a simulated Vortex processor and the address map constants.

#include <cstdint>

#include "vxsim/step.h"

namespace vxsim {

/// Address map of Vortex 2.x, XLEN=32 (docs/vortex.md §3.1, [M] hw/rtl/VX_config.vh).
inline constexpr uint32_t kIoBaseAddr = 0x40;          ///< IO_BASE_ADDR = IO_COUT_ADDR
inline constexpr uint32_t kIoCoutAddr = 0x40;          ///< console, 64 bytes (IO_COUT_SIZE)
inline constexpr uint32_t kIoCoutSize = 64;
inline constexpr uint32_t kIoMpmAddr = 0x80;           ///< per-core perf dump, 256 B per core (§3.5)
inline constexpr uint32_t kIoExitCodeAddr = 0x88;      ///< IO_MPM_EXITCODE
inline constexpr uint32_t kIoEndAddr = 0x10000;        ///< USER_BASE_ADDR = first allocatable byte
inline constexpr uint32_t kStartupAddr = 0x80000000;   ///< STARTUP_ADDR
inline constexpr uint32_t kStackBaseAddr = 0xFFFF0000; ///< STACK_BASE_ADDR
inline constexpr uint32_t kStackLog2Size = 13;         ///< 8 KiB of stack per hart
inline constexpr uint32_t kLmemBaseAddr = 0xFFFF0000;  ///< LMEM_BASE_ADDR (= STACK_BASE_ADDR)
inline constexpr uint64_t kGlobalMemSize = 0x100000000ull;  ///< GLOBAL_MEM_SIZE (4 GiB)
inline constexpr uint32_t kMemPageSize = 4096;         ///< MEM_PAGE_SIZE of the runtime allocator
inline constexpr uint32_t kCacheBlockSize = 64;        ///< CACHE_BLOCK_SIZE
inline constexpr uint32_t kMpmSlotsPerCore = 32;       ///< 32 × u64 per core in the perf dump

/// Size and behaviour of one simulated device. Defaults are SimX's (docs/vortex.md §8.1).
struct Config {
  uint32_t clusters = 1;        ///< NUM_CLUSTERS
  uint32_t cores = 1;           ///< NUM_CORES per cluster
  uint32_t warps = 4;           ///< NUM_WARPS per core, 1..32
  uint32_t threads = 4;         ///< NUM_THREADS per warp, 1..32
  uint32_t lmem_log_size = 14;  ///< LMEM_LOG_SIZE: 2^14 B of local memory per core
  uint32_t startup_addr = kStartupAddr;  ///< reset PC unless a DCR overrides it
  /// Runaway-kernel guards of one run (Processor::reset to idle), in both modes (docs/vxsim.md
  /// "Runaway kernels"): at most `instr_budget` warp instructions over all cores (0 = unlimited)
  /// and `time_limit_s` seconds of wall-clock time (0 = unlimited). An endless loop that changes
  /// no register and no memory is detected and stopped whatever the budgets.
  uint64_t instr_budget = 2'000'000'000ull;
  double time_limit_s = 0.0;
  /// Strict divergence (on by default, like SimX's "divergent branch!" abort): a conditional
  /// branch whose active lanes disagree raises SimError. When off, the whole warp follows the
  /// outcome of its highest active lane (thread_last), which is NOT what the hardware does; the
  /// count of such branches is kept in Core::divergent_branches().
  bool strict_divergence = true;
  /// Host threads of a run on several cores (docs/vxsim.md "Parallel simulation"); 0 = the
  /// VXSIM_HOST_THREADS variable if set, else the machine's hardware concurrency; always capped at
  /// the number of partitions. Results do not depend on it.
  uint32_t host_threads = 0;
  /// Local-memory race checker (docs/vxsim.md "Local-memory race checker"): two warps accessing
  /// the same local-memory word with no barrier between them, one of them storing, raise
  /// SimError(kRace). Off by default; off costs one pointer test per local-memory access.
  bool check_races = false;

  /// Total cores (clusters × cores).
  [[nodiscard]] uint32_t total_cores() const { return clusters * cores; }
  /// Throws SimError when a field is out of range (warps/threads 1..32, cores ≥ 1, ...).
  void validate() const;
};

}  // namespace vxsim
