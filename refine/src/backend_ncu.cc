// The ncu profile backend (CUDA-first, the default when nvidia-smi shows a GPU): the CUDA candidate
// is measured by a CudaProfiler (cuda_profiler.h) under Nsight Compute with the reference's
// collection settings: inside the reference workload through the operator swap when the bundle
// names one (profile_workload.cc, paper §3.4), else as a standalone launch at the profiled shape
// (profile_standalone.cc, recorded as the fallback with its reason). Its longest kernel gives the
// signature. Candidate check: Vortex (vxsim, functional mode) vs CUDA on the sampled inputs. The
// locked kernel's Vortex-side timing signature is measured once, at lock.

#include <fmt/format.h>

#include "candidate_steps.h"
#include "cuda_profiler.h"
#include "harness_cuda.h"
#include "harness_vortex.h"
#include "tool_probe.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/harness.h"
#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/refine/backends.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

// The design's CUDA GEMM launch: grid (design_grid), block, the op as a GEMM, tile, split-K, and
// the counter of its MACs on the design's path.
CudaLaunchShape cuda_launch_shape(const EvalRequest& req) {
  const codegen::DesignPoint p = codegen::design_point_from_json(req.design);
  CudaLaunchShape s;
  s.grid = design_grid(req);
  s.block_threads = p.fixed.block_size;
  const codegen::GemmView g = codegen::gemm_view(p.fixed.op);
  s.z = g.z, s.m = g.m, s.n = g.n, s.k = g.k;
  s.tile_m = p.axes.tile.m, s.tile_n = p.axes.tile.n, s.tile_k = p.axes.tile.k, s.split_k = p.axes.split_k;
  // The path the CUDA candidate computes (a TF32 reference at FP16 under the Vortex-first translation).
  const check::PrecisionPath path = codegen::cuda_path(p);
  s.counter = path == check::PrecisionPath::kFp32       ? MacCounter::kFfma
              : path == check::PrecisionPath::kTf32     ? MacCounter::kTensorTf32
              : path == check::PrecisionPath::kTf32Fp16 ? MacCounter::kTensorFp16
                                                        : MacCounter::kTensorBf16;
  return s;
}

class NcuBackend : public ProfileBackend {
 public:
  explicit NcuBackend(const NcuBackendOptions& o)
      : sdk_dir_(o.sdk_dir), arch_(o.gpu_arch), reference_gpu_(o.reference_gpu),
        versions_(common_tool_versions(sdk_dir_, nvcc_)) {
    versions_["ncu"] = tool_version({o.ncu, "--version"});
    const CudaTools tools{nvcc_, o.ncu, o.gpu_arch, o.gpu_lock};
    profiler_ = o.workload ? make_workload_profiler(tools, *o.workload)
                           : make_standalone_profiler(tools, o.standalone_reason, o.framework_op, o.framework_op_reason);
  }

  std::string name() const override { return "ncu"; }

