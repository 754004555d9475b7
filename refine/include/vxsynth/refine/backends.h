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
///    under Nsight Compute through a CudaProfiler (cuda_profiler.h): inside the reference workload
///    with the operator swap (profile_workload.cc, the default) or as a standalone launch
///    (profile_standalone.cc, the recorded fallback); D from its longest kernel.
///  - candidate_steps.cc: the steps both backends compose (inputs, Vortex build/run, checks).
///  - vortex_signature.cc: the $VXSIM_SIGNATURE file; tool_probe.cc: tool lookup and versions;
///    bundle_reference.cc: the loop's Reference and the target architecture of a bundle.

#include <filesystem>
#include <memory>
#include <string>

#include "vxsynth/codegen/design_point.h"
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

/// Makes the design space of a reference context whose CUDA candidates are rendered with
/// `translation` (the seed carries it, every step keeps it; refine/order.h picks it per order),
/// stepping through the axis variants of design space `space_version` (an older one replays an
/// older record). Throws vxsynth::Error when codegen cannot seed it (no shape, unsupported types).
[[nodiscard]] std::unique_ptr<DesignSpace> make_codegen_space(
    const core::ReferenceContext& ctx, codegen::CudaTranslation translation = codegen::CudaTranslation::kNative,
    int space_version = codegen::kDesignSpaceVersion);

/// Options of the vxsim backend.
struct VxsimBackendOptions {
  std::filesystem::path sdk_dir;   ///< where the Vortex SDK's sdk.mk lives (<build>/sdk)
  core::Arch gpu_arch;             ///< the CUDA candidate is compiled for it (target_arch)
};
[[nodiscard]] std::unique_ptr<ProfileBackend> make_vxsim_backend(const VxsimBackendOptions& opts);

/// The workload a reference kernel was captured from, as the ncu backend re-runs it with the
/// candidate swapped in (paper §3.4; python/vxsynth_torch/swap_run.py): the capture's workload,
/// configuration, warm-up and ncu-window iterations and TF32 flags (bundle provenance, written by
/// python/vxsynth_torch/profile.py) and the reference kernel's launches per step (the trace).
struct WorkloadSetup {
  std::string workload;                ///< python/vxsynth_torch/workloads name: act, diffusion_policy, pi0
  std::string config = "full";
  int warmup = 2;                      ///< warm-up steps before the ncu window
  int region_iters = 2;                ///< steps inside the window (cudaProfilerStart/Stop)
  nlohmann::json tf32 = nlohmann::json::object();
  int64_t launches_per_step = 0;       ///< launches of the reference kernel per workload step
  std::string python = "python3";      ///< interpreter holding torch (CUDA)
  std::filesystem::path python_dir;    ///< folder holding the vxsynth_torch package (PYTHONPATH)
  std::string device = "cuda";         ///< torch device of the run ("cpu" only for a CPU stand-in library)
};

/// The workload setup of kernel `kernel_id` of a bundle, or nullopt with the reason in `why_not`
/// (a bundle imported without the capture driver's provenance, a workload vxsynth_torch does not
/// have). `python_dir` is where vxsynth_torch lives.
[[nodiscard]] std::optional<WorkloadSetup> workload_setup(const core::ReferenceBundle& bundle,
                                                          const std::string& kernel_id,
                                                          const std::filesystem::path& python_dir,
                                                          std::string& why_not);

/// Empty when `setup.python` can import torch with a CUDA device and vxsynth_torch.swap_run from
/// `setup.python_dir`; else why not (the standalone fallback's reason).
[[nodiscard]] std::string probe_workload_python(const WorkloadSetup& setup);

/// The original PyTorch op for a standalone candidate's source-output check (paper §3.5):
/// python/vxsynth_torch/op_reference.py run on the candidate's sampled inputs, on the GPU.
struct FrameworkOpSetup {
  std::string python = "python3";      ///< interpreter holding torch (CUDA)
  std::filesystem::path python_dir;    ///< folder holding the vxsynth_torch package (PYTHONPATH)
  std::string device = "cuda";         ///< torch device ("cpu" only in tests without a GPU)
};

/// Empty when `setup.python` imports torch with a CUDA device and vxsynth_torch.op_reference from
/// `setup.python_dir`; else why not (the float64 fallback's reason).
[[nodiscard]] std::string probe_framework_op_python(const FrameworkOpSetup& setup);

/// Options of the ncu backend.
struct NcuBackendOptions {
  std::filesystem::path sdk_dir;   ///< for the Vortex side of the candidate check
  std::string ncu;                 ///< Nsight Compute CLI ("ncu" = on PATH)
  core::Arch gpu_arch;             ///< nvcc's -arch and ncu's metric set (target_arch)
  /// The workload to profile in (the default on a GPU machine); nullopt: standalone launch, with
  /// `standalone_reason` recorded in every revision.
  std::optional<WorkloadSetup> workload;
  std::string standalone_reason;
  /// Standalone only: the PyTorch op the source-output check compares with; nullopt: float64 on
  /// the CPU, with `framework_op_reason` recorded in the check's method.
  std::optional<FrameworkOpSetup> framework_op;
  std::string framework_op_reason;
  /// A lock file held while a candidate uses the GPU (flock; nullopt: none), so that concurrent
  /// reconstructs on one GPU profile one at a time and their time limits exclude the wait.
  std::optional<std::filesystem::path> gpu_lock;
  /// The GPU the reference kernels were profiled on (the bundle's provenance `gpu`, "" when it
  /// names none): a candidate profiled on another GPU stops the run (reference_gpu_mismatch).
  std::string reference_gpu;
};
[[nodiscard]] std::unique_ptr<ProfileBackend> make_ncu_backend(const NcuBackendOptions& opts);

/// The name of the first GPU `nvidia-smi --query-gpu=name` lists ("NVIDIA H200"); nullopt when
/// there is no nvidia-smi or no GPU.
[[nodiscard]] std::optional<std::string> gpu_name();

/// Empty when a candidate measured on the GPU `measured` may be scored against reference kernels
/// profiled on the GPU `reference` (the same name, or either unknown: ""); otherwise the reason,
/// naming both GPUs and `measured_from` (where the measured name was read). A distance across two
/// GPU models compares their hardware (DRAM bandwidth, clocks, cache sizes), not the kernels.
[[nodiscard]] std::string reference_gpu_mismatch(std::string_view measured, std::string_view reference,
                                                 std::string_view measured_from);

/// True when `nvidia-smi -L` lists a GPU (the default-backend rule).
[[nodiscard]] bool gpu_present();

}  // namespace vxsynth::refine
