#pragma once
/// \file
/// The Vortex-side profile signature: the ten metrics of docs/signature-and-tolerances.md §1
/// computed from the timing model's counters (the "Vortex source" column), and their JSON form.
///
/// | metric | computed here as |
/// |---|---|
/// | l1_hit_rate | 100 × (D-cache reads − read misses) / D-cache reads, global loads (0 with no reads) |
/// | l2_hit_rate | 100 × L2 hits / L2 lookups (reads + writes); NA when the config has no L2 |
/// | coalescing | 100 × bytes requested by active lanes / (32 × distinct 32-B sectors), global loads; 0 with none. Lanes with the same address count once, so a broadcast gives 4/32 and the value never exceeds 100 (as ncu's) |
/// | peak_compute | 100 × max over ALU/FPU/LSU/SFU/TCU of issue-busy cycles / (cycles × cores) |
/// | tensor_mfu | 100 × TCU busy cycles / (cycles × cores) |
/// | atomics_per_inst | AMO warp instructions / warp instructions |
/// | arith_intensity | (FP FLOPs with FMA = 2 + 2 × TCU MACs) / DRAM bytes read + written; NA with no DRAM traffic |
/// | dram_bandwidth | DRAM bytes / (cycles / clock_mhz · 1e6), byte/s |
/// | active_lanes | thread instructions / (warp instructions × threads per warp) |
/// | occupancy | 100 × mean over cycles and cores of active warps / warps per core |
///
/// "cycles" is the device's cycle count (max over cores); per-core sums are over all cores.

#include <string>

#include "vxsim/timing/config.h"
#include "vxsim/timing/counters.h"
#include "vxsynth/core/signature.h"

namespace vxsim::timing {

/// The ten metrics from a run's counters and the config it ran with.
[[nodiscard]] vxsynth::core::Signature vortex_signature(const DeviceCounters& counters, const TimingConfig& cfg);

/// JSON text of a Vortex signature: the metric values keyed by metric id (null = NA), the counters
/// each was computed from, and the machine configuration (the signature's provenance).
[[nodiscard]] std::string vortex_signature_json(const vxsynth::core::Signature& sig, const DeviceCounters& counters,
                                                const TimingConfig& cfg, const std::string& program);

}  // namespace vxsim::timing
