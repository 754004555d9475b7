#pragma once
/// \file
/// Performance counters of the timing model: one struct per unit kind, one CoreCounters per core,
/// and the shared memory-side counters. Names follow SimX's MPM counters (docs/vortex.md §2.2);
/// the extra "signature inputs" are what docs/signature.md §1 needs.
///
/// Counter definitions (the timing model is the only writer):
/// | counter | definition |
/// |---|---|
/// | cycles | cycles from launch until this core's last instruction completed |
/// | warp_instrs / thread_instrs | issued warp instructions / Σ active lanes over them (SimX `instrs` = thread instructions, §12) |
/// | sched_idle | cycles with no active warp on the core |
/// | sched_stalls | cycles with active warps, none schedulable (fetch stall on a control instruction, barrier, decode in flight) |
/// | ibuf_stalls | cycles where a schedulable warp was held back only by a full instruction buffer |
/// | scrb_stalls | cycles where no instruction issued and at least one buffered head waited on a register |
/// | scrb_<unit> | per stalled head, the unit class of the in-flight producer of the register it waits on |
/// | opds_stalls | cycles where no instruction issued and a ready head waited for its busy functional unit |
/// | ifetches / ifetch_latency | fetches / Σ (I-cache response − request) |
/// | loads / load_latency / stores | load (store) warp instructions to any space / Σ (last data back − issue) |
/// | lmem_reads/writes | lane accesses to local memory after same-word broadcast merging |
/// | lmem_bank_stalls | Σ (conflict cycles − 1) over local-memory instructions |
/// | coalescer_misses | Σ (block requests − 1) over global memory instructions with ≥ 1 active lane |
/// | busy[u] | cycles unit class u accepted work (issue-busy; an instruction over more lanes than the unit has occupies it several cycles) |
/// | active_warp_cycles | Σ over cycles of the number of active warps (occupancy numerator) |
/// | gld_* | global loads only: instructions, bytes requested by active lanes, distinct 32-byte sectors |
/// | warp_flops[w] | arithmetic issued by warp w of the core: scalar FP operations (FMA = 2) + 2 × tensor MACs |

#include <array>
#include <cstdint>
#include <vector>

#include "vxsim/step.h"

