#include "vxsim/timing/simulator.h"

#include "vxsim/host_pool.h"

namespace vxsim::timing {

TimingConfig timing_config_for(const vxsim::Config& functional, TimingConfig base) {
  base.clusters = functional.clusters;
  base.cores = functional.cores;
  base.warps = functional.warps;
  base.threads = functional.threads;
  base.lmem.size = 1u << functional.lmem_log_size;
  return base;
}

/// The functional processor seen through the timing model's interface.
class TimingSimulator::Device final : public FunctionalDevice {
 public:
  explicit Device(vxsim::Processor& p) : p_(p) {}
  bool warp_active(uint32_t core, uint32_t warp) const override { return p_.core(core).warp_active(warp); }
  bool warp_ready(uint32_t core, uint32_t warp) const override { return p_.core(core).warp_ready(warp); }
  uint32_t warp_state(uint32_t core, uint32_t warp) const override {
    const vxsim::Core& c = p_.core(core);
    return (c.warp_active(warp) ? 1u : 0u) | (c.warp_ready(warp) ? 2u : 0u);
  }
  ExecutedInstr step(uint32_t core, uint32_t warp) override { return p_.core(core).step(warp); }
  // Core::execute sets warp_exited = (tmask == 0) and warp_stalled = (tmask != 0 && (barrier or
  // wspawn wait)) after the instruction: the complement of warp_active / warp_ready.
  bool records_warp_state() const override { return true; }
  void check_deadlock() const override { p_.check_deadlock(); }
  void set_partitions(const std::vector<uint32_t>& first_cores) override {
    if (first_cores.empty()) {
      p_.end_partitions();
    } else {
      p_.set_partitions(first_cores);
    }
  }
  void commit_epoch() override { p_.commit_epoch(); }
  bool begin_epoch() override { return p_.begin_epoch(); }
  uint32_t host_threads(uint32_t partitions) const override {
    // The trace is one stream in execution order: keep it on one thread.
    return p_.tracing() ? 1 : resolve_host_threads(p_.config().host_threads, partitions);
  }

 private:
  vxsim::Processor& p_;
};

/// MPM CSR values from the timing model (class from the processor's DCR 0x005).
class TimingSimulator::Counters final : public vxsim::CounterSource {
 public:
  explicit Counters(const TimingModel& m) : m_(m) {}
  uint64_t mpm_counter(uint32_t core_id, uint32_t index, uint32_t mpm_class) const override {
    return m_.mpm_value(core_id, index, static_cast<MpmClass>(mpm_class));
  }

 private:
  const TimingModel& m_;
};

TimingSimulator::TimingSimulator(vxsim::Processor& proc, const TimingConfig& cfg)
    : proc_(proc), device_(std::make_unique<Device>(proc)) {
  model_ = std::make_unique<TimingModel>(timing_config_for(proc.config(), cfg), *device_);
  counters_ = std::make_unique<Counters>(*model_);
  proc_.set_counter_source(counters_.get());
}

TimingSimulator::~TimingSimulator() { proc_.set_counter_source(nullptr); }

MemProfile& TimingSimulator::enable_mem_profile() {
  if (!profile_) {
    profile_ = std::make_unique<MemProfile>(model_->config().total_cores(), model_->config().dram.block);
    model_->set_mem_profile(profile_.get());
  }
  return *profile_;
}

uint64_t TimingSimulator::run() {
  uint64_t cycles = model_->run();
  proc_.flush_console();
  return cycles;
}

}  // namespace vxsim::timing
