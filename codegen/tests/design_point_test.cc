#include "test_points.h"
#include "vxsynth/codegen/design_point.h"

#include <gtest/gtest.h>

#include <set>

#include "vxsynth/codegen/seed.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {
namespace {

core::ReferenceContext linear_ctx(int64_t m, int64_t n, int64_t k, uint32_t block) {
  core::ReferenceContext ctx;
  ctx.kernel_name = "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8";
  ctx.op = core::OpKind::kLinear;
  ctx.framework_op = "aten::addmm";
  ctx.gemm = core::GemmShape{1, m, n, k};
  ctx.has_bias = true;
  ctx.launch.block = {block, 1, 1};
  return ctx;
}

TEST(AxisTable, TwelveStableAxesInContractOrder) {
  const std::vector<std::string> keys{"tile", "reg_tile", "prefetch", "smem_stage", "read_once", "lane_map",
                                      "tensor_core", "fused_act", "split_k", "block_decomp", "boundary", "k_range"};
  ASSERT_EQ(kAxisTable.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(kAxisTable[i].key, keys[i]);
    EXPECT_EQ(static_cast<size_t>(kAxisTable[i].id), i);
    EXPECT_EQ(axis_from_key(keys[i]), kAxisTable[i].id);
    EXPECT_FALSE(kAxisTable[i].metrics.empty());
  }
  // Paper §4.3: only fused_act and k_range are decided at seed.
  std::set<std::string> seed_fixed;
  for (const auto& a : kAxisTable) {
    if (a.fixed_at_seed) seed_fixed.insert(std::string(a.key));
  }
  EXPECT_EQ(seed_fixed, (std::set<std::string>{"fused_act", "k_range"}));
  EXPECT_THROW((void)axis_from_key("unroll"), Error);
}

TEST(Seed, KeepsFixedPropertiesAndValidates) {
  const auto ctx = linear_ctx(100, 512, 512, 256);
  const DesignPoint p = seed_design_point(ctx);
  EXPECT_EQ(validation_errors(p), "");
  EXPECT_EQ(p.fixed.block_size, 256u);
  EXPECT_EQ(p.fixed.engine, core::EngineClass::kSimt);
  EXPECT_EQ(p.fixed.path, check::PrecisionPath::kFp32);
  EXPECT_EQ((p.axes.tile.m / p.axes.reg_tile.m) * (p.axes.tile.n / p.axes.reg_tile.n), 256u);
  EXPECT_EQ(p.axes.fused_act, Epilogue::kFused);
  EXPECT_EQ(p.axes.k_range, KRange::kSpecialized);  // 512 % BK == 0
  EXPECT_EQ(fixed_property_violations(p, fixed_properties(ctx)), "");
}

TEST(Seed, TensorCoreBf16AndConvDecisions) {
  core::ReferenceContext ctx = linear_ctx(64, 64, 100, 128);
  ctx.op = core::OpKind::kBmm;
  ctx.has_bias = false;
  ctx.gemm = core::GemmShape{8, 64, 64, 100};
  ctx.operand_type = core::DType::kBf16;
  ctx.engine = core::EngineClass::kTensorCore;
  DesignPoint p = seed_design_point(ctx);
  EXPECT_TRUE(p.axes.tensor_core.enabled);
  EXPECT_EQ(p.fixed.path, check::PrecisionPath::kBf16);
  EXPECT_EQ(p.axes.k_range, KRange::kGeneric);  // K = 100 is not a multiple of BK
  EXPECT_EQ(validation_errors(p), "");

  core::ReferenceContext conv;
  conv.kernel_name = "implicit_convolve_sgemm";
  conv.op = core::OpKind::kConv1d;
  conv.conv = core::ConvShape{};
  conv.conv->n = 1; conv.conv->c = 64; conv.conv->w = 16; conv.conv->k = 64; conv.conv->s = 5;
  conv.conv->pad = {0, 2};
  conv.has_bias = true;
  conv.launch.block = {128, 1, 1};
  p = seed_design_point(conv);
  EXPECT_EQ(p.axes.fused_act, Epilogue::kSeparate);
  EXPECT_EQ(validation_errors(p), "");
}

DesignPoint valid_point() { return seed_design_point(linear_ctx(64, 64, 64, 64)); }

void expect_rejected(const DesignPoint& p, const std::string& needle) {
  const std::string e = validation_errors(p);
  EXPECT_NE(e.find(needle), std::string::npos) << "expected '" << needle << "' in:\n" << e;
  EXPECT_THROW(validate(p), Error);
}

TEST(Validation, RejectsEachBrokenConstraintWithReason) {
  DesignPoint p = valid_point();
  ASSERT_EQ(validation_errors(p), "");

  auto q = p;  // block size not preserved by tile/reg_tile
  q.axes.reg_tile = {1, 1};
  expect_rejected(q, "block size is fixed at 64");

  q = p;  // tile not divisible by the micro-tile
  q.axes.reg_tile = {3, 4};
  expect_rejected(q, "does not divide tile");

  q = p;  // CUDA 48 KiB static shared memory
  q.axes.tile = {256, 256, 64};
  q.axes.reg_tile = {16, 16};
  q.fixed.block_size = 256;
  expect_rejected(q, "48 KiB");

  q = p;  // Vortex local memory 16 KiB per core
  q.axes.tile = {64, 64, 32};  // (64*32*2)*4 = 16 KiB per block, 2 blocks resident
  q.vortex.warps = 16;
  expect_rejected(q, "local memory per block");

  q = p;  // split-K bounded by K
  q.axes.split_k = 100;
  expect_rejected(q, "split_k: 100 outside 1..ceil(K/BK)");

  q = p;  // exact boundary needs divisibility
  q.fixed.op.gemm.m = 60;
  q.axes.boundary = Boundary::kExact;
  expect_rejected(q, "boundary: exact");

  q = p;  // fixed property: engine class vs tensor-core axis
  q.axes.tensor_core.enabled = true;
  expect_rejected(q, "contradicts the fixed engine class");

  q = p;
  q.axes.read_once = true;
  expect_rejected(q, "read_once: excludes smem_stage");

  q = p;
  q.axes.smem_stage = false;
  q.axes.prefetch = true;
  expect_rejected(q, "prefetch");

  q = p;  // block larger than the Vortex core
  q.vortex.warps = 4;
  q.vortex.threads = 4;
  expect_rejected(q, "exceeds the Vortex core");

  q = p;  // block_decomp needs divisibility by both warp widths
  q.axes.warp_rows = 3;
  expect_rejected(q, "block_decomp");

  q = p;
  q.fixed.op.has_bias = false;
  q.axes.fused_act = Epilogue::kSeparate;
  expect_rejected(q, "fused_act");
}

TEST(Validation, TensorCoreTileShapes) {
  core::ReferenceContext ctx = linear_ctx(64, 64, 64, 128);
  ctx.engine = core::EngineClass::kTensorCore;  // fp32 operands on tensor cores: the TF32 path
  DesignPoint p = seed_design_point(ctx);
  ASSERT_EQ(validation_errors(p), "");
  EXPECT_EQ(p.fixed.path, check::PrecisionPath::kTf32);
  auto q = p;
  q.axes.tensor_core.shape = FragShape::kM16N16K16;
  expect_rejected(q, "tf32 wmma has only m16n16k8");
  q = p;
  q.vortex.threads = 12;
  expect_rejected(q, "tensor_core");
  q = p;
  q.vortex.threads = 32;  // TCU tile 16x16x32: BK = 16 is not a multiple of 32
  q.vortex.warps = 4;
  q.axes.tile.k = 16;
  expect_rejected(q, "Vortex TCU tile 16x16x32");
  q = p;
  q.axes.reg_tile = {2, 2};
  expect_rejected(q, "reg_tile: must be 1x1");
  q = p;
  q.axes.smem_stage = false;
  expect_rejected(q, "smem_stage");
  EXPECT_EQ(vortex_tcu_tile(8), (std::array<uint32_t, 3>{8, 8, 16}));
  EXPECT_EQ(vortex_tcu_tile(4), (std::array<uint32_t, 3>{8, 4, 8}));
  EXPECT_EQ(vortex_tcu_tile(32), (std::array<uint32_t, 3>{16, 16, 32}));
}

/// The fragment-shape table: rows in FragShape order, each key read back, the warpgroup rows
/// issued by 128 threads.
TEST(FragShapeTable, RowsInEnumOrderWithTheirOwners) {
  for (size_t i = 0; i < kFragShapeTable.size(); ++i) {
    const FragShapeInfo& r = kFragShapeTable[i];
    EXPECT_EQ(static_cast<size_t>(r.id), i) << r.key;
    EXPECT_EQ(to_string(r.id), r.key);
    EXPECT_EQ(frag_dims(r.id), (std::array<uint32_t, 3>{r.m, r.n, r.k}));
    EXPECT_EQ(warpgroup_mma(r.id), r.key.starts_with("m64n")) << r.key;
    EXPECT_EQ(r.owner_threads, warpgroup_mma(r.id) ? 128u : 32u) << r.key;
  }
}

/// Warpgroup shapes (docs/codegen.md "Warpgroup MMA") on π0's BF16 linear M=816 N=16384 K=2048 at
/// 384 threads: the design-space-7 seed is m64n256k16 over 192x256x64, and each rule of the
/// lowering rejects a point that breaks it, naming it.
TEST(Validation, WarpgroupShapesNeedWhatTheLoweringReads) {
  core::ReferenceContext ctx = linear_ctx(816, 16384, 2048, 384);
  ctx.kernel_name = "nvjet_sm90_tst_128x272_64x4_2x1_v_bz_coopA_TNT";
  ctx.name_rule = "nvjet";
  ctx.engine = core::EngineClass::kTensorCore;
  ctx.operand_type = core::DType::kBf16;
  ctx.has_bias = false;
  const DesignPoint p = seed_design_point(ctx);
  ASSERT_EQ(validation_errors(p), "");
  EXPECT_EQ(p.axes.tensor_core.shape, FragShape::kM64N256K16);
  EXPECT_EQ(p.axes.tile.m, 192u);
  EXPECT_EQ(p.axes.tile.n, 256u);
  EXPECT_EQ(p.axes.tile.k, 64u);
  EXPECT_EQ(cuda_tc_row_pad(p), 0u);
  EXPECT_EQ(warpgroup_accumulators(p), 128u) << "one 64x256 operation per warpgroup: 256 / 2";
  EXPECT_EQ(smem_bytes(p), cuda_tc_stages(p) * (192u + 256u) * 64u * 2u) << "canonical tiles, no scratch";
  EXPECT_NE(p.seed_origin.at("tensor_core").find("warpgroup MMA"), std::string::npos);
  EXPECT_EQ(seed_design_point(ctx, CudaTranslation::kNative, 6).axes.tensor_core.shape, FragShape::kM16N16K16);
  ctx.name_rule = "xmma_mma";  // an mma.sync reference keeps WMMA
  EXPECT_EQ(seed_design_point(ctx).axes.tensor_core.shape, FragShape::kM16N16K16);
  auto q = p;
  q.axes.tile.n = 128;
  expect_rejected(q, "CUDA fragment 64x256x16 does not divide tile 192x128x64");
  q.axes.tensor_core.shape = FragShape::kM64N128K16;
  EXPECT_EQ(validation_errors(q), "");
  q = p;
  q.axes.tile = {256, 256, 64};
  q.axes.tensor_core.shape = FragShape::kM64N128K16;
  expect_rejected(q, "8 CUDA fragments per block tile do not split evenly over 3 warpgroups");
  q = p;
  q.fixed.block_size = 128;
  q.vortex.warps = 8;
  q.axes.tile = {128, 256, 64};
  expect_rejected(q, "m64n256k16: 256 fp32 accumulators per thread exceed the 128 that 128 threads per block leave");
  // At 512 threads (128 registers a thread) 128 accumulators do not fit beside the addresses.
  q = p;
  q.fixed.block_size = 512;
  q.vortex.warps = 32;
  q.axes.tile = {256, 256, 64};
  expect_rejected(q, "m64n256k16: 128 fp32 accumulators per thread exceed the 88 that 512 threads per block leave");
  EXPECT_EQ(warpgroup_max_accumulators(384), 128u);
  EXPECT_EQ(warpgroup_max_accumulators(512), 88u);
  EXPECT_EQ(warpgroup_max_accumulators(1024), 24u);
  q = p;
  q.tc_schedule = TcSchedule::kTileEpilogue;
  q.cuda_stages = 0;
  expect_rejected(q, "m64n256k16 writes its accumulators out from registers: tc_schedule warp-epilogue");
  q = p;
  q.axes.prefetch = false;
  expect_rejected(q, "needs at least two cp.async shared stages");
  q = p;
  q.axes.lane_map = LaneMap::kElement;
  expect_rejected(q, "needs 16-byte vector fills of both operands along K");
  q = p;
  q.cuda_translation = CudaTranslation::kVortexLiteral;
  expect_rejected(q, "m64n256k16");
  q = p;
  q.fixed.block_size = 96;
  expect_rejected(q, "issued by warpgroups of 128 threads; block size 96");
  q = p;
  q.fixed.op.family = check::OpFamily::kMatmul;
  expect_rejected(q, "m64n256k16 reads both operands K-major; matmul's B is N-contiguous");
  q = p;
  q.fixed.path = check::PrecisionPath::kTf32;
  expect_rejected(q, "tf32 wmma has only m16n16k8, not m64n256k16");
  // The design-space-7 variant steps N along 64, 128, 256 (the tile 192x256 holds each).
  std::string why;
  const auto narrower = step_axis(p, AxisId::kTensorCore, /*forward=*/false, p.fixed, &why);
  ASSERT_TRUE(narrower.has_value()) << why;
  EXPECT_EQ(narrower->axes.tensor_core.shape, FragShape::kM64N128K16);
  EXPECT_FALSE(step_axis(p, AxisId::kTensorCore, /*forward=*/false, p.fixed, &why, 6).has_value());
  EXPECT_EQ(design_point_from_json(to_json(p)).axes.tensor_core.shape, FragShape::kM64N256K16);
}

/// π0's BF16 linear M=816 N=16384 K=2048 (nvjet, 384 threads) in the current design space: Vortex
/// stages a BK of 32 in steps of 16 where the 16-KiB local memory does not hold the tile at 32.
TEST(Validation, VortexStagesKInTheLocalMemoryItHas) {
  core::ReferenceContext ctx = linear_ctx(816, 16384, 2048, 384);
  ctx.kernel_name = "nvjet_sm90_tst_128x272_64x4_2x1_v_bz_coopA_TNT";
  ctx.engine = core::EngineClass::kTensorCore;
  ctx.operand_type = core::DType::kBf16;
  ctx.has_bias = false;
  DesignPoint p = seed_design_point(ctx, CudaTranslation::kNative, 6);  // WMMA m16n16k16 (design space 7: wgmma)
  ASSERT_EQ(validation_errors(p), "");
  ASSERT_EQ(p.vortex.local_mem_bytes, 16384u);
  struct Row {
    Axes::Tile tile;
    uint32_t stage_k, local_bytes;  // (BM + BN) x stage_k x 2 B, or 24 warps' 16x8 fp32 scratch (12 KiB)
  };
  for (const Row& r : {Row{{96, 128, 32}, 32, 14336}, Row{{192, 128, 32}, 16, 12288}, Row{{192, 256, 32}, 16, 14336},
                       Row{{96, 128, 64}, 32, 14336}, Row{{192, 256, 64}, 16, 14336}}) {
    DesignPoint q = p;
    q.axes.tile = r.tile;
    q.axes.split_k = 1;
    SCOPED_TRACE(fmt::format("{}x{}x{}", r.tile.m, r.tile.n, r.tile.k));
    EXPECT_EQ(vortex_stage_k(q), r.stage_k);
    EXPECT_EQ(vortex_local_mem_bytes(q), r.local_bytes);
    EXPECT_EQ(validation_errors(q), "");
  }
  // Not even the TCU tile's K (16) fits 8 KiB: rejected, naming the bytes.
  DesignPoint q = p;
  q.axes.tile = {192, 256, 32};
  q.vortex.local_mem_bytes = 8192;
  EXPECT_EQ(vortex_stage_k(q), 16u);
  expect_rejected(q, "14336 B of local memory per block x 1 resident blocks per core exceeds the Vortex core's 8192 B");
  // SIMT points keep BK.
  DesignPoint s = seed_design_point(linear_ctx(100, 512, 512, 256));
  s.vortex.local_mem_bytes = 4096;
  EXPECT_EQ(vortex_stage_k(s), s.axes.tile.k);
}

TEST(Json, RoundTripsAndNamesBadFields) {
  DesignPoint p = valid_point();
  p.axes.lane_map = LaneMap::kStrided;
  p.axes.split_k = 2;
  p.axes.boundary = Boundary::kClamp;
  const auto j = to_json(p);
  const DesignPoint back = design_point_from_json(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(slug(back), slug(p));
  auto bad = j;
  bad["axes"]["boundary"] = "padding";
  try {
    (void)design_point_from_json(bad);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("axes.boundary"), std::string::npos) << e.what();
  }
  bad = j;
  bad["axes"].erase("split_k");
  EXPECT_THROW((void)design_point_from_json(bad), Error);
}

// tc_schedule and cuda_stages (docs/codegen.md "Tensor-core schedules"): absent on tile-epilogue
// points, named when bad, and cuda_stages checked against the schedule.
TEST(Json, TensorCoreScheduleFieldsAreReadAndChecked) {
  DesignPoint p = seed_design_point(testing_points::small_fixed(check::OpFamily::kLinear, check::PrecisionPath::kBf16),
                                    std::nullopt, CudaTranslation::kNative, 2);
  EXPECT_FALSE(to_json(p).contains("tc_schedule"));
  EXPECT_FALSE(to_json(p).contains("cuda_stages"));
  const auto error_of = [](const nlohmann::json& j) {
    try {
      (void)design_point_from_json(j);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  auto j = to_json(p);
  j["tc_schedule"] = "bogus";
  EXPECT_NE(error_of(j).find("field 'tc_schedule' is \"bogus\", expected one of tile-epilogue, warp-epilogue"),
            std::string::npos) << error_of(j);
  j["tc_schedule"] = "warp-epilogue";
  j["cuda_stages"] = -1;
  EXPECT_NE(error_of(j).find("field 'cuda_stages' is -1, outside 0..4294967295"), std::string::npos) << error_of(j);
  j["cuda_stages"] = 17;
  const DesignPoint deep = design_point_from_json(j);
  EXPECT_NE(validation_errors(deep).find("cuda_stages 17 outside 0..16"), std::string::npos) << validation_errors(deep);
  p.cuda_stages = 6;  // a tile-epilogue point derives its stages
  EXPECT_NE(validation_errors(p).find("cuda_stages 6 is a warp-epilogue setting"), std::string::npos);
  j["cuda_stages"] = 6;
  EXPECT_EQ(validation_errors(design_point_from_json(j)), "");
  EXPECT_EQ(to_json(design_point_from_json(j)), j);
}

}  // namespace
}  // namespace vxsynth::codegen
