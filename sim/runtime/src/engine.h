#pragma once
// Internal: the one place where the runtime decides how a launch runs (functional or timing) and
// how its PERF lines are formatted. Switching the runtime to timing mode means editing engine.cc.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vxsim/core.h"
#include "vxsim/timing/signature_hook.h"

namespace vxsim::runtime {

/// Options the device was opened with that concern the engine.
struct EngineOptions {
  std::string config_path;  ///< VXSIM_CONFIG: TOML file of the timing model ("" = defaults)
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
  /// Timing mode: each core's cycles from launch until its last instruction completed (the
  /// timing model's counters). The runtime reports these as the launch's mcycle everywhere
  /// (vx_mpm_query, vx_dump_perf, the signature file), instead of the value the kernel's exit
  /// path sampled before its last instructions ran. Empty in functional mode.
  std::vector<uint64_t> core_cycles;
  /// Set in timing mode when $VXSIM_SIGNATURE names a file: the launch's counters for the signature
  /// adapter (vxsim/timing/signature_hook.h); the caller fills index and addresses.
  std::optional<timing::MeasuredLaunch> signature;
  /// Set in timing mode when $VXSIM_MEM_PROFILE names a file: this launch's lines of the memory
  /// profile (vxsim/timing/mem_profile.h, MemProfile::table), for the caller to write.
  std::optional<std::string> mem_profile;
};

/// Runs the reset processor until every core is idle; `launch` (0, 1, … per device) labels the
/// memory profile's lines. Throws SimError on a device fault.
LaunchReport run_engine(Processor& proc, const EngineOptions& opts, uint32_t launch);

/// MPM slot `index` (0..31) of `core` as the kernel's perf dump left it (docs/vortex.md §3.5).
using MpmQuery = std::function<uint64_t(uint32_t core, uint32_t index)>;

/// The `PERF:` lines of vx_dump_perf (docs/vortex.md §8.3) for the last launch.
std::string format_perf(uint32_t num_cores, uint32_t mpm_class, const LaunchReport& report, const MpmQuery& query);

}  // namespace vxsim::runtime
