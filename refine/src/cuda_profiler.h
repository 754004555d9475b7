#pragma once
// How the ncu backend measures a CUDA candidate: one interface, one file per implementation
// (profile_workload.cc: inside the reference workload through the operator swap, paper §3.4;
// profile_standalone.cc: a standalone launch at the profiled shape, the recorded fallback). The
// backend (backend_ncu.cc) strings a profiler together with the Vortex side and never asks which
// one it has. Shared ncu steps (metric list, CSV import, main kernel) are at the bottom.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "candidate_steps.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/refine/backends.h"

namespace vxsynth::refine {

// What measuring the CUDA side of one candidate gave.
struct CudaMeasurement {
  std::string failure;          // non-empty: the rejection reason
  std::vector<double> output;   // the candidate on the sampled inputs (for the candidate check)
  core::NcuSignature signature;
  int block_size = 0;           // of the profiled main launch
  core::NcuKernel main_launch;  // the profiled main launch (grid, block, counters)
  CheckOutcome source_output;
  ProfilePlace place;
};

// The tools every profiler drives.
struct CudaTools {
  std::optional<std::filesystem::path> nvcc;
  std::string ncu;
  core::Arch arch;
  /// Held (flock) for the ncu session of each candidate, so that concurrent reconstructs on one GPU
  /// profile one at a time; its time limit starts once it is held (docs/suite.md "GPU lock").
  std::optional<std::filesystem::path> gpu_lock;
};

// The GPU lock of `tools`, held while the returned object lives (nothing when it names none).
// The wait goes to the step kGpuLockWait of `steps`.
[[nodiscard]] inline std::optional<ExclusiveFileLock> hold_gpu(const CudaTools& tools, StepTimes* steps) {
  if (!tools.gpu_lock) return std::nullopt;
  const StepTimer wait(steps, RevisionStep::kGpuLockWait);
  return std::optional<ExclusiveFileLock>(std::in_place, *tools.gpu_lock);
}

class CudaProfiler {
 public:
  virtual ~CudaProfiler() = default;
  // Builds the CUDA candidate under `dir`/cuda, runs, checks and profiles it on the sampled inputs
  // of `data`. Candidate failures go to CudaMeasurement::failure; harness failures throw. The wall
  // time of each step goes to `steps`.
  [[nodiscard]] virtual CudaMeasurement measure(const std::filesystem::path& dir, const EvalRequest& req,
                                                const CandidateData& data, StepTimes* steps) = 0;
};

// Standalone launch at the profiled shape; `why` (non-empty) is recorded as the fallback reason.
// The source-output check compares with `framework_op` (the PyTorch op on the GPU) when given,
// else with the float64 CPU reference, recording `framework_why_not`.
[[nodiscard]] std::unique_ptr<CudaProfiler> make_standalone_profiler(const CudaTools& tools, std::string why,
                                                                     std::optional<FrameworkOpSetup> framework_op,
                                                                     std::string framework_why_not);
// Inside the workload the reference was captured from.
[[nodiscard]] std::unique_ptr<CudaProfiler> make_workload_profiler(const CudaTools& tools, WorkloadSetup setup);

// ---- the source-output check against the PyTorch op (framework_op.cc)
// check's operator as the JSON the Python side reads (swap_spec.json, op_reference_spec.json).
[[nodiscard]] nlohmann::json op_spec_json(const check::OpSpec& op);
// The candidate's output `cuda_out` on the sampled inputs of `data` against the original PyTorch
// op on the same inputs (python -m vxsynth_torch.op_reference, spec written to
// `cuda_dir`/op_reference_spec.json), with the path's source-output tolerance. nullopt when the op
// did not run, with the reason in `why_not`.
[[nodiscard]] std::optional<CheckOutcome> framework_op_check(const FrameworkOpSetup& setup,
                                                             const std::filesystem::path& cuda_dir,
                                                             const CandidateData& data,
                                                             const std::vector<double>& cuda_out,
                                                             std::string& why_not);

// ---- ncu steps both profilers use
// What the profiled process sees of the data: copies of the sampled inputs (never ref_output.bin)
// in <cuda>/profile-data, with their SHA-256 to compare after the run.
struct ProfileInputs {
  std::filesystem::path dir;
  std::map<std::string, std::string> sha256;  // file name -> hash before the run
};
[[nodiscard]] ProfileInputs stage_profile_inputs(const std::filesystem::path& cuda_dir, const CandidateData& data);
// "sandbox: input_changed: …" when an input copy differs after the run, else empty.
[[nodiscard]] std::string changed_input(const ProfileInputs& in);
// One isolated step of the CUDA side (nvcc, or the ncu-profiled run when `gpu`): <candidate>/cuda is
// the only writable directory, the run and candidate directories are hidden (harness_vortex.h
// hidden_dirs), the environment is `env` plus the GPU's (LD_LIBRARY_PATH, CUDA_VISIBLE_DEVICES and
// NVIDIA_* when set, which the driver and the CUDA libraries read).
[[nodiscard]] IsolatedRun cuda_step(const std::filesystem::path& candidate_dir, const EvalRequest& req, bool gpu,
                                    std::map<std::string, std::string> env, double timeout_s);

// The --metrics list of the architecture's metric table (comma-separated).
[[nodiscard]] std::string ncu_metric_list(core::Arch arch);
// `ncu --import REP --csv --page raw --print-units base` into `csv_path`, parsed; the failure (empty
// on success) in `failure`.
[[nodiscard]] core::NcuReport import_ncu_report(const std::string& ncu, const std::filesystem::path& rep,
                                                const std::filesystem::path& csv_path, std::string& failure);
// The candidate's main kernel: the longest launch (a split-K reduction or epilogue is short).
[[nodiscard]] const core::NcuKernel& longest_kernel(const core::NcuReport& report, const std::filesystem::path& rep);

}  // namespace vxsynth::refine
