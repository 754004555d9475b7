#include "engine.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "vxsim/timing/perf_report.h"
#include "vxsim/timing/signature_hook.h"
#include "vxsim/timing/simulator.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/error.h"

namespace vxsim::runtime {

namespace {

/// VXSIM_TIMING: unset or "1" = timing mode (default), "0" = functional only.
bool timing_enabled() {
  const char* v = std::getenv("VXSIM_TIMING");
  if (v == nullptr || *v == '\0' || std::string_view(v) == "1") return true;
  if (std::string_view(v) == "0") return false;
  throw vxsynth::make_error("environment variable VXSIM_TIMING='{}' must be 0 (functional) or 1 (timing)", v);
}

}  // namespace

LaunchReport run_engine(Processor& proc, const EngineOptions& opts, uint32_t launch) {
  const char* prof = std::getenv("VXSIM_MEM_PROFILE");
  const bool profile = prof != nullptr && *prof != '\0';
  if (profile) vxsynth::check_output_path(prof, "VXSIM_MEM_PROFILE");  // fail before the run, not after
  if (!timing_enabled()) {
    if (profile && launch == 0)
      std::fprintf(stderr, "vxsim: VXSIM_MEM_PROFILE is ignored in functional mode (VXSIM_TIMING=0): the memory "
                           "profile counts the timing model's D-cache and DRAM traffic\n");
    proc.run();  // functional mode
    return LaunchReport{};  // class_counters false: only mcycle/minstret
  }
  // Timing mode (sim/timing): config from VXSIM_CONFIG (TOML), then VXSIM_SET overrides
  // ("dcache.size=32768,l2.enabled=true"); the machine shape is the device's (VXSIM_CORES, ...).
  timing::TimingConfig cfg;
  if (!opts.config_path.empty()) timing::load_toml(cfg, opts.config_path);
  if (const char* sets = std::getenv("VXSIM_SET"); sets != nullptr) {
    std::string_view rest(sets);
    while (!rest.empty()) {
      auto comma = rest.find(',');
      std::string_view one = rest.substr(0, comma);
      if (!one.empty()) timing::apply_override(cfg, one, "VXSIM_SET");
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  const char* sig = std::getenv("VXSIM_SIGNATURE");
  const bool measure = sig != nullptr && *sig != '\0';
  if (measure) (void)timing::require_signature_adapter("VXSIM_SIGNATURE");  // fail before the run, not after
  timing::TimingSimulator sim(proc, cfg);
  if (profile) sim.enable_mem_profile();
  sim.run();
  LaunchReport r;
  if (sim.mem_profile() != nullptr) r.mem_profile = sim.mem_profile()->table(launch);
  // VXSIM_SIGNATURE=out.json: the counters of this launch's own timing model (a fresh one per
  // launch, so nothing of an earlier launch is counted). vx_start adds them to the device's list and
  // has the signature adapter write the file.
  if (measure) {
    timing::MeasuredLaunch m;
    m.counters = sim.counters();
    m.config = sim.config();
    r.signature = std::move(m);
  }
  for (const timing::CoreCounters& c : sim.counters().cores) r.core_cycles.push_back(c.cycles);
  r.class_counters = true;
  r.lmem = sim.config().lmem.enabled;
  r.l2 = sim.config().l2.enabled;
  r.l3 = sim.config().l3.enabled;
  return r;
}

std::string format_perf(uint32_t num_cores, uint32_t mpm_class, const LaunchReport& report,
                        const MpmQuery& query) {
  if (report.class_counters) {
    timing::PerfReportInfo info;
    info.num_cores = num_cores;
    info.mpm_class = static_cast<timing::MpmClass>(mpm_class);
    info.lmem = report.lmem;
    info.l2 = report.l2;
    info.l3 = report.l3;
    return timing::format_perf_report(info, query);
  }
  // Functional mode: only instrs (minstret, slot 2) and cycles (mcycle, slot 0) are measured;
  // the class-1/2 lines of SimX are printed only by a timing engine.
  std::string out;
  uint64_t total_instrs = 0;
  uint64_t max_cycles = 0;
  for (uint32_t c = 0; c < num_cores; ++c) {
    uint64_t instrs = query(c, 2);
    uint64_t cycles = query(c, 0);
    double ipc = cycles != 0 ? static_cast<double>(instrs) / static_cast<double>(cycles) : 0.0;
    if (num_cores > 1) out += fmt::format("PERF: core{}: instrs={}, cycles={}, IPC={:f}\n", c, instrs, cycles, ipc);
    total_instrs += instrs;
    max_cycles = std::max(max_cycles, cycles);
  }
  double ipc = max_cycles != 0 ? static_cast<double>(total_instrs) / static_cast<double>(max_cycles) : 0.0;
  out += fmt::format("PERF: instrs={}, cycles={}, IPC={:f}\n", total_instrs, max_cycles, ipc);
  return out;
}

}  // namespace vxsim::runtime
