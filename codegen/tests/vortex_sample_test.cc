// The sampled-tile check (codegen/src/vortex_check.cc, docs/vxsim.md "Sampled-tile check"): the
// choice of tiles (edges in M, N and Z, every K slice, seeded interior tiles), when it is made, and
// on vxsim at a small shape that a sampled run launches only those blocks, passes when they are
// right, and catches a wrong value in a sampled edge tile — in the host program's own self-check
// and in the comparison with the float64 reference — while a wrong value outside the sample is
// not seen (the check is a sample, and the record says so).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <unistd.h>

#include <fmt/format.h>

#include "test_points.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/check/reference_ops.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/vortex_check.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;

/// The seed of a small linear layer reshaped to 3 x 4 output tiles of its own block tile, the last
/// row and column of tiles half full (M = 2.5 BM, N = 3.5 BN), K = 2 BK.
DesignPoint small_linear(check::PrecisionPath path, uint32_t split_k) {
  DesignPoint p = testing_points::seed(check::OpFamily::kLinear, path);
  p.fixed.op.gemm = {1, 5 * static_cast<int64_t>(p.axes.tile.m) / 2, 7 * static_cast<int64_t>(p.axes.tile.n) / 2,
                      2 * static_cast<int64_t>(p.axes.tile.k)};
  p.axes.split_k = split_k;
  validate(p);
  return p;
}

TEST(SampledTiles, EdgesEveryKSliceAndSeededInterior) {
  const DesignPoint p = small_linear(check::PrecisionPath::kFp32, 2);
  const int64_t bm = p.axes.tile.m, bn = p.axes.tile.n;
  const TileSample s = sample_tiles(p, 11, 6);
  EXPECT_EQ(s.grid_tiles, 3u * 4u);
  EXPECT_EQ(s.grid_blocks, 3u * 4u * 2u);
  ASSERT_EQ(s.tiles.size(), 6u);
  const std::set<std::array<int64_t, 3>> tiles(s.tiles.begin(), s.tiles.end());
  for (const auto& edge : std::vector<std::array<int64_t, 3>>{{0, 0, 0}, {0, 0, 3 * bn}, {0, 2 * bm, 0}, {0, 2 * bm, 3 * bn}})
    EXPECT_TRUE(tiles.count(edge)) << fmt::format("edge tile ({},{},{}) missing", edge[0], edge[1], edge[2]);
  EXPECT_EQ(tiles.size(), s.tiles.size());
  // Every K slice of each tile, ids inside the grid; the last slice of the last tile is launched.
  ASSERT_EQ(s.blocks.size(), 12u);
  const std::set<uint32_t> ids(s.blocks.begin(), s.blocks.end());
  EXPECT_EQ(ids.size(), s.blocks.size());
  for (const uint32_t b : s.blocks) EXPECT_LT(b, s.grid_blocks);
  EXPECT_TRUE(ids.count(static_cast<uint32_t>(s.grid_blocks - 1)));
  // Element count: the tiles clipped to the shape (the last tile row and column are half full).
  size_t expect = 0;
  for (const auto& t : s.tiles) expect += static_cast<size_t>((t[1] == 2 * bm ? bm / 2 : bm) * (t[2] == 3 * bn ? bn / 2 : bn));
  EXPECT_EQ(sampled_outputs(p, s).size(), expect);
  // Another seed draws other interior tiles, the same edges; the record text names them.
  EXPECT_NE(sample_tiles(p, 12, 6).tiles, s.tiles);
  EXPECT_NE(s.describe(p).find("sampled: 6 of 12 output tiles"), std::string::npos) << s.describe(p);
  EXPECT_EQ(sample_tiles(p, 11, 100).tiles.size(), 12u);  // never more than the grid
}

