// Property: any valid design point computes the operator. Random axis values (fixed seed) for random
// families at small shapes; every point validation accepts must pass the candidate check on vxsim
// (and, with nvcc, its CUDA candidate must compile). Points validation rejects must say why.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "test_points.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;

template <typename T>
T pick(std::mt19937& rng, std::initializer_list<T> values) {
  std::uniform_int_distribution<size_t> d(0, values.size() - 1);
  return *(values.begin() + d(rng));
}

DesignPoint random_point(std::mt19937& rng) {
  const auto fam = pick(rng, {check::OpFamily::kLinear, check::OpFamily::kMatmul, check::OpFamily::kBmm,
                              check::OpFamily::kConv1d, check::OpFamily::kConv2d});
  const auto path = pick(rng, {check::PrecisionPath::kFp32, check::PrecisionPath::kFp32, check::PrecisionPath::kBf16});
  DesignPoint p = testing_points::seed(fam, path);
  auto& a = p.axes;
  if (!a.tensor_core.enabled) {
    a.tile = {pick(rng, {8u, 16u, 32u, 64u}), pick(rng, {8u, 16u, 32u, 64u}), pick(rng, {2u, 4u, 8u, 16u})};
    a.reg_tile = {pick(rng, {1u, 2u, 4u}), pick(rng, {1u, 2u, 4u})};
    a.warp_rows = pick(rng, {0u, 0u, 2u, 4u, 8u});
  } else {
    a.tile = {pick(rng, {32u, 64u}), pick(rng, {32u, 64u}), pick(rng, {16u, 32u})};
    a.tensor_core.shape = pick(rng, {FragShape::kM16N16K16, FragShape::kM32N8K16, FragShape::kM8N32K16});
  }
  a.smem_stage = pick(rng, {true, false});
  a.read_once = !a.smem_stage && pick(rng, {true, false});
  a.prefetch = a.smem_stage && pick(rng, {true, false});
  a.lane_map = pick(rng, {LaneMap::kContiguous, LaneMap::kStrided});
  a.split_k = pick(rng, {1u, 1u, 2u, 3u});
  a.boundary = pick(rng, {Boundary::kGuard, Boundary::kClamp, Boundary::kExact});
  a.k_range = pick(rng, {KRange::kSpecialized, KRange::kGeneric});
  if (p.fixed.op.has_bias) a.fused_act = pick(rng, {Epilogue::kFused, Epilogue::kSeparate});
  return p;
}

TEST(Property, ValidRandomPointsComputeTheOperator) {
  const auto sdk = find_sdk_dir(VXSYNTH_BUILD_DIR);
  const bool can_run = sdk && fs::exists(fs::path(VXSYNTH_BUILD_DIR) / "sim/runtime/libvortex.a");
  std::mt19937 rng(20261130);
  int valid = 0, rejected = 0;
  for (int tries = 0; tries < 400 && valid < 6; ++tries) {
    const DesignPoint p = random_point(rng);
    const std::string why = validation_errors(p);
    if (!why.empty()) {
      ++rejected;
      EXPECT_THROW((void)emit_vortex(p), Error);
      continue;
    }
    ++valid;
    if (!can_run) continue;
    const fs::path work = fs::temp_directory_path() / ("vxsynth_codegen_prop_" + std::to_string(::getpid())) /
                          std::to_string(valid);
    const auto r = check_vortex_candidate(p, work, *sdk, 1000 + static_cast<uint64_t>(valid));
    EXPECT_TRUE(r.passed()) << slug(p) << "\n" << to_json(p).dump() << "\n" << r.summary();
    bool ok = r.passed();
    if (find_nvcc()) {
      write_candidate(work / "cuda", emit_cuda(p));
      const auto c = compile_cuda(work / "cuda" / kCudaFileName, work / "cuda" / "candidate.o");
      EXPECT_TRUE(c.ok) << slug(p) << "\n" << c.diagnostics;
      ok = ok && c.ok;
    }
    if (ok) {
      std::error_code ec;
      fs::remove_all(work, ec);
    }
  }
  EXPECT_EQ(valid, 6) << "too few valid random points (" << rejected << " rejected)";
  EXPECT_GT(rejected, 0);
  if (!can_run) GTEST_SKIP() << "validated " << valid << " random points; no SDK + runtime build to run them";
}

}  // namespace
}  // namespace vxsynth::codegen
