// The loop with real components: a real H200 reference kernel (ACT's 4th hot kernel, an FP32 SIMT
// linear M=100 N=512 K=512 captured with ncu; data/references/h200/act), codegen's generator, the
// SDK build and the vxsim backend. A real run killed in the middle of a revision and resumed is
// SuiteEndToEnd.BuildKilledResumedCheckedTamperedAndRun (suite/tests/suite_e2e_test.cc), through
// `vxsynth suite build` and `vxsynth reconstruct --resume` on the same kernel.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "vxsynth/check/op_spec.h"
#include "vxsynth/codegen/seed.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/core/torch_trace.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/codegen/harness.h"
#include "vxsynth/common/process.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kActDir = fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200/act";

Reference act_kernel(const std::string& id) {
  const core::TorchTrace trace = core::read_torch_trace(kActDir / "trace.json.gz");
  const core::NcuReport ncu = core::read_ncu_csv(kActDir / "ncu_raw.csv");
  const core::ReferenceBundle bundle = core::import_profile(trace, ncu);
  return reference_from_bundle(
      bundle, id,
      sha256_hex(read_file(kActDir / "trace.json.gz") + read_file(kActDir / "ncu_raw.csv")));
}

TEST(RealKernel, CodegenSpaceMovesAndExampleAgentEditTheRealSeed) {
  const Reference ref = act_kernel("k4");
  ASSERT_EQ(ref.context.op, core::OpKind::kLinear);
  const auto space = make_codegen_space(ref.context);
  const json seed = space->seed_design();
  const SourceTree sources = space->render(seed);
  EXPECT_TRUE(check_sources({}, sources, default_rules()).empty());
  int applicable = 0;
  for (const auto& axis : space->refinable_axes())
    for (const char* dir : {"forward", "reverse"}) {
      std::string why;
      if (auto next = space->apply(seed, {axis, dir}, &why)) {
        ++applicable;
        // Every generated revision passes the source rules whole (the loop compares its non-editable
        // files with this same rendering, byte for byte).
        const auto v = check_sources({}, space->render(*next), default_rules());
        EXPECT_TRUE(v.empty()) << axis << " " << dir << ": " << v.front().message();
      }
    }
  EXPECT_GE(applicable, 4);

  // The example external agent makes a legal edit of the real candidate.
  const fs::path work = fs::temp_directory_path() / fmt::format("refine_e2e_agent_{}", ::getpid());
  fs::remove_all(work);
  RevisionEntry r0;
  r0.design = seed;
  r0.signature = {{"l1_hit_rate", 10.0}};
  r0.distances = {{"l1_hit_rate", 0.2}};
  r0.d = 0.2;
  std::vector<RevisionEntry> history{r0};
  const SandboxRules rules = default_rules();
  AgentInput in;
  in.revision = 1;
  in.context = &ref.context;
  in.context_json = ref.entry;
  in.reference = &ref.signature;
  in.retained = &history[0];
  in.retained_sources = &sources;
  in.history = &history;
  in.rules = &rules;
  in.axes = space->refinable_axes();
  ExternalAgent agent(std::string("python3 ") + VXSYNTH_REFINE_AGENTS + "/example_agent.py", work, 60);
  const Proposal p = agent.propose(in);
  ASSERT_TRUE(p.failure.empty()) << p.failure;
  ASSERT_FALSE(p.stop);
  EXPECT_NE(p.sources, sources);
  const auto v = check_sources(sources, p.sources, rules);
  EXPECT_TRUE(v.empty()) << (v.empty() ? "" : v.front().message());
  fs::remove_all(work);
}

// The target architecture is the bundle's platform.arch; a provenance compute capability that
// names another (or no) architecture is a clear error naming the field.
TEST(TargetArch, FromTheBundlesPlatformCheckedAgainstItsProvenance) {
  const fs::path path = fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200/act/bundle.json";
  core::ReferenceBundle b = core::read_bundle(path);
  EXPECT_EQ(target_arch(b, path.string()), core::Arch::kHopper);
  EXPECT_EQ(core::arch_info(target_arch(b, path.string())).sm, "sm_90");
  b.provenance.cc = "8.0";
  try {
    (void)target_arch(b, "b.json");
    ADD_FAILURE() << "a provenance.cc of another architecture was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("b.json: provenance.cc '8.0' (sm_80) disagrees with platform.arch 'sm_90'"),
              std::string::npos) << e.what();
  }
  b.provenance.cc = "7.5";
  EXPECT_THROW((void)target_arch(b, "b.json"), Error);
  b.provenance.cc.reset();
  b.arch = core::Arch::kAmpere;
  EXPECT_EQ(core::arch_info(target_arch(b, "b.json")).sm, "sm_80");
}

