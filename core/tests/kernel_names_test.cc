// The kernel-name rule table and base names on the shared case file tests/data/kernel_names.tsv:
// names observed on the H200 (data/references/h200, tests/data/h200; docs/ncu.md §7.1 [M]), the
// documented CUTLASS grammar (§7.5), NCCL's kernel names, and return-type/nested-name forms.
#include "vxsynth/core/kernel_names.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "vxsynth/core/bundle.h"

#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace vxsynth::core {
namespace {

/// One row of tests/data/kernel_names.tsv (the kernel-name cases shared with python/tests).
struct Case {
  std::size_t line = 0;
  std::string name, base, rule, engine, role, tile, from;
};

std::vector<Case> read_cases() {
  const std::string path = std::string(VXSYNTH_TEST_DATA_DIR) + "/kernel_names.tsv";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<Case> out;
  std::size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::size_t from = 0;
    for (std::size_t tab; (tab = line.find('\t', from)) != std::string::npos; from = tab + 1)
      f.push_back(line.substr(from, tab - from));
    f.push_back(line.substr(from));
    EXPECT_EQ(f.size(), 7u) << path << ":" << line_no;
    if (f.size() != 7) continue;
    out.push_back({line_no, f[0], f[1], f[2], f[3], f[4], f[5], f[6]});
  }
  return out;
}

std::string tile_text(const std::optional<TileHint>& t) {
  return t ? std::to_string(t->m) + "x" + std::to_string(t->n) + "x" + std::to_string(t->k) + "x" +
                 std::to_string(t->stages)
           : "-";
}

TEST(KernelNames, SharedCasesFile) {
  const std::vector<Case> cases = read_cases();
  ASSERT_GE(cases.size(), 40u);
  std::set<std::string_view> rules_seen;
  for (const Case& c : cases) {
    const std::string at = "kernel_names.tsv:" + std::to_string(c.line) + " " + c.name.substr(0, 80);
    EXPECT_EQ(kernel_base_name(c.name), c.base) << at;
    const NameHints h = classify_kernel_name(c.name);
    EXPECT_EQ(h.rule ? std::string(h.rule->id) : "-", c.rule) << at;
    EXPECT_EQ(h.rule ? std::string(to_string(h.rule->engine)) : "-", c.engine) << at;
    EXPECT_EQ(std::string(to_string(h.rule ? h.rule->role : KernelRole::kMain)), c.role) << at;
    EXPECT_EQ(tile_text(h.tile), c.tile) << at;
    if (h.rule) rules_seen.insert(h.rule->id);
  }
  // Every family has at least one case.
  for (const auto& r : kernel_name_rules()) EXPECT_TRUE(rules_seen.count(r.id)) << "no case for rule " << r.id;
}

TEST(KernelNames, RuleIdsUniqueAndPatternsCompile) {
  std::set<std::string_view> ids;
  for (const auto& r : kernel_name_rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_NO_THROW(std::regex(std::string(r.pattern))) << r.id;
    EXPECT_FALSE(r.source.empty()) << r.id;
  }
}

TEST(KernelNames, SyntaxTableInEnumOrder) {
  const auto rows = tile_syntax_rules();
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(static_cast<std::size_t>(rows[i].syntax), i);
  for (const auto& r : rows) {
    for (std::string_view re : {r.tile, r.stages, r.warps, r.cluster, r.split_k})
      EXPECT_NO_THROW(std::regex(std::string(re))) << re;
  }
}

