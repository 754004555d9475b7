// The axis table (codegen/src/axis_table.cc) against its own promises: rows in AxisId order, every
// refinable axis with steps and prior rows, every step's result surviving the JSON round trip and
// either validating or being rejected with reasons that each start with an axis key of the table.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "test_points.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {
namespace {

using testing_points::all_cases;

TEST(AxisTable, RowsAreInEnumOrderWithUniqueKeys) {
  std::set<std::string_view> keys;
  for (size_t i = 0; i < kAxisTable.size(); ++i) {
    const AxisInfo& row = kAxisTable[i];
    EXPECT_EQ(static_cast<size_t>(row.id), i) << row.key;
    EXPECT_EQ(&axis_info(row.id), &row);
    EXPECT_EQ(find_axis(row.key), row.id);
    EXPECT_TRUE(keys.insert(row.key).second) << "duplicate key " << row.key;
    EXPECT_FALSE(row.json_fields.empty() || row.cuda.empty() || row.vortex.empty() || row.emitters.empty()) << row.key;
    EXPECT_TRUE(row.to_json && row.from_json && row.bounds && row.check) << row.key;
  }
  EXPECT_EQ(find_axis("unroll"), std::nullopt);
}

TEST(AxisTable, RefinableAxesHaveStepsAndPriorsFixedOnesNone) {
  for (const AxisInfo& row : kAxisTable) {
    SCOPED_TRACE(std::string(row.key));
    EXPECT_EQ(row.fixed_at_seed, row.steps.empty());
    EXPECT_EQ(row.fixed_at_seed, row.priors.empty());
    for (const AxisPrior& prior : row.priors) {
      EXPECT_FALSE(prior.source.empty());
      EXPECT_NE(prior.response, 0.0);
      EXPECT_LE(std::abs(prior.response), 1.0);  // a distance-transformed response (paper §4.3)
    }
  }
}

TEST(AxisTable, PriorResponseResolvesOperatorRows) {
  // The paper's numbers (§4.3, §4.4 r3) and the conv1d sign of tile on coalescing.
  EXPECT_DOUBLE_EQ(prior_response(AxisId::kReadOnce, core::OpKind::kMatmul).at(core::MetricId::kL1HitRate), 0.52);
  EXPECT_DOUBLE_EQ(prior_response(AxisId::kSmemStage, core::OpKind::kLinear).at(core::MetricId::kCoalescing), 0.56);
  EXPECT_DOUBLE_EQ(prior_response(AxisId::kTile, core::OpKind::kLinear).at(core::MetricId::kCoalescing), 0.06);
  EXPECT_DOUBLE_EQ(prior_response(AxisId::kTile, core::OpKind::kBmm).at(core::MetricId::kCoalescing), 0.06);
  EXPECT_DOUBLE_EQ(prior_response(AxisId::kTile, core::OpKind::kConv1d).at(core::MetricId::kCoalescing), -0.06);
  EXPECT_EQ(prior_response(AxisId::kTile, core::OpKind::kConv1d).size(), 3u);
  EXPECT_TRUE(prior_response(AxisId::kKRange, core::OpKind::kLinear).empty());
}

// Axis keys that start the lines of a validation_errors() text ("fixed"/"vortex" included).
std::set<std::string> reason_keys(const std::string& errors) {
  std::set<std::string> keys;
  std::istringstream lines(errors);
  for (std::string line; std::getline(lines, line);) keys.insert(line.substr(0, line.find(':')));
  return keys;
}

// Every variant of every refinable axis in each direction, applied to every test point (and the
// opposite direction applied to each valid result).
TEST(AxisTable, EveryStepSurvivesJsonAndValidatesOrNamesItsAxes) {
  std::map<std::string, std::array<int, 2>> moved;  // axis → valid moves [forward, reverse]
  for (const auto& c : all_cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_EQ(validation_errors(c.point), "");
    for (const AxisInfo& row : kAxisTable) {
      for (const bool forward : {true, false}) {
        for (const AxisVariant& v : row.steps) {
          const AxisVariant& step = v;
          DesignPoint q = c.point;
          if (!step.apply(q, forward)) continue;
          const nlohmann::json j = to_json(q);
          EXPECT_EQ(to_json(design_point_from_json(j)), j) << row.key;
          const std::string errors = validation_errors(q);
          if (errors.empty()) {
            EXPECT_NE(j, to_json(c.point)) << row.key << " moved without changing the point";
            auto& count = moved[std::string(row.key)];
            ++count[forward ? 0 : 1];
            // The other direction of the same variant undoes the move.
            DesignPoint back = q;
            ASSERT_TRUE(step.apply(back, !forward)) << row.key;
            EXPECT_EQ(to_json(back), to_json(c.point)) << row.key;
            if (validation_errors(back).empty()) ++count[forward ? 1 : 0];
            continue;
          }
          // A constraint between two axes is reported once, by the row that owns it (read_once
          // "excludes smem_stage", tensor_core "fragment does not divide tile"), so the reasons
          // name the stepped axis or the axis it collides with: always axes of the table.
          const auto keys = reason_keys(errors);
          EXPECT_FALSE(keys.empty()) << row.key;
          for (const auto& key : keys) EXPECT_TRUE(key == "fixed" || key == "vortex" || find_axis(key)) << key;
        }
      }
    }
  }
  for (const AxisInfo& row : kAxisTable) {
    if (row.fixed_at_seed) continue;
    EXPECT_GT(moved[std::string(row.key)][0], 0) << row.key << " never moves forward";
    EXPECT_GT(moved[std::string(row.key)][1], 0) << row.key << " never moves in reverse";
  }
}

// step_axis (what refinement calls) takes the first variant that moves to a valid point.
TEST(AxisTable, StepAxisTakesTheFirstValidVariant) {
  for (const auto& c : all_cases()) {
    SCOPED_TRACE(c.name);
    for (const AxisInfo& row : kAxisTable) {
      for (const bool forward : {true, false}) {
        std::optional<DesignPoint> want;
        for (const AxisVariant& v : row.steps) {
          DesignPoint q = c.point;
          if (v.apply(q, forward) && validation_errors(q).empty()) {
            want = q;
            break;
          }
        }
        std::string why;
        const auto got = step_axis(c.point, row.id, forward, c.point.fixed, &why);
        ASSERT_EQ(got.has_value(), want.has_value()) << row.key << ": " << why;
        if (got) {
          EXPECT_EQ(to_json(*got), to_json(*want)) << row.key;
        } else {
          EXPECT_FALSE(why.empty()) << row.key;
        }
      }
    }
  }
}

// Design space 2 moves a tensor-core point's tile aspect (BM up and BN down, or the reverse) with
// reg_tile kept at 1x1; design space 1, which recorded runs of before it were made in, never does
// (its aspect variant scales reg_tile, invalid on tensor-core points).
TEST(AxisTable, TensorCoreTileAspectIsAVariantOfDesignSpaceTwo) {
  int moved = 0;
  for (const auto& c : all_cases()) {
    if (!c.point.axes.tensor_core.enabled) continue;
    SCOPED_TRACE(c.name);
    for (const bool forward : {true, false}) {
      DesignPoint deep = c.point;
      deep.axes.tile.k = forward ? 64 : 1;  // the depth variant at its bound: aspect is next
      std::string why;
      const auto v1 = step_axis(deep, AxisId::kTile, forward, deep.fixed, &why, /*space_version=*/1);
      EXPECT_FALSE(v1.has_value()) << "design space 1 moved a tensor-core aspect";
      const auto v2 = step_axis(deep, AxisId::kTile, forward, deep.fixed, &why, /*space_version=*/2);
      if (!v2) continue;
      ++moved;
      EXPECT_EQ(v2->axes.tile.k, deep.axes.tile.k);
      EXPECT_EQ(v2->axes.tile.m, forward ? 2 * deep.axes.tile.m : deep.axes.tile.m / 2);
      EXPECT_EQ(v2->axes.tile.n, forward ? deep.axes.tile.n / 2 : 2 * deep.axes.tile.n);
      EXPECT_EQ(v2->axes.reg_tile.m, 1u);
      EXPECT_EQ(v2->axes.reg_tile.n, 1u);
    }
  }
  EXPECT_GT(moved, 0) << "no tensor-core test point moved its aspect in design space 2";
}

// Design space 4 steps a pipelined warp-epilogue point's CUDA stage count along the prefetch axis
// (2, 3, 4, 6, 8, 12, 16) before turning the flag off; design space 3 only turns it off.
TEST(AxisTable, PrefetchStepsWarpEpilogueStagesInDesignSpaceFour) {
  int lowered = 0, raised = 0;
  for (const auto& c : all_cases()) {
    const DesignPoint& p = c.point;
    if (!p.axes.tensor_core.enabled || !schedule_info(p.tc_schedule).warp_epilogue || !p.axes.prefetch) continue;
    if (warpgroup_mma(p.axes.tensor_core.shape)) continue;  // a design-space-7 value: no point of spaces 3 and 4
    SCOPED_TRACE(c.name);
    std::string why;
    const auto v3 = step_axis(p, AxisId::kPrefetch, false, p.fixed, &why, /*space_version=*/3);
    ASSERT_TRUE(v3.has_value()) << why;
    EXPECT_FALSE(v3->axes.prefetch);
    EXPECT_FALSE(step_axis(p, AxisId::kPrefetch, true, p.fixed, &why, 3).has_value()) << "v3 moved a set flag";
    const auto back = step_axis(p, AxisId::kPrefetch, false, p.fixed, &why, /*space_version=*/4);
    ASSERT_TRUE(back.has_value()) << why;
    if (back->axes.prefetch) {
      EXPECT_LT(cuda_tc_stages(*back), cuda_tc_stages(p));
      EXPECT_GE(cuda_tc_stages(*back), 2u);
      ++lowered;
    }
    if (const auto fwd = step_axis(p, AxisId::kPrefetch, true, p.fixed, &why, 4)) {
      EXPECT_TRUE(fwd->axes.prefetch);
      EXPECT_GT(cuda_tc_stages(*fwd), cuda_tc_stages(p));
      EXPECT_LE(fwd->cuda_stages, schedule_info(p.tc_schedule).cuda_max_stages);
      EXPECT_EQ(validation_errors(*fwd), "");
      ++raised;
    }
  }
  EXPECT_GT(lowered, 0) << "no warp-epilogue test point lowered its stages";
  EXPECT_GT(raised, 0) << "no warp-epilogue test point raised its stages";
}

}  // namespace
}  // namespace vxsynth::codegen
