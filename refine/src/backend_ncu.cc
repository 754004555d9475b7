// The ncu profile backend (CUDA-first, the default when nvidia-smi shows a GPU): the CUDA candidate
// is compiled with nvcc for the bundle's architecture together with codegen's standalone launcher
// and launched once at the profiled shape under Nsight Compute with the reference's collection
// settings (--clock-control none, caches flushed); its longest kernel gives the signature.
// Source-output check: CUDA vs the float64 CPU reference; candidate check: Vortex (vxsim,
// functional mode) vs CUDA. The locked kernel's Vortex-side timing signature is measured once, at lock.

#include <fmt/format.h>

#include "candidate_steps.h"
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

// The candidate's main kernel: the longest launch (a split-K reduction or epilogue is short).
const core::NcuKernel& longest_kernel(const core::NcuReport& report, const fs::path& rep) {
  const core::NcuKernel* main = nullptr;
  double longest = -1.0;
  for (const auto& k : report.kernels) {
    const core::NcuCell* t = k.find("gpu__time_duration.sum");
    const double v = t && t->value ? *t->value : 0.0;
    if (v > longest) {
      longest = v;
      main = &k;
    }
  }
  if (main == nullptr) throw make_error("{}: ncu profiled no kernel", rep.string());
  return *main;
}

// What the CUDA side of one candidate gave.
struct CudaSide {
  std::string failure;
  std::vector<double> output;
  core::NcuSignature signature;
};

class NcuBackend : public ProfileBackend {
 public:
  explicit NcuBackend(const NcuBackendOptions& o)
      : sdk_dir_(o.sdk_dir), ncu_(o.ncu), arch_(o.gpu_arch), versions_(common_tool_versions(sdk_dir_, nvcc_)) {
    versions_["ncu"] = tool_version({ncu_, "--version"});
  }

  std::string name() const override { return "ncu"; }

  Evaluation evaluate(const fs::path& dir, const EvalRequest& req) override {
    Evaluation ev;
    ev.tool_versions = versions_;
    ev.observed_is_vortex = false;
    const CandidateData data = prepare_data(dir, req);
    // The artefact rules on the CUDA candidate (harness_cuda.h) before it is linked and profiled.
    if (nvcc_) ev.failure = check_cuda_candidate(dir, req, *nvcc_, std::string(core::arch_info(arch_).sm));
    if (!ev.failure.empty()) return ev;
    CudaSide cuda = run_cuda_side(dir, req, data, ev);
    if (!cuda.failure.empty()) {
      ev.failure = cuda.failure;
      return ev;
    }
    // The Vortex run is the candidate check only (D comes from the CUDA candidate): functional
    // mode, 5–10× faster than timing mode (docs/timing.md).
    std::vector<double> vx_out;
    ev.failure = run_vortex_side(dir, sdk_dir_, req, data, /*timing=*/false, vx_out);
    if (!ev.failure.empty()) return ev;
    ev.candidate = compare(vx_out, cuda.output, data, check::CheckKind::kCandidate,
                           check::ReferenceKind::kCudaCandidate, "vortex_vs_cuda");
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
    std::map<std::string, std::string> env =
        codegen::vxsim_env(codegen::design_point_from_json(req.design), /*timing=*/true);
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
  // nvcc (candidate + standalone launcher) → ncu → signature of the longest kernel, the launch's
  // block size and the source-output check.
  CudaSide run_cuda_side(const fs::path& dir, const EvalRequest& req, const CandidateData& data, Evaluation& ev) {
    CudaSide s;
    s.failure = build_standalone(dir, req, data);
    if (!s.failure.empty()) return s;
    const fs::path rep = dir / "cuda" / "candidate.ncu-rep";
    s.failure = profile(dir, req, data, rep);
    if (!s.failure.empty()) return s;
    const ProcessResult csv = run_process(
        {ncu_, "--import", rep.string(), "--csv", "--page", "raw", "--print-units", "base"}, {120.0, dir / "cuda"});
    if (!csv.ok()) {
      s.failure = fmt::format("ncu --import: {}: {}", csv.status_text(), tail_lines(csv.output, 4));
      return s;
    }
    write_file_atomic(dir / "cuda" / "ncu_raw.csv", csv.output);
    const core::NcuReport report = core::parse_ncu_csv(csv.output, (dir / "cuda" / "ncu_raw.csv").string());
    const core::NcuKernel& main = longest_kernel(report, rep);
    s.signature = core::signature_from_ncu(main, report.arch);
    ev.observed.block_size = main.block[0] * main.block[1] * main.block[2];
    s.output = check::read_tensor_file(data.dir / "cuda_out.bin", check::output_numel(data.op), data.ftype);
    ev.source_output = compare(s.output, data.reference, data, check::CheckKind::kSourceOutput,
                               check::ReferenceKind::kCpuFloat64,
                               "cuda_vs_cpu_f64 (standalone launch at the profiled shape)");
    return s;
  }

  // Compiles the candidate with codegen's standalone launcher for the bundle's architecture.
  std::string build_standalone(const fs::path& dir, const EvalRequest& req, const CandidateData& data) const {
    if (!nvcc_) throw make_error("profile backend 'ncu': no nvcc ($NVCC or /usr/local/cuda/bin/nvcc)");
    write_file_atomic(dir / "cuda" / codegen::kStandaloneFileName, codegen::standalone_harness(data.op, data.path));
    const ProcessResult nv = run_process(
        {nvcc_->string(), fmt::format("-arch={}", core::arch_info(arch_).sm), "-std=c++17", "-O2", "-o",
         "vxs_standalone", codegen::kCudaFileName, codegen::kStandaloneFileName},
        {req.rules->build_timeout_s, dir / "cuda"});
    if (!nv.ok()) return fmt::format("nvcc: {}: {}", nv.status_text(), tail_lines(nv.output, 4));
    return {};
  }

  // One launch under Nsight Compute with the reference's collection settings (clock control none,
  // caches flushed) and the metrics of the bundle's architecture.
  std::string profile(const fs::path& dir, const EvalRequest& req, const CandidateData& data,
                      const fs::path& rep) const {
    std::string list;
    for (const auto& m : core::required_ncu_metrics(arch_)) list += (list.empty() ? "" : ",") + m;
    std::error_code ec;
    fs::remove(rep, ec);
    const ProcessResult prof = run_process(
        {ncu_, "--metrics", list, "--clock-control", "none", "--cache-control", "all", "--export", rep.string(),
         "--force-overwrite", (dir / "cuda" / "vxs_standalone").string(), fs::absolute(data.dir).string()},
        {req.rules->run_timeout_s, dir / "cuda"});
    write_file_atomic(dir / "cuda" / "ncu.log", prof.output);
    if (!prof.ok() || !fs::exists(data.dir / "cuda_out.bin"))
      return fmt::format("run (ncu): {}: {}", prof.status_text(), tail_lines(prof.output, 4));
    return {};
  }

  fs::path sdk_dir_;
  std::string ncu_;
  core::Arch arch_;
  std::optional<fs::path> nvcc_;
  std::map<std::string, std::string> versions_;
};

}  // namespace

std::unique_ptr<ProfileBackend> make_ncu_backend(const NcuBackendOptions& opts) {
  return std::make_unique<NcuBackend>(opts);
}

}  // namespace vxsynth::refine
