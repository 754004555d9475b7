// The standalone CUDA profiler (the ncu backend's recorded fallback, e.g. a bundle imported without
// a workload): the candidate compiled with codegen's standalone launcher, launched once at the
// profiled shape under Nsight Compute with the reference's collection settings (clock control
// none, caches flushed); the longest kernel gives the signature. Source-output check: CUDA vs the
// original PyTorch op on the GPU on the same sampled inputs (framework_op.cc) when torch with a GPU
// is there, else vs the float64 CPU reference, with the reason in the recorded method. Also the
// ncu steps both profilers share.

#include <cstdlib>

#include <fmt/format.h>

#include "cuda_profiler.h"
#include "harness_vortex.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/harness.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/refine/agent.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

ProfileInputs stage_profile_inputs(const fs::path& cuda_dir, const CandidateData& data) {
  ProfileInputs in;
  in.dir = cuda_dir / "profile-data";
  std::error_code ec;
  fs::remove_all(in.dir, ec);
  fs::create_directories(in.dir);
  for (const auto& e : fs::directory_iterator(data.dir)) {
    const std::string name = e.path().filename().string();
    if (name == "ref_output.bin" || name.ends_with("_out.bin") || name == "out.bin" || !e.is_regular_file()) continue;
    fs::copy_file(e.path(), in.dir / name);
    in.sha256[name] = sha256_hex(read_file(e.path()));
  }
  return in;
}

std::string changed_input(const ProfileInputs& in) {
  for (const auto& [name, hash] : in.sha256)
    if (!fs::exists(in.dir / name) || sha256_hex(read_file(in.dir / name)) != hash)
      return sandbox_failure({{"input_changed", "data/" + name, 0, "the input file changed during the profiled run"}});
  return {};
}

IsolatedRun cuda_step(const fs::path& candidate_dir, const EvalRequest& req, bool gpu,
                      std::map<std::string, std::string> env, double timeout_s) {
  IsolatedRun r;
  r.work = candidate_dir / "cuda";
  r.hidden = hidden_dirs(candidate_dir, req);
  r.gpu = gpu;
  r.timeout_s = timeout_s;
  if (gpu)
    for (const char* k : {"LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
                          "NVIDIA_DRIVER_CAPABILITIES"})
      if (const char* v = std::getenv(k); v != nullptr && !env.count(k)) env[k] = v;
  r.env = std::move(env);
  return r;
}

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

// File names in <candidate>/cuda: the object check_cuda_candidate compiled, the launcher's object.
constexpr const char* kCandidateObject = "candidate.o";
constexpr const char* kLauncherObject = "vxs_standalone.o";

class StandaloneProfiler : public CudaProfiler {
 public:
  StandaloneProfiler(CudaTools tools, std::string why, std::optional<FrameworkOpSetup> framework_op,
                     std::string framework_why_not)
      : tools_(std::move(tools)),
        why_(std::move(why)),
        framework_op_(std::move(framework_op)),
        framework_why_not_(std::move(framework_why_not)) {}

  CudaMeasurement measure(const fs::path& dir, const EvalRequest& req, const CandidateData& data,
                          StepTimes* steps) override {
    CudaMeasurement m;
    m.place.where = "standalone";
    m.place.step = "one launch at the profiled shape (codegen's standalone launcher)";
    m.place.note = why_;
    {
      const StepTimer t(steps, RevisionStep::kCudaLink);
      m.failure = build(dir, req, data);
    }
    if (!m.failure.empty()) return m;
    const fs::path rep = dir / "cuda" / "candidate.ncu-rep";
    const ProfileInputs in = stage_profile_inputs(dir / "cuda", data);
    m.failure = profile(dir, req, in, rep, steps);
    if (m.failure.empty()) m.failure = changed_input(in);
    if (!m.failure.empty()) return m;
    {
      const StepTimer t(steps, RevisionStep::kNcuImport);
      const core::NcuReport report = import_ncu_report(tools_.ncu, rep, dir / "cuda" / "ncu_raw.csv", m.failure);
      if (!m.failure.empty()) return m;
      const core::NcuKernel& main = longest_kernel(report, rep);
      m.signature = core::signature_from_ncu(main, report.arch);
      m.block_size = static_cast<int>(main.block[0] * main.block[1] * main.block[2]);
      m.main_launch = main;
    }
    m.output = check::read_tensor_file(in.dir / "cuda_out.bin", check::output_numel(data.op), data.ftype);
    const StepTimer t(steps, RevisionStep::kFrameworkOp);
    m.source_output = source_output_check(dir / "cuda", data, m.output);
    return m;
  }

