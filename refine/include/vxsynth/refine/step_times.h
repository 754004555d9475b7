#pragma once
// Where a revision's wall time goes: one row per step a backend runs, keyed by RevisionStep, so a
// record says which step made a revision slow (docs/reconstruct.md, "Step times"). The record's
// `step_wall_s` object holds the steps that ran, by name; a step that ran twice (a workload
// profile's two sessions) holds their sum.

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace vxsynth::refine {

enum class RevisionStep : uint8_t {
  kInputs,           // sampled inputs drawn and the float64 CPU reference computed
  kCudaCompile,      // nvcc of the candidate (kept intermediates) and its artefact rules
  kCudaLink,         // the profiled program linked (standalone launcher or workload swap library)
  kGpuLockWait,      // waiting for the GPU lock (other jobs' ncu sessions)
  kNcuSession,       // the ncu session itself, lock held
  kNcuImport,        // ncu --import to CSV and the signature
  kFrameworkOp,      // the PyTorch op on the sampled inputs (source-output check)
  kVortexBuild,      // make of the Vortex candidate, the harness host program, the artefact rules
  kVortexSelfCheck,  // the candidate's own host program (skipped when it is the harness's own)
  kVortexRun,        // the harness's run of the candidate's kernel image
  kCount
};

struct RevisionStepRow {
  RevisionStep step;
  std::string_view name;  // key in the record's step_wall_s
  std::string_view what;
};

inline constexpr std::array<RevisionStepRow, static_cast<size_t>(RevisionStep::kCount)> kRevisionSteps{{
    {RevisionStep::kInputs, "inputs", "sampled inputs and the float64 CPU reference"},
    {RevisionStep::kCudaCompile, "cuda_compile", "nvcc of cuda/candidate.cu and its artefact rules"},
    {RevisionStep::kCudaLink, "cuda_link", "the profiled program linked from the checked object"},
    {RevisionStep::kGpuLockWait, "gpu_lock_wait", "waiting for the GPU lock"},
    {RevisionStep::kNcuSession, "ncu_session", "the ncu session, GPU lock held"},
    {RevisionStep::kNcuImport, "ncu_import", "ncu --import and the signature"},
    {RevisionStep::kFrameworkOp, "framework_op", "the PyTorch op on the sampled inputs"},
    {RevisionStep::kVortexBuild, "vortex_build", "make of the Vortex candidate and its artefact rules"},
    {RevisionStep::kVortexSelfCheck, "vortex_self_check", "the candidate's own host program"},
    {RevisionStep::kVortexRun, "vortex_run", "the harness's run of the candidate's kernel image"},
}};

constexpr bool revision_steps_in_enum_order() {
  for (size_t i = 0; i < kRevisionSteps.size(); ++i)
    if (static_cast<size_t>(kRevisionSteps[i].step) != i) return false;
  return true;
}
static_assert(revision_steps_in_enum_order(), "kRevisionSteps: one row per RevisionStep, in enum order");

[[nodiscard]] std::string_view step_name(RevisionStep s);
/// The step of a record name; nullopt for a name no row has.
[[nodiscard]] std::optional<RevisionStep> step_from_name(std::string_view name);

/// Seconds per step of one revision.
class StepTimes {
 public:
  void add(RevisionStep s, double seconds) { seconds_[s] += seconds; }
  [[nodiscard]] const std::map<RevisionStep, double>& seconds() const { return seconds_; }
  [[nodiscard]] bool empty() const { return seconds_.empty(); }

 private:
  std::map<RevisionStep, double> seconds_;
};

/// Adds the wall time from construction to destruction to one step of `times` (none: nothing).
class StepTimer {
 public:
  StepTimer(StepTimes* times, RevisionStep s) : times_(times), step_(s) {}
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;
  ~StepTimer() {
    if (times_ != nullptr)
      times_->add(step_, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count());
  }

 private:
  StepTimes* times_;
  RevisionStep step_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

}  // namespace vxsynth::refine
