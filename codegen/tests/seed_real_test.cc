// Seeds from the real H200 reference captures (data/references/h200, measured by the gpu-harness):
// every hot kernel of a supported op family yields a valid seed that keeps its four fixed
// properties, and both candidates render.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/seed.h"
#include "vxsynth/common/error.h"
#include "vxsynth/core/bundle.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;

class RealSeeds : public ::testing::TestWithParam<const char*> {};

TEST_P(RealSeeds, EveryGemmOrConvHotKernelSeeds) {
  const fs::path dir = fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200" / GetParam();
  if (!fs::exists(dir / "trace.json.gz") || !fs::exists(dir / "ncu_raw.csv")) GTEST_SKIP() << "no capture in " << dir;
  const auto bundle = core::import_profile(core::read_torch_trace(dir / "trace.json.gz"),
                                           core::read_ncu_csv(dir / "ncu_raw.csv"));
  int seeded = 0;
  for (const auto& k : bundle.kernels) {
    const auto& ctx = k.context;
    if (ctx.op == core::OpKind::kOther) {
      EXPECT_THROW((void)seed_design_point(ctx), Error) << k.name;
      continue;
    }
    DesignPoint p;
    try {
      p = seed_design_point(ctx);
    } catch (const Error& e) {
      ADD_FAILURE() << k.id << " " << k.name << ": " << e.what();
      continue;
    }
    ++seeded;
    EXPECT_EQ(validation_errors(p), "") << k.name;
    EXPECT_EQ(fixed_property_violations(p, fixed_properties(ctx)), "") << k.name;
    EXPECT_EQ(p.fixed.block_size, ctx.launch.block_size());
    EXPECT_NO_THROW((void)emit_cuda(p)) << k.name;
    EXPECT_NO_THROW((void)emit_vortex(p)) << k.name;
    std::cout << "  " << GetParam() << " " << k.id << " " << check::describe(p.fixed.op) << " -> " << slug(p) << "\n";
  }
  EXPECT_GT(seeded, 0) << "no linear/matmul/conv hot kernel in " << dir;
}

INSTANTIATE_TEST_SUITE_P(H200, RealSeeds, ::testing::Values("act", "diffusion_policy", "pi0"));

}  // namespace
}  // namespace vxsynth::codegen
