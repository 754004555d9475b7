// Reference-bundle JSON: round trip and the validating reader's messages.
#include "vxsynth/core/bundle.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "vxsynth/common/error.h"

namespace vxsynth::core {
namespace {

ReferenceBundle sample() {
  ReferenceBundle b;
  b.workload = "unit";
  b.arch = Arch::kHopper;
  b.provenance.gpu = "NVIDIA H200";
  b.provenance.cc = "9.0";
  b.provenance.trace_file = "t.json.gz";
  b.provenance.ncu_file = "n.csv";
  b.provenance.extra = {{"cudnn", 91900}};
  b.gpu_time_total_us = 100.0;
  b.kernel_launches = 3;
  BundleKernel k;
  k.id = "k1";
  k.rank = 1;
  k.name = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
  k.launches = 1;
  k.total_us = 60.0;
  k.share = 0.6;
  k.cumulative_share = 0.6;
  k.context.kernel_name = k.name;
  k.context.op = OpKind::kBmm;
  k.context.framework_op = "aten::matmul";
  k.context.op_stack = {"aten::matmul", "aten::bmm"};
  k.context.gemm = GemmShape{8, 816, 816, 256};
  k.context.operand_type = DType::kBf16;
  k.context.engine = EngineClass::kTensorCore;
  k.context.launch.block = {384, 1, 1};
  k.context.launch.grid = {2, 66, 1};
  k.context.tile_hint = TileHint{256, 128, 64, 4};
  k.context.operands = {{{8, 816, 256}, {208896, 256, 1}, "c10::BFloat16"}};
  Signature s;
  s[MetricId::kL1HitRate] = 0.0;
  s[MetricId::kOccupancy] = 14.6;
  k.signature = s;
  k.ncu_ids = {3};
  k.ncu_raw = {{"sm__warps_active.avg.pct_of_peak_sustained_active", "%", 14.6}};
  b.kernels.push_back(k);
  return b;
}

std::string error_of(const nlohmann::json& j) {
  try {
    (void)bundle_from_json(j, "b.json");
  } catch (const vxsynth::Error& e) {
    return e.what();
  }
  return "";
}

TEST(Bundle, RoundTrip) {
  const ReferenceBundle b = sample();
  const nlohmann::json j = to_json(b);
  const ReferenceBundle r = bundle_from_json(j, "b.json");
  EXPECT_EQ(to_json(r), j);
  EXPECT_EQ(r.kernels[0].context.gemm->m, 816);
  EXPECT_EQ(r.kernels[0].context.launch.block_size(), 384u);
  EXPECT_FALSE((*r.kernels[0].signature)[MetricId::kDramBandwidth].has_value());
  EXPECT_EQ(r.kernel("1").id, "k1");
  EXPECT_THROW((void)r.kernel("k9"), vxsynth::Error);
  const auto path = std::filesystem::temp_directory_path() / ("vxsynth_bundle_test_" + std::to_string(::getpid()) + ".json");
  write_bundle(path, b);
  EXPECT_EQ(to_json(read_bundle(path)), j);
  std::filesystem::remove(path);
}

TEST(Bundle, ReaderNamesTheField) {
  nlohmann::json j = to_json(sample());
  j["kernels"][0]["context"]["gemm"].erase("m");
  EXPECT_NE(error_of(j).find("b.json: kernels[0].context.gemm.m: missing field"), std::string::npos) << error_of(j);

  j = to_json(sample());
  j["version"] = 2;
  EXPECT_NE(error_of(j).find("version: unsupported version 2"), std::string::npos) << error_of(j);

  j = to_json(sample());
  j["kernels"][0]["signature"]["l1_hit"] = 3;
  EXPECT_NE(error_of(j).find("kernels[0].signature.l1_hit: unknown metric key"), std::string::npos) << error_of(j);

  j = to_json(sample());
  j["kernels"][0]["context"]["engine"] = "gpu";
  EXPECT_NE(error_of(j).find("kernels[0].context.engine: unknown value 'gpu'"), std::string::npos) << error_of(j);

  j = to_json(sample());
  j["kernels"][0]["context"]["launch"]["block_size"] = 100;
  EXPECT_NE(error_of(j).find("launch.block_size"), std::string::npos) << error_of(j);

  j = to_json(sample());
  j["provenance"]["driver"] = 580;
  EXPECT_NE(error_of(j).find("provenance.driver: expected a string or null"), std::string::npos) << error_of(j);

  j = to_json(sample());
  j["kernels"][0]["ncu"]["raw"]["x"] = {{"value", "7"}, {"unit", ""}};
  EXPECT_NE(error_of(j).find("kernels[0].ncu.raw.x.value"), std::string::npos) << error_of(j);
}

TEST(Bundle, SignatureValuesOutOfRangeAreRejected) {
  // A negative rate would make the log-ratio distance NaN; fractions and percentages have bounds.
  nlohmann::json j = to_json(sample());
  j["kernels"][0]["signature"]["arith_intensity"] = -3.0;
  EXPECT_NE(error_of(j).find("kernels[0].signature.arith_intensity: -3 is negative"), std::string::npos) << error_of(j);
  j = to_json(sample());
  j["kernels"][0]["signature"]["active_lanes"] = 7.5;
  EXPECT_NE(error_of(j).find("signature.active_lanes: 7.5 is above 1"), std::string::npos) << error_of(j);
  j = to_json(sample());
  j["kernels"][0]["signature"]["l1_hit_rate"] = 250.0;
  EXPECT_NE(error_of(j).find("signature.l1_hit_rate: 250 is above 100 %"), std::string::npos) << error_of(j);
  j = to_json(sample());
  j["kernels"][0]["signature"]["coalescing"] = 272.0;  // ncu reports > 100 % for broadcast loads
  EXPECT_EQ(error_of(j), "");
}

// Two kernels with one id: the reader refuses instead of letting `kernel("k1")` take the first.
TEST(Bundle, DuplicateIdsAndRanksAreRejected) {
  nlohmann::json j = to_json(sample());
  j["kernels"].push_back(j["kernels"][0]);
  j["kernels"][1]["rank"] = 2;
  EXPECT_NE(error_of(j).find("b.json: kernels[1].id: duplicate kernel id 'k1' (kernels[0] has it too)"),
            std::string::npos)
      << error_of(j);
  j["kernels"][1]["id"] = "k2";
  j["kernels"][1]["rank"] = 1;
  EXPECT_NE(error_of(j).find("kernels[1].rank: duplicate rank 1"), std::string::npos) << error_of(j);
  j["kernels"][1]["rank"] = 2;
  EXPECT_EQ(error_of(j), "");
}

TEST(Bundle, ShapesAndCountsOutOfRangeAreRejected) {
  auto with = [](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = to_json(sample());
    edit(j["kernels"][0]);
    return error_of(j);
  };
  EXPECT_NE(with([](auto& k) { k["context"]["gemm"]["m"] = 0; }).find("kernels[0].context.gemm.m: 0 is below 1"),
            std::string::npos);
  EXPECT_NE(with([](auto& k) { k["context"]["gemm"]["k"] = -5; }).find("context.gemm.k: -5 is below 1"),
            std::string::npos);
  EXPECT_NE(with([](auto& k) { k["context"]["gemm"]["n"] = 1000000000000; })
                .find("context.gemm.n: 1000000000000 is above 2147483647"),
            std::string::npos);
  EXPECT_NE(with([](auto& k) { k["context"]["gemm"] = nullptr; }).find("context.gemm: is null but op is bmm"),
            std::string::npos);
  EXPECT_NE(with([](auto& k) { k["launches"] = 0; }).find("kernels[0].launches: 0 is below 1"), std::string::npos);
  EXPECT_NE(with([](auto& k) { k["total_us"] = -1.0; }).find("kernels[0].total_us: -1 is not a finite number >= 0"),
            std::string::npos);
  EXPECT_NE(with([](auto& k) { k["context"]["launch"]["registers_per_thread"] = 300; })
                .find("launch.registers_per_thread: 300 is above 255"),
            std::string::npos);
  EXPECT_NE(with([](auto& k) {
              k["context"]["launch"]["block"] = {64, 32, 1};
              k["context"]["launch"]["block_size"] = 2048;
            }).find("launch.block: 2048 threads per block; CUDA allows at most 1024"),
            std::string::npos);
  EXPECT_NE(with([](auto& k) { k["ncu"]["ids"] = {-1}; }).find("kernels[0].ncu.ids[0]: -1 is negative"),
            std::string::npos);
}

TEST(Bundle, ConvShapesAreChecked) {
  ReferenceBundle b = sample();
  BundleKernel& k = b.kernels[0];
  k.context.op = OpKind::kConv2d;
  k.context.gemm.reset();
  k.context.conv = ConvShape{1, 64, 56, 56, 64, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1};
  ASSERT_EQ(error_of(to_json(b)), "");
  nlohmann::json j = to_json(b);
  j["kernels"][0]["context"]["conv"]["groups"] = 5;
  EXPECT_NE(error_of(j).find("context.conv.groups: 5 does not divide c = 64 and k = 64"), std::string::npos)
      << error_of(j);
  j = to_json(b);
  j["kernels"][0]["context"]["conv"]["dilation"] = {30, 1};
  EXPECT_NE(error_of(j).find("context.conv.r: the dilated filter (3 taps, dilation 30) is wider than the padded "
                             "input (56 + 2 x 1)"),
            std::string::npos)
      << error_of(j);
  j = to_json(b);
  j["kernels"][0]["context"]["conv"]["stride"] = {0, 1};
  EXPECT_NE(error_of(j).find("context.conv.stride[0]: 0 is outside 1..2147483647"), std::string::npos) << error_of(j);
  j = to_json(b);
  j["kernels"][0]["context"]["op"] = "conv1d";
  EXPECT_NE(error_of(j).find("op is conv1d but h = 56 and r = 3"), std::string::npos) << error_of(j);
}

TEST(Bundle, UnprofiledKernelsRoundTripAndMayBeAbsent) {
  ReferenceBundle b = sample();
  b.unprofiled = std::vector<UnprofiledKernel>{{4, "void relu_kernel<float>(float*)", 12, 0.05}};
  const nlohmann::json j = to_json(b);
  const ReferenceBundle r = bundle_from_json(j, "b.json");
  ASSERT_TRUE(r.unprofiled.has_value());
  ASSERT_EQ(r.unprofiled->size(), 1u);
  EXPECT_EQ((*r.unprofiled)[0].rank, 4u);
  EXPECT_EQ(to_json(r), j);
  nlohmann::json old = j;
  old.erase("unprofiled_kernels");  // a bundle written before the field existed
  EXPECT_FALSE(bundle_from_json(old, "b.json").unprofiled.has_value());
  nlohmann::json bad = j;
  bad["unprofiled_kernels"][0]["launches"] = 0;
  EXPECT_NE(error_of(bad).find("unprofiled_kernels[0].launches: 0 is below 1"), std::string::npos) << error_of(bad);
}

}  // namespace
}  // namespace vxsynth::core
