#pragma once
/// \file
/// The Vortex-side profile signature: the ten metrics of docs/signature.md computed from the vxsim
/// timing model's counters, and the signature files written from them. This is the adapter the
/// simulator reaches through vxsim/timing/signature_hook.h; the simulator itself knows no metric.
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
#include <vector>

#include "vxsim/timing/config.h"
#include "vxsim/timing/counters.h"
#include "vxsim/timing/signature_hook.h"
#include "vxsynth/core/signature.h"

namespace vxsynth::core {

/// The ten metrics from a run's counters and the config it ran with.
[[nodiscard]] Signature vortex_signature(const vxsim::timing::DeviceCounters& counters,
                                         const vxsim::timing::TimingConfig& cfg);

/// JSON text of a Vortex signature: the metric values keyed by metric id (null = NA), the counters
/// each was computed from, and the machine configuration (the signature's provenance).
[[nodiscard]] std::string vortex_signature_json(const Signature& sig, const vxsim::timing::DeviceCounters& counters,
                                                const vxsim::timing::TimingConfig& cfg, const std::string& program);

/// The $VXSIM_SIGNATURE file for a device's launches (docs/timing.md, "Signature file"): core's
/// signature-file schema whose top-level "metrics", "counters" and "config" are those of the main
/// launch — the one with the most cycles, the first on a tie, as the ncu backend takes the longest
/// kernel of a candidate — plus "main_launch" (its index) and "launches" (index, kernel/argument
/// addresses, cycles, instructions, metrics and counters of every launch, in launch order).
/// Throws vxsynth::Error when `launches` is empty.
[[nodiscard]] std::string vortex_signature_file_json(const std::vector<vxsim::timing::MeasuredLaunch>& launches);

/// "SIGNATURE: key=value unit" lines, one per metric of the table, in table order (NA when absent).
[[nodiscard]] std::string vortex_signature_lines(const Signature& sig);

/// The adapter the simulator's hook calls (vxsim/timing/signature_hook.h).
class VortexSignatureAdapter final : public vxsim::timing::SignatureAdapter {
 public:
  [[nodiscard]] std::string report_lines(const vxsim::timing::DeviceCounters& counters,
                                         const vxsim::timing::TimingConfig& cfg) const override;
  [[nodiscard]] std::string run_file(const vxsim::timing::DeviceCounters& counters,
                                     const vxsim::timing::TimingConfig& cfg, const std::string& label) const override;
  [[nodiscard]] std::string launches_file(const std::vector<vxsim::timing::MeasuredLaunch>& launches) const override;
};

}  // namespace vxsynth::core
