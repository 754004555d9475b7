// End-to-end tests of the `vxsynth` executable (run as a child process).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int status = -1;
  std::string out;  // stdout and stderr together
};

Result run(const std::string& args) {
  Result r;
  const std::string cmd = std::string(VXSYNTH_EXE) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("vxsynth_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

vxsynth::core::Signature sample() {
  using vxsynth::core::MetricId;
  vxsynth::core::Signature s;
  s[MetricId::kL1HitRate] = 10.0;
  s[MetricId::kL2HitRate] = 70.0;
  s[MetricId::kCoalescing] = 50.0;
  s[MetricId::kPeakCompute] = 80.0;
  s[MetricId::kTensorMfu] = 75.0;
  s[MetricId::kAtomicsPerInst] = 1e-5;
  s[MetricId::kArithIntensity] = 200.0;
  s[MetricId::kDramBandwidth] = 1e12;
  s[MetricId::kActiveLanes] = 1.0;
  s[MetricId::kOccupancy] = 15.0;
  return s;
}

TEST(Cli, DistanceSelfIsZeroAndPerturbedIsHandComputed) {
  using vxsynth::core::MetricId;
  const fs::path d = temp_dir();
  const auto ref = sample();
  auto cand = ref;
  cand[MetricId::kOccupancy] = 35.0;          // d = 0.2
  cand[MetricId::kArithIntensity] = 400.0;    // d = ln2/ln5
  vxsynth::core::write_signature(d / "ref.json", ref, "ref");
  vxsynth::core::write_signature(d / "cand.json", cand, "cand");
  Result self = run("distance --json " + (d / "ref.json").string() + " " + (d / "ref.json").string());
  ASSERT_EQ(self.status, 0) << self.out;
  auto j = nlohmann::json::parse(self.out);
  EXPECT_EQ(j["D"].get<double>(), 0.0);
  EXPECT_EQ(j["entered"].size(), 10u);
  Result pert = run("distance --json " + (d / "cand.json").string() + " " + (d / "ref.json").string());
  ASSERT_EQ(pert.status, 0) << pert.out;
  j = nlohmann::json::parse(pert.out);
  EXPECT_NEAR(j["D"].get<double>(), (0.2 + std::log(2.0) / std::log(5.0)) / 10.0, 1e-12);
  Result table = run("distance " + (d / "cand.json").string() + " " + (d / "ref.json").string());
  ASSERT_EQ(table.status, 0) << table.out;
  EXPECT_NE(table.out.find("D = 0.0631 over 10 metrics"), std::string::npos) << table.out;
}

TEST(Cli, OrinLikeSignatureLeavesDramOutAndSaysSo) {
  using vxsynth::core::MetricId;
  const fs::path d = temp_dir();
  auto orin = sample();
  orin[MetricId::kArithIntensity].reset();
  orin[MetricId::kDramBandwidth].reset();
  vxsynth::core::write_signature(d / "orin.json", orin, "orin");
  vxsynth::core::write_signature(d / "h200.json", sample(), "h200");
  Result r = run("distance " + (d / "orin.json").string() + " " + (d / "h200.json").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("D = 0.0000 over 8 metrics"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("left out of D (not measured on both sides): arith_intensity, dram_bandwidth"),
            std::string::npos)
      << r.out;
}

TEST(Cli, BadInputExitsTwoWithMessage) {
  const fs::path d = temp_dir();
  vxsynth::write_file_atomic(d / "bad.json", R"({"schema":"vxsynth.signature","version":1,"metrics":{"l1_hit_rate":1}})");
  Result r = run("distance " + (d / "bad.json").string() + " " + (d / "bad.json").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("metrics.l2_hit_rate: missing field"), std::string::npos) << r.out;
  Result missing = run("hot " + (d / "nope.json").string());
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("nope.json"), std::string::npos) << missing.out;
  Result usage = run("distance onlyone.json");
  EXPECT_EQ(usage.status, 2) << usage.out;
  Result help = run("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("profile"), std::string::npos);
}

}  // namespace
