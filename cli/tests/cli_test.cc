// End-to-end tests of the `vxsynth` executable (run as a child process).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/torch_trace.h"

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

std::string fmt_row_prefix(std::size_t rank, const std::string& id) {
  std::string r = std::to_string(rank);
  return std::string(4 - r.size(), ' ') + r + "  " + id + std::string(4 - id.size(), ' ');
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%6.2f%%", 100.0 * fraction);
  return buf;
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

// ---- on the real H200 captures (tests/data/h200, see its provenance.json) ----------------------

std::string h200(const std::string& name) { return (fs::path(VXSYNTH_TEST_DATA_DIR) / "h200" / name).string(); }

TEST(CliRealData, ImportHotDistance) {
  const fs::path d = temp_dir();
  const std::string bundle = (d / "conv1d.json").string();
  Result imp = run("profile import --trace " + h200("conv1d_fp32_tf32.trace.json.gz") + " --ncu " +
                   h200("conv1d_fp32_tf32.ncu_raw.csv") + " --provenance " + h200("provenance.json") +
                   " --top 3 -o " + bundle);
  ASSERT_EQ(imp.status, 0) << imp.out;
  EXPECT_NE(imp.out.find("3 hot kernels"), std::string::npos) << imp.out;
  EXPECT_NE(imp.out.find("10 of 10 ncu rows joined"), std::string::npos) << imp.out;

  Result hot = run("hot " + bundle);
  ASSERT_EQ(hot.status, 0) << hot.out;
  EXPECT_NE(hot.out.find("NVIDIA H200"), std::string::npos) << hot.out;
  EXPECT_NE(hot.out.find("cum."), std::string::npos) << hot.out;
  // Three ranked rows; the cumulative share grows and the implicit GEMM is a TF32 tensor-core conv1d.
  const auto b = vxsynth::core::read_bundle(bundle);
  ASSERT_EQ(b.kernels.size(), 3u);
  for (const auto& k : b.kernels) {
    EXPECT_NE(hot.out.find(fmt_row_prefix(k.rank, k.id)), std::string::npos) << hot.out;
    EXPECT_NE(hot.out.find(fmt_row_prefix(k.rank, k.id) + "  " + percent(k.share) + "  " + percent(k.cumulative_share)),
              std::string::npos)
        << hot.out;
  }
  EXPECT_NE(hot.out.find("tensor_core  tf32  conv1d   N=1 C=2048 H=1 W=4 K=2048 R=1 S=5 s=1,1 p=0,2 d=1,1 g=1"),
            std::string::npos)
      << hot.out;

  Result self = run("distance --json " + bundle + "#k2 " + bundle + "#k2");
  ASSERT_EQ(self.status, 0) << self.out;
  EXPECT_EQ(nlohmann::json::parse(self.out)["D"].get<double>(), 0.0);
  Result ab = run("distance " + bundle + "#k1 " + bundle + "#k2");
  ASSERT_EQ(ab.status, 0) << ab.out;
  EXPECT_NE(ab.out.find("over 10 metrics"), std::string::npos) << ab.out;

  Result whole = run("distance " + bundle + " " + bundle + "#k1");
  EXPECT_EQ(whole.status, 2);
  EXPECT_NE(whole.out.find("name a kernel as FILE#k1"), std::string::npos) << whole.out;
  Result nok = run("distance " + bundle + "#k9 " + bundle + "#k1");
  EXPECT_EQ(nok.status, 2);
  EXPECT_NE(nok.out.find("no kernel 'k9' in the bundle (kernels: k1, k2, k3)"), std::string::npos) << nok.out;
}

// An external agent that fails every time (a real command, exit 1): the loop records each revision
// as an agent failure with the explicit "agent_failure" axis, still locks and writes the seed
// benchmark and summary, and `vxsynth reconstruct` exits 3 instead of 0.
TEST(CliRealData, ReconstructExitsThreeWhenTheAgentFailsEveryRevision) {
  const fs::path sdk = fs::path(VXSYNTH_EXE).parent_path().parent_path() / "sdk";
  if (std::system("riscv64-unknown-elf-g++ --version > /dev/null 2>&1") != 0 || !fs::exists(sdk / "sdk.mk"))
    GTEST_SKIP() << "riscv64-unknown-elf-g++ or the SDK build is absent";
  const fs::path act = fs::path(VXSYNTH_TEST_DATA_DIR).parent_path().parent_path() / "data/references/h200/act";
  const fs::path d = temp_dir() / "agent_fails";
  fs::remove_all(d);
  fs::create_directories(d);
  const std::string bundle = (d / "act.json").string();
  Result imp = run("profile import --trace " + (act / "trace.json.gz").string() + " --ncu " +
                   (act / "ncu_raw.csv").string() + " -o " + bundle);
  ASSERT_EQ(imp.status, 0) << imp.out;
  const fs::path out = d / "k4";
  Result rec = run("reconstruct " + bundle +
                   " --kernel k4 --profile vxsim --budget 2 --agent 'cmd:echo agent is broken >&2; exit 1' -o " +
                   out.string());
  EXPECT_EQ(rec.status, 3) << rec.out;
  EXPECT_NE(rec.out.find("the agent failed on all 2 revisions after the seed"), std::string::npos) << rec.out;
  // The seed is still locked and written as the benchmark.
  EXPECT_TRUE(fs::is_directory(out / "vortex")) << rec.out;
  EXPECT_TRUE(fs::is_directory(out / "cuda")) << rec.out;
  ASSERT_TRUE(fs::exists(out / "summary.json")) << rec.out;
  const auto summary = nlohmann::json::parse(vxsynth::read_file(out / "summary.json"));
  EXPECT_EQ(summary["locked_revision"].get<int>(), 0);
  EXPECT_EQ(summary["revisions_tried"].get<int>(), 2);
  EXPECT_EQ(summary["revisions_agent_failed"].get<int>(), 2);
  // Every revision after the seed carries the explicit marker, not "unknown".
  const std::string record = vxsynth::read_file(out / "record.jsonl");
  int lines = 0;
  for (size_t pos = 0, nl; (nl = record.find('\n', pos)) != std::string::npos; pos = nl + 1, ++lines) {
    const auto e = nlohmann::json::parse(record.substr(pos, nl - pos));
    if (e["revision"].get<int>() == 0) continue;
    ASSERT_EQ(e["axes"].size(), 1u) << e.dump();
    EXPECT_EQ(e["axes"][0]["axis"].get<std::string>(), "agent_failure") << e.dump();
    EXPECT_EQ(e["decision"].get<std::string>(), "reject") << e.dump();
    EXPECT_NE(e["rejection_reason"].get<std::string>().find("agent: command exit 1"), std::string::npos)
        << e.dump();
  }
  EXPECT_EQ(lines, 3);
  // Help documents the status.
  Result help = run("reconstruct --help");
  EXPECT_NE(help.out.find("3 the agent failed on every revision after the seed"), std::string::npos) << help.out;
}

TEST(CliRealData, HotOnATraceAndSignatureExport) {
  Result hot = run("hot " + h200("conv2d_fp32_tf32.trace.json.gz"));
  ASSERT_EQ(hot.status, 0) << hot.out;
  EXPECT_NE(hot.out.find("torch trace on NVIDIA H200 (CC 9.0)"), std::string::npos) << hot.out;
  EXPECT_NE(hot.out.find("   1  k1  "), std::string::npos) << hot.out;
  EXPECT_NE(hot.out.find("100.00%"), std::string::npos) << hot.out;
  EXPECT_NE(hot.out.find("tensor_core  tf32  conv2d   N=1 C=64 H=120 W=160 K=64 R=3 S=3 s=1,1 p=1,1 d=1,1 g=1  main"), std::string::npos) << hot.out;

  const fs::path d = temp_dir();
  const std::string bundle = (d / "mm.json").string();
  ASSERT_EQ(run("profile import --trace " + h200("matmul_bf16_tc.trace.json.gz") + " --ncu " +
                h200("matmul_bf16_tc.ncu_raw.csv") + " -o " + bundle)
                .status,
            0);
  const std::string sig = (d / "mm_sig.json").string();
  Result exp = run("signature " + bundle + "#k1 -o " + sig);
  ASSERT_EQ(exp.status, 0) << exp.out;
  Result dist = run("distance --json " + sig + " " + bundle + "#k1");
  ASSERT_EQ(dist.status, 0) << dist.out;
  EXPECT_EQ(nlohmann::json::parse(dist.out)["D"].get<double>(), 0.0);
}

// `-o` naming a directory that holds someone else's files (no record.jsonl / run.json): refused
// before anything is written, and the files are left as they were.
TEST(CliRealData, ReconstructRefusesANonEmptyForeignOutputDirectory) {
  const fs::path sdk = fs::path(VXSYNTH_EXE).parent_path().parent_path() / "sdk";
  if (!fs::exists(sdk / "sdk.mk")) GTEST_SKIP() << "the SDK build is absent";
  const fs::path bundle =
      fs::path(VXSYNTH_TEST_DATA_DIR).parent_path().parent_path() / "data/references/h200/act/bundle.json";
  const fs::path out = temp_dir() / "foreign";
  fs::remove_all(out);
  fs::create_directories(out / "data");
  vxsynth::write_file_atomic(out / "data" / "x.bin", "mine");
  Result rec = run("reconstruct " + bundle.string() + " --kernel k4 --profile vxsim --budget 0 -o " + out.string());
  EXPECT_EQ(rec.status, 2) << rec.out;
  EXPECT_NE(rec.out.find("is not empty and holds no vxsynth run"), std::string::npos) << rec.out;
  EXPECT_EQ(vxsynth::read_file(out / "data" / "x.bin"), "mine");
  EXPECT_FALSE(fs::exists(out / "run.json"));
}

// The same real trace in the Chrome trace's JSON Array Format (a top-level array of events) ranks
// the same way: `hot` must recognise it as a trace, not try to read it as a bundle.
TEST(CliRealData, HotOnABareArrayTrace) {
  const std::string path = h200("conv2d_fp32_tf32.trace.json.gz");
  const nlohmann::json trace = nlohmann::json::parse(vxsynth::core::gunzip(vxsynth::read_file(path), path));
  const fs::path bare = temp_dir() / "bare.json";
  vxsynth::write_file_atomic(bare, "\n  " + trace["traceEvents"].dump());
  Result hot = run("hot " + bare.string());
  ASSERT_EQ(hot.status, 0) << hot.out;
  EXPECT_NE(hot.out.find("tensor_core  tf32  conv2d   N=1 C=64 H=120 W=160 K=64 R=3 S=3 s=1,1 p=1,1 d=1,1 g=1  main"),
            std::string::npos)
      << hot.out;
}

TEST(CliRealData, ImportRejectsAnotherArchitecture) {
  Result r = run("profile import --arch sm_80 --trace " + h200("linear_fp32_simt.trace.json.gz") + " --ncu " +
                 h200("linear_fp32_simt.ncu_raw.csv"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("kernels were profiled on sm_90"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expected sm_80"), std::string::npos) << r.out;
}

}  // namespace
