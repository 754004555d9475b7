#pragma once
/// \file
/// Where a timing run's counters leave the simulator. The simulator knows nothing of signatures
/// (docs/architecture.md, "Boundaries"): it hands the counters of each measured run to the
/// installed SignatureAdapter, which maps them to the ten metrics and writes the signature file.
/// The vortex.h runtime ($VXSIM_SIGNATURE) and the vxsim command (SIGNATURE lines, --signature)
/// both use it. The adapter lives with the signature code (core/src/vortex_signature.cc); a program
/// gets it by linking the object library `vxsynth_vortex_signature_hook`, which installs it before
/// main() runs.

#include <cstdint>
#include <string>
#include <vector>

#include "vxsim/timing/config.h"
#include "vxsim/timing/counters.h"

namespace vxsim::timing {

/// One launch of a device measured by a fresh timing model (nothing of an earlier launch counted).
struct MeasuredLaunch {
  uint32_t index = 0;        ///< 0-based position among the device's vx_start calls
  uint64_t kernel_addr = 0;  ///< STARTUP_ADDR of the launch (DCR 0x001/0x002): the kernel entry
  uint64_t args_addr = 0;    ///< device address of the argument buffer (DCR 0x003/0x004), 0 = none
  DeviceCounters counters;
  TimingConfig config;
};

/// Counters → signature. One implementation: core's VortexSignatureAdapter.
class SignatureAdapter {
 public:
  virtual ~SignatureAdapter() = default;
  /// The report lines the vxsim command prints after its PERF lines (one per metric).
  [[nodiscard]] virtual std::string report_lines(const DeviceCounters& counters, const TimingConfig& cfg) const = 0;
  /// The signature file of one run (vxsim --signature); `label` names the program.
  [[nodiscard]] virtual std::string run_file(const DeviceCounters& counters, const TimingConfig& cfg,
                                             const std::string& label) const = 0;
  /// The $VXSIM_SIGNATURE file of a device's launches so far, in launch order (docs/timing.md,
  /// "Signature file"). Throws vxsynth::Error when `launches` is empty.
  [[nodiscard]] virtual std::string launches_file(const std::vector<MeasuredLaunch>& launches) const = 0;
};

/// Installs the process's adapter (the object is not owned and must outlive every run; null
/// uninstalls). Called during static initialisation by `vxsynth_vortex_signature_hook`.
void set_signature_adapter(const SignatureAdapter* adapter);

/// The installed adapter, or null when the program was linked without one.
[[nodiscard]] const SignatureAdapter* signature_adapter();

/// The installed adapter; throws vxsynth::Error naming `what` (e.g. "VXSIM_SIGNATURE") when the
/// program was linked without one.
const SignatureAdapter& require_signature_adapter(const char* what);

}  // namespace vxsim::timing
