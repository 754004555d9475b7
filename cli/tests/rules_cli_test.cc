// The `vxsynth` outputs the Python package reads (metrics --json, kernel-name --json, hot --json) and
// the answers `hot` gives to files it does not read, run as a child process on real inputs.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "vxsynth/core/metrics.h"

namespace fs = std::filesystem;

namespace {

struct Out {
  int status = -1;
  std::string text;  // stdout (stderr too when `merge`)
};

/// `vxsynth ARGS`, with `feed` (a shell command) piped into its stdin when given.
Out run_vxsynth(const std::string& args, bool merge = true, const std::string& feed = "") {
  Out r;
  const std::string cmd = (feed.empty() ? "" : feed + " | ") + std::string(VXSYNTH_EXE) + " " + args +
                          (merge ? " 2>&1" : " 2>/dev/null");
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.text.append(buf.data(), n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string data(const std::string& rel) { return (fs::path(VXSYNTH_TEST_DATA_DIR) / rel).string(); }

TEST(RulesCli, MetricsJsonIsTheRequiredList) {
  const Out o = run_vxsynth("metrics --json --arch sm_90", false);
  ASSERT_EQ(o.status, 0) << o.text;
  const nlohmann::json j = nlohmann::json::parse(o.text);
  std::vector<std::string> list = j["ncu_metrics"].get<std::vector<std::string>>();
  EXPECT_EQ(list, vxsynth::core::required_ncu_metrics(vxsynth::core::Arch::kHopper));
  EXPECT_EQ(j["metrics"].size(), vxsynth::core::kNumMetrics);
  EXPECT_EQ(j["tensor_pipe"]["threshold_pct"].get<double>(), 5.0);
  const Out csv = run_vxsynth("metrics --ncu-list --arch sm_90", false);
  std::string joined;
  for (const std::string& m : list) joined += (joined.empty() ? "" : ",") + m;
  EXPECT_EQ(csv.text, joined + "\n");
}

TEST(RulesCli, KernelNameJsonFromArgumentsAndStdin) {
  const Out a = run_vxsynth("kernel-name --json 'void ns::Tile<128>::run(float*)' nvjet_sm90_tst_64x8_64x16_1x4_h_bz_bias_TNT",
                            false);
  ASSERT_EQ(a.status, 0) << a.text;
  const nlohmann::json j = nlohmann::json::parse(a.text)["names"];
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["base_name"], "run");
  EXPECT_TRUE(j[0]["rule"].is_null());
  EXPECT_EQ(j[1]["rule"], "nvjet");
  EXPECT_EQ(j[1]["engine"], "tensor_core");
  // '-': names from stdin, one per line; base names as the argument form gives them.
  const Out s = run_vxsynth("kernel-name --json - < /dev/null", true);
  EXPECT_EQ(s.status, 2) << s.text;  // no names at all is an error
  const Out t = run_vxsynth("kernel-name --json -", false,
                            "printf '%s\\n' 'void ns::Tile<128>::run(float*)' "
                            "'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)'");
  ASSERT_EQ(t.status, 0) << t.text;
  const nlohmann::json tj = nlohmann::json::parse(t.text)["names"];
  ASSERT_EQ(tj.size(), 2u);
  EXPECT_EQ(tj[0]["base_name"], "run");
  EXPECT_EQ(tj[1]["role"], "communication");
  const Out r = run_vxsynth("kernel-name --rules --json", false);
  ASSERT_EQ(r.status, 0);
  std::set<std::string> roles;
  const nlohmann::json table = nlohmann::json::parse(r.text);
  for (const auto& row : table["rules"]) roles.insert(row["role"].get<std::string>());
  EXPECT_EQ(roles, (std::set<std::string>{"main", "helper", "communication"}));
}

TEST(RulesCli, HotJsonSeparatesTheTcnDilations) {
  const Out o = run_vxsynth("hot --json " + data("tcn/tcn.trace.json.gz"), false);
  ASSERT_EQ(o.status, 0) << o.text;
  const nlohmann::json j = nlohmann::json::parse(o.text);
  ASSERT_EQ(j["hot"].size(), 3u) << o.text;
  std::set<std::string> shapes;
  for (const auto& h : j["hot"]) {
    EXPECT_EQ(h["launches"], 2);
    EXPECT_EQ(h["context"]["op"], "conv1d");
    shapes.insert(h["context"]["shape"].get<std::string>());
  }
  EXPECT_EQ(shapes.size(), 3u);
  EXPECT_NE(j["hot"][0]["context"]["shape"].get<std::string>().find("d=1,8"), std::string::npos) << o.text;
}

TEST(RulesCli, HotOnAnNcuCsvSaysWhatItReads) {
  const Out o = run_vxsynth("hot " + data("h200/linear_fp32_simt.ncu_raw.csv"));
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("an Nsight Compute CSV"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("reference bundle"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("vxsynth profile import --trace"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("not valid JSON"), std::string::npos) << o.text;
}

TEST(RulesCli, HotOnATraceWithoutShapesSaysHowToRecordThem) {
  const Out o = run_vxsynth("hot " + data("tcn/tcn_no_shapes.trace.json.gz"));
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("input shapes are missing"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("record_shapes=True"), std::string::npos) << o.text;
}

}  // namespace
