#pragma once
/// \file
/// The concrete pieces behind the loop's interfaces, built on codegen/check/sim:
///  - CodegenSpace: codegen's design point as the built-in agent's DesignSpace (axis steps as one
///    table in backends.cc), rendering the CUDA candidate under cuda/ and the Vortex candidate
///    under vortex/, plus the swap target cuda/swap.json.
///  - VxsimBackend ("vxsim", Vortex-first, the default without a GPU): builds the Vortex candidate
///    with the SDK, runs it on vxsim on fresh seeded inputs, checks its output against the float64
///    CPU reference, compiles the CUDA candidate with nvcc where present (the source-output check
///    needs a GPU and is recorded as not run), and reads the Vortex-side signature the vxsim
///    runtime writes to $VXSIM_SIGNATURE.
///  - NcuBackend ("ncu", CUDA-first, the default when nvidia-smi shows a GPU): see ncu_backend.cc.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "vxsynth/core/bundle.h"
#include "vxsynth/core/context.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/refine/loop.h"

namespace vxsynth::refine {

/// The loop's Reference for kernel `kernel_id` (id "k1" or rank) of a bundle; `bundle_sha256`
/// identifies the bundle for --resume. Throws vxsynth::Error when the kernel is absent or has no
/// signature.
[[nodiscard]] Reference reference_from_bundle(const core::ReferenceBundle& bundle,
                                              const std::string& kernel_id,
                                              const std::string& bundle_sha256);

/// Makes the design space of a reference context. Throws vxsynth::Error when codegen cannot seed
/// it (no shape, unsupported types).
[[nodiscard]] std::unique_ptr<DesignSpace> make_codegen_space(const core::ReferenceContext& ctx);

/// Where the Vortex SDK's sdk.mk lives (a vxsynth build tree's sdk/ directory).
struct VxsimBackendOptions {
  std::filesystem::path sdk_dir;
};
[[nodiscard]] std::unique_ptr<ProfileBackend> make_vxsim_backend(const VxsimBackendOptions& opts);

/// Options of the ncu backend.
struct NcuBackendOptions {
  std::filesystem::path sdk_dir;    ///< for the Vortex side of the candidate check
  std::string python = "python3";   ///< interpreter with torch + vxsynth_torch
  std::string ncu = "ncu";
};
[[nodiscard]] std::unique_ptr<ProfileBackend> make_ncu_backend(const NcuBackendOptions& opts);

/// True when `nvidia-smi -L` lists a GPU (the default-backend rule).
[[nodiscard]] bool gpu_present();

}  // namespace vxsynth::refine