  Evaluation evaluate(const fs::path& dir, const EvalRequest& req) override {
    Evaluation ev;
    ev.tool_versions = versions_;
    ev.observed_is_vortex = false;
    const CandidateData data = [&] {
      const StepTimer t(&ev.steps, RevisionStep::kInputs);
      return prepare_data(dir, req);
    }();
    // The artefact rules on the CUDA candidate (harness_cuda.h) before it is linked and profiled.
    if (nvcc_) {
      const StepTimer t(&ev.steps, RevisionStep::kCudaCompile);
      ev.failure = check_cuda_candidate(dir, req, *nvcc_, std::string(core::arch_info(arch_).sm));
    }
    if (!ev.failure.empty()) return ev;
    CudaMeasurement cuda = profiler_->measure(dir, req, data, &ev.steps);
    ev.profiled_in = cuda.place;
    ev.source_output = cuda.source_output;
    ev.observed.block_size = cuda.block_size;
    if (!cuda.failure.empty()) {
      ev.failure = cuda.failure;
      return ev;
    }
    // Scored against the reference only on the GPU the reference was profiled on: a mismatch holds
    // for every later revision too, so it stops the run instead of rejecting this one.
    if (const core::NcuCell* gpu = cuda.main_launch.find(core::kGpuNameMetric))
      if (const std::string why = reference_gpu_mismatch(gpu->text, reference_gpu_, "ncu's " +
                                                         std::string(core::kGpuNameMetric));
          !why.empty())
        throw make_error("{}: {}", (dir / "cuda").string(), why);
    // One strategy, two sides: the profiled main launch is the design's (docs/sandbox.md).
    if (const auto v = check_cuda_launch(cuda.main_launch, cuda_launch_shape(req), "cuda/candidate.cu"); !v.empty()) {
      ev.failure = sandbox_failure(v);
      return ev;
    }
    // The Vortex run is the candidate check only (D comes from the CUDA candidate): functional
    // mode, 5–10× faster than timing mode (docs/timing.md).
    std::vector<double> vx_out;
    ev.failure = run_vortex_side(dir, sdk_dir_, req, data, /*timing=*/false, vx_out, &ev.steps);
    if (!ev.failure.empty()) return ev;
    // A design too large for a whole functional run per revision is compared on its sampled
    // tiles (the Vortex run launched only their blocks; the CUDA candidate ran the whole shape).
    if (const auto s = check_sample(req, /*timing=*/false)) {
      const codegen::DesignPoint p = codegen::design_point_from_json(req.design);
      const auto idx = codegen::sampled_outputs(p, *s);
      ev.candidate = compare(codegen::gather(vx_out, idx), codegen::gather(cuda.output, idx), data,
                             check::CheckKind::kCandidate, check::ReferenceKind::kCudaCandidate,
                             "vortex_vs_cuda, " + s->describe(p));
    } else {
      ev.candidate = compare(vx_out, cuda.output, data, check::CheckKind::kCandidate,
                             check::ReferenceKind::kCudaCandidate, "vortex_vs_cuda");
    }
    ev.signature = cuda.signature.signature;
    observe_engine(ev);
    ev.observed.atomics_per_inst = (*ev.signature)[core::MetricId::kAtomicsPerInst];
    return ev;
  }

  // The locked revision's Vortex program was built and checked in evaluate(); run it once more in
  // timing mode on the same inputs for its signature (every launch recorded, the main one at the
  // top level: docs/timing.md, "Signature file").
  std::string measure_locked_vortex_signature(const fs::path& dir, const EvalRequest& req) override {
    // The harness's own host program and kernel image from evaluate() (harness_vortex.h), isolated.
    const fs::path run = dir / "harness-run";
    const fs::path sig_path = run / kVortexSignatureFile;
    const codegen::DesignPoint design = codegen::design_point_from_json(req.design);
    // A run expected to take more than twice the run limit would only time out: say so at once
    // (docs/vxsim.md "What the suite kernels cost to simulate").
    if (const double expect_s = codegen::vxsim_expected_s(design, /*timing=*/true);
        expect_s > 2 * req.rules->run_timeout_s)
      return fmt::format("timing run of the locked kernel not started: expected {:.0f} s of timing-mode simulation "
                         "({:.2g} warp instructions at {:.0e}/s), more than twice the run limit of {:.0f} s; measure "
                         "it with `make run` in vortex/ and VXSIM_SIGNATURE set",
                         expect_s, static_cast<double>(codegen::vxsim_expected_warp_instrs(design)),
                         codegen::kVxsimTimingWarpInstrsPerS, req.rules->run_timeout_s);
    std::map<std::string, std::string> env = codegen::vxsim_env(design, /*timing=*/true);
    env["VXSIM_SIGNATURE"] = fs::absolute(sig_path).string();
    std::error_code ec;
    fs::remove(sig_path, ec);
    IsolatedRun r;
    r.work = run;
    r.hidden = hidden_dirs(dir, req);
    r.env = env;
    r.timeout_s = req.rules->run_timeout_s;
    const ProcessResult p =
        req.rules->isolation->run({"./vxs_candidate", "-d", fs::absolute(run / kDataDir).string()}, r);
    write_file_atomic(dir / "run_timing.log", p.output);
    if (!p.ok() || !fs::exists(sig_path))
      return fmt::format("timing run of the locked kernel: {}: {}", p.status_text(), tail_lines(p.output, 2));
    fs::copy_file(sig_path, dir / kVortexSignatureFile, fs::copy_options::overwrite_existing);
    return {};
  }

 private:
  fs::path sdk_dir_;
  core::Arch arch_;
  std::string reference_gpu_;
  std::optional<fs::path> nvcc_;
  std::map<std::string, std::string> versions_;
  std::unique_ptr<CudaProfiler> profiler_;
};

}  // namespace

std::unique_ptr<ProfileBackend> make_ncu_backend(const NcuBackendOptions& opts) {
  return std::make_unique<NcuBackend>(opts);
}

}  // namespace vxsynth::refine
