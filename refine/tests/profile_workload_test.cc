// The in-workload CUDA profiler without a GPU: nvcc is replaced by a script that builds the CPU
// library implementing codegen's candidate C ABI (python/tests/cpu_candidate/), ncu by a script
// that runs the profiled command as is and, for --import, replays the ncu CSV recorded on the H200
// for ACT k4 (data/evidence). The workload (ACT tiny, CPU torch), the operator swap, the dispatch
// log, the source-output check against the original PyTorch op and the record's profiled_in are
// real. Skipped when python3 cannot import torch.

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <unistd.h>

#include "../src/cuda_profiler.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/check/reference_ops.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/core/bundle.h"
#include <fmt/format.h>

#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/record.h"
#include "vxsynth/refine/sandbox.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
const fs::path kSrc = VXSYNTH_SOURCE_DIR;

// The interpreter with torch: python3 on PATH, else Debian's (CI's python3-torch).
std::string torch_python() {
  for (const char* py : {"python3", "/usr/bin/python3"})
    if (run_process({py, "-c", "import torch"}, {120.0}).ok()) return py;
  return {};
}
bool python_has_torch() { return !torch_python().empty(); }

// Tool stand-ins in `dir`: nvcc → the CPU library (linear ABI); ncu → run the command / replay a CSV.
// With `gpu_lock`, the ncu stand-in first prints whether that lock is held by someone else.
CudaTools stand_in_tools(const fs::path& dir, const std::optional<fs::path>& gpu_lock = std::nullopt) {
  fs::create_directories(dir);
  write_file_atomic(dir / "nvcc", "#!/bin/sh\n# arguments: ... -o candidate.so candidate.cu\n"
                                  "exec c++ -O2 -shared -fPIC -DVXS_CPU_LINEAR -o candidate.so " +
                                      (kSrc / "python/tests/cpu_candidate/vxs_cpu_candidate.cc").string() + "\n");
  const fs::path csv =
      kSrc / "data/evidence/h200/reconstruct-ncu-2026-11-30/act-k4/work/revisions/r0000/cuda/ncu_raw.csv";
  const std::string lock_probe =
      gpu_lock ? fmt::format("if flock -n '{}' true; then echo 'gpu-lock: free'; else echo 'gpu-lock: held'; fi\n",
                             gpu_lock->string())
               : "";
  write_file_atomic(dir / "ncu", "#!/bin/sh\nif [ \"$1\" = --import ]; then cat " + csv.string() +
                                     "; exit 0; fi\n" + lock_probe +
                                     "while [ \"$1\" != --export ]; do shift; done; touch \"$2\"; shift 3\n"
                                     "exec \"$@\"\n");
  fs::permissions(dir / "nvcc", fs::perms::owner_all, fs::perm_options::add);
  fs::permissions(dir / "ncu", fs::perms::owner_all, fs::perm_options::add);
  return CudaTools{dir / "nvcc", (dir / "ncu").string(), core::Arch::kHopper, gpu_lock};
}

struct Fixture {
  core::ReferenceContext ctx;
  WorkloadSetup setup;
};

// ACT tiny's encoder FFN linear1 (M = 8 tokens, N = 64, K = 32, bias; 4 encoder layers), on the
// context of the real ACT k4 reference (FP32 SIMT linear) with the tiny shape.
Fixture act_tiny_ffn() {
  const core::ReferenceBundle b = core::read_bundle(kSrc / "data/references/h200/act/bundle.json");
  std::string why;
  auto s = workload_setup(b, "k4", kSrc / "python", why);
  EXPECT_TRUE(s.has_value()) << why;
  Fixture f{b.kernels[3].context, *s};
  f.ctx.gemm = core::GemmShape{1, 8, 64, 32};
  f.setup.config = "tiny";
  f.setup.launches_per_step = 4;
  f.setup.device = "cpu";
  f.setup.python = torch_python();
  return f;
}

CudaMeasurement measure(const Fixture& f, const fs::path& dir, const std::optional<fs::path>& gpu_lock = std::nullopt,
                        StepTimes* steps = nullptr) {
  const SandboxRules rules = default_rules();
  EvalRequest req;
  req.revision = 0;
  req.context = &f.ctx;
  req.rules = &rules;
  req.seed = 1;
  fs::create_directories(dir / "cuda");
  write_file_atomic(dir / "cuda" / "candidate.cu", "// built by the nvcc stand-in\n");
  const CandidateData data = prepare_data(dir, req);
  return make_workload_profiler(stand_in_tools(dir / "tools", gpu_lock), f.setup)->measure(dir, req, data, steps);
}