TEST(SampledTiles, OnlyWhenTheWholeRunExceedsTheBudget) {
  EXPECT_FALSE(check_tile_sample(small_linear(check::PrecisionPath::kFp32, 1), 1).has_value());
  // pi0's BF16 linear M=816 N=16384 K=2048 (27 G MACs): sampled, edges included, within kSampledTiles.
  FixedProperties f = testing_points::small_fixed(check::OpFamily::kLinear, check::PrecisionPath::kBf16);
  f.op.gemm = {1, 816, 16384, 2048};
  f.op.has_bias = false;
  f.block_size = 384;
  const DesignPoint p = seed_design_point(f);
  const auto s = check_tile_sample(p, 1);
  ASSERT_TRUE(s.has_value());
  EXPECT_GE(s->tiles.size(), 4u);
  EXPECT_LE(s->tiles.size(), kSampledTiles);
  const int64_t last_m = (816 - 1) / p.axes.tile.m * p.axes.tile.m, last_n = (16384 - 1) / p.axes.tile.n * p.axes.tile.n;
  const std::set<std::array<int64_t, 3>> tiles(s->tiles.begin(), s->tiles.end());
  EXPECT_TRUE(tiles.count({0, last_m, last_n}));
  EXPECT_TRUE(tiles.count({0, 0, 0}));
  // Its whole timing run (the lock step) is expected far beyond a 300 s run limit, a small one not.
  EXPECT_GT(vxsim_expected_s(p, /*timing=*/true), 600.0);
  EXPECT_LT(vxsim_expected_s(small_linear(check::PrecisionPath::kFp32, 1), /*timing=*/true), 60.0);
  // Its sampled run is expected inside the budget.
  const double per_tile_s = static_cast<double>(vxsim_expected_warp_instrs(p)) / kVxsimFunctionalWarpInstrsPerS /
                            static_cast<double>(s->grid_tiles);
  EXPECT_LE(per_tile_s * static_cast<double>(s->tiles.size()), kVortexCheckBudgetS);
}

/// Builds `p`'s candidate with a wrong value (+1) in the output tile at (m0, n0) when m0 >= 0, runs
/// it with `-b` on `s`, and compares the sampled elements with the float64 reference.
struct SampledRun {
  bool host_passed = false, compare_passed = false;
  std::string output;
};
SampledRun run_sampled(const DesignPoint& p, const TileSample& s, int64_t m0, int64_t n0, const fs::path& work) {
  Candidate c = emit_vortex(p);
  for (auto& f : c.files) {
    if (f.name != "kernel.cpp" || m0 < 0) continue;
    static const std::regex value(R"(float v = (acc\[i\]\[j\]|Cs\[r\]\[c\]);)");
    const std::string wrong = fmt::format("float v = $1 + (float)((m0 == {}) & (n0 == {}));", m0, n0);
    const std::string before = f.text;
    f.text = std::regex_replace(f.text, value, wrong, std::regex_constants::format_first_only);
    EXPECT_NE(f.text, before) << "no output statement to corrupt";
  }
  write_candidate(work / "vortex", c);
  const auto inputs = check::generate_inputs(p.fixed.op, p.fixed.path, 5);
  check::write_inputs(work / "data", inputs, p.fixed.path);
  VortexRunOptions o;
  o.sdk_dir = *find_sdk_dir(VXSYNTH_BUILD_DIR);
  o.data_dir = work / "data";
  o.run_env = vxsim_env(p, /*timing=*/false);
  o.run_args = {"-b", s.block_list()};
  const VortexRunResult r = build_and_run_vortex(work / "vortex", o);
  SampledRun out;
  out.output = r.build.output + r.run.output;
  if (!r.run.ok() || !r.output_written) return out;
  out.host_passed = r.run.output.find("PASSED!") != std::string::npos;
  const auto got = check::read_tensor_file(work / "data" / "out.bin", check::output_numel(p.fixed.op),
                                           check::file_dtype(p.fixed.path));
  const auto ref = check::reference_forward(p.fixed.op, check::values_of(inputs));
  const auto idx = sampled_outputs(p, s);
  out.compare_passed = check::compare_outputs(gather(got, idx), gather(ref, idx), p.fixed.path,
                                              check::CheckKind::kCandidate, check::ReferenceKind::kCpuFloat64)
                           .passed;
  // Outside the sample nothing ran: the NaN poison is still there.
  for (size_t e = 0, k = 0; e < got.size(); ++e) {
    if (k < idx.size() && idx[k] == e) {
      ++k;
      continue;
    }
    if (!std::isnan(got[e])) {
      ADD_FAILURE() << "element " << e << " outside the sampled tiles was written";
      break;
    }
  }
  return out;
}

