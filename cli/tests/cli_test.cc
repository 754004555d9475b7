// End-to-end tests of the `vxsynth` executable (run as a child process).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/torch_trace.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int status = -1;
  std::string out;  // stdout and stderr together
};

// Runs `vxsynth ARGS` through the shell (ARGS may quote) with the project's process runner.
Result run(const std::string& args) {
  const vxsynth::ProcessResult p =
      vxsynth::run_process({"/bin/sh", "-c", std::string(VXSYNTH_EXE) + " " + args}, {900.0});
  return {p.exit_code, p.output};
}

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("vxsynth_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// The repository (two levels above the test data directory) and the SDK build beside the executable.
fs::path repo_root() { return fs::path(VXSYNTH_TEST_DATA_DIR).parent_path().parent_path(); }
fs::path sdk_dir() { return fs::path(VXSYNTH_EXE).parent_path().parent_path() / "sdk"; }
bool sdk_built() { return fs::exists(sdk_dir() / "sdk.mk"); }
fs::path act_bundle() { return repo_root() / "data/references/h200/act/bundle.json"; }

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

// `vxsynth sandbox run`: the words after -- are the command, its own options included; the exit
// status is the command's; no command is an error.
TEST(Cli, SandboxRunTakesTheCommandAfterTheDoubleDash) {
  const fs::path d = temp_dir();
  Result r = run("sandbox run --isolation none --work " + d.string() + " -- sh -c 'echo from-the-sandbox; exit 3'");
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_NE(r.out.find("from-the-sandbox"), std::string::npos) << r.out;
  Result none = run("sandbox run --isolation none --work " + d.string());
  EXPECT_EQ(none.status, 2) << none.out;
  EXPECT_NE(none.out.find("no command"), std::string::npos) << none.out;
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
  const fs::path sdk = sdk_dir();
  if (!vxsynth::run_process({"riscv64-unknown-elf-g++", "--version"}, {30.0}).ok() || !sdk_built())
    GTEST_SKIP() << "riscv64-unknown-elf-g++ or the SDK build is absent";
  const fs::path act = repo_root() / "data/references/h200/act";
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
  // The header names the kernel cut between tokens, not inside a word ("(floa").
  EXPECT_NE(rec.out.find("k4 linear (void sgemm_largek_lds64<true, false, 5, 5, 4, 4, 4, 34>(float...) from"),
            std::string::npos)
      << rec.out;
  // Re-running the locked benchmark on its inputs, as docs/reconstruct.md says, leaves the locked
  // run's output alone: it is in locked-run/, and the re-run writes data/out.bin.
  ASSERT_TRUE(fs::exists(out / "locked-run" / "out.bin")) << rec.out;
  EXPECT_FALSE(fs::exists(out / "data" / "out.bin"));
  const std::string locked = vxsynth::read_file(out / "locked-run" / "out.bin");
  const std::string make = "make -s -C " + (out / "vortex").string() + " run VXSDK=" + sdk.string() +
                           " OPTS=\"-d ../data\" > " + (d / "make.log").string() + " 2>&1";
  EXPECT_EQ(std::system(make.c_str()), 0) << vxsynth::read_file(d / "make.log");
  EXPECT_EQ(vxsynth::read_file(out / "locked-run" / "out.bin"), locked);
  ASSERT_TRUE(fs::exists(out / "data" / "out.bin")) << vxsynth::read_file(d / "make.log");
  EXPECT_EQ(vxsynth::read_file(out / "data" / "out.bin"), locked);  // the same kernel on the same inputs
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
  if (!sdk_built()) GTEST_SKIP() << "the SDK build is absent";
  const fs::path bundle = act_bundle();
  const fs::path out = temp_dir() / "foreign";
  fs::remove_all(out);
  fs::create_directories(out / "data");
  vxsynth::write_file_atomic(out / "data" / "x.bin", "mine");
  Result rec = run("reconstruct " + bundle.string() + " --kernel k4 --profile vxsim --budget 0 -o " + out.string());
  EXPECT_EQ(rec.status, 2) << rec.out;
  EXPECT_NE(rec.out.find("is not empty and is not a vxsynth run (it has no run.json)"), std::string::npos) << rec.out;
  EXPECT_EQ(vxsynth::read_file(out / "data" / "x.bin"), "mine");
  EXPECT_FALSE(fs::exists(out / "run.json"));
}

// A user's directory that happens to hold a file named run.json (not vxsynth's schema) is not taken
// for a run: refused, with or without --resume, and every file is left as it was.
TEST(CliRealData, ReconstructRefusesADirectoryWithSomeoneElsesRunJson) {
  if (!sdk_built()) GTEST_SKIP() << "the SDK build is absent";
  const fs::path bundle = act_bundle();
  const fs::path out = temp_dir() / "users_run";
  fs::remove_all(out);
  fs::create_directories(out / "data");
  vxsynth::write_file_atomic(out / "data" / "out.bin", "mine");
  for (const char* run_json : {"not json", R"({"name": "my run", "epochs": 3})"}) {
    vxsynth::write_file_atomic(out / "run.json", run_json);
    for (const char* resume : {"", " --resume"}) {
      Result rec = run("reconstruct " + bundle.string() + " --kernel k4 --profile vxsim --budget 0" + resume +
                       " -o " + out.string());
      EXPECT_EQ(rec.status, 2) << rec.out;
      EXPECT_NE(rec.out.find("is not empty and is not a vxsynth run"), std::string::npos) << rec.out;
      EXPECT_NE(rec.out.find("choose a new or empty -o"), std::string::npos) << rec.out;
      EXPECT_EQ(vxsynth::read_file(out / "run.json"), run_json);
      EXPECT_EQ(vxsynth::read_file(out / "data" / "out.bin"), "mine");
      EXPECT_FALSE(fs::exists(out / "record.jsonl"));
      EXPECT_FALSE(fs::exists(out / "vortex"));
    }
  }
  fs::remove_all(out);
}

// Bad bundles made from the real ACT bundle, and a real helper kernel (Diffusion Policy k1, a cuDNN
// layout transpose): reconstruct refuses each before anything is written, naming the file and the
// field.
TEST(CliRealData, ReconstructValidatesTheBundleAndKernelBeforeWriting) {
  if (!sdk_built()) GTEST_SKIP() << "the SDK build is absent";
  const fs::path refs = repo_root() / "data/references/h200";
  const nlohmann::json act = nlohmann::json::parse(vxsynth::read_file(refs / "act/bundle.json"));
  const fs::path d = temp_dir() / "bad_bundles";
  fs::remove_all(d);
  fs::create_directories(d);
  struct Case {
    const char* name;
    std::function<void(nlohmann::json&)> edit;
    const char* kernel;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"dup", [](auto& j) { j["kernels"][1]["id"] = "k1"; }, "k1",
       "dup.json: kernels[1].id: duplicate kernel id 'k1' (kernels[0] has it too)"},
      {"m0", [](auto& j) { j["kernels"][3]["context"]["gemm"]["m"] = 0; }, "k4",
       "m0.json: kernels[3].context.gemm.m: 0 is below 1"},
      {"mneg", [](auto& j) { j["kernels"][3]["context"]["gemm"]["m"] = -100; }, "k4",
       "mneg.json: kernels[3].context.gemm.m: -100 is below 1"},
      {"huge", [](auto& j) { j["kernels"][3]["context"]["gemm"]["m"] = 100000000000000; }, "k4",
       "huge.json: kernels[3].context.gemm.m: 100000000000000 is above 2147483647"},
      {"vast",
       [](auto& j) {
         for (const char* x : {"m", "n", "k"}) j["kernels"][3]["context"]["gemm"][x] = 1 << 20;
       },
       "k4", "more than Vortex's 4 GiB global memory"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = act;
    c.edit(j);
    const fs::path b = d / (std::string(c.name) + ".json");
    vxsynth::write_file_atomic(b, j.dump());
    const fs::path out = d / (std::string(c.name) + "-out");
    Result r = run("reconstruct " + b.string() + " --kernel " + c.kernel + " --profile vxsim --budget 0 -o " +
                   out.string());
    EXPECT_EQ(r.status, 2) << c.name << ": " << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.name << ": " << r.out;
    EXPECT_FALSE(fs::exists(out)) << c.name;
  }
  const fs::path out = d / "helper-out";
  Result r = run("reconstruct " + (refs / "diffusion_policy/bundle.json").string() +
                 " --kernel k1 --profile vxsim --budget 0 -o " + out.string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("kernel k1 (void cudnn::engines_precompiled::nchwToNhwcKernel<float,...) is a helper kernel"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("reconstruct the operator's main kernel instead: k2 (sm90_xmma_fprop"), std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(d);
}

// --resume needs a run to continue: a missing or empty -o is an error, and nothing is created.
TEST(CliRealData, ResumeOfAMissingDirectoryFails) {
  if (!sdk_built()) GTEST_SKIP() << "the SDK build is absent";
  const fs::path bundle = act_bundle();
  const fs::path out = temp_dir() / "never_ran";
  fs::remove_all(out);
  Result rec = run("reconstruct " + bundle.string() + " --kernel k4 --profile vxsim --resume -o " + out.string());
  EXPECT_EQ(rec.status, 2) << rec.out;
  EXPECT_NE(rec.out.find("does not exist; drop --resume to start a new run there"), std::string::npos) << rec.out;
  EXPECT_FALSE(fs::exists(out));
  fs::create_directories(out);
  rec = run("reconstruct " + bundle.string() + " --kernel k4 --profile vxsim --resume -o " + out.string());
  EXPECT_EQ(rec.status, 2) << rec.out;
  EXPECT_NE(rec.out.find("is empty, there is no run to continue"), std::string::npos) << rec.out;
  EXPECT_TRUE(fs::is_empty(out));
  fs::remove_all(out);
}

// A record whose retained design was edited into one the space does not render (a warp-epilogue
// schedule on a SIMT point) is named on --resume, revision and reason, and the record is kept as it was.
TEST(CliRealData, ResumeNamesARetainedDesignThatNoLongerRenders) {
  if (!sdk_built()) GTEST_SKIP() << "the SDK build is absent";
  const fs::path bundle = act_bundle();
  const fs::path out = temp_dir() / "edited_record";
  fs::remove_all(out);
  Result rec = run("reconstruct " + bundle.string() + " --kernel k4 --profile vxsim --budget 0 -o " + out.string());
  ASSERT_EQ(rec.status, 0) << rec.out;
  nlohmann::json seed = nlohmann::json::parse(vxsynth::read_file(out / "record.jsonl"));
  seed["design"]["tc_schedule"] = "warp-epilogue";
  vxsynth::write_file_atomic(out / "record.jsonl", seed.dump() + "\n");
  const std::string edited = vxsynth::read_file(out / "record.jsonl");
  rec = run("reconstruct " + bundle.string() + " --kernel k4 --profile vxsim --budget 1 --resume -o " + out.string());
  EXPECT_EQ(rec.status, 2) << rec.out;
  EXPECT_NE(rec.out.find("record.jsonl: revision 0's design cannot be rendered, so the run cannot continue from it"),
            std::string::npos) << rec.out;
  EXPECT_NE(rec.out.find("tc_schedule warp-epilogue needs the tensor-core strategy"), std::string::npos) << rec.out;
  EXPECT_EQ(vxsynth::read_file(out / "record.jsonl"), edited);
  fs::remove_all(out);
}

// A committed H200 evidence run (run.json from before the schema field) is still a vxsynth run:
// --resume gets past the ownership check to the identity check (this run used the ncu backend).
TEST(CliRealData, ResumeRecognisesACommittedEvidenceRun) {
  if (!sdk_built()) GTEST_SKIP() << "the SDK build is absent";
  const fs::path root = repo_root();
  const fs::path out = temp_dir() / "evidence_act_k4";
  fs::remove_all(out);
  fs::copy(root / "data/evidence/h200/reconstruct-ncu-2026-11-30/act-k4", out, fs::copy_options::recursive);
  const std::string before = vxsynth::read_file(out / "run.json");
  Result rec = run("reconstruct " + (root / "data/references/h200/act/bundle.json").string() +
                   " --kernel k4 --profile vxsim --resume -o " + out.string());
  EXPECT_EQ(rec.status, 2) << rec.out;
  EXPECT_NE(rec.out.find("--resume continues the same run"), std::string::npos) << rec.out;
  EXPECT_EQ(rec.out.find("is not a vxsynth run"), std::string::npos) << rec.out;
  EXPECT_EQ(vxsynth::read_file(out / "run.json"), before);
  fs::remove_all(out);
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

// The lines of an ncu raw CSV (all fields quoted, as ncu writes them).
std::vector<std::string> csv_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t pos = 0, nl; pos < text.size(); pos = nl + 1) {
    nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
  }
  return lines;
}
std::vector<std::string> split_quoted(const std::string& line) {
  std::vector<std::string> f;
  for (size_t pos = 1, end; pos < line.size(); pos = end + 3) {
    end = line.find("\",\"", pos);
    if (end == std::string::npos) end = line.rfind('"');
    f.push_back(line.substr(pos, end - pos));
  }
  return f;
}
std::string join_quoted(const std::vector<std::string>& f) {
  std::string s;
  for (const auto& x : f) s += (s.empty() ? "\"" : ",\"") + x + "\"";
  return s;
}
// The real CSV with one cell of the first kernel row (line 3) replaced.
std::string with_cell(const std::string& csv, const std::string& column, const std::string& value) {
  auto lines = csv_lines(csv);
  const auto header = split_quoted(lines[0]);
  auto row = split_quoted(lines[2]);
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == column) row[i] = value;
  lines[2] = join_quoted(row);
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// A real capture with an impossible cell (-5 %, a lane ratio above 32): refused at import, naming
// file:line, the column or metric and the kernel; no bundle is written.
TEST(CliRealData, ImportRefusesImpossibleNcuValues) {
  const std::string csv = vxsynth::read_file(h200("linear_fp32_simt.ncu_raw.csv"));
  const fs::path d = temp_dir() / "bad_cells";
  fs::remove_all(d);
  fs::create_directories(d);
  struct Case {
    const char* column;
    const char* value;
    const char* expect;
  };
  for (const Case& c : {Case{"sm__warps_active.avg.pct_of_peak_sustained_active", "-5",
                             "column \"sm__warps_active.avg.pct_of_peak_sustained_active\" is -5 %: negative"},
                        Case{"dram__bytes_read.sum", "-4096", "column \"dram__bytes_read.sum\" is -4096 byte: negative"},
                        Case{"smsp__average_thread_inst_executed_per_inst_executed.ratio", "40",
                             "signature metric active_lanes computed from this row: 1.25 is above 1"}}) {
    const fs::path bad = d / "ncu_raw.csv";
    vxsynth::write_file_atomic(bad, with_cell(csv, c.column, c.value));
    Result r = run("profile import --trace " + h200("linear_fp32_simt.trace.json.gz") + " --ncu " + bad.string() +
                   " -o " + (d / "b.json").string());
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find(bad.string() + ":3: kernel "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(d / "b.json"));
  }
  fs::remove_all(d);
}

// An L2 hit rate of 150 % in the same real capture: what ncu prints when it could not collect the
// metric accurately (the real H200 captures in data/references hold 101-185 %). The import warns,
// naming file:line, column and kernel, and the bundle has the metric NA with the reason; `hot`,
// `distance` and `signature` then read the bundle.
TEST(CliRealData, ImportMarksAPercentageAbove100NaAndWarns) {
  const std::string csv = vxsynth::read_file(h200("linear_fp32_simt.ncu_raw.csv"));
  const fs::path d = temp_dir() / "l2_150";
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path bad = d / "ncu_raw.csv";
  vxsynth::write_file_atomic(bad, with_cell(csv, "lts__t_sector_hit_rate.pct", "150"));
  const std::string b = (d / "b.json").string();
  Result r = run("profile import --trace " + h200("linear_fp32_simt.trace.json.gz") + " --ncu " + bad.string() + " -o " + b);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("warning: " + bad.string() + ":3: kernel "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("column \"lts__t_sector_hit_rate.pct\" is 150 %, outside 0-100 %: ncu could not collect it "
                       "accurately"),
            std::string::npos)
      << r.out;
  const auto bundle = vxsynth::core::read_bundle(b);
  bool na = false;
  for (const auto& k : bundle.kernels)
    for (const auto& n : k.notes)
      if (n.find("l2_hit_rate: lts__t_sector_hit_rate.pct is 150 %") != std::string::npos)
        na = k.signature && !(*k.signature)[vxsynth::core::MetricId::kL2HitRate].has_value();
  EXPECT_TRUE(na) << vxsynth::read_file(b);
  EXPECT_EQ(run("hot " + b).status, 0);
  Result dist = run("distance " + b + "#k1 " + b + "#k1");
  EXPECT_EQ(dist.status, 0) << dist.out;
  const size_t left = dist.out.find("left out of D (not measured on both sides):");
  ASSERT_NE(left, std::string::npos) << dist.out;
  EXPECT_NE(dist.out.find("l2_hit_rate", left), std::string::npos) << dist.out;
  fs::remove_all(d);
}

// The real ACT capture with its ncu CSV cut exactly at a row boundary (the last kernel rows gone):
// the import says how many trace kernels found no ncu row and which, and the bundle lists them.
TEST(CliRealData, ImportSaysWhichTraceKernelsHaveNoNcuRow) {
  const fs::path act = repo_root() / "data/references/h200/act";
  const fs::path d = temp_dir() / "cut_csv";
  fs::remove_all(d);
  fs::create_directories(d);
  Result full = run("profile import --top 0 --trace " + (act / "trace.json.gz").string() + " --ncu " +
                    (act / "ncu_raw.csv").string() + " -o " + (d / "full.json").string());
  ASSERT_EQ(full.status, 0) << full.out;
  const auto full_b = vxsynth::core::read_bundle(d / "full.json");
  ASSERT_TRUE(full_b.unprofiled.has_value());
  const auto lines = csv_lines(vxsynth::read_file(act / "ncu_raw.csv"));
  std::string cut;
  for (size_t i = 0; i < 5; ++i) cut += lines[i] + "\n";  // header, units row, three kernel rows
  vxsynth::write_file_atomic(d / "cut.csv", cut);
  Result r = run("profile import --top 0 --trace " + (act / "trace.json.gz").string() + " --ncu " +
                 (d / "cut.csv").string() + " -o " + (d / "cut.json").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto b = vxsynth::core::read_bundle(d / "cut.json");
  ASSERT_TRUE(b.unprofiled.has_value());
  ASSERT_GT(b.unprofiled->size(), full_b.unprofiled->size());
  EXPECT_NE(r.out.find("warning: " + std::to_string(b.unprofiled->size()) + " of " + std::to_string(b.kernels.size()) +
                       " trace kernels"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("have no ncu row in " + (d / "cut.csv").string()), std::string::npos) << r.out;
  // Every kernel that lost its signature is listed by rank; the warning names the first ten.
  size_t lost = 0;
  for (const auto& k : b.kernels) {
    if (k.signature) continue;
    ++lost;
    bool listed = false;
    for (const auto& u : *b.unprofiled) listed = listed || u.rank == k.rank;
    EXPECT_TRUE(listed) << k.id;
  }
  EXPECT_EQ(lost, b.unprofiled->size());
  for (size_t i = 0; i < b.unprofiled->size() && i < 10; ++i)
    EXPECT_NE(r.out.find("  rank " + std::to_string((*b.unprofiled)[i].rank) + " ("), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(CliRealData, ImportRejectsAnotherArchitecture) {
  Result r = run("profile import --arch sm_80 --trace " + h200("linear_fp32_simt.trace.json.gz") + " --ncu " +
                 h200("linear_fp32_simt.ncu_raw.csv"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("kernels were profiled on sm_90"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expected sm_80"), std::string::npos) << r.out;
}

}  // namespace

// Where reconstruct finds vxsynth_torch for in-workload profiling is resolved when it runs, not
// where it was built: an executable placed as a device pack places it (<checkout>/.devcarry/vxdev/
// bin/vxsynth) and run from another directory finds <checkout>/python; VXSYNTH_PYTHON_DIR and
// --python-dir override it, and one without the package is an error naming it. `--python
// /bin/false` fails the torch probe at once, so `--profile-in workload` stops before writing and
// says which folder it would have used.
TEST(CliRealData, ReconstructFindsThePythonFolderAboveItsExecutable) {
  if (!sdk_built()) GTEST_SKIP() << "the SDK build is absent";
  const fs::path source = repo_root();
  const fs::path bundle = source / "data/references/h200/act/bundle.json";
  const fs::path dir = temp_dir() / "python_dir";
  fs::remove_all(dir);
  const fs::path checkout = dir / "checkout", exe = checkout / ".devcarry" / "vxdev" / "bin" / "vxsynth";
  const fs::path lonely = dir / "lonely" / "bin" / "vxsynth";
  fs::create_directories(exe.parent_path());
  fs::create_directories(lonely.parent_path());
  fs::create_directories(dir / "empty");
  fs::create_directory_symlink(source / "python", checkout / "python");
  for (const fs::path& to : {exe, lonely}) {  // a hard link: /proc/self/exe names the link, not the build tree
    std::error_code ec;
    fs::create_hard_link(VXSYNTH_EXE, to, ec);
    if (ec) fs::copy_file(VXSYNTH_EXE, to);
  }
  auto reconstruct = [&](const fs::path& bin, const std::string& out, std::vector<std::string> extra,
                         std::map<std::string, std::string> env) {
    std::vector<std::string> a{bin.string(), "reconstruct", bundle.string(), "--kernel", "k4", "--profile", "ncu",
                               "--ncu", "/bin/true", "--profile-in", "workload", "--python", "/bin/false",
                               "--sdk", sdk_dir().string(), "--budget", "0", "-o", (dir / out).string()};
    a.insert(a.end(), extra.begin(), extra.end());
    env.emplace("VXSYNTH_PYTHON_DIR", "");
    return vxsynth::run_process(a, {120.0, "/", std::move(env)});
  };
  const vxsynth::ProcessResult found = reconstruct(exe, "a", {}, {});
  EXPECT_EQ(found.exit_code, 2) << found.output;
  EXPECT_NE(found.output.find("vxsynth_torch from " + (checkout / "python").string() + ":"), std::string::npos)
      << found.output;
  EXPECT_FALSE(fs::exists(dir / "a" / "run.json"));

  const vxsynth::ProcessResult none = reconstruct(lonely, "b", {}, {});
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("no python/vxsynth_torch/workloads above " + lonely.string()), std::string::npos)
      << none.output;

  const vxsynth::ProcessResult env = reconstruct(exe, "c", {}, {{"VXSYNTH_PYTHON_DIR", (dir / "empty").string()}});
  EXPECT_EQ(env.exit_code, 2) << env.output;
  EXPECT_NE(env.output.find("VXSYNTH_PYTHON_DIR=" + (dir / "empty").string() + ": no vxsynth_torch package there"),
            std::string::npos) << env.output;

  const vxsynth::ProcessResult bad = reconstruct(exe, "d", {"--python-dir", (dir / "nowhere").string()}, {});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--python-dir " + (dir / "nowhere").string() + ": no vxsynth_torch package there"),
            std::string::npos) << bad.output;

  // report's figure layer is found the same way, when it runs.
  const vxsynth::ProcessResult rep = vxsynth::run_process(
      {lonely.string(), "report", (source / "data/suite/vx-robotics-h200").string(), "-o", (dir / "rep").string()},
      {60.0, "/", {{"VXSYNTH_PYTHON_DIR", ""}}});
  EXPECT_EQ(rep.exit_code, 2) << rep.output;
  EXPECT_NE(rep.output.find("report: no python/vxsynth_torch/workloads above " + lonely.string()), std::string::npos)
      << rep.output;
  EXPECT_FALSE(fs::exists(dir / "rep"));
  EXPECT_FALSE(fs::exists(dir / "d"));
  fs::remove_all(dir);
}