TEST(WorkloadSetup, ComesFromTheCaptureProvenance) {
  const core::ReferenceBundle b = core::read_bundle(kSrc / "data/references/h200/act/bundle.json");
  std::string why;
  const auto s = workload_setup(b, "k4", kSrc / "python", why);
  ASSERT_TRUE(s.has_value()) << why;
  EXPECT_EQ(s->workload, "act");
  EXPECT_EQ(s->config, "full");
  EXPECT_EQ(s->warmup, 2);
  EXPECT_EQ(s->region_iters, 2);
  EXPECT_EQ(s->launches_per_step, 6);  // ACT k4: 6 launches of sgemm_largek_lds64 per inference
  EXPECT_EQ(s->tf32.value("cudnn.allow_tf32", false), true);
  core::ReferenceBundle foreign = b;
  foreign.provenance.extra.erase("workload");
  EXPECT_FALSE(workload_setup(foreign, "k4", kSrc / "python", why).has_value());
  EXPECT_NE(why.find("names no workload"), std::string::npos) << why;
  foreign.provenance.extra["workload"] = "resnet50";
  EXPECT_FALSE(workload_setup(foreign, "k4", kSrc / "python", why).has_value());
  EXPECT_NE(why.find("no workload 'resnet50'"), std::string::npos) << why;
}

TEST(WorkloadProfiler, RoutesEveryMatchingCallAndChecksAgainstTheTorchOp) {
  if (!python_has_torch()) GTEST_SKIP() << "python3 cannot import torch";
  const fs::path dir = fs::temp_directory_path() / "vxsynth_profile_workload_ok";
  fs::remove_all(dir);
  const CudaMeasurement m = measure(act_tiny_ffn(), dir);
  ASSERT_EQ(m.failure, "") << read_file(dir / "cuda" / "ncu.log");
  EXPECT_EQ(m.place.where, "workload");
  EXPECT_EQ(m.place.workload, "act");
  EXPECT_EQ(m.place.routed_per_step, (std::vector<int64_t>{4, 4, 4, 4}));
  EXPECT_TRUE(m.source_output.ran && m.source_output.passed) << m.source_output.detail;
  EXPECT_NE(m.source_output.method.find("cuda_vs_torch_op"), std::string::npos);
  EXPECT_NE(m.source_output.method.find("4 workload call(s)"), std::string::npos) << m.source_output.method;
  EXPECT_EQ(m.output.size(), 8u * 64u);
  EXPECT_EQ(m.block_size, 256);  // from the replayed H200 CSV
  EXPECT_TRUE(fs::exists(dir / "cuda" / "workload" / "dispatch.jsonl"));
  fs::remove_all(dir);
}

// The GPU lock is held for the ncu session (a second holder cannot take it meanwhile) and free after.
TEST(WorkloadProfiler, HoldsTheGpuLockForTheNcuSessionOnly) {
  if (!python_has_torch()) GTEST_SKIP() << "python3 cannot import torch";
  const fs::path dir = fs::temp_directory_path() / "vxsynth_profile_workload_lock";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path lock = dir / "gpu.lock";
  StepTimes steps;
  const CudaMeasurement m = measure(act_tiny_ffn(), dir / "candidate", lock, &steps);
  ASSERT_EQ(m.failure, "") << read_file(dir / "candidate" / "cuda" / "ncu.log");
  // The wait and the session are timed as their own steps (the record's step_wall_s).
  for (const RevisionStep s : {RevisionStep::kCudaLink, RevisionStep::kGpuLockWait, RevisionStep::kNcuSession,
                               RevisionStep::kNcuImport})
    EXPECT_TRUE(steps.seconds().count(s)) << step_name(s);
  EXPECT_NE(read_file(dir / "candidate" / "cuda" / "ncu.log").find("gpu-lock: held"), std::string::npos)
      << read_file(dir / "candidate" / "cuda" / "ncu.log");
  EXPECT_TRUE(run_process({"flock", "-n", lock.string(), "true"}, {30.0}).ok()) << "the lock outlived the measurement";
  fs::remove_all(dir);
}

