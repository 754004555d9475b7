#include "engine.h"

#include <fmt/format.h>

namespace vxsim::runtime {

LaunchReport run_engine(Processor& proc, const EngineOptions& /*opts*/) {
  proc.run();  // functional mode
  return LaunchReport{false};
}

std::string format_perf(uint32_t num_cores, uint32_t /*mpm_class*/, const LaunchReport& /*report*/,
                        const MpmQuery& query) {
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
