// Kernel selection on the shipped H200 bundles (docs/suite.md "Selection").
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/suite/plan.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kRefs = fs::path(VXSYNTH_SOURCE_DIR) / "data" / "references" / "h200";

std::vector<fs::path> shipped() { return {kRefs / "act/bundle.json", kRefs / "diffusion_policy/bundle.json", kRefs / "pi0/bundle.json"}; }

std::vector<std::string> names(const json& plan) {
  std::vector<std::string> v;
  for (const json& b : plan["benchmarks"]) v.push_back(b["name"]);
  return v;
}

json kernel_row(const json& plan, const std::string& workload, const std::string& id) {
  for (const json& w : plan["workloads"])
    if (w["workload"] == workload)
      for (const json& k : w["kernels"])
        if (k["id"] == id) return k;
  return json();
}

// A copy of a shipped bundle under another workload name (a second workload running the same kernels).
fs::path renamed_copy(const fs::path& bundle, const std::string& workload) {
  json b = json::parse(read_file(bundle));
  b["workload"] = workload;
  const fs::path p = fs::temp_directory_path() / ("vxsuite_plan_" + workload + ".json");
  write_file_atomic(p, b.dump(1));
  return p;
}

// The executors start the largest kernels first: every benchmark carries its op's MACs per launch.
TEST(SuitePlan, BenchmarksCarryTheirOpsWorkAndTheOrderAndPlacement) {
  PlanOptions o;
  o.order = "vortex-first";
  o.profile_in = "standalone";
  const json plan = make_plan(shipped(), o);
  EXPECT_EQ(plan["options"]["order"], "vortex-first");
  EXPECT_EQ(plan["options"]["profile_in"], "standalone");
  std::map<std::string, int64_t> macs;
  for (const json& b : plan["benchmarks"]) macs[b["name"]] = b["macs"].get<int64_t>();
  EXPECT_EQ(macs.at("pi0-k2"), int64_t{816} * 16384 * 2048);
  EXPECT_EQ(macs.at("act-k4"), int64_t{100} * 512 * 512);
  for (const auto& [name, m] : macs) EXPECT_LE(m, macs.at("pi0-k2")) << name;
}

TEST(SuitePlan, OperatorKernelsOfTheShippedBundlesHelpersCountedNotBuilt) {
  const json plan = make_plan(shipped(), PlanOptions{});
  EXPECT_EQ(plan["schema"], kPlanSchema);
  const std::vector<std::string> expected{"act-k1",
                                          "act-k2",
                                          "act-k3",
                                          "act-k4",
                                          "act-k5",
                                          "diffusion_policy-k2",
                                          "diffusion_policy-k8",
                                          "diffusion_policy-k9",
                                          "diffusion_policy-k11",
                                          "diffusion_policy-k12",
                                          "pi0-k1",
                                          "pi0-k2",
                                          "pi0-k3",
                                          "pi0-k4",
                                          "pi0-k5"};
  EXPECT_EQ(names(plan), expected);
  // Diffusion Policy's top kernels are cuDNN layout transposes around its convolutions (kernel-name
  // rule cudnn_layout, role helper): listed with their share, not rebuilt.
  for (const char* id : {"k1", "k3", "k4", "k5"}) {
    const json k = kernel_row(plan, "diffusion_policy", id);
    EXPECT_EQ(k["role"], "helper") << id;
    EXPECT_FALSE(k.contains("benchmark")) << id;
    EXPECT_GT(k["share"].get<double>(), 0.03) << id;
  }
  EXPECT_EQ(kernel_row(plan, "diffusion_policy", "k2")["precision"], "tf32");
  EXPECT_EQ(kernel_row(plan, "pi0", "k1")["op"], "bmm");
  for (const json& b : plan["bundles"]) EXPECT_EQ(b["platform"], "NVIDIA H200");
}

TEST(SuitePlan, TopNCutsPerWorkloadAndTheRestIsBeyondTop) {
  PlanOptions o;
  o.top = 2;
  const json plan = make_plan(shipped(), o);
  const std::vector<std::string> expected{"act-k1", "act-k2", "diffusion_policy-k2", "diffusion_policy-k8", "pi0-k1",
                                          "pi0-k2"};
  EXPECT_EQ(names(plan), expected);
  EXPECT_EQ(kernel_row(plan, "act", "k3")["role"], "beyond-top");
  EXPECT_EQ(kernel_row(plan, "diffusion_policy", "k9")["role"], "beyond-top");
  EXPECT_EQ(kernel_row(plan, "pi0", "k5")["role"], "beyond-top");
}

TEST(SuitePlan, TheSameKernelShapeAndPrecisionOfAnotherWorkloadIsBuiltOnce) {
  const fs::path copy = renamed_copy(kRefs / "act/bundle.json", "act_again");
  const json plan = make_plan({kRefs / "act/bundle.json", copy}, PlanOptions{});
  EXPECT_EQ(plan["benchmarks"].size(), 5u);
  for (const char* id : {"k1", "k2", "k3", "k4", "k5"}) {
    const json k = kernel_row(plan, "act_again", id);
    EXPECT_EQ(k["role"], "duplicate") << id;
    EXPECT_EQ(k["benchmark"], std::string("act-") + id) << id;
  }
  fs::remove(copy);
}

TEST(SuitePlan, BadSelectionsAreRefusedWithTheReason) {
  try {
    (void)make_plan({kRefs / "act/bundle.json", kRefs / "act/bundle.json"}, PlanOptions{});
    FAIL() << "two bundles of one workload accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("one bundle per workload and platform"), std::string::npos) << e.what();
  }
  PlanOptions o;
  o.only = {"diffusion_policy:k1"};
  try {
    (void)make_plan(shipped(), o);
    FAIL() << "a helper kernel was selected";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a selected operator kernel"), std::string::npos) << e.what();
  }
  o.only = {"act:k4", "pi0:k4"};
  const json plan = make_plan(shipped(), o);
  EXPECT_EQ(names(plan), (std::vector<std::string>{"act-k4", "pi0-k4"}));
  EXPECT_EQ(kernel_row(plan, "act", "k1")["role"], "not-requested");
  EXPECT_FALSE(kernel_row(plan, "act", "k1").contains("benchmark"));
  EXPECT_EQ(kernel_row(plan, "act", "k4")["role"], "operator");
}

}  // namespace
}  // namespace vxsynth::suite
