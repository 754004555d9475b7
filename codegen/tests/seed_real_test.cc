// Seeds from the real H200 reference captures (data/references/h200, measured by the gpu-harness):
// every hot kernel of a supported op family yields a valid seed that keeps its four fixed
// properties, and both candidates render.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/seed.h"
#include "vxsynth/codegen/toolchain.h"
#include "vxsynth/common/error.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/kernel_names.h"

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
    for (const auto& [axis, why] : p.seed_origin) std::cout << "      " << axis << ": " << why << "\n";
  }
  EXPECT_GT(seeded, 0) << "no linear/matmul/conv hot kernel in " << dir;
}

// Which seed values come from the reference geometry (paper §3.1), on the shipped bundles: the
// tile from the kernel name where the launch agrees and the tile is valid here ("name"), split-K
// from the launch (CTAs per tile along K, or the reference's grid as the target).
TEST(RealSeedOrigin, TileAndSplitKFromTheReferenceGeometry) {
  struct Want {
    const char* kernel;
    bool tile_from_name;
    uint32_t split_k;
  };
  const Want want[] = {
      {"act/k1", true, 4},   {"act/k2", true, 1},   {"act/k3", true, 1},   {"act/k4", false, 16},
      {"act/k5", true, 2},   {"diffusion_policy/k1", false, 1},              {"diffusion_policy/k2", false, 2},
      {"diffusion_policy/k3", false, 1},            {"diffusion_policy/k4", false, 1},
      {"diffusion_policy/k5", false, 1},            {"pi0/k1", true, 1},   {"pi0/k2", false, 1},
      {"pi0/k3", true, 1},   {"pi0/k4", true, 1},   {"pi0/k5", true, 1},
  };
  for (const Want& w : want) {
    const std::string id = w.kernel;
    const std::string workload = id.substr(0, id.find('/'));
    const auto b = core::read_bundle(fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200" / workload / "bundle.json");
    // Design space 2: the tile-epilogue schedule's candidate list (the committed suites' seeds).
    const DesignPoint p = seed_design_point(b.kernel(id.substr(id.find('/') + 1)).context, CudaTranslation::kNative, 2);
    ASSERT_TRUE(p.seed_origin.count("tile")) << id;
    EXPECT_EQ(p.seed_origin.at("tile").rfind("BM x BN", 0) == 0, w.tile_from_name) << id << ": " << p.seed_origin.at("tile");
    EXPECT_EQ(p.axes.split_k, w.split_k) << id;
    EXPECT_EQ(p.seed_origin.count("split_k") > 0, w.split_k > 1) << id;
    // The origin travels with the design point's JSON (the record's design).
    EXPECT_EQ(design_point_from_json(to_json(p)).seed_origin, p.seed_origin) << id;
  }
}

/// A tensor-core hot kernel of the shipped bundles, named "<gpu>/<workload>/<id>".
struct ShippedKernel {
  std::string id;
  core::ReferenceContext context;
};

/// Every tensor-core kernel (of an op with a shape) of data/references/{h200,h100}/*/bundle.json.
std::vector<ShippedKernel> shipped_tensor_core_kernels() {
  std::vector<ShippedKernel> out;
  for (const char* gpu : {"h200", "h100"}) {
    for (const auto& e : fs::directory_iterator(fs::path(VXSYNTH_SOURCE_DIR) / "data/references" / gpu)) {
      if (!fs::exists(e.path() / "bundle.json")) continue;
      for (const auto& k : core::read_bundle(e.path() / "bundle.json").kernels) {
        if (k.context.op == core::OpKind::kOther || k.context.engine != core::EngineClass::kTensorCore) continue;
        out.push_back({fmt::format("{}/{}/{}", gpu, e.path().filename().string(), k.id), k.context});
      }
    }
  }
  return out;
}

// Design space 3 (and 4) on every tensor-core kernel of the shipped bundles (both GPUs): the seed is a valid
// warp-epilogue point whose operand tiles fit the Vortex core's local memory and whose CUDA stages
// fit sm_90's dynamic shared memory, with at least as many CUDA fragments per warp as the
// tile-epilogue seed of design space 2 had (docs/codegen.md "Tensor-core schedules").
TEST(RealSeedSchedule, TensorCoreSeedsOfDesignSpaceThreeTakeTheWarpEpilogue) {
  int seeded = 0;
  for (const ShippedKernel& k : shipped_tensor_core_kernels()) {
    const std::string& id = k.id;
    const DesignPoint p = seed_design_point(k.context);
    const DesignPoint old = seed_design_point(k.context, CudaTranslation::kNative, 2);
    EXPECT_EQ(p.tc_schedule, TcSchedule::kWarpEpilogue) << id;
    EXPECT_EQ(old.tc_schedule, TcSchedule::kTileEpilogue) << id;
    EXPECT_EQ(validation_errors(p), "") << id;
    EXPECT_LE(vortex_local_mem_bytes(p), p.vortex.local_mem_bytes) << id;
    EXPECT_LE(smem_bytes(p), schedule_info(p.tc_schedule).cuda_smem_limit) << id;
    const auto per_warp = [](const DesignPoint& q) {  // output elements per CUDA warp
      return q.axes.tile.m * q.axes.tile.n / (q.fixed.block_size / kCudaWarp);
    };
    EXPECT_GE(per_warp(p), per_warp(old)) << id;
    EXPECT_EQ(design_point_from_json(to_json(p)).tc_schedule, TcSchedule::kWarpEpilogue) << id;
    EXPECT_EQ(design_point_from_json(to_json(p)).cuda_stages, p.cuda_stages) << id;
    // Design space 4: no stage beyond the split's K tiles (3 keeps the name's stage count).
    const GemmView g = gemm_view(p.fixed.op);
    const int64_t per_split = ((g.k + p.axes.tile.k - 1) / p.axes.tile.k + p.axes.split_k - 1) / p.axes.split_k;
    EXPECT_LE(cuda_tc_stages(p), std::max<int64_t>(2, per_split)) << id;
    EXPECT_NE(p.cuda_stages, 4u) << id << ": 4 is written as 0";
    const DesignPoint v3 = seed_design_point(k.context, CudaTranslation::kNative, 3);
    const DesignPoint v4 = seed_design_point(k.context, CudaTranslation::kNative, 4);
    EXPECT_GE(cuda_tc_stages(v3), cuda_tc_stages(v4)) << id;
    EXPECT_EQ(to_json(v3)["axes"], to_json(v4)["axes"]) << id;
    EXPECT_NO_THROW((void)emit_vortex(p)) << id;
    if (find_nvcc()) {  // the deepest pipelines (14 stages: cp.async.wait_group 12) compile for sm_90
      const fs::path dir = fs::temp_directory_path() / ("vxsynth_we_seed_" + std::to_string(::getpid())) / id;
      write_candidate(dir, emit_cuda(p));
      const NvccResult n = compile_cuda(dir / kCudaFileName, dir / "candidate.o");
      EXPECT_TRUE(n.ok) << id << ": " << n.command << "\n" << n.diagnostics;
      std::error_code ec;
      if (n.ok) fs::remove_all(dir, ec);
    }
    std::cout << "  " << id << " " << slug(p) << " (design space 2: " << slug(old) << ")\n";
    ++seeded;
  }
  EXPECT_GE(seeded, 10);
}

// Design space 5 on every tensor-core kernel of the shipped bundles: the seed pads like the
// reference. Its tile's padded tensor work is at least as close to the measured one as design
// space 4's, never more than 2x off where an orientation of the name's tile fits, and the
// convolutions whose N·P·Q (4, 8, 16) cuDNN pads to 64 or 128 rows take those paddings: Diffusion
// Policy's sm80 kernels (tilesize64x32x64) the name's tile swapped (64 along N·P·Q, the swapped
// fit's CTAs per tile along K), its sm90 kernels (tensor work of 128 rows of N·P·Q = 4) 128.
TEST(RealSeedSchedule, TensorCoreSeedsOfDesignSpaceFivePadLikeTheReference) {
  int seeded = 0;
  for (const ShippedKernel& k : shipped_tensor_core_kernels()) {
    const std::string& id = k.id;
    ASSERT_GT(k.context.tensor_ops, 0) << id << ": the bundle's ncu values hold the tensor-op counters";
    const DesignPoint p = seed_design_point(k.context, CudaTranslation::kNative, 5);
    const DesignPoint v4 = seed_design_point(k.context, CudaTranslation::kNative, 4);
    EXPECT_EQ(validation_errors(p), "") << id;
    const auto off = [&](const DesignPoint& q) {
      const core::TileHint t{q.axes.tile.m, q.axes.tile.n, q.axes.tile.k, 0};
      return std::abs(std::log2(core::padded_mma_ops(t, k.context) / k.context.tensor_ops));
    };
    EXPECT_LE(off(p), off(v4) + 1e-9) << id << ": " << slug(p) << " vs " << slug(v4);
    if (core::launch_fit(k.context)) {
      EXPECT_LE(off(p), 1.0 + 1e-9) << id << ": " << slug(p);
    }
    if (k.context.op == core::OpKind::kConv1d && k.context.kernel_name.find("sm80_xmma") != std::string::npos) {
      EXPECT_EQ(p.axes.tile.n, 64u) << id << ": " << slug(p);
      EXPECT_NE(p.seed_origin.at("tile").find("both orientations fit"), std::string::npos) << id;
    }
    if (k.context.op == core::OpKind::kConv1d && k.context.kernel_name.find("sm90_xmma") != std::string::npos) {
      EXPECT_EQ(p.axes.tile.n, 128u) << id << ": " << slug(p);
    }
    EXPECT_NO_THROW((void)emit_vortex(p)) << id;
    std::cout << "  " << id << " " << slug(p) << " (design space 4: " << slug(v4) << ")\n";
    ++seeded;
  }
  EXPECT_GE(seeded, 10);
}

// Design space 7 on every tensor-core kernel of the shipped bundles: a seed takes a warpgroup shape
// exactly where the reference's name rule computes with wgmma, the op is a BF16 linear and M covers
// the block's warpgroups; it is valid, holds at most 128 accumulators per thread and two or more
// cp.async stages; every other seed is design space 6's. On the H100 π0 bundle: k2 (nvjet, M = 816)
// 192x256x64 m64n256k16, k4 (M = 51) WMMA.
TEST(RealSeedSchedule, WarpgroupSeedsOfDesignSpaceSeven) {
  int warpgroup = 0;
  for (const ShippedKernel& k : shipped_tensor_core_kernels()) {
    const std::string& id = k.id;
    const DesignPoint p = seed_design_point(k.context, CudaTranslation::kNative, 7);
    const DesignPoint v6 = seed_design_point(k.context, CudaTranslation::kNative, 6);
    EXPECT_EQ(validation_errors(p), "") << id;
    bool rule_wgmma = false;
    for (const auto& r : core::kernel_name_rules()) rule_wgmma = rule_wgmma || (r.id == k.context.name_rule && r.warpgroup_mma);
    const FixedProperties f = fixed_properties(k.context);
    const bool eligible = rule_wgmma && f.op.family == check::OpFamily::kLinear &&
                          f.path == check::PrecisionPath::kBf16 && gemm_view(f.op).m >= 64 * (f.block_size / kCudaWarpgroup) &&
                          f.block_size % kCudaWarpgroup == 0;
    if (!warpgroup_mma(p.axes.tensor_core.shape)) {
      EXPECT_FALSE(eligible) << id << ": " << slug(p);
      EXPECT_EQ(to_json(p), to_json(v6)) << id;
      continue;
    }
    EXPECT_TRUE(eligible) << id;
    EXPECT_GE(cuda_tc_stages(p), 2u) << id;
    EXPECT_GT(warpgroup_accumulators(p), 0u) << id;
    EXPECT_LE(warpgroup_accumulators(p), warpgroup_max_accumulators(p.fixed.block_size)) << id;
    EXPECT_EQ(p.seed_origin.count("tensor_core"), 1u) << id;
    if (id == "h100/pi0/k2") {
      EXPECT_EQ(p.axes.tensor_core.shape, FragShape::kM64N256K16);
      EXPECT_EQ(p.axes.tile.m, 192u);
      EXPECT_EQ(p.axes.tile.n, 256u);
      EXPECT_EQ(p.axes.tile.k, 64u);
    }
    std::cout << "  " << id << " " << slug(p) << " " << frag_shape_info(p.axes.tensor_core.shape).key
              << " (design space 6: " << slug(v6) << ")\n";
    ++warpgroup;
  }
  EXPECT_GE(warpgroup, 2) << "π0 k2 and k5 of both bundles";
}

// π0's attention products (aten::matmul → aten::bmm over 8 heads) multiply by one key/value head
// expanded over the batch (multi-query attention: B's batch stride is 0 in the trace). The seed
// keeps that broadcast, so the candidates read one B as the reference does; A's head-interleaved
// view is not a broadcast and stays contiguous.
TEST(RealSeedOperands, BroadcastOperandOfTheTraceKeepsBatchStrideZero) {
  const auto b = core::read_bundle(fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200/pi0/bundle.json");
  for (const char* id : {"k1", "k3"}) {
    const auto& ctx = b.kernel(id).context;
    ASSERT_EQ(ctx.operands.size(), 2u) << id;
    ASSERT_EQ(ctx.operands[1].strides.at(0), 0) << id << ": the shipped trace's B is an expanded view";
    const DesignPoint p = seed_design_point(ctx);
    EXPECT_EQ(p.fixed.op.b_batch_stride, 0) << id;
    EXPECT_EQ(p.fixed.op.a_batch_stride, -1) << id;
    EXPECT_EQ(design_point_from_json(to_json(p)).fixed.op.b_batch_stride, 0) << id;
  }
  // Without the stride in the trace (a 3-D B with a real batch stride) the operand is contiguous.
  core::ReferenceContext ctx = b.kernel("k3").context;
  ctx.operands[1].strides[0] = ctx.gemm->k * ctx.gemm->n;
  EXPECT_EQ(check::op_spec_from_context(ctx).b_batch_stride, -1);
  // torch.matmul's 2-D right operand is broadcast too.
  ctx.operands[1].dims = {ctx.gemm->k, ctx.gemm->n};
  ctx.operands[1].strides = {ctx.gemm->n, 1};
  EXPECT_EQ(check::op_spec_from_context(ctx).b_batch_stride, 0);
  // An operand whose extents disagree with the GEMM shape says nothing about the batch.
  ctx.operands[1].dims = {3, 5};
  EXPECT_EQ(check::op_spec_from_context(ctx).b_batch_stride, -1);
}

// The operator's bytes in the Vortex candidate's device memory, from the shipped shapes: ACT k4
// (linear fp32 M=100 N=512 K=512 + bias), π0 k1 (bf16 bmm, batch 8, 51x867 by one broadcast
// 867x256 key head), ACT k5 (a TF32 conv2d: fp16 operands on the TCU, fp32 bias and output).
TEST(RealSeedOperands, VortexOperandBytesCountInputsAndOutputAtTheirDeviceTypes) {
  const fs::path refs = fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200";
  const auto act = core::read_bundle(refs / "act/bundle.json");
  EXPECT_EQ(vortex_operand_bytes(seed_design_point(act.kernel("k4").context)),
            4u * (100 * 512 + 512 * 512 + 512 + 100 * 512));
  const auto pi0 = core::read_bundle(refs / "pi0/bundle.json");
  EXPECT_EQ(vortex_operand_bytes(seed_design_point(pi0.kernel("k1").context)),
            2u * (8 * 51 * 867 + 867 * 256 + 8 * 51 * 256));
  const DesignPoint conv = seed_design_point(act.kernel("k5").context);
  ASSERT_EQ(conv.fixed.path, check::PrecisionPath::kTf32);
  const auto& c = conv.fixed.op.conv;
  const int64_t x = c.n * c.c * c.h * c.w, w = c.k * (c.c / c.groups) * c.r * c.s;
  const int64_t bias = conv.fixed.op.has_bias ? c.k : 0, out = check::output_numel(conv.fixed.op);
  EXPECT_EQ(vortex_operand_bytes(conv), static_cast<uint64_t>(2 * (x + w) + 4 * bias + 4 * out));
}

INSTANTIATE_TEST_SUITE_P(H200, RealSeeds, ::testing::Values("act", "diffusion_policy", "pi0"));

}  // namespace
}  // namespace vxsynth::codegen
