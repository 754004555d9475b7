// The vxsim backend on a real two-launch candidate: ACT k4 (the H200 capture's FP32 SIMT linear,
// M=100 N=512 K=512; data/references/h200/act/bundle.json) moved one step along split_k, so
// launch 0 computes split-K partials and launch 1 reduces them. Before per-launch signatures
// the backend refused such a candidate ("holds only the last one"); now it must return the main
// launch's signature (most cycles) and say in the record which launch that is.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/common/process.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool toolchain_present() {
  try {
    return run_process({"riscv64-unknown-elf-g++", "--version"}, {30}).ok() &&
           fs::exists(fs::path(VXSYNTH_SDK_DIR) / "sdk.mk");
  } catch (const Error&) {
    return false;
  }
}

TEST(SplitKSignature, VxsimBackendMeasuresTheMainLaunchOfARealSplitKCandidate) {
  if (!toolchain_present()) GTEST_SKIP() << "riscv64-unknown-elf-g++ or the SDK build is absent";
  const fs::path bundle_path = fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200/act/bundle.json";
  const core::ReferenceBundle bundle = core::read_bundle(bundle_path);
  const Reference ref = reference_from_bundle(bundle, "k4", "splitk-signature-test");
  ASSERT_EQ(ref.context.op, core::OpKind::kLinear);

  const auto space = make_codegen_space(ref.context);
  json seed = space->seed_design();
  seed["axes"]["split_k"] = 1;  // the seed splits K like the reference's grid; start from one launch
  ASSERT_EQ(codegen::launches(codegen::design_point_from_json(seed)), 1);
  std::string why;
  const std::optional<json> design = space->apply(seed, {"split_k", "forward"}, &why);
  ASSERT_TRUE(design.has_value()) << why;
  ASSERT_EQ(codegen::launches(codegen::design_point_from_json(*design)), 2);

  const fs::path dir = fs::temp_directory_path() / fmt::format("refine_splitk_sig_{}", ::getpid());
  fs::remove_all(dir);
  write_tree(dir, space->render(*design));
  const SandboxRules rules = default_rules();
  EvalRequest req;
  req.revision = 1;
  req.context = &ref.context;
  req.rules = &rules;
  req.seed = 1;
  req.design = *design;
  const auto backend = make_vxsim_backend({fs::path(VXSYNTH_SDK_DIR), target_arch(bundle, "ACT capture")});
  const Evaluation ev = backend->evaluate(dir, req);

  ASSERT_TRUE(ev.failure.empty()) << ev.failure;
  EXPECT_TRUE(ev.candidate.ran);
  EXPECT_TRUE(ev.candidate.passed) << ev.candidate.detail;
  ASSERT_TRUE(ev.signature.has_value());

  // The runtime's file: both launches, the partials launch (the GEMM work) is the main one.
  const json sj = json::parse(read_file(dir / kVortexSignatureFile));
  ASSERT_EQ(sj.at("launches").size(), 2u);
  const json& l0 = sj["launches"][0];
  const json& l1 = sj["launches"][1];
  EXPECT_GT(l0.at("cycles").get<uint64_t>(), l1.at("cycles").get<uint64_t>());
  EXPECT_EQ(sj.at("main_launch"), 0);
  EXPECT_NE(l0.at("metrics"), l1.at("metrics"));
  // The evaluation's signature is launch 0's, not the last launch's.
  const core::Signature main_sig = core::signature_from_json(l0.at("metrics"), "launch 0");
  const core::Signature last = core::signature_from_json(l1.at("metrics"), "launch 1");
  for (const core::MetricDef& m : core::metric_table()) EXPECT_EQ((*ev.signature)[m.id], main_sig[m.id]) << m.key;
  bool differs = false;
  for (const core::MetricDef& m : core::metric_table()) differs = differs || (*ev.signature)[m.id] != last[m.id];
  EXPECT_TRUE(differs);
  // A distance to the reference exists (the loop can retain or revert it).
  EXPECT_TRUE(core::distance(*ev.signature, ref.signature).d_value.has_value());
  // The record says which launch D is of.
  ASSERT_EQ(ev.tool_versions.count("vxsim signature"), 1u);
  const std::string note = ev.tool_versions.at("vxsim signature");
  std::cout << "vxsim signature: " << note << "\nD of the main launch: "
            << *core::distance(*ev.signature, ref.signature).d_value << "\n";
  EXPECT_NE(note.find("main launch index 0 of 2"), std::string::npos) << note;
  EXPECT_EQ(note.find("design point makes"), std::string::npos) << note;
  EXPECT_EQ(ev.observed.atomics_per_inst, std::optional<double>(0.0));
  // At lock, the vxsim backend keeps the file it measured.
  EXPECT_EQ(backend->measure_locked_vortex_signature(dir, req), "");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vxsynth::refine
