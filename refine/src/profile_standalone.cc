// The standalone CUDA profiler (the ncu backend's recorded fallback, e.g. a bundle imported without
// a workload): the candidate compiled with codegen's standalone launcher, launched once at the
// profiled shape under Nsight Compute with the reference's collection settings (clock control
// none, caches flushed); the longest kernel gives the signature. Source-output check: CUDA vs the
// original PyTorch op on the GPU on the same sampled inputs (framework_op.cc) when torch with a GPU
// is there, else vs the float64 CPU reference, with the reason in the recorded method. Also the
// ncu steps both profilers share.

#include <fmt/format.h>

#include "cuda_profiler.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/harness.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

std::string ncu_metric_list(core::Arch arch) {
  std::string list;
  for (const auto& m : core::required_ncu_metrics(arch)) list += (list.empty() ? "" : ",") + m;
  return list;
}

core::NcuReport import_ncu_report(const std::string& ncu, const fs::path& rep, const fs::path& csv_path,
                                  std::string& failure) {
  const ProcessResult csv =
      run_process({ncu, "--import", rep.string(), "--csv", "--page", "raw", "--print-units", "base"},
                  {120.0, csv_path.parent_path()});
  if (!csv.ok()) {
    failure = fmt::format("ncu --import: {}: {}", csv.status_text(), tail_lines(csv.output, 4));
    return {};
  }
  write_file_atomic(csv_path, csv.output);
  return core::parse_ncu_csv(csv.output, csv_path.string());
}

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

namespace {

class StandaloneProfiler : public CudaProfiler {
 public:
  StandaloneProfiler(CudaTools tools, std::string why, std::optional<FrameworkOpSetup> framework_op,
                     std::string framework_why_not)
      : tools_(std::move(tools)),
        why_(std::move(why)),
        framework_op_(std::move(framework_op)),
        framework_why_not_(std::move(framework_why_not)) {}

  CudaMeasurement measure(const fs::path& dir, const EvalRequest& req, const CandidateData& data) override {
    CudaMeasurement m;
    m.place.where = "standalone";
    m.place.step = "one launch at the profiled shape (codegen's standalone launcher)";
    m.place.note = why_;
    m.failure = build(dir, req, data);
    if (!m.failure.empty()) return m;
    const fs::path rep = dir / "cuda" / "candidate.ncu-rep";
    m.failure = profile(dir, req, data, rep);
    if (!m.failure.empty()) return m;
    const core::NcuReport report = import_ncu_report(tools_.ncu, rep, dir / "cuda" / "ncu_raw.csv", m.failure);
    if (!m.failure.empty()) return m;
    const core::NcuKernel& main = longest_kernel(report, rep);
    m.signature = core::signature_from_ncu(main, report.arch);
    m.block_size = static_cast<int>(main.block[0] * main.block[1] * main.block[2]);
    m.output = check::read_tensor_file(data.dir / "cuda_out.bin", check::output_numel(data.op), data.ftype);
    m.source_output = source_output_check(dir / "cuda", data, m.output);
    return m;
  }

 private:
  // Compiles the candidate with codegen's standalone launcher for the bundle's architecture.
  std::string build(const fs::path& dir, const EvalRequest& req, const CandidateData& data) const {
    if (!tools_.nvcc) throw make_error("profile backend 'ncu': no nvcc ($NVCC or /usr/local/cuda/bin/nvcc)");
    write_file_atomic(dir / "cuda" / codegen::kStandaloneFileName, codegen::standalone_harness(data.op, data.path));
    const ProcessResult nv = run_process(
        {tools_.nvcc->string(), fmt::format("-arch={}", core::arch_info(tools_.arch).sm), "-std=c++17", "-O2", "-o",
         "vxs_standalone", codegen::kCudaFileName, codegen::kStandaloneFileName},
        {req.rules->build_timeout_s, dir / "cuda"});
    if (!nv.ok()) return fmt::format("nvcc: {}: {}", nv.status_text(), tail_lines(nv.output, 4));
    return {};
  }

  // One launch under Nsight Compute with the reference's collection settings and the metrics of
  // the bundle's architecture.
  std::string profile(const fs::path& dir, const EvalRequest& req, const CandidateData& data,
                      const fs::path& rep) const {
    std::error_code ec;
    fs::remove(rep, ec);
    const ProcessResult prof = run_process(
        {tools_.ncu, "--metrics", ncu_metric_list(tools_.arch), "--clock-control", "none", "--cache-control", "all",
         "--export", rep.string(), "--force-overwrite", (dir / "cuda" / "vxs_standalone").string(),
         fs::absolute(data.dir).string()},
        {req.rules->run_timeout_s, dir / "cuda"});
    write_file_atomic(dir / "cuda" / "ncu.log", prof.output);
    if (!prof.ok() || !fs::exists(data.dir / "cuda_out.bin"))
      return fmt::format("run (ncu): {}: {}", prof.status_text(), tail_lines(prof.output, 4));
    return {};
  }

  // Against the PyTorch op when it can run, else against float64 with the reason in the method.
  CheckOutcome source_output_check(const fs::path& cuda_dir, const CandidateData& data,
                                   const std::vector<double>& out) const {
    std::string why_not = framework_why_not_;
    if (framework_op_) {
      if (std::optional<CheckOutcome> c = framework_op_check(*framework_op_, cuda_dir, data, out, why_not)) return *c;
    }
    return compare(out, data.reference, data, check::CheckKind::kSourceOutput, check::ReferenceKind::kCpuFloat64,
                   fmt::format("cuda_vs_cpu_f64 (standalone launch at the profiled shape; no PyTorch op: {})",
                               why_not.empty() ? "not requested" : why_not));
  }

  CudaTools tools_;
  std::string why_;
  std::optional<FrameworkOpSetup> framework_op_;
  std::string framework_why_not_;
};

}  // namespace

std::unique_ptr<CudaProfiler> make_standalone_profiler(const CudaTools& tools, std::string why,
                                                     std::optional<FrameworkOpSetup> framework_op,
                                                     std::string framework_why_not) {
  return std::make_unique<StandaloneProfiler>(tools, std::move(why), std::move(framework_op),
                                              std::move(framework_why_not));
}

}  // namespace vxsynth::refine
