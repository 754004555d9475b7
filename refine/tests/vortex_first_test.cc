// Vortex-first refinement's design-space filter (refine/order.h) on the reference contexts of the
// committed H200 evidence: a TF32 conv (ACT k5), a BF16 bmm (π0 k1) and an FP32 linear (ACT k4).
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/refine/order.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

core::ReferenceContext context_of(const std::string& run) {
  const fs::path p = fs::path(VXSYNTH_SOURCE_DIR) / "data/evidence/h200/reconstruct-ncu-2026-12-01" / run /
                     "reference/profile.json";
  return core::context_from_json(json::parse(read_file(p))["entry"]["context"], p.string());
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

TEST(VortexFirst, Tf32FragmentIsNoWholeVortexTileSoTheTensorCoreAxisIsNotRefined) {
  const auto cuda_first = make_codegen_space(context_of("act-k5"));
  const auto vortex_first = make_vortex_first_space(make_codegen_space(context_of("act-k5")));
  const codegen::DesignPoint seed = codegen::design_point_from_json(cuda_first->seed_design());
  // m16n16k8 (the only TF32 wmma shape) against the 8x8x16 FP16 tile of an 8-wide Vortex warp.
  EXPECT_NE(vortex_first_violations(seed).find("CUDA fragment 16x16x8 is not a whole number of Vortex TCU tiles 8x8x16"),
            std::string::npos)
      << vortex_first_violations(seed);
  EXPECT_TRUE(has(cuda_first->refinable_axes(), "tensor_core"));
  EXPECT_FALSE(has(vortex_first->refinable_axes(), "tensor_core"));
  std::string why;
  EXPECT_FALSE(vortex_first->apply(vortex_first->seed_design(), {"tensor_core", "forward"}, &why));
  EXPECT_NE(why.find("vortex-first"), std::string::npos);
  EXPECT_EQ(vortex_first->seed_design(), cuda_first->seed_design());  // same seed, same rendering
}

TEST(VortexFirst, Bf16FragmentsAreWholeVortexTiles) {
  const auto vf = make_vortex_first_space(make_codegen_space(context_of("pi0-k1")));
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
  const auto vf = make_vortex_first_space(make_codegen_space(context_of("act-k4")));
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
