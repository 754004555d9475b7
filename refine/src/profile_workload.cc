// The in-workload CUDA profiler (paper §3.4 "Swapped execution", §3.5): the candidate is built as
// a shared library with codegen's C ABI (nvcc -shared; loaded by ctypes, no torch headers), the
// workload the reference was captured from runs with the matching PyTorch calls routed to it
// (python/vxsynth_torch/swap_run.py), and Nsight Compute profiles the candidate's kernels with the
// capture's settings (python/vxsynth_torch/profile.py: clock control none, caches flushed,
// --profile-from-start off around the same warm-up/window steps, per-launch-config filter, launch
// skip 1, count 1), so the profiled launch sits where the reference launch sat. The dispatch log
// must show the candidate ran for every matching call of every step, as often as the reference
// kernel ran (the trace); the source-output check compares the candidate with the original
// PyTorch op on the GPU, on the sampled inputs and on the calls' real activations.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cuda_profiler.h"
#include "vxsynth/check/op_spec.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Capture settings of python/vxsynth_torch/profile.py's main ncu run (ncu.profile_command), which
// the bundle's provenance records as "ncu_filter": the candidate is profiled with the same ones.
constexpr const char* kLaunchSkip = "1";
constexpr const char* kLaunchCount = "1";
// The candidate's kernels (codegen/src/emit_cuda.cc: vxs_gemm_kernel, vxs_epilogue_kernel).
constexpr const char* kCandidateKernels = "regex:^vxs_";
// Workload calls whose outputs are saved for the check (swap_run.py `max_checked_calls`).
constexpr int kMaxCheckedCalls = 8;

// swap_spec.json: what swap_run.py reads (its SPEC_KEYS).
json swap_spec(const WorkloadSetup& s, const CandidateData& d, const EvalRequest& req) {
  json ops = json::array();
  for (const auto& o : check::operands(d.op)) ops.push_back({{"name", o.name}, {"shape", o.shape}});
  return json{{"schema", "vxsynth.swap_spec/1"},
              {"name", fmt::format("candidate r{}", req.revision)},
              {"op", op_spec_json(d.op)},
              {"storage", check::stores_bf16(d.path) ? "bf16" : "fp32"},
              {"path", check::to_string(d.path)},
              {"operands", ops},
              {"output_shape", check::output_shape(d.op)},
              {"workload", s.workload},
              {"config", s.config},
              {"warmup", s.warmup},
              {"region_iters", s.region_iters},
              {"tf32", s.tf32},
              {"reference_launches_per_step", s.launches_per_step},
              {"max_checked_calls", kMaxCheckedCalls}};
}

// Why the dispatch log does not prove the candidate ran for exactly the reference's calls (empty
// when it does). `r` is swap_result.json.
std::string dispatch_failure(const json& r, const WorkloadSetup& s, const check::OpSpec& op) {
  if (!r.value("failure", std::string()).empty()) return "in-workload run: " + r["failure"].get<std::string>();
  if (!r.contains("steps") || r["steps"].empty()) return "in-workload run: the driver recorded no workload step";
  for (const json& st : r["steps"]) {
    const int64_t routed = st.at("routed").get<int64_t>();
    const int64_t step = st.at("step").get<int64_t>();
    if (routed == 0) {
      std::string near;
      for (const json& n : r.value("near_miss_reasons", json::array())) near += "; " + n.get<std::string>();
      return fmt::format("the candidate never ran in {} step {}: no call matched {}{}", s.workload, step,
                         check::describe(op), near.empty() ? "" : " (calls with the profiled shape: " + near.substr(2) + ")");
    }
    if (st.at("candidate_launches").get<int64_t>() != routed)
      return fmt::format("{} step {}: {} calls routed but the candidate launched {} times", s.workload, step, routed,
                         st.at("candidate_launches").get<int64_t>());
    if (s.launches_per_step > 0 && routed != s.launches_per_step)
      return fmt::format("{} step {}: {} calls routed to the candidate, the reference kernel ran {} times per step "
                         "(the swap would replace other kernels' calls or miss some of the reference's)",
                         s.workload, step, routed, s.launches_per_step);
  }
  return {};
}

