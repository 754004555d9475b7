// The vxsim profile backend (vxsim counters scored against the reference signature, the default
// without a GPU; not the Vortex-first order of order.h): builds the Vortex candidate
// with the SDK, runs it on vxsim in timing mode on fresh seeded inputs, checks its output against
// the float64 CPU reference, compiles the CUDA candidate with nvcc where present (the source-output
// check needs a GPU and is recorded as not run), and takes D from the Vortex-side signature the
// vxsim runtime writes to $VXSIM_SIGNATURE (docs/timing.md, "Signature file").

#include <fmt/format.h>

#include "candidate_steps.h"
#include "harness_cuda.h"
#include "tool_probe.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/toolchain.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/backends.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

class VxsimBackend : public ProfileBackend {
 public:
  explicit VxsimBackend(const VxsimBackendOptions& o)
      : sdk_dir_(o.sdk_dir), cuda_arch_(core::arch_info(o.gpu_arch).sm),
        versions_(common_tool_versions(sdk_dir_, nvcc_)) {}

  std::string name() const override { return "vxsim"; }

  Evaluation evaluate(const fs::path& dir, const EvalRequest& req) override {
    Evaluation ev;
    ev.tool_versions = versions_;
    ev.observed_is_vortex = true;
    const CandidateData data = [&] {
      const StepTimer t(&ev.steps, RevisionStep::kInputs);
      return prepare_data(dir, req);
    }();
    {
      const StepTimer t(&ev.steps, RevisionStep::kCudaCompile);
      ev.failure = compile_cuda_only(dir, req, ev.source_output);
    }
    if (!ev.failure.empty()) return ev;
    std::vector<double> vx_out;
    ev.failure = run_vortex_side(dir, sdk_dir_, req, data, /*timing=*/true, vx_out, &ev.steps);
    if (!ev.failure.empty()) return ev;
    ev.candidate = compare(vx_out, data.reference, data, check::CheckKind::kCandidate,
                           check::ReferenceKind::kCpuFloat64, "vortex_vs_cpu_f64");
    ev.failure = take_vortex_signature(dir, req, ev);
    if (!ev.failure.empty()) return ev;
    observe_engine(ev);
    return ev;
  }

  // evaluate() ran the locked revision in timing mode: its signature file is already there.
  std::string measure_locked_vortex_signature(const fs::path& dir, const EvalRequest&) override {
    return fs::exists(dir / kVortexSignatureFile) ? std::string() : "the vxsim run wrote none";
  }

 private:
  // Without a GPU the CUDA candidate is compiled only (for the bundle's architecture), under the
  // same artefact rules as on a GPU, so a candidate that nvcc rejects or whose compiled form breaks
  // a rule is rejected here too. Returns the failure, empty on success.
  std::string compile_cuda_only(const fs::path& dir, const EvalRequest& req, CheckOutcome& source_output) const {
    source_output.ran = false;
    if (!nvcc_) {
      source_output.method = "not run: no GPU and no nvcc (the CUDA candidate was not built or checked)";
      return {};
    }
    if (std::string f = check_cuda_candidate(dir, req, *nvcc_, cuda_arch_); !f.empty()) return f;
    source_output.method = fmt::format(
        "not run: no GPU (CUDA candidate compiled with nvcc for {} and its artefacts checked; it did not run)", cuda_arch_);
    return {};
  }

  fs::path sdk_dir_;
  std::string cuda_arch_;
  std::optional<fs::path> nvcc_;
  std::map<std::string, std::string> versions_;
};

}  // namespace

std::unique_ptr<ProfileBackend> make_vxsim_backend(const VxsimBackendOptions& opts) {
  return std::make_unique<VxsimBackend>(opts);
}

}  // namespace vxsynth::refine
