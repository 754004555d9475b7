// Vortex-first refinement (refine/order.h): its design-space filter and its literal CUDA translation
// (FP16 for TF32 references, with the FP16 path's tolerance) on the reference contexts of the
// committed H200 evidence: TF32 convs (ACT k5, Diffusion Policy k2), a BF16 bmm (π0 k1) and an FP32
// linear (ACT k4).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/refine/order.h"
#include "vxsynth/refine/sandbox.h"
#include "../src/candidate_steps.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

core::ReferenceContext context_of(const std::string& run) {
  const fs::path p = fs::path(VXSYNTH_SOURCE_DIR) / "data/evidence/h200/reconstruct-ncu-2026-12-01" / run /
                     "reference/profile.json";
  return core::entry_context(json::parse(read_file(p))["entry"], p.string());
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(VortexFirst, OrderTableKeys) {
  EXPECT_EQ(order_from_key("vortex-first"), Order::kVortexFirst);
  EXPECT_EQ(order_from_key("cuda-first"), Order::kCudaFirst);
  EXPECT_FALSE(order_from_key("vxsim"));
  EXPECT_EQ(to_string(Order::kVortexFirst), "vortex-first");
}

TEST(VortexFirst, OrderTableNamesEachOrdersTranslation) {
  EXPECT_EQ(order_info(Order::kCudaFirst).translation, codegen::CudaTranslation::kNative);
  EXPECT_EQ(order_info(Order::kVortexFirst).translation, codegen::CudaTranslation::kVortexLiteral);
  // Each order's space seeds with its translation, and the record's design says which ran.
  for (const OrderInfo& o : order_table()) {
    const json seed = o.make_space(context_of("act-k4"))->seed_design();
    EXPECT_EQ(codegen::design_point_from_json(seed).cuda_translation, o.translation) << o.key;
    EXPECT_EQ(seed.contains("cuda_translation"), o.translation != codegen::CudaTranslation::kNative) << seed.dump();
  }
  // CUDA-first's seed is the codegen space's, unchanged.
  EXPECT_EQ(order_info(Order::kCudaFirst).make_space(context_of("act-k5"))->seed_design(),
            make_codegen_space(context_of("act-k5"))->seed_design());
}

// A TF32 reference under the CUDA-first order keeps TF32 wmma m16n16k8, which is no whole Vortex
// TCU tile; the Vortex-first order seeds it at FP16 (the Vortex TCU's format), whose m16n16k16 is.
TEST(VortexFirst, Tf32ReferenceGetsAnFp16DesignWithTheFp16Tolerance) {
  const auto cuda_first = make_codegen_space(context_of("act-k5"));
  const auto vortex_first = order_info(Order::kVortexFirst).make_space(context_of("act-k5"));
  const codegen::DesignPoint cf = codegen::design_point_from_json(cuda_first->seed_design());
  EXPECT_NE(vortex_first_violations(cf).find("CUDA fragment 16x16x8 is not a whole number of Vortex TCU tiles 16x8x16"),
            std::string::npos)
      << vortex_first_violations(cf);
  EXPECT_EQ(codegen::cuda_path(cf), check::PrecisionPath::kTf32);
  const codegen::DesignPoint vf = codegen::design_point_from_json(vortex_first->seed_design());
  EXPECT_EQ(vf.fixed.path, check::PrecisionPath::kTf32);  // the fixed property is kept
  EXPECT_EQ(codegen::cuda_path(vf), check::PrecisionPath::kTf32Fp16);
  EXPECT_EQ(vf.axes.tensor_core.shape, codegen::FragShape::kM16N16K16);
  EXPECT_EQ(vortex_first_violations(vf), "");
  EXPECT_TRUE(has(vortex_first->refinable_axes(), "tensor_core"));
  EXPECT_EQ(codegen::fixed_property_violations(vf, cf.fixed), "");

  // The checks of its revisions use the FP16 path's tolerance: an error the TF32 path's source-output
  // tolerance (1e-3 + 2e-2|r|) refuses passes under tf32-fp16's (1e-2 + 1.5e-1|r|), and the record says so.
  core::ReferenceContext small = context_of("act-k5");
  small.conv = core::ConvShape{1, 4, 5, 6, 8, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1};
  const SandboxRules rules = default_rules();
  const fs::path dir = fs::temp_directory_path() / fmt::format("vxs_vortex_first_{}", ::getpid());
  for (const auto& [space, want] : {std::pair{cuda_first.get(), check::PrecisionPath::kTf32},
                                    std::pair{vortex_first.get(), check::PrecisionPath::kTf32Fp16}}) {
    EvalRequest req;
    req.context = &small;
    req.rules = &rules;
    req.seed = 3;
    req.design = space->seed_design();
    const CandidateData d = prepare_data(dir, req);
    EXPECT_EQ(d.path, check::PrecisionPath::kTf32);  // inputs and the framework op stay TF32
    EXPECT_EQ(d.check_path, want);
    std::vector<double> off = d.reference;
    off[0] += 5e-3 + 0.05 * std::abs(off[0]);  // beyond 1e-3 + 2e-2|r|, within 1e-2 + 1.5e-1|r|
    const CheckOutcome c = compare(off, d.reference, d, check::CheckKind::kSourceOutput,
                                   check::ReferenceKind::kCpuFloat64, "test");
    EXPECT_EQ(c.passed, want == check::PrecisionPath::kTf32Fp16) << c.detail;
    EXPECT_EQ(c.atol, check::tolerance(want, check::CheckKind::kSourceOutput).atol);
    EXPECT_EQ(c.rtol, check::tolerance(want, check::CheckKind::kSourceOutput).rtol);
    EXPECT_EQ(cuda_precision_note(d).find("tf32-fp16") != std::string::npos, want == check::PrecisionPath::kTf32Fp16);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// Diffusion Policy k2 (TF32 conv1d) stayed at its seed under Vortex-first while the TF32 fragment
// was no whole Vortex tile; at FP16 its moves are refinable.
TEST(VortexFirst, Tf32ConvolutionIsRefinableAtFp16) {
  const auto vf = order_info(Order::kVortexFirst).make_space(context_of("diffusion_policy-k2"));
  int admitted = 0;
  for (const std::string& axis : vf->refinable_axes())
    for (const char* dir : {"forward", "reverse"}) {
      std::string why;
      const auto next = vf->apply(vf->seed_design(), {axis, dir}, &why);
      if (!next) continue;
      EXPECT_EQ(vortex_first_violations(codegen::design_point_from_json(*next)), "") << axis << " " << dir;
      EXPECT_EQ(codegen::design_point_from_json(*next).cuda_translation, codegen::CudaTranslation::kVortexLiteral);
      ++admitted;
    }
  EXPECT_GT(admitted, 3);
}

// A run made before the literal translation (its designs native) is not continued under it;
// read_once, which the literal translation renders as plain loads on both sides, is not refined.
TEST(VortexFirst, RefusesNativeDesignsAndInertAxes) {
  const auto vf = order_info(Order::kVortexFirst).make_space(context_of("act-k4"));
  std::string why;
  EXPECT_FALSE(vf->apply(make_codegen_space(context_of("act-k4"))->seed_design(), {"tile", "forward"}, &why));
  EXPECT_NE(why.find("CUDA translation is native"), std::string::npos) << why;
  json no_smem = vf->seed_design();
  no_smem["axes"]["smem_stage"] = false;
  ASSERT_EQ(codegen::validation_errors(codegen::design_point_from_json(no_smem)), "");
  EXPECT_FALSE(has(vf->refinable_axes(), "read_once"));
  EXPECT_FALSE(vf->apply(no_smem, {"read_once", "forward"}, &why));
  EXPECT_NE(why.find("read_once: no construct"), std::string::npos) << why;
  EXPECT_TRUE(has(make_codegen_space(context_of("act-k4"))->refinable_axes(), "read_once"));
  // CUDA-first renders read_once (__ldg vs __ldcg), so there the move is made.
  json native = no_smem;
  native.erase("cuda_translation");
  EXPECT_TRUE(make_codegen_space(context_of("act-k4"))->apply(native, {"read_once", "forward"}, &why)) << why;
}

TEST(VortexFirst, Bf16FragmentsAreWholeVortexTiles) {
  const auto vf = order_info(Order::kVortexFirst).make_space(context_of("pi0-k1"));
  const codegen::DesignPoint seed = codegen::design_point_from_json(vf->seed_design());
  EXPECT_EQ(vortex_first_violations(seed), "");
  EXPECT_TRUE(has(vf->refinable_axes(), "tensor_core"));
}

TEST(VortexFirst, SharedMemoryBeyondTheVortexLocalMemoryIsRefused) {
  const auto cf = make_codegen_space(context_of("act-k4"));
  codegen::DesignPoint p = codegen::design_point_from_json(cf->seed_design());
  EXPECT_EQ(vortex_first_violations(p), "");
  p.vortex.local_mem_bytes = codegen::vortex_local_mem_bytes(p) - 4;
  EXPECT_NE(vortex_first_violations(p).find("of local memory per block on the Vortex side exceeds the Vortex core's"),
            std::string::npos);
  // Every move the filter admits from the seed keeps the constraints; the ones it refuses say why.
  const auto vf = order_info(Order::kVortexFirst).make_space(context_of("act-k4"));
  int admitted = 0;
  for (const std::string& axis : vf->refinable_axes())
    for (const char* dir : {"forward", "reverse"}) {
      std::string why;
      const auto next = vf->apply(vf->seed_design(), {axis, dir}, &why);
      if (!next) continue;
      EXPECT_EQ(vortex_first_violations(codegen::design_point_from_json(*next)), "") << axis << " " << dir;
      ++admitted;
    }
  EXPECT_GT(admitted, 3);
}

}  // namespace
}  // namespace vxsynth::refine
