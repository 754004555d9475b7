#pragma once
/// \file
/// `PERF:` lines in the format of Vortex's `vx_dump_perf` (docs/vortex.md §8.3), so scripts
/// written for SimX (`grep "PERF: core0: dcache reads="`) work on vxsim output. The numbers come
/// from an MPM query function, which is either the timing model's live counters or the perf-dump
/// block the kernel wrote at exit (docs/vortex.md §3.5) — the same path the runtime uses.

#include <cstdint>
#include <functional>
#include <string>

#include "vxsim/timing/timing_model.h"

namespace vxsim::timing {

/// What the report needs to know about the device besides the counters.
struct PerfReportInfo {
  uint32_t num_cores = 1;
  MpmClass mpm_class = MpmClass::kNone;  ///< VORTEX_PROFILING (0 none, 1 core, 2 memory)
  bool lmem = true;
  bool l2 = false;
  bool l3 = false;
  bool fpu = true;
  bool tcu = true;   ///< vxsim always has the TCU (caps report VX_ISA_EXT_TCU): ", tcu=…%" is printed
};

/// Query of MPM slot `index` (0..31, CSR 0xB00+index) of `core`, 64-bit.
using MpmQuery = std::function<uint64_t(uint32_t core, uint32_t index)>;

/// All `PERF:` lines (each ending in '\n') for one launch, in vx_dump_perf's order: per-core lines
/// for the class (and `core<i>: instrs=…` when more than one core), then the class totals, then
/// `PERF: instrs=<sum>, cycles=<max>, IPC=<sum/max>`.
[[nodiscard]] std::string format_perf_report(const PerfReportInfo& info, const MpmQuery& query);

/// Convenience: the report from a timing model's live counters with its config's cache set-up.
[[nodiscard]] std::string format_perf_report(const TimingModel& model, MpmClass cls);

}  // namespace vxsim::timing
