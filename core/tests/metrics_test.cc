#include "vxsynth/core/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

namespace vxsynth::core {
namespace {

Signature full(double v_pct, double ratio, double ai, double bw, double lanes) {
  Signature s;
  for (const auto& m : metric_table()) {
    switch (m.transform) {
      case Transform::kPercent: s[m.id] = v_pct; break;
      case Transform::kDirect: s[m.id] = m.id == MetricId::kActiveLanes ? lanes : ratio; break;
      case Transform::kLogRatio: s[m.id] = m.id == MetricId::kArithIntensity ? ai : bw; break;
    }
  }
  return s;
}

TEST(MetricTable, RowsAreInIdOrderWithUniqueKeys) {
  ASSERT_EQ(metric_table().size(), kNumMetrics);
  std::set<std::string_view> keys;
  for (std::size_t i = 0; i < kNumMetrics; ++i) {
    EXPECT_EQ(static_cast<std::size_t>(metric_table()[i].id), i);
    EXPECT_TRUE(keys.insert(metric_table()[i].key).second) << metric_table()[i].key;
    EXPECT_EQ(metric_from_key(metric_table()[i].key), metric_table()[i].id);
    EXPECT_FALSE(metric_table()[i].vortex_text.empty());
  }
  EXPECT_FALSE(metric_from_key("l1_hitrate").has_value());
}

TEST(MetricTable, OrinHasNoDramMetricsEveryOtherArchHasAll) {
  for (const auto& a : arch_table()) {
    for (const auto& m : metric_table()) {
      const bool dram = m.id == MetricId::kArithIntensity || m.id == MetricId::kDramBandwidth;
      EXPECT_EQ(m.ncu[static_cast<std::size_t>(a.arch)].available(), !(dram && !a.has_dram_counters))
          << a.sm << " " << m.key;
    }
    const auto req = required_ncu_metrics(a.arch);
    const bool any_dram = std::any_of(req.begin(), req.end(),
                                      [](const std::string& n) { return n.rfind("dram__", 0) == 0; });
    EXPECT_EQ(any_dram, a.has_dram_counters) << a.sm;
  }
}

TEST(MetricTable, HopperListUsesCleanTensorMetricWithFallback) {
  const auto& f = metric_def(MetricId::kTensorMfu).ncu[static_cast<std::size_t>(Arch::kHopper)];
  ASSERT_EQ(f.numerator.size(), 1u);
  EXPECT_EQ(f.numerator[0].name,
            "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_elapsed");
  EXPECT_EQ(f.numerator[0].fallback, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed");
  const auto& lanes = metric_def(MetricId::kActiveLanes).ncu[0].numerator[0];
  EXPECT_DOUBLE_EQ(lanes.coef, 1.0 / 32.0);
  EXPECT_EQ(lanes.fallback, "smsp__thread_inst_executed_per_inst_executed.ratio");
}

TEST(MetricTable, FlopConventionCoefficients) {
  // ncu roofline convention: FFMA counts 2, HFMA (packed) 4, tensor ops 1 (already FLOPs).
  const auto& f = metric_def(MetricId::kArithIntensity).ncu[static_cast<std::size_t>(Arch::kHopper)];
  auto coef = [&](std::string_view n) {
    for (const auto& t : f.numerator)
      if (t.name == n) return t.coef;
    return -1.0;
  };
  EXPECT_EQ(coef("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), 2.0);
  EXPECT_EQ(coef("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"), 1.0);
  EXPECT_EQ(coef("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"), 4.0);
  EXPECT_EQ(coef("sm__ops_path_tensor_src_bf16_dst_fp32.sum"), 1.0);
  EXPECT_EQ(f.denominator.size(), 2u);
}

TEST(Arch, FromCcAndName) {
  EXPECT_EQ(arch_from_cc("9.0"), Arch::kHopper);
  EXPECT_EQ(arch_from_cc("8.7"), Arch::kOrin);
  EXPECT_FALSE(arch_from_cc("7.5").has_value());
  EXPECT_EQ(arch_from_name("SM_89"), Arch::kAda);
  EXPECT_EQ(arch_from_name("sm80"), Arch::kAmpere);
  EXPECT_EQ(arch_from_name("gh100"), Arch::kHopper);
  EXPECT_FALSE(arch_from_name("sm_75").has_value());
}

TEST(Distance, TransformsHandComputed) {
  EXPECT_DOUBLE_EQ(metric_distance(MetricId::kL1HitRate, 80.0, 60.0), 0.2);
  EXPECT_DOUBLE_EQ(metric_distance(MetricId::kL1HitRate, 0.0, 100.0), 1.0);
  EXPECT_NEAR(metric_distance(MetricId::kDramBandwidth, 2e12, 1e12), std::log(2.0) / std::log(5.0), 1e-12);
  EXPECT_NEAR(metric_distance(MetricId::kDramBandwidth, 1e12, 2e12), std::log(2.0) / std::log(5.0), 1e-12);
  EXPECT_DOUBLE_EQ(metric_distance(MetricId::kArithIntensity, 10.0, 1.0), 1.0);  // clipped
  EXPECT_DOUBLE_EQ(metric_distance(MetricId::kActiveLanes, 0.5, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(metric_distance(MetricId::kAtomicsPerInst, 0.0, 0.0), 0.0);
  // ε keeps a zero reference finite: 0 vs 0 costs nothing, 0 vs 1 the full 1.
  EXPECT_DOUBLE_EQ(metric_distance(MetricId::kArithIntensity, 0.0, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(metric_distance(MetricId::kArithIntensity, 0.0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(signed_response(MetricId::kOccupancy, 40.0, 50.0), -0.1);
  EXPECT_LT(signed_response(MetricId::kDramBandwidth, 1.0, 3.0), 0.0);
}

TEST(Distance, SelfIsZeroAndSymmetric) {
  const Signature a = full(50.0, 1e-5, 20.0, 1e12, 0.9);
  const Signature b = full(70.0, 0.0, 5.0, 3e12, 1.0);
  EXPECT_EQ(distance(a, a).d_value, 0.0);
  EXPECT_EQ(distance(a, a).entered().size(), kNumMetrics);
  EXPECT_DOUBLE_EQ(*distance(a, b).d_value, *distance(b, a).d_value);
}

TEST(Distance, PerturbedHandComputed) {
  const Signature r = full(50.0, 0.0, 10.0, 1e12, 1.0);
  Signature c = r;
  c[MetricId::kL1HitRate] = 60.0;         // d = 0.1
  c[MetricId::kDramBandwidth] = 2e12;     // d = ln2/ln5
  c[MetricId::kActiveLanes] = 0.75;       // d = 0.25
  const double expected = (0.1 + std::log(2.0) / std::log(5.0) + 0.25) / 10.0;
  EXPECT_NEAR(*distance(c, r).d_value, expected, 1e-12);
}

TEST(Distance, OrinLikeSignatureLeavesDramMetricsOut) {
  const Signature h200 = full(50.0, 0.0, 10.0, 1e12, 1.0);
  Signature orin = full(60.0, 0.0, 10.0, 1e12, 1.0);
  orin[MetricId::kArithIntensity].reset();
  orin[MetricId::kDramBandwidth].reset();
  const DistanceReport rep = distance(orin, h200);
  const auto out = rep.left_out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], MetricId::kArithIntensity);
  EXPECT_EQ(out[1], MetricId::kDramBandwidth);
  EXPECT_EQ(rep.entered().size(), 8u);
  // Six percent metrics differ by 10 points (0.1 each), the two direct metrics by 0: mean over 8.
  EXPECT_NEAR(*rep.d_value, 0.6 / 8.0, 1e-12);
  Signature empty;
  EXPECT_FALSE(distance(empty, h200).d_value.has_value());
}

}  // namespace
}  // namespace vxsynth::core