// True when every element equals the first: an all-zero or constant output.
bool constant_output(const std::vector<double>& v) {
  for (double x : v)
    if (x != v.front()) return false;
  return true;
}

// One workload call: the candidate's output vs the original op's on the call's real activations.
// A call whose original output is itself constant or all zeros cannot tell a trivial candidate from
// a right one (ACT's decoder value projection of its zero queries with zero-initialised bias:
// 2 of 6 ACT k4 calls, measured on the H200, docs/reconstruct.md "In the workload"), so the
// trivial-output rule does not apply to it: element-wise tolerance only. The sampled inputs keep it.
check::CheckReport call_check(const std::vector<double>& cand, const std::vector<double>& orig,
                              const CandidateData& d) {
  check::CheckReport rep = check::compare_outputs(cand, orig, d.check_path, check::CheckKind::kSourceOutput,
                                                  check::ReferenceKind::kFrameworkOp);
  if (!rep.passed && !orig.empty() && constant_output(orig) && rep.failed == 0 && rep.non_finite == 0 &&
      cand.size() == orig.size()) {
    rep.passed = true;
    rep.reason.clear();
  }
  return rep;
}

// The source-output check: the candidate vs the original PyTorch op on the GPU, on the sampled
// inputs and on every saved workload call; passes only when all pass (errors: the maxima).
CheckOutcome source_output_check(const json& r, const fs::path& out_dir, const fs::path& data_dir,
                                 const CandidateData& d, std::vector<double>& sampled_out) {
  const int64_t n = check::output_numel(d.op);
  sampled_out = check::read_tensor_file(data_dir / "cuda_out.bin", n, d.ftype);
  const auto torch_out = check::read_tensor_file(data_dir / "torch_out.bin", n, d.ftype);
  CheckOutcome all = compare(sampled_out, torch_out, d, check::CheckKind::kSourceOutput,
                             check::ReferenceKind::kFrameworkOp, "");
  if (!all.passed) all.detail = "sampled inputs: " + all.detail;
  const json calls = r.value("calls_checked", json::array());
  int constant_calls = 0;
  for (const json& c : calls) {
    const int64_t m = c.at("elements").get<int64_t>();
    const auto cand = check::read_tensor_file(out_dir / "calls" / c.at("candidate").get<std::string>(), m, d.ftype);
    const auto orig = check::read_tensor_file(out_dir / "calls" / c.at("original").get<std::string>(), m, d.ftype);
    const check::CheckReport one = call_check(cand, orig, d);
    if (!orig.empty() && constant_output(orig)) ++constant_calls;
    all.max_abs_err = std::max(all.max_abs_err, one.max_abs_error);
    all.max_rel_err = std::max(all.max_rel_err, one.max_rel_error);
    if (!one.passed && all.passed) all.detail = fmt::format("workload call {}: {}", c.at("call").get<int>(), one.reason);
    all.passed = all.passed && one.passed;
  }
  all.method = fmt::format("cuda_vs_torch_op (GPU, {} path under the capture's TF32 flags; sampled inputs + {} "
                           "workload call(s) on their real activations{}{})",
                           check::to_string(d.path), calls.size(),
                           constant_calls > 0 ? fmt::format(", {} with a constant original output compared "
                                                            "element-wise only", constant_calls)
                                              : std::string(),
                           cuda_precision_note(d));
  return all;
}

class WorkloadProfiler : public CudaProfiler {
 public:
  WorkloadProfiler(CudaTools tools, WorkloadSetup setup) : tools_(std::move(tools)), setup_(std::move(setup)) {}

