#pragma once
// Internal: the one place where the runtime decides how a launch runs (functional or timing) and
// how its PERF lines are formatted. Switching the runtime to timing mode means editing engine.cc.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vxsim/core.h"

namespace vxsim::runtime {

/// Options the device was opened with that concern the engine.
struct EngineOptions {
  std::string config_path;  ///< VXSIM_CONFIG: TOML file of the timing model ("" = defaults)
};

/// The Vortex-side signature of one launch (timing mode with VXSIM_SIGNATURE set).
struct LaunchSignature {
  uint32_t index = 0;         ///< 0-based position of the launch among the device's vx_start calls
  uint64_t kernel_addr = 0;   ///< STARTUP_ADDR of the launch (DCR 0x001/0x002): the kernel entry
  uint64_t args_addr = 0;     ///< device address of the argument buffer (DCR 0x003/0x004), 0 = none
  uint64_t cycles = 0;        ///< device cycles of the launch (max over cores), timing model
  uint64_t instructions = 0;  ///< warp instructions of the launch, all cores
  /// vxsim::timing::vortex_signature_json of this launch alone (counters of a fresh timing model).
  std::string json;
};

/// What one launch measured.
struct LaunchReport {
  /// True when the MPM class counters (VORTEX_PROFILING=1|2) were measured by a timing model;
  /// the functional engine measures only mcycle/minstret.
  bool class_counters = false;
  /// Memory units the timing configuration had (which PERF class-2 lines vx_dump_perf prints).
  bool lmem = true;
  bool l2 = false;
  bool l3 = false;
  /// Set in timing mode when $VXSIM_SIGNATURE names a file; the caller fills index and addresses.
  std::optional<LaunchSignature> signature;
};

/// Runs the reset processor until every core is idle. Throws SimError on a device fault.
LaunchReport run_engine(Processor& proc, const EngineOptions& opts);

/// The text of the $VXSIM_SIGNATURE file for the device's launches so far (docs/timing.md,
/// "Signature file"): core's signature-file schema whose top-level "metrics", "counters" and
/// "config" are those of the main launch — the one with the most cycles, the first on a tie, as the
/// ncu backend takes the longest kernel of a candidate — plus "main_launch" (its index) and
/// "launches" (index, kernel/argument addresses, cycles, instructions, metrics and counters of
/// every launch, in launch order). Throws vxsynth::Error when `launches` is empty.
std::string signature_file_json(const std::vector<LaunchSignature>& launches);

/// MPM slot `index` (0..31) of `core` as the kernel's perf dump left it (docs/vortex-2x.md §3.5).
using MpmQuery = std::function<uint64_t(uint32_t core, uint32_t index)>;

/// The `PERF:` lines of vx_dump_perf (docs/vortex-2x.md §8.3) for the last launch.
std::string format_perf(uint32_t num_cores, uint32_t mpm_class, const LaunchReport& report, const MpmQuery& query);

}  // namespace vxsim::runtime