// The launch fit on the real kernels of the shipped bundles (data/references/h200/<workload>/bundle.json):
// kernel → oriented tile "BMxBNxBKxstages", CTAs per tile along K, warps "MxN", or "-" (no fit).
TEST(KernelNames, LaunchFitOnShippedBundles) {
  const std::map<std::string, std::string> want = {
      // cutlass_80_simt_sgemm_128x64_8x5, grid 20x1x4, M=302 N=512: 5x4 tiles of 64x128, 4 slices along K.
      {"act/k1", "64x128x8x5 s4 w0x0"},
      {"act/k2", "32x32x8x3 s1 w1x2"},
      {"act/k3", "64x64x8x3 s1 w1x4"},
      {"act/k4", "-"},  // sgemm_largek spells no tile
      // conv2d M=512 filters N=300 (15x20): 8x10 tiles of 64x32, grid 16x5x2 = 2 CTAs per tile along K.
      {"act/k5", "64x32x64x5 s2 w2x2"},
      {"diffusion_policy/k1", "-"},
      // conv1d M=2048 N=4: 32 tiles of 64x64, grid 32x2.
      {"diffusion_policy/k2", "64x64x32x0 s2 w0x0"},
      {"diffusion_policy/k3", "-"},
      {"diffusion_policy/k4", "-"},
      {"diffusion_policy/k5", "-"},
      {"diffusion_policy/k6", "-"},
      {"diffusion_policy/k7", "-"},  // cuDNN dgrad2d_alg1_1: no tile in the name
      // sm80 implicit-GEMM conv1d 64x32x64_stage5_warpsize2x2x1 at M=1024 N=4 (k8), N=8 (k9): 16 tiles, 4 along K.
      {"diffusion_policy/k8", "64x32x64x5 s4 w2x2"},
      {"diffusion_policy/k9", "64x32x64x5 s4 w2x2"},
      {"diffusion_policy/k10", "-"},
      // M=512 N=16: 8 tiles of 64x32, grid of 64 = 8 CTAs per tile along K.
      {"diffusion_policy/k11", "64x32x64x5 s8 w2x2"},
      // sm90 conv1d M=1024 N=4: 16 tiles of 64x64, 96 CTAs = 6 along K.
      {"diffusion_policy/k12", "64x64x32x0 s6 w0x0"},
      {"pi0/k1", "32x32x32x1 s1 w0x0"},
      // persistent nvjet grid (2x66 = 132 CTAs for 384 or 427 tiles): no fit.
      {"pi0/k2", "-"},
      // batch 8 folded into grid x: 8 x 14 tiles of 64x64 = 112.
      {"pi0/k3", "64x64x64x0 s1 w0x0"},
      // nvjet 48x64 with a 4x1 cluster: 86 tiles of 64x48 (M=51 N=4096) → 88 CTAs (grid 4x22).
      {"pi0/k4", "64x48x64x15 s1 w0x0"},
      {"pi0/k5", "64x48x64x15 s1 w0x0"},
  };
  const std::filesystem::path refs = std::filesystem::path(VXSYNTH_TEST_DATA_DIR).parent_path().parent_path() /
                                     "data/references/h200";
  std::size_t seen = 0;
  for (const char* w : {"act", "diffusion_policy", "pi0"}) {
    const ReferenceBundle b = read_bundle(refs / w / "bundle.json");
    for (const BundleKernel& k : b.kernels) {
      const std::string id = std::string(w) + "/" + k.id;
      std::string why;
      const auto f = launch_fit(k.context, &why);
      const std::string got = f ? fmt::format("{}x{}x{}x{} s{} w{}x{}", f->tile.m, f->tile.n, f->tile.k,
                                              f->tile.stages, f->ctas_per_tile, f->warps_m, f->warps_n)
                                : "-";
      ASSERT_TRUE(want.count(id)) << id << " " << got;
      EXPECT_EQ(got, want.at(id)) << id << " " << k.context.kernel_name << ": " << (f ? f->why : why);
      ++seen;
    }
  }
  EXPECT_EQ(seen, want.size());
}

TEST(KernelNames, LaunchFitRejectsDisagreeingGrids) {
  ReferenceContext c;
  c.kernel_name = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_execute_kernel";
  c.gemm = GemmShape{1, 302, 3200, 512};
  c.launch.block = {128, 1, 1};
  c.launch.grid = {5, 50, 1};
  std::string why;
  ASSERT_TRUE(launch_fit(c, &why).has_value()) << why;
  c.launch.grid = {5, 49, 1};  // one CTA short of the 250 tiles
  EXPECT_FALSE(launch_fit(c, &why).has_value());
  EXPECT_NE(why.find("245 CTAs"), std::string::npos) << why;
  c.launch.grid = {5, 50, 1};
  c.launch.block = {256, 1, 1};  // 1x4 warps are 128 threads
  EXPECT_FALSE(launch_fit(c, &why).has_value());
  EXPECT_NE(why.find("warp layout"), std::string::npos) << why;
  // nvjet split-K marker and cluster: 2 slices of 24 tiles rounded to clusters of 4.
  NameHints h = classify_kernel_name("nvjet_sm90_tst_32x64_64x16_4x1_v_bz_splitK_TNN");
  EXPECT_TRUE(h.split_k);
  EXPECT_EQ(h.cluster, 4u);
}

}  // namespace
}  // namespace vxsynth::core