  CudaMeasurement measure(const fs::path& dir, const EvalRequest& req, const CandidateData& data,
                          StepTimes* steps) override {
    CudaMeasurement m;
    m.place.where = "workload";
    m.place.workload = setup_.workload;
    m.place.reference_launches_per_step = setup_.launches_per_step;
    m.place.step = fmt::format("{} {}: {} warm-up step(s), then {} step(s) in the ncu window; ncu per launch "
                               "config, launch-skip {}, launch-count {}",
                               setup_.workload, setup_.config, setup_.warmup, setup_.region_iters, kLaunchSkip,
                               kLaunchCount);
    const fs::path cuda = dir / "cuda";
    {
      const StepTimer t(steps, RevisionStep::kCudaLink);
      m.failure = build(dir, req);
    }
    if (!m.failure.empty()) return m;
    write_file_atomic(cuda / "swap_spec.json", swap_spec(setup_, data, req).dump(1) + "\n");
    const fs::path out = cuda / "workload";
    const fs::path rep = cuda / "candidate.ncu-rep";
    const ProfileInputs in = stage_profile_inputs(cuda, data);
    m.failure = run(dir, out, rep, in, req, steps);
    if (m.failure.empty()) m.failure = changed_input(in);
    if (!m.failure.empty()) return m;
    const json r = json::parse(read_file(out / "swap_result.json"));
    for (const json& st : r["steps"]) m.place.routed_per_step.push_back(st.at("routed").get<int64_t>());
    for (const json& n : r.value("near_miss_reasons", json::array()))
      m.place.note += (m.place.note.empty() ? "" : "; ") + n.get<std::string>();
    m.failure = dispatch_failure(r, setup_, data.op);
    if (!m.failure.empty()) return m;
    m.source_output = source_output_check(r, out, in.dir, data, m.output);
    if (!fs::exists(rep)) {
      m.failure = "in-workload run: ncu profiled no launch of the candidate (" + (cuda / "ncu.log").string() + ")";
      return m;
    }
    const StepTimer t(steps, RevisionStep::kNcuImport);
    const core::NcuReport report = import_ncu_report(tools_.ncu, rep, cuda / "ncu_raw.csv", m.failure);
    if (!m.failure.empty()) return m;
    const core::NcuKernel& main = longest_kernel(report, rep);
    m.signature = core::signature_from_ncu(main, report.arch);
    m.block_size = static_cast<int>(main.block[0] * main.block[1] * main.block[2]);
    m.main_launch = main;
    return m;
  }

 private:
  // The candidate as a shared library (its C ABI only: no launcher, no torch headers).
  std::string build(const fs::path& dir, const EvalRequest& req) const {
    if (!tools_.nvcc) throw make_error("profile backend 'ncu': no nvcc ($NVCC or /usr/local/cuda/bin/nvcc)");
    const ProcessResult nv = req.rules->isolation->run(
        {tools_.nvcc->string(), core::nvcc_target_flag(core::arch_info(tools_.arch).sm), "-std=c++17", "-O2",
         "-shared", "-Xcompiler", "-fPIC", "-o", "candidate.so", codegen::kCudaFileName},
        cuda_step(dir, req, /*gpu=*/false, {}, req.rules->build_timeout_s));
    if (!nv.ok()) return fmt::format("nvcc: {}: {}", nv.status_text(), tail_lines(nv.output, 4));
    return {};
  }