namespace vxsim::timing {

/// Functional-unit groups as SimX reports them (ALU, FPU, LSU, SFU, TCU).
enum class UnitGroup : uint8_t { kAlu, kFpu, kLsu, kSfu, kTcu };
inline constexpr std::size_t kNumUnitGroups = 5;

/// Group of a unit class (vxsim/step.h → SimX's dispatch targets).
[[nodiscard]] constexpr UnitGroup unit_group(UnitClass u) {
  switch (u) {
    case UnitClass::kAlu:
    case UnitClass::kMul:
    case UnitClass::kDiv: return UnitGroup::kAlu;
    case UnitClass::kFpuFma:
    case UnitClass::kFpuDivSqrt:
    case UnitClass::kFpuCvt:
    case UnitClass::kFpuMisc: return UnitGroup::kFpu;
    case UnitClass::kLsu: return UnitGroup::kLsu;
    case UnitClass::kSfuWctl:
    case UnitClass::kSfuCsr: return UnitGroup::kSfu;
    case UnitClass::kTcu: return UnitGroup::kTcu;
  }
  return UnitGroup::kAlu;
}

/// Scoreboard-stall attribution classes of SimX's PERF line (alu, fpu, lsu, csrs, wctl, tcu).
enum class ScrbClass : uint8_t { kAlu, kFpu, kLsu, kCsrs, kWctl, kTcu };
inline constexpr std::size_t kNumScrbClasses = 6;

[[nodiscard]] constexpr ScrbClass scrb_class(UnitClass u) {
  switch (unit_group(u)) {
    case UnitGroup::kAlu: return ScrbClass::kAlu;
    case UnitGroup::kFpu: return ScrbClass::kFpu;
    case UnitGroup::kLsu: return ScrbClass::kLsu;
    case UnitGroup::kTcu: return ScrbClass::kTcu;
    case UnitGroup::kSfu: return u == UnitClass::kSfuCsr ? ScrbClass::kCsrs : ScrbClass::kWctl;
  }
  return ScrbClass::kAlu;
}

/// One cache's counters (SimX class-2 names). Reads/writes are block requests after coalescing.
struct CacheCounters {
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t read_misses = 0;   ///< includes secondary misses merged into a pending MSHR
  uint64_t write_misses = 0;  ///< write-through, no write-allocate: a write miss allocates nothing
  uint64_t bank_stalls = 0;   ///< cycles requests waited for a busy bank
  uint64_t mshr_stalls = 0;   ///< cycles misses waited for a free MSHR
  CacheCounters& operator+=(const CacheCounters& o);
};

/// DRAM counters (SimX MEM_*), plus bytes for the signature.
struct DramCounters {
  uint64_t reads = 0;          ///< block reads
  uint64_t writes = 0;         ///< block writes (each write-through store request is one masked block write)
  uint64_t read_latency = 0;   ///< Σ (data back − request arrival) over reads, cycles
  uint64_t bank_stalls = 0;    ///< cycles requests waited for a busy channel
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  DramCounters& operator+=(const DramCounters& o);
};

/// Everything counted for one core.
struct CoreCounters {
  uint64_t cycles = 0;
  uint64_t warp_instrs = 0;
  uint64_t thread_instrs = 0;
  // Pipeline (MPM class 1).
  uint64_t sched_idle = 0;
  uint64_t sched_stalls = 0;
  uint64_t ibuf_stalls = 0;
  uint64_t scrb_stalls = 0;
  std::array<uint64_t, kNumScrbClasses> scrb{};  ///< indexed by ScrbClass
  uint64_t opds_stalls = 0;
  uint64_t ifetches = 0;
  uint64_t ifetch_latency = 0;
  uint64_t loads = 0;
  uint64_t load_latency = 0;
  uint64_t stores = 0;
  // Memory (MPM class 2), attributed to the requesting core.
  CacheCounters icache;
  CacheCounters dcache;
  uint64_t lmem_reads = 0;
  uint64_t lmem_writes = 0;
  uint64_t lmem_bank_stalls = 0;
  uint64_t coalescer_misses = 0;
  // Signature inputs.
  std::array<uint64_t, kNumUnitGroups> busy{};          ///< indexed by UnitGroup
  std::array<uint64_t, kNumUnitGroups> unit_instrs{};   ///< warp instructions per unit group
  uint64_t fp_flops = 0;        ///< scalar FP operations, FMA = 2 (from the functional core)
  uint64_t tcu_macs = 0;        ///< tensor multiply-accumulates (FLOPs = 2 × MACs)
  uint64_t tcu_micro_ops = 0;
  uint64_t amo_instrs = 0;      ///< AMO warp instructions (any space)
  uint64_t active_warp_cycles = 0;
  uint64_t gld_instrs = 0;
  uint64_t gld_bytes = 0;       ///< bytes requested by active lanes of global loads (distinct addresses)
  uint64_t gld_sectors = 0;     ///< distinct 32-byte sectors those loads touched (per instruction)
  uint64_t gst_instrs = 0;
  uint64_t lmem_instrs = 0;
  uint64_t branches = 0;        ///< control instructions (fetch-stalling)
  uint64_t barriers = 0;        ///< warp instructions that left their warp stalled (BAR, WSPAWN wait)
  /// Per warp of the core (index = warp id): the work distribution over warps, which the
  /// aggregate counters cannot show. Summed element-wise by operator+=.
  std::vector<uint64_t> warp_flops;

  CoreCounters& operator+=(const CoreCounters& o);
};

/// Counters of the whole device after (or during) a run.
struct DeviceCounters {
  std::vector<CoreCounters> cores;        ///< by global core id
  std::vector<CacheCounters> l2;          ///< per cluster (empty when L2 is off)
  CacheCounters l3;                       ///< valid when L3 is on
  DramCounters dram;
  uint64_t cycles = 0;                    ///< max over cores
  [[nodiscard]] CoreCounters total() const;  ///< sum over cores (cycles = max)
};

}  // namespace vxsim::timing