 private:
  // Links the candidate's object — the one compiled and checked by check_cuda_candidate — with
  // codegen's standalone launcher for the bundle's architecture. The launcher depends only on the
  // op, the path and the architecture: it is compiled once per run (under <run>/work/) and its
  // object copied next to the candidate's, so a revision compiles its candidate once.
  std::string build(const fs::path& dir, const EvalRequest& req, const CandidateData& data) const {
    if (!tools_.nvcc) throw make_error("profile backend 'ncu': no nvcc ($NVCC or /usr/local/cuda/bin/nvcc)");
    const fs::path cuda = dir / "cuda";
    if (!fs::exists(cuda / kCandidateObject))
      throw make_error("{}: the checked object of the candidate is missing", (cuda / kCandidateObject).string());
    const std::string launcher = codegen::standalone_harness(data.op, data.path);
    write_file_atomic(cuda / codegen::kStandaloneFileName, launcher);
    std::string failure;
    const fs::path object = launcher_object(dir, req, launcher, failure);
    if (!failure.empty()) return failure;
    fs::copy_file(object, cuda / kLauncherObject, fs::copy_options::overwrite_existing);
    const ProcessResult nv = req.rules->isolation->run(
        {tools_.nvcc->string(), core::nvcc_target_flag(core::arch_info(tools_.arch).sm), "-o", "vxs_standalone",
         kCandidateObject, kLauncherObject},
        cuda_step(dir, req, /*gpu=*/false, {}, req.rules->build_timeout_s));
    if (!nv.ok()) return fmt::format("nvcc (link): {}: {}", nv.status_text(), tail_lines(nv.output, 4));
    return {};
  }

  // The launcher's object, compiled on first use in a directory named by the hash of its source,
  // the architecture and nvcc (the candidate directory itself when the request has no run directory).
  fs::path launcher_object(const fs::path& dir, const EvalRequest& req, const std::string& launcher,
                           std::string& failure) const {
    const std::string sm(core::arch_info(tools_.arch).sm);
    const std::string key = sha256_hex(launcher + '\0' + sm + '\0' + tools_.nvcc->string()).substr(0, 16);
    const fs::path root = req.run_dir.empty() ? dir / "cuda" / "launcher" : req.run_dir / "work" / "standalone-launcher";
    const fs::path ldir = root / key;
    if (fs::exists(ldir / kLauncherObject)) return ldir / kLauncherObject;
    std::error_code ec;
    fs::remove_all(ldir, ec);
    fs::create_directories(ldir);
    write_file_atomic(ldir / codegen::kStandaloneFileName, launcher);
    IsolatedRun r;
    r.work = ldir;
    r.timeout_s = req.rules->build_timeout_s;
    const ProcessResult nv = req.rules->isolation->run(
        {tools_.nvcc->string(), core::nvcc_target_flag(sm), "-std=c++17", "-O2", "-c", codegen::kStandaloneFileName, "-o",
         std::string(kLauncherObject) + ".part"},
        r);
    if (!nv.ok()) {
      failure = fmt::format("harness: compiling the standalone launcher: nvcc {}: {}", nv.status_text(),
                            tail_lines(nv.output, 4));
      return {};
    }
    fs::rename(ldir / (std::string(kLauncherObject) + ".part"), ldir / kLauncherObject);
    return ldir / kLauncherObject;
  }

  // One launch under Nsight Compute with the reference's collection settings and the metrics of
  // the bundle's architecture; ncu and the process it profiles run isolated (gpu step), seeing
  // only <candidate>/cuda with the copies of the inputs.
  std::string profile(const fs::path& dir, const EvalRequest& req, const ProfileInputs& in, const fs::path& rep,
                      StepTimes* steps) const {
    std::error_code ec;
    fs::remove(rep, ec);
    const auto gpu = hold_gpu(tools_, steps);
    const StepTimer t(steps, RevisionStep::kNcuSession);
    const ProcessResult prof = req.rules->isolation->run(
        {tools_.ncu, "--metrics", ncu_metric_list(tools_.arch), "--clock-control", "none", "--cache-control", "all",
         "--export", fs::absolute(rep).string(), "--force-overwrite",
         fs::absolute(dir / "cuda" / "vxs_standalone").string(), fs::absolute(in.dir).string()},
        cuda_step(dir, req, /*gpu=*/true, {}, req.rules->run_timeout_s));
    write_file_atomic(dir / "cuda" / "ncu.log", prof.output);
    if (!prof.ok() || !fs::exists(in.dir / "cuda_out.bin"))
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
