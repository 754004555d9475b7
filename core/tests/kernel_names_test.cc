// The kernel-name rule table and base names on the shared case file tests/data/kernel_names.tsv:
// names observed on the H200 (data/references/h200, tests/data/h200; docs/ncu.md §7.1 [M]), the
// documented CUTLASS grammar (§7.5), NCCL's kernel names, and return-type/nested-name forms.
#include "vxsynth/core/kernel_names.h"

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace vxsynth::core
