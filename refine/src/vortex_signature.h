#pragma once
// Reading the Vortex-side signature file the vxsim runtime writes to $VXSIM_SIGNATURE.

#include <cstdint>
#include <filesystem>
#include <optional>

#include "vxsynth/core/bundle.h"
#include "vxsynth/core/signature.h"

namespace vxsynth::refine {

// The Vortex-side signature in $VXSIM_SIGNATURE (docs/timing.md, "Signature file"): the runtime
// records every launch and puts the main launch's metrics (most cycles: a split-K reduction or a
// separate epilogue is the short one, as the ncu backend takes the longest kernel) at the top.
struct VortexSignatureFile {
  core::Signature signature;             // top-level "metrics": the main launch
  std::optional<double> max_atomics;     // atomics_per_inst, maximum over every launch
  int main_launch = 0;
  int launches = 1;
  uint64_t main_cycles = 0;
  uint64_t total_cycles = 0;
};

// Reads the signature file. `design_launches` is how many launches the design makes: a file
// without the per-launch array (a runtime older than per-launch signatures) holds the last launch
// only and is refused for a multi-launch design. Throws vxsynth::Error on a malformed file.
[[nodiscard]] VortexSignatureFile read_vortex_signature(const std::filesystem::path& sig_path, int design_launches);

}  // namespace vxsynth::refine