  // swap_run.py under Nsight Compute with the capture's settings; ncu, Python and the candidate
  // library run isolated (gpu step), seeing only <candidate>/cuda with the copies of the inputs.
  std::string run(const fs::path& dir, const fs::path& out, const fs::path& rep, const ProfileInputs& in,
                  const EvalRequest& req, StepTimes* steps) const {
    const fs::path cuda = dir / "cuda";
    std::error_code ec;
    fs::remove(rep, ec);
    fs::remove_all(out, ec);
    const auto gpu = hold_gpu(tools_, steps);
    const StepTimer t(steps, RevisionStep::kNcuSession);
    const ProcessResult prof = req.rules->isolation->run(
        {tools_.ncu, "--filter-mode", "per-launch-config", "--target-processes", "all", "--clock-control", "none",
         "--cache-control", "all", "--profile-from-start", "off", "--kernel-name-base", "function", "-k",
         kCandidateKernels, "--launch-skip", kLaunchSkip, "--launch-count", kLaunchCount, "--metrics",
         ncu_metric_list(tools_.arch), "--import-sass", "no", "--export", fs::absolute(rep).string(),
         "--force-overwrite", setup_.python, "-m", "vxsynth_torch.swap_run", "--spec",
         fs::absolute(cuda / "swap_spec.json").string(), "--lib", fs::absolute(cuda / "candidate.so").string(),
         "--out", fs::absolute(out).string(), "--data", fs::absolute(in.dir).string(), "--device", setup_.device},
        cuda_step(dir, req, /*gpu=*/true,
                  {{"PYTHONPATH", fs::absolute(setup_.python_dir).string()}, {"PYTHONUNBUFFERED", "1"}},
                  req.rules->run_timeout_s));
    write_file_atomic(cuda / "ncu.log", prof.output);
    if (!fs::exists(out / "swap_result.json"))
      return fmt::format("in-workload run (ncu): {}: {}", prof.status_text(), tail_lines(prof.output, 4));
    if (!prof.ok() && json::parse(read_file(out / "swap_result.json")).value("failure", std::string()).empty())
      return fmt::format("in-workload run (ncu): {}: {}", prof.status_text(), tail_lines(prof.output, 4));
    return {};
  }

  CudaTools tools_;
  WorkloadSetup setup_;
};

}  // namespace

std::unique_ptr<CudaProfiler> make_workload_profiler(const CudaTools& tools, WorkloadSetup setup) {
  return std::make_unique<WorkloadProfiler>(tools, std::move(setup));
}

std::optional<WorkloadSetup> workload_setup(const core::ReferenceBundle& bundle, const std::string& kernel_id,
                                            const fs::path& python_dir, std::string& why_not) {
  const json& x = bundle.provenance.extra;
  const std::string name = x.contains("workload") && x["workload"].is_string() ? x["workload"].get<std::string>() : "";
  if (name.empty()) {
    why_not = "the bundle's provenance names no workload (imported without python/vxsynth_torch/profile.py)";
    return std::nullopt;
  }
  if (!fs::is_regular_file(python_dir / "vxsynth_torch" / "workloads" / (name + ".py"))) {
    why_not = fmt::format("no workload '{}' in {}", name, (python_dir / "vxsynth_torch" / "workloads").string());
    return std::nullopt;
  }
  const core::BundleKernel* k = nullptr;
  for (const auto& bk : bundle.kernels)
    if (bk.id == kernel_id || std::to_string(bk.rank) == kernel_id) k = &bk;
  if (k == nullptr) throw make_error("workload setup: the bundle has no kernel '{}'", kernel_id);
  WorkloadSetup s;
  s.workload = name;
  s.config = x.value("config", std::string("full"));
  s.warmup = x.value("warmup_iterations", 2);
  s.region_iters = x.value("ncu_region_iterations", 2);
  s.tf32 = x.value("tf32", json::object());
  s.launches_per_step = static_cast<int64_t>(k->launches);
  s.python_dir = python_dir;
  return s;
}

std::string probe_workload_python(const WorkloadSetup& s) {
  const ProcessResult r = run_process(
      {s.python, "-c",
       "import sys, torch, vxsynth_torch.swap_run; sys.exit(0 if torch.cuda.is_available() else 3)"},
      {120.0, {}, {{"PYTHONPATH", s.python_dir.string()}}});
  if (r.ok()) return {};
  return fmt::format("{} with torch (CUDA) and vxsynth_torch from {}: {}: {}", s.python, s.python_dir.string(),
                     r.status_text(), tail_lines(r.output, 2));
}

}  // namespace vxsynth::refine