// The ncu backend's standalone launcher compiles with the real seed candidate (nvcc for the
// bundle's architecture, compile-only here; running it needs the GPU machine).
// The standalone launcher and the candidate must agree on every extern "C" signature: C linkage
// does not check arguments, and a launcher that called vxs_workspace_bytes() without the shape
// made every two-launch candidate fail on the H200 (garbage `groups` → SIGFPE in a conv, 0 bytes →
// vxs_launch refused split-K). Compiling both into one translation unit turns any mismatch into a
// compile error. One real reference kernel per op family, the seed and a two-launch design.
TEST(RealKernel, NcuStandaloneHarnessAgreesWithTheCandidateOfEveryFamily) {
  const fs::path nvcc = "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc)) GTEST_SKIP() << "nvcc is absent";
  const fs::path refs = fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200";
  const struct {
    const char* workload;
    const char* kernel;
    const char* expected_call;
  } cases[] = {
      {"act", "k4", "vxs_launch((const T*)buf[0], (const T*)buf[1], (const T*)buf[2], out, ws, 100, 512, 512, 0)"},
      {"act", "k5", "vxs_workspace_bytes(1, 512, 15, 20, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1)"},
      {"pi0", "k1", "vxs_workspace_bytes(8, 51, 256, 867, "},
      {"diffusion_policy", "k2", "vxs_workspace_bytes(1, 2048, 1, 4, 2048, 1, 5, 1, 1, 0, 2, 1, 1, 1)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(fmt::format("{} {}", c.workload, c.kernel));
    const fs::path bundle_path = refs / c.workload / "bundle.json";
    const core::ReferenceBundle bundle = core::read_bundle(bundle_path);
    const Reference ref = reference_from_bundle(bundle, c.kernel, sha256_hex(read_file(bundle_path)));
    const std::string arch(core::arch_info(target_arch(bundle, bundle_path.string())).sm);
    EXPECT_EQ(arch, "sm_90");  // every bundle under data/references/h200 is an H200 profile
    const auto space = make_codegen_space(ref.context);
    const check::OpSpec op = check::op_spec_from_context(ref.context);
    const std::string harness = codegen::standalone_harness(op, codegen::fixed_properties(ref.context).path);
    EXPECT_NE(harness.find(c.expected_call), std::string::npos) << harness;
    std::vector<json> designs{space->seed_design()};
    std::string why;
    if (auto split = space->apply(designs[0], {"split_k", "forward"}, &why)) designs.push_back(*split);
    EXPECT_EQ(designs.size(), 2u) << "split_k forward not applicable: " << why;
    for (const json& design : designs) {
      const fs::path dir = fs::temp_directory_path() / fmt::format("refine_e2e_ncu_{}", ::getpid());
      fs::remove_all(dir);
      write_tree(dir, space->render(design));
      write_file_atomic(dir / "cuda" / "vxs_standalone.cu", harness);
      write_file_atomic(dir / "cuda" / "one_tu.cu", "#include \"candidate.cu\"\n#include \"vxs_standalone.cu\"\n");
      const ProcessResult r = run_process(
          {nvcc.string(), core::nvcc_target_flag(arch), "-std=c++17", "-O2", "-c", "one_tu.cu", "-o", "one_tu.o"},
          {300, dir / "cuda"});
      EXPECT_TRUE(r.ok()) << design.dump() << "\n" << r.output;
      fs::remove_all(dir);
    }
  }
}

// CUDA-first evidence captured on the H200 (tests/data/h200/act_k4_seed_cuda.*): the seed's CUDA
// candidate, profiled by the ncu backend's standalone launch, is at D = 0.1374 from the shipped
// reference (the H200 re-profile of 2026-12-02; 0.1395 from the capture of 2026-11-30 it was made for).
TEST(RealKernel, CapturedCudaFirstSeedSignatureOfActK4) {
  const Reference ref = act_kernel("k4");
  const core::NcuReport rep = core::read_ncu_csv(fs::path(VXSYNTH_REFINE_TEST_DATA) /
                                                 "h200/act_k4_seed_cuda.ncu_raw.csv");
  ASSERT_EQ(rep.kernels.size(), 1u);
  const core::NcuKernel& k = rep.kernels[0];
  EXPECT_EQ(k.block[0] * k.block[1] * k.block[2], ref.context.launch.block_size());  // fixed property 3
  const core::DistanceReport d = core::distance(core::signature_from_ncu(k, rep.arch).signature, ref.signature);
  ASSERT_TRUE(d.d_value.has_value());
  EXPECT_NEAR(*d.d_value, 0.1374, 5e-5);
  EXPECT_EQ(d.entered().size(), 10u);
}

// Same for ACT k5, a TF32 tensor-core conv2d: D = 0.2523 (0.2520 from the capture of 2026-11-30);
// the candidate's tensor pipe is active
// (0.97 %), so the engine-class check (any tensor activity) keeps it a tensor-core candidate.
TEST(RealKernel, CapturedCudaFirstSeedSignatureOfActK5Conv2d) {
  const Reference ref = act_kernel("k5");
  ASSERT_EQ(ref.context.op, core::OpKind::kConv2d);
  ASSERT_EQ(ref.context.engine, core::EngineClass::kTensorCore);
  const core::NcuReport rep = core::read_ncu_csv(fs::path(VXSYNTH_REFINE_TEST_DATA) /
                                                 "h200/act_k5_seed_cuda.ncu_raw.csv");
  ASSERT_EQ(rep.kernels.size(), 1u);
  const core::Signature sig = core::signature_from_ncu(rep.kernels[0], rep.arch).signature;
  EXPECT_GT(*sig[core::MetricId::kTensorMfu], 0.0);
  const core::DistanceReport d = core::distance(sig, ref.signature);
  ASSERT_TRUE(d.d_value.has_value());
  EXPECT_NEAR(*d.d_value, 0.2523, 5e-5);
}

}  // namespace
}  // namespace vxsynth::refine