TEST(SampledTiles, OnVxsimCatchesAWrongSampledEdgeTileOnly) {
  if (!find_sdk_dir(VXSYNTH_BUILD_DIR) || !fs::exists(fs::path(VXSYNTH_BUILD_DIR) / "sim/runtime/libvortex.a"))
    GTEST_SKIP() << "no SDK + runtime build in " << VXSYNTH_BUILD_DIR;
  const fs::path work = fs::temp_directory_path() / ("vxsynth_sample_" + std::to_string(::getpid()));
  const DesignPoint p = small_linear(check::PrecisionPath::kFp32, 1);
  const TileSample s = sample_tiles(p, 3, 5);  // the four corners and one interior tile
  std::set<std::array<int64_t, 3>> in_sample(s.tiles.begin(), s.tiles.end());
  const int64_t bm = p.axes.tile.m, bn = p.axes.tile.n;
  std::array<int64_t, 3> outside{0, bm, bn};
  if (in_sample.count(outside)) outside = {0, bm, 2 * bn};
  ASSERT_FALSE(in_sample.count(outside));

  const SampledRun right = run_sampled(p, s, -1, -1, work / "right");
  EXPECT_TRUE(right.host_passed) << right.output;
  EXPECT_TRUE(right.compare_passed) << right.output;
  EXPECT_NE(right.output.find("self-check: sampled:"), std::string::npos) << right.output;

  const SampledRun edge = run_sampled(p, s, 2 * bm, 3 * bn, work / "edge");  // the last tile in M and N
  EXPECT_FALSE(edge.host_passed) << edge.output;
  EXPECT_NE(edge.output.find("FAILED!"), std::string::npos) << edge.output;
  EXPECT_FALSE(edge.compare_passed);

  const SampledRun unseen = run_sampled(p, s, outside[1], outside[2], work / "unseen");
  EXPECT_TRUE(unseen.host_passed) << unseen.output;
  EXPECT_TRUE(unseen.compare_passed);
  std::error_code ec;
  if (!HasFailure()) fs::remove_all(work, ec);
}

TEST(SampledTiles, OnVxsimTensorCoreSplitK) {
  if (!find_sdk_dir(VXSYNTH_BUILD_DIR) || !fs::exists(fs::path(VXSYNTH_BUILD_DIR) / "sim/runtime/libvortex.a"))
    GTEST_SKIP() << "no SDK + runtime build in " << VXSYNTH_BUILD_DIR;
  const fs::path work = fs::temp_directory_path() / ("vxsynth_sample_tc_" + std::to_string(::getpid()));
  const DesignPoint p = small_linear(check::PrecisionPath::kBf16, 2);
  const TileSample s = sample_tiles(p, 4, 5);
  const SampledRun right = run_sampled(p, s, -1, -1, work / "right");
  EXPECT_TRUE(right.host_passed) << right.output;
  EXPECT_TRUE(right.compare_passed) << right.output;
  const SampledRun r = run_sampled(p, s, 2 * p.axes.tile.m, 0, work / "edge");  // wrong last-M, first-N tile
  EXPECT_FALSE(r.host_passed) << r.output;
  EXPECT_FALSE(r.compare_passed) << r.output;
  EXPECT_NE(r.output.find("self-check: sampled:"), std::string::npos) << r.output;
  std::error_code ec;
  if (!HasFailure()) fs::remove_all(work, ec);
}

}  // namespace
}  // namespace vxsynth::codegen
