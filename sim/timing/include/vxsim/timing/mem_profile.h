#pragma once
/// \file
/// Memory profile of a timing run (docs/vxsim.md "Memory profile"): per memory instruction (PC),
/// what it asked of the D-cache and how many blocks of DRAM traffic it caused. It only observes:
/// a run with a profile has the same cycles and counters as one without.
///
/// Attribution rules:
/// - D-cache side: the LSU names the instruction it serves (begin/end around its requests); its
///   requests, sectors and read misses (primary and secondary, as the D-cache counters) are
///   charged to that PC.
/// - DRAM side: a meter directly above the DRAM sees every block request the simulated cores send
///   it, synchronously, while the LSU (or the fetch unit) is serving one instruction: a read miss
///   that reaches DRAM is charged to the load that missed first (later loads merged into its MSHR
///   cost nothing), a write-through store to the store, an AMO to the AMO. Requests made outside
///   an LSU instruction are instruction fetches (the I-cache's misses), kept in one `fetch` row.
/// A lane access is a stack access when its address lies in the per-hart stacks below
/// STACK_BASE_ADDR (docs/vortex.md §3.1), whatever register it was computed from.
/// Sums: Σ dram bytes over rows = the DRAM counters' bytes_read + bytes_written; Σ read misses =
/// the D-cache counters' read_misses; Σ requests = Σ (coalescer_misses + 1) over global accesses.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vxsim/step.h"

namespace vxsim::timing {

/// What one memory instruction (one PC) did over a run, summed over cores and warps.
struct PcTraffic {
  uint32_t word = 0;               ///< the instruction's encoding (for the disassembly)
  MemKind kind = MemKind::kNone;   ///< load, store or AMO
  uint64_t warp_instrs = 0;        ///< issued warp instructions with ≥ 1 active lane, global space
  uint64_t lane_accesses = 0;      ///< Σ active lanes
  uint64_t stack_lanes = 0;        ///< of those, lanes whose address is in the per-hart stacks
  uint64_t requests = 0;           ///< D-cache block requests after coalescing
  uint64_t sectors = 0;            ///< distinct 32-byte sectors touched
  uint64_t read_misses = 0;        ///< D-cache read misses (loads)
  uint64_t dram_reads = 0;         ///< DRAM block reads caused (each dram.block bytes)
  uint64_t dram_writes = 0;        ///< DRAM block writes caused
  PcTraffic& operator+=(const PcTraffic& o);
};

/// Per-PC traffic of one launch. Each core's part is written only by the host thread that
/// simulates that core (a partitioned run keeps a core on one thread), so no locking is needed.
class MemProfile {
 public:
  /// `num_cores`: global core ids that may request; `block_bytes`: bytes of one DRAM block request
  /// (dram.block).
  MemProfile(uint32_t num_cores, uint32_t block_bytes);
  /// Forgets everything (a new launch).
  void clear();
  /// The LSU of `core` starts serving the instruction at `pc`; returns its row.
  PcTraffic& begin(uint32_t core, uint64_t pc, uint32_t word, MemKind kind);
  /// The LSU of `core` is done with it: later DRAM requests of the core are fetches.
  void end(uint32_t core) { cores_[core].current = nullptr; }
  /// One DRAM block request sent on behalf of `core`.
  void dram(uint32_t core, bool write);
  /// All cores' rows merged, ascending PC.
  [[nodiscard]] std::vector<std::pair<uint64_t, PcTraffic>> rows() const;
  /// DRAM requests made while no LSU instruction was served (the I-cache's misses), all cores.
  [[nodiscard]] PcTraffic outside() const;
  [[nodiscard]] uint32_t block_bytes() const { return block_; }
  /// The tab-separated lines of this launch, `launch` in the first column (no header line): one
  /// per PC, then one `fetch` line for the requests outside LSU instructions.
  [[nodiscard]] std::string table(uint32_t launch) const;
  /// The header line of table() (column names), with its trailing newline.
  [[nodiscard]] static std::string_view header();

 private:
  struct PerCore {
    std::unordered_map<uint64_t, PcTraffic> by_pc;
    PcTraffic* current = nullptr;
    PcTraffic outside;
  };
  std::vector<PerCore> cores_;
  uint32_t block_;
};

}  // namespace vxsim::timing