// ACT's decoder: M = chunk queries (10 in tiny), N = K = d_model, bias: the self-attention q, k, v and
// cross-attention q projections and both out_proj calls, 6 per step as ACT k4 on the H200. The value
// projection of the zero queries with MultiheadAttention's zero-initialised bias is all zeros in the
// original op too: it passes element-wise (the constant-output rule cannot apply to it).
TEST(WorkloadProfiler, AcceptsAWorkloadCallWhoseOriginalOutputIsAllZeros) {
  if (!python_has_torch()) GTEST_SKIP() << "python3 cannot import torch";
  const fs::path dir = fs::temp_directory_path() / "vxsynth_profile_workload_zero";
  fs::remove_all(dir);
  Fixture f = act_tiny_ffn();
  f.ctx.gemm = core::GemmShape{1, 10, 32, 32};
  f.setup.launches_per_step = 6;
  const CudaMeasurement m = measure(f, dir);
  ASSERT_EQ(m.failure, "") << read_file(dir / "cuda" / "ncu.log");
  EXPECT_TRUE(m.source_output.passed) << m.source_output.detail;
  EXPECT_NE(m.source_output.method.find("with a constant original output compared element-wise only"),
            std::string::npos)
      << m.source_output.method;
  fs::remove_all(dir);
}

TEST(WorkloadProfiler, RejectsARunWhoseDispatchCountsDifferFromTheReference) {
  if (!python_has_torch()) GTEST_SKIP() << "python3 cannot import torch";
  const fs::path dir = fs::temp_directory_path() / "vxsynth_profile_workload_counts";
  fs::remove_all(dir);
  Fixture f = act_tiny_ffn();
  f.setup.launches_per_step = 5;
  const CudaMeasurement m = measure(f, dir);
  EXPECT_NE(m.failure.find("4 calls routed to the candidate, the reference kernel ran 5 times"), std::string::npos)
      << m.failure;
  f.ctx.gemm = core::GemmShape{1, 9, 64, 32};  // no call of ACT tiny has M = 9
  const CudaMeasurement none = measure(f, dir);
  EXPECT_NE(none.failure.find("the candidate never ran in act step 0: no call matched linear"), std::string::npos)
      << none.failure;
  fs::remove_all(dir);
}

// The H200 evidence of data/evidence/h200/swap-2026-12-01 (linear, conv2d) and
// swap-bmm-conv1d-2026-12-02 (bmm, conv1d) and sandbox-linear-2026-12-02 (linear, confined), docs/reconstruct.md "In the workload": every D follows
// from its ncu CSV; in-workload runs routed the reference's launches per step; the same kernel and
// design measured in the workload and standalone differ by less than δ.
struct SwapEvidenceRun {
  const char* dir;
  const char* workload;
  const char* kernel;
};

TEST(SwapEvidence, DistancesFollowFromTheCsvsAndContextMovesDLessThanDelta) {
  const SwapEvidenceRun runs_of[] = {{"swap-2026-12-01", "act", "k4"},
                                     {"swap-2026-12-01", "act", "k5"},
                                     {"swap-bmm-conv1d-2026-12-02", "pi0", "k1"},
                                     {"swap-bmm-conv1d-2026-12-02", "diffusion_policy", "k2"},
                                     {"sandbox-linear-2026-12-02", "act", "k4"}};
  for (const SwapEvidenceRun& ev : runs_of) {
    const fs::path runs = kSrc / "data/evidence/h200" / ev.dir / "runs";
    // The bundle this evidence was built against (data/evidence/h200/bundles-2026-11-30/README.md).
    const core::ReferenceBundle b =
        core::read_bundle(kSrc / "data/evidence/h200/bundles-2026-11-30" / (std::string(ev.workload) + ".json"));
    const core::BundleKernel* k = nullptr;
    for (const auto& bk : b.kernels)
      if (bk.id == ev.kernel) k = &bk;
    ASSERT_NE(k, nullptr);
    std::map<std::string, std::map<int, double>> d_of;  // where → revision → D from the CSV
    for (const std::string where : {"workload", "standalone"}) {
      SCOPED_TRACE(fmt::format("{} {} {}", ev.workload, ev.kernel, where));
      const fs::path run = runs / fmt::format("{}-{}-{}", ev.workload, ev.kernel, where);
      const RecordRead rec = read_record(run / "record.jsonl", false);
      ASSERT_FALSE(rec.entries.empty());
      for (const RevisionEntry& e : rec.entries) {
        EXPECT_EQ(e.profiled_in.where, where);
        if (where == "workload") {
          for (int64_t n : e.profiled_in.routed_per_step) EXPECT_EQ(n, static_cast<int64_t>(k->launches));
        }
        const core::NcuReport rep =
            core::read_ncu_csv(run / fmt::format("work/revisions/r{:04d}/cuda/ncu_raw.csv", e.revision));
        const core::DistanceReport d =
            core::distance(core::signature_from_ncu(longest_kernel(rep, run), rep.arch).signature, *k->signature);
        ASSERT_TRUE(d.d_value.has_value());
        if (e.d) {
          EXPECT_NEAR(*d.d_value, *e.d, 1e-9);
        }
        d_of[where][e.revision] = *d.d_value;
      }
    }
    // Every revision both runs made (same seed, same agent: the same design point).
    for (const auto& [revision, d_workload] : d_of["workload"]) {
      if (!d_of["standalone"].contains(revision)) continue;
      EXPECT_LT(std::abs(d_workload - d_of["standalone"][revision]), kRetainMargin)
          << ev.workload << " " << ev.kernel << " r" << revision;
    }
  }
}

