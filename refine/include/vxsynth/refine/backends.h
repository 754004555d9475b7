#pragma once
/// \file
/// The concrete pieces behind the loop's interfaces (loop.h: ProfileBackend; agent.h: DesignSpace),
/// built on codegen/check/sim, one file each:
///  - codegen_space.cc: codegen's design point as the built-in agent's DesignSpace (steps from the
///    axis step table, axis_steps.cc), rendering the CUDA candidate under cuda/, the Vortex
///    candidate under vortex/ and the swap target cuda/swap.json.
///  - backend_vxsim.cc ("vxsim", vxsim counters vs the reference signature, the default without a GPU; not the Vortex-first order of order.h): Vortex candidate on vxsim
///    in timing mode, checked against the float64 CPU reference; D from the Vortex-side signature.
///  - backend_ncu.cc ("ncu", CUDA-first, the default when nvidia-smi shows a GPU): CUDA candidate
///    with codegen's standalone launcher under Nsight Compute; D from its longest kernel.
///  - candidate_steps.cc: the steps both backends compose (inputs, Vortex build/run, checks).
///  - vortex_signature.cc: the $VXSIM_SIGNATURE file; tool_probe.cc: tool lookup and versions;
///    bundle_reference.cc: the loop's Reference and the target architecture of a bundle.

#include <filesystem>
#include <memory>
#include <string>

#include "vxsynth/core/bundle.h"
#include "vxsynth/core/context.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/refine/loop.h"

namespace vxsynth::refine {

/// The loop's Reference for kernel `kernel_id` (id "k1" or rank) of a bundle; `bundle_sha256`
/// identifies the bundle for --resume. Throws vxsynth::Error when the kernel is absent or has no
/// signature.
[[nodiscard]] Reference reference_from_bundle(const core::ReferenceBundle& bundle,
                                              const std::string& kernel_id,
                                              const std::string& bundle_sha256);

/// The GPU architecture the candidates target: the bundle's `platform.arch` (the reference's ncu
/// file), a row of core's architecture table (core::arch_info gives nvcc's -arch, e.g. sm_90 for
/// the H200). Throws vxsynth::Error naming `where` and the field when `provenance.cc` names no
/// known architecture or another one than `platform.arch`.
[[nodiscard]] core::Arch target_arch(const core::ReferenceBundle& bundle, const std::string& where);

/// Seed of the sampled check inputs of revision `revision` in a run with seed `run_seed`: both
/// backends draw each revision's inputs (check::generate_inputs) with it, so a benchmark's data/
/// (the locked revision's inputs) can be drawn again from the run seed and the locked revision.
[[nodiscard]] uint64_t check_input_seed(uint64_t run_seed, int revision);

/// Makes the design space of a reference context. Throws vxsynth::Error when codegen cannot seed
/// it (no shape, unsupported types).
[[nodiscard]] std::unique_ptr<DesignSpace> make_codegen_space(const core::ReferenceContext& ctx);

/// Options of the vxsim backend.
struct VxsimBackendOptions {
  std::filesystem::path sdk_dir;   ///< where the Vortex SDK's sdk.mk lives (<build>/sdk)
  core::Arch gpu_arch;             ///< the CUDA candidate is compiled for it (target_arch)
};
[[nodiscard]] std::unique_ptr<ProfileBackend> make_vxsim_backend(const VxsimBackendOptions& opts);

/// Options of the ncu backend.
struct NcuBackendOptions {
  std::filesystem::path sdk_dir;   ///< for the Vortex side of the candidate check
  std::string ncu;                 ///< Nsight Compute CLI ("ncu" = on PATH)
  core::Arch gpu_arch;             ///< nvcc's -arch and ncu's metric set (target_arch)
};
[[nodiscard]] std::unique_ptr<ProfileBackend> make_ncu_backend(const NcuBackendOptions& opts);

/// True when `nvidia-smi -L` lists a GPU (the default-backend rule).
[[nodiscard]] bool gpu_present();

}  // namespace vxsynth::refine
