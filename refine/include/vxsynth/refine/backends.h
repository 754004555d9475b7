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
///  - ncu backend ("ncu", CUDA-first, the default when nvidia-smi shows a GPU): the CUDA candidate
///    is compiled with nvcc together with a standalone harness and launched once at the profiled
///    shape under Nsight Compute (the reference's settings: --clock-control none, caches flushed);
///    its longest kernel gives the signature; source-output check = CUDA vs float64 CPU reference
///    (no operator swap yet), candidate check = Vortex (vxsim) vs CUDA.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "vxsynth/check/op_spec.h"
#include "vxsynth/check/precision.h"
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
  std::string ncu = "ncu";          ///< Nsight Compute CLI
};

/// Source of the standalone launcher of a CUDA candidate (reads DIR/<operand>.bin, calls
/// codegen's `vxs_launch` once on a NaN-poisoned output, writes DIR/cuda_out.bin).
[[nodiscard]] std::string standalone_harness(const check::OpSpec& op, check::PrecisionPath path);
[[nodiscard]] std::unique_ptr<ProfileBackend> make_ncu_backend(const NcuBackendOptions& opts);

/// True when `nvidia-smi -L` lists a GPU (the default-backend rule).
[[nodiscard]] bool gpu_present();

}  // namespace vxsynth::refine