// The standalone profiler's source-output check against the PyTorch op (framework_op.cc,
// python/vxsynth_torch/op_reference.py), on the CPU here: a candidate output equal to the float64
// reference rounded to the storage type passes against torch's op; one element off by far more
// than the path's tolerance fails (linear), and the method says which op ran. Per family: linear with bias
// (FP32), bmm with a broadcast B (BF16), conv1d (TF32 path, which on the CPU computes FP32).
CandidateData data_of(const check::OpSpec& op, check::PrecisionPath path, const fs::path& dir) {
  CandidateData d;
  d.op = op;
  d.path = path;
  d.ftype = check::file_dtype(path);
  d.dir = dir / "data";
  const auto inputs = check::generate_inputs(op, path, 7);
  check::write_inputs(d.dir, inputs, path);
  d.reference = check::reference_forward(op, check::values_of(inputs));
  return d;
}

TEST(FrameworkOpCheck, StandaloneCandidateIsComparedWithTheTorchOp) {
  if (!python_has_torch()) GTEST_SKIP() << "python3 cannot import torch";
  const fs::path dir = fs::temp_directory_path() / fmt::format("vxs_framework_op_{}", ::getpid());
  check::OpSpec linear;
  linear.gemm = core::GemmShape{1, 9, 24, 40};
  linear.has_bias = true;
  check::OpSpec bmm;
  bmm.family = check::OpFamily::kBmm;
  bmm.gemm = core::GemmShape{3, 5, 16, 24};
  bmm.b_batch_stride = 0;
  check::OpSpec conv1d;
  conv1d.family = check::OpFamily::kConv1d;
  conv1d.conv = core::ConvShape{};
  conv1d.conv.n = 1;
  conv1d.conv.c = 8;
  conv1d.conv.h = 1;
  conv1d.conv.w = 6;
  conv1d.conv.k = 12;
  conv1d.conv.r = 1;
  conv1d.conv.s = 5;
  conv1d.conv.pad = {0, 2};
  conv1d.has_bias = true;
  const FrameworkOpSetup setup{torch_python(), kSrc / "python", "cpu"};
  const std::pair<check::OpSpec, check::PrecisionPath> cases[] = {{linear, check::PrecisionPath::kFp32},
                                                                   {bmm, check::PrecisionPath::kBf16},
                                                                   {conv1d, check::PrecisionPath::kTf32}};
  for (const auto& [op, path] : cases) {
    SCOPED_TRACE(check::to_string(op.family));
    op.validate();
    const fs::path one = dir / std::string(check::to_string(op.family));
    fs::create_directories(one / "cuda");
    const CandidateData d = data_of(op, path, one);
    // What a correct candidate writes: the reference in the storage type.
    check::write_tensor_file(one / "out.bin", d.reference, d.ftype);
    std::vector<double> out = check::read_tensor_file(one / "out.bin", check::output_numel(op), d.ftype);
    std::string why_not;
    const std::optional<CheckOutcome> good = framework_op_check(setup, one / "cuda", d, out, why_not);
    ASSERT_TRUE(good.has_value()) << why_not;
    EXPECT_TRUE(good->passed) << good->detail;
    EXPECT_NE(good->method.find("cuda_vs_torch_op (cpu, "), std::string::npos) << good->method;
    if (op.family != check::OpFamily::kLinear) continue;  // one wrong output is enough (each run imports torch)
    out[out.size() / 2] += 1.0;
    const std::optional<CheckOutcome> bad = framework_op_check(setup, one / "cuda", d, out, why_not);
    ASSERT_TRUE(bad.has_value()) << why_not;
    EXPECT_FALSE(bad->passed);
  }
  // No vxsynth_torch where the setup points: no check, and why.
  const CandidateData d = data_of(linear, check::PrecisionPath::kFp32, dir / "nowhere");
  fs::create_directories(dir / "nowhere" / "cuda");
  std::string why_not;
  EXPECT_FALSE(framework_op_check({torch_python(), dir / "no-python-dir", "cpu"}, dir / "nowhere" / "cuda", d,
                                  d.reference, why_not));
  EXPECT_NE(why_not.find("vxsynth_torch.op_reference"), std::string::npos) << why_not;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vxsynth::refine
