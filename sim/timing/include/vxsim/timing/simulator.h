#pragma once
/// \file
/// Timing mode for a vxsim::Processor: adapts the functional core to the timing model and
/// installs the timing model's counters as the source of the MPM CSRs (0xB00.., docs/vortex.md
/// §2.2), so a kernel's `vx_perf_dump` at exit — and through it the runtime's `vx_dump_perf` and
/// `vx_mpm_query` — reads the timing model's numbers.
///
/// Use:
///   vxsim::Processor proc(cfg); load_program(proc, path); proc.reset();
///   vxsim::timing::TimingSimulator sim(proc, timing_cfg);   // shape taken from proc.config()
///   uint64_t cycles = sim.run();
///   auto counters = sim.counters();

#include <cstdint>
#include <memory>

#include "vxsim/core.h"
#include "vxsim/timing/config.h"
#include "vxsim/timing/mem_profile.h"
#include "vxsim/timing/timing_model.h"

namespace vxsim::timing {

/// `base` with the machine shape (clusters, cores, warps, threads, local-memory size) of the
/// functional configuration, which is the one that executes the program.
[[nodiscard]] TimingConfig timing_config_for(const vxsim::Config& functional, TimingConfig base);

/// Owns the adapter, the timing model and the MPM counter source of one Processor. The counter
/// source stays installed for the simulator's lifetime (later CSR reads see the last run's
/// counters) and is removed by the destructor.
class TimingSimulator {
 public:
  /// Throws vxsynth::Error when the timing configuration is invalid.
  TimingSimulator(vxsim::Processor& proc, const TimingConfig& cfg);
  ~TimingSimulator();
  TimingSimulator(const TimingSimulator&) = delete;
  TimingSimulator& operator=(const TimingSimulator&) = delete;

  /// Runs the reset processor until every core is idle; returns the device's cycles. Flushes the
  /// console as the functional run does. Throws vxsim::SimError on program faults and deadlock.
  uint64_t run();
  /// Keeps a memory profile (mem_profile.h) of the following runs; returns it (owned here).
  MemProfile& enable_mem_profile();
  /// The memory profile of the last run, null unless enable_mem_profile() was called.
  [[nodiscard]] const MemProfile* mem_profile() const { return profile_.get(); }
  [[nodiscard]] const TimingModel& model() const { return *model_; }
  [[nodiscard]] DeviceCounters counters() const { return model_->counters(); }
  [[nodiscard]] const TimingConfig& config() const { return model_->config(); }

 private:
  class Device;
  class Counters;
  vxsim::Processor& proc_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<TimingModel> model_;
  std::unique_ptr<Counters> counters_;
  std::unique_ptr<MemProfile> profile_;
};

}  // namespace vxsim::timing
