// The suite end to end on the shipped H200 bundles with the vxsim backend (docs/suite.md): a real
// `vxsynth suite build` killed (kill -9) while a kernel's revision 1 is built or run, and resumed:
// the finished kernel untouched, the killed one's seed kept and revision 1 redone once; `suite check`
// on the collected suite and on tampered copies, `suite run` with and without the benchmarks'
// tensors, and the 8-metric case (the ACT bundle without its two DRAM metrics, as a platform
// without dram__ counters measures it).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "suite_test_util.h"
#include "vxsynth/codegen/generator_version.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/refine/record.h"

namespace vxsynth::suite::test {
namespace {

using nlohmann::json;

// The shipped ACT bundle with the two DRAM metrics removed, as a platform without dram__ counters
// measures them (Jetson AGX Orin; docs/signature.md): both metrics NA in every signature, the
// dram__ raw values dropped, workload act8 on a platform named for what was removed.
fs::path eight_metric_bundle(const fs::path& dir) {
  json b = json_file(kRefs / "act" / "bundle.json");
  b["workload"] = "act8";
  b["provenance"]["gpu"] = "NVIDIA H200 without dram__ counters (8 metrics)";
  for (json& k : b["kernels"]) {
    if (k["signature"].is_object())
      for (const char* m : {"arith_intensity", "dram_bandwidth"}) k["signature"][m] = nullptr;
    json raw = json::object();
    for (const auto& [metric, v] : k["ncu"]["raw"].items())
      if (metric.rfind("dram__", 0) != 0) raw[metric] = v;
    k["ncu"]["raw"] = raw;
  }
  write_file_atomic(dir / "act8.json", b.dump(1));
  return dir / "act8.json";
}

std::vector<std::string> build_args(const fs::path& suite, const fs::path& act8) {
  return {"suite", "build", (kRefs / "act" / "bundle.json").string(), act8.string(), "-o", suite.string(),
          "--profile", "vxsim", "--budget", "1", "--kernel", "act:k4", "--kernel", "act8:k4", "--sdk", VXSYNTH_SDK_DIR};
}

// Starts `vxsynth suite build …` -j 1 and SIGKILLs it once act-k4 is built and act8-k4 has its
// seed recorded and its revision 1 rendered (then inside make or the simulator). Returns false
// when the build ended first.
bool build_and_kill(const std::vector<std::string>& args, const fs::path& suite) {
  std::vector<std::string> a{VXSYNTH_EXE};
  a.insert(a.end(), args.begin(), args.end());
  a.insert(a.end(), {"-j", "1"});
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (std::string& s : a) argv.push_back(s.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const fs::path record = suite / "act8-k4" / "record.jsonl";
  for (int i = 0; i < 6000; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    if (fs::exists(suite / "act-k4" / "summary.md") && fs::exists(record) && fs::file_size(record) > 0 &&
        fs::exists(suite / "act8-k4" / "work" / "revisions" / "r0001" / "vortex" / "Makefile")) {
      std::this_thread::sleep_for(std::chrono::seconds(2));  // inside make or the simulator
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));  // children die with it (PDEATHSIG)
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return false;
}

// The record of a benchmark killed in revision 1 and resumed (budget 1): the seed as it was, revision
// 1 redone once from it, and the locked benchmark's files.
void expect_seed_and_redone_revision(const fs::path& bench) {
  const refine::RecordRead rr = refine::read_record(bench / "record.jsonl", false);
  ASSERT_EQ(rr.entries.size(), 2u);
  const refine::RevisionEntry& s = rr.entries[0];
  EXPECT_EQ(s.decision, refine::Decision::kSeed) << s.rejection_reason;
  EXPECT_TRUE(s.candidate.passed) << s.candidate.detail;
  EXPECT_EQ(s.candidate.method, "vortex_vs_cpu_f64");
  EXPECT_FALSE(s.source_output.ran);
  ASSERT_TRUE(s.d.has_value());
  EXPECT_GT(*s.d, 0.0);
  EXPECT_LT(*s.d, 1.0);
  EXPECT_EQ(s.profile_backend, "vxsim");
  EXPECT_EQ(s.source_hashes.count("vortex/kernel.cpp"), 1u);
  const refine::RevisionEntry& r1 = rr.entries[1];
  EXPECT_EQ(r1.parent, 0);
  EXPECT_FALSE(r1.axes.empty());
  if (r1.decision != refine::Decision::kReject) {
    EXPECT_NEAR(*r1.delta_d, *r1.d - *s.d, 1e-12);
  }
  const json summary = json_file(bench / "summary.json");
  EXPECT_DOUBLE_EQ(summary["seed_D"].get<double>(), *s.d);
  EXPECT_EQ(summary["revisions_tried"], 1);
  EXPECT_TRUE(rr.entries[summary["locked_revision"].get<size_t>()].candidate.passed);
  for (const char* f : {"vortex/kernel.cpp", "vortex/main.cpp", "vortex/Makefile", "cuda/candidate.cu",
                        "reference/profile.json", "data/ref_output.bin", "vortex_signature.json", "summary.md"})
    EXPECT_TRUE(fs::exists(bench / f)) << f;
}

const json& entry(const json& suite, const std::string& name) {
  for (const json& b : suite["benchmarks"])
    if (b["name"] == name) return b;
  throw std::runtime_error("no benchmark " + name);
}

void expect_check_reports(const fs::path& suite, const std::string& what) {
  const ProcessResult c = vxsynth({"suite", "check", suite.string()});
  EXPECT_EQ(c.exit_code, 1) << c.output;
  EXPECT_NE(c.output.find(what), std::string::npos) << "expected '" << what << "' in:\n" << c.output;
}

TEST(SuiteEndToEnd, BuildKilledResumedCheckedTamperedAndRun) {
  const TempDir tmp("vxsuite_e2e");
  const fs::path& dir = tmp.path();
  const fs::path suite = dir / "suite", act8 = eight_metric_bundle(dir);
  const std::vector<std::string> args = build_args(suite, act8);
  ASSERT_TRUE(build_and_kill(args, suite)) << "the build ended before it could be killed mid-kernel";
  ASSERT_FALSE(fs::exists(suite / "act8-k4" / "summary.json"));
  const std::string act_run = read_file(suite / "act-k4" / "run.json"), act_summary = read_file(suite / "act-k4" / "summary.json");
  const std::string act8_seed = read_file(suite / "act8-k4" / "record.jsonl");
  ASSERT_EQ(std::count(act8_seed.begin(), act8_seed.end(), '\n'), 1) << "revision 1 was in flight: not recorded";
  // The killed job's log holds what it printed before the kill.
  EXPECT_NE(read_file(suite / ".suite" / "logs" / "act8-k4.log").find("[reconstruct]"), std::string::npos);
  // Collected as it stands (as device-suite.sh does when its guard fires), the killed kernel is
  // named resumable, not "has not run".
  ASSERT_EQ(vxsynth({"suite", "collect", suite.string()}).exit_code, 0);
  EXPECT_NE(entry(json_file(suite / "suite.json"), "act8-k4").value("reason", "").find(
                "interrupted after revision 0 (1 record.jsonl entry, none locked)"),
            std::string::npos);

  // A second build without --resume is refused; with it, only act8-k4 is worked on.
  EXPECT_EQ(vxsynth(args).exit_code, 2);
  std::vector<std::string> resume = args;
  resume.insert(resume.end(), {"--resume", "-j", "2"});
  const ProcessResult r = vxsynth(resume);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 built already, 1 to build"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(suite / "act-k4" / "run.json"), act_run);
  EXPECT_EQ(read_file(suite / "act-k4" / "summary.json"), act_summary);
  const std::string act8_record = read_file(suite / "act8-k4" / "record.jsonl");
  EXPECT_EQ(act8_record.substr(0, act8_seed.size()), act8_seed) << "the resumed run redid its seed";
  EXPECT_TRUE(json_file(suite / ".suite" / "jobs" / "act8-k4.json")["resumed"].get<bool>());
  expect_seed_and_redone_revision(suite / "act8-k4");

  const json s = json_file(suite / "suite.json");
  EXPECT_EQ(s["schema"], "vxsynth.suite");
  EXPECT_EQ(s["benchmarks_built"], 2);
  const json& a = entry(s, "act-k4");
  const json& e8 = entry(s, "act8-k4");
  // The 8-metric platform: arith_intensity and dram_bandwidth are NA in the reference, so both D
  // leave them out (vxsim's default machine has no L2: l2_hit_rate is NA on the Vortex side).
  EXPECT_EQ(a["metrics"]["reference_measured"], 10);
  EXPECT_EQ(e8["metrics"]["reference_measured"], 8);
  EXPECT_EQ(e8["metrics"]["compared"].get<int>(), a["metrics"]["compared"].get<int>() - 2);
  EXPECT_EQ(e8["vortex"]["metrics_compared"].get<int>(), a["vortex"]["metrics_compared"].get<int>() - 2);
  for (const json& m : e8["metrics"]["per_metric"])
    if (m["metric"] == "arith_intensity" || m["metric"] == "dram_bandwidth") {
      EXPECT_TRUE(m["reference"].is_null()) << m;
      EXPECT_TRUE(m["d_final"].is_null()) << m;
    }
  EXPECT_NE(e8["platform"], a["platform"]);
  EXPECT_TRUE(a["checks"]["candidate"]["passed"].get<bool>());
  EXPECT_NEAR(a["share"].get<double>(), 0.0454, 0.001);
  EXPECT_TRUE(json_file(suite / "validation" / "act-k4" / "tensors.json")["redrawn_match"].get<bool>());
  const std::string md = read_file(suite / "SUITE.md");
  EXPECT_NE(md.find("| Linear-1 | act-k4 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| Linear-2 | act8-k4 |"), std::string::npos) << md;
  // Where the time went: every built benchmark's revisions ran the Vortex side (vxsim backend).
  EXPECT_GT(a["step_wall_s"]["vortex_run"].get<double>(), 0.0) << a["step_wall_s"];
  EXPECT_NE(md.find("## Where the build time went"), std::string::npos) << md;
  EXPECT_NE(md.find("| act-k4 | "), std::string::npos) << md;

  const ProcessResult ok = vxsynth({"suite", "check", suite.string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.output;

  // Tampering is reported by file name; each is undone before the next.
  const fs::path kernel = suite / "act-k4" / "vortex" / "kernel.cpp";
  const std::string original = read_file(kernel);
  write_file_atomic(kernel, original + "// edited\n");
  expect_check_reports(suite, kernel.string() + ": modified");
  write_file_atomic(kernel, original);
  const fs::path x = suite / "act-k4" / "data" / "x.bin";
  std::string xb = read_file(x);
  xb[0] = static_cast<char>(xb[0] ^ 1);
  write_file_atomic(x, xb);
  expect_check_reports(suite, x.string() + ": modified");
  xb[0] = static_cast<char>(xb[0] ^ 1);
  write_file_atomic(x, xb);
  write_file_atomic(suite / "act-k4" / "vortex" / "extra.h", "#define X 1\n");
  expect_check_reports(suite, "extra.h: not in the manifest");
  fs::remove(suite / "act-k4" / "vortex" / "extra.h");
  EXPECT_EQ(vxsynth({"suite", "check", suite.string()}).exit_code, 0);

  // suite run on vxsim in timing mode, here act-k4 with its tensors: the same inputs and machine as
  // at lock give the same Vortex-side D. (act8-k4 runs below from the exported copy, without tensors.)
  const ProcessResult run = vxsynth({"suite", "run", suite.string(), "--benchmark", "act-k4", "--sdk", VXSYNTH_SDK_DIR});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string csv = read_file(suite / "run.csv");
  EXPECT_NE(csv.find("act-k4,PASSED,PASSED,pass"), std::string::npos) << csv;
  EXPECT_NE(csv.find(fmt::format("{:.4f}", a["vortex"]["D"].get<double>())), std::string::npos) << csv;
  // DRAM bytes over both launches against ACT k4's operator in device memory: x, weight, bias and the
  // output in fp32 (100x512, 512x512, 512, 100x512).
  EXPECT_NE(csv.find(fmt::format(",{},", 4 * (100 * 512 + 512 * 512 + 512 + 100 * 512))), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",0,1460224,"), std::string::npos) << "no DRAM traffic counted: " << csv;

  // A suite whose benchmarks lack their tensors (a committed suite leaves them out) still checks.
  for (const auto& f : fs::directory_iterator(suite / "act-k4" / "data")) fs::remove(f.path());
  EXPECT_EQ(vxsynth({"suite", "check", suite.string()}).exit_code, 0);

  // What a repository keeps (suite export, what scripts/device-suite.sh archives): checked and run
  // from the copy alone, with no tensors, work directories' sources or build outputs in it.
  const fs::path kept = dir / "committed";
  const ProcessResult ex = vxsynth({"suite", "export", suite.string(), "-o", kept.string()});
  ASSERT_EQ(ex.exit_code, 0) << ex.output;
  EXPECT_EQ(vxsynth({"suite", "export", suite.string(), "-o", kept.string()}).exit_code, 2);  // never over a copy
  const std::set<std::string> measurements{"ncu_raw.csv", "ncu.log", "run.log", "self_check.log", "run_timing.log"};
  for (const auto& f : fs::recursive_directory_iterator(kept)) {
    if (!f.is_regular_file()) continue;
    EXPECT_NE(f.path().extension(), ".bin") << f.path();
    EXPECT_NE(f.path().extension(), ".elf") << f.path();
    if (f.path().string().find("/work/") != std::string::npos) {
      EXPECT_TRUE(measurements.count(f.path().filename().string())) << f.path();
    }
  }
  EXPECT_TRUE(fs::exists(kept / "act8-k4" / "work" / "revisions" / "r0000" / "run.log"));
  // The runtime copies are left out and listed; the run below takes them from codegen/runtime.
  EXPECT_TRUE(fs::exists(suite / "act8-k4" / "vortex" / "vxs_driver.cpp"));
  EXPECT_FALSE(fs::exists(kept / "act8-k4" / "vortex" / "vxs_driver.cpp"));
  EXPECT_FALSE(fs::exists(kept / "act8-k4" / "cuda" / "vxs_cuda.cuh"));
  const json km = json_file(kept / "manifest.json");
  EXPECT_TRUE(km["runtime"]["act8-k4"]["files"].contains("vortex/vxs_driver.cpp")) << km["runtime"];
  // The locked benchmark's generated sources are left out too: this vxsynth renders them again from
  // the record byte-identically (docs/suite.md "Generated sources").
  const json& gen = km["generated"]["act8-k4"];
  EXPECT_EQ(gen["generator_version"], codegen::kGeneratorVersion) << gen;
  EXPECT_TRUE(gen["kept"].empty()) << gen;
  for (const char* f : {"cuda/candidate.cu", "cuda/swap.json", "vortex/Makefile", "vortex/common.h", "vortex/kernel.cpp",
                        "vortex/main.cpp"}) {
    EXPECT_FALSE(fs::exists(kept / "act8-k4" / f)) << f;
    EXPECT_EQ(gen["files"].value(f, ""), refine::sha256_hex(read_file(suite / "act8-k4" / f))) << f;
  }
  const ProcessResult kc = vxsynth({"suite", "check", kept.string()});
  EXPECT_EQ(kc.exit_code, 0) << kc.output;
  // make in the copy says which command writes the sources; materialize writes them as they were.
  const ProcessResult nosrc = run_process({"make", "-C", kept.string(), "BENCH=act8-k4", "src-act8-k4"}, {60.0});
  EXPECT_FALSE(nosrc.ok());
  EXPECT_NE(nosrc.output.find("act8-k4: no sources in " + (kept / "build" / "src" / "act8-k4" / "vortex").string() +
                              ": write them with vxsynth suite materialize " + kept.string()),
            std::string::npos) << nosrc.output;
  const ProcessResult mk = run_process({"make", "-C", kept.string(), "BENCH=act8-k4", std::string("VXSYNTH=") + VXSYNTH_EXE,
                                        "src-act8-k4"}, {60.0});
  ASSERT_TRUE(mk.ok()) << mk.output;
  size_t same = 0;
  for (const char* sub : {"cuda", "vortex"})
    for (const auto& f : fs::directory_iterator(suite / "act8-k4" / sub)) {
      const fs::path m = kept / "build" / "src" / "act8-k4" / sub / f.path().filename();
      ASSERT_TRUE(fs::exists(m)) << m;
      EXPECT_EQ(read_file(m), read_file(f.path())) << m;
      ++same;
    }
  EXPECT_GE(same, 10u);
  // Without its tensors a benchmark draws them again from the seed in tensors.json (their SHA-256 must
  // match), its runtime files come from codegen/runtime and its generated sources from its record.
  const ProcessResult kr = vxsynth({"suite", "run", kept.string(), "--benchmark", "act8-k4", "--sdk", VXSYNTH_SDK_DIR});
  EXPECT_EQ(kr.exit_code, 0) << kr.output;
  EXPECT_NE(read_file(kept / "run.csv").find("act8-k4,PASSED,PASSED,pass"), std::string::npos) << kr.output;
  write_file_atomic(kept / "act8-k4" / "summary.md", "edited\n");
  expect_check_reports(kept, "summary.md: modified");
  // A listed SHA-256 that the record no longer renders: check names benchmark, file and both SHA-256.
  json tampered = km;
  tampered["generated"]["act8-k4"]["files"]["vortex/kernel.cpp"] = std::string(64, '0');
  write_file_atomic(kept / "manifest.json", tampered.dump(1));
  expect_check_reports(kept, fmt::format("{}: benchmark act8-k4: left out by the export (generator {}, record.jsonl "
                                         "revision {}), expected SHA-256 {}, regenerated SHA-256 {}",
                                         (kept / "act8-k4" / "vortex" / "kernel.cpp").string(), codegen::kGeneratorVersion,
                                         gen["revision"].get<int>(), std::string(64, '0'),
                                         gen["files"]["vortex/kernel.cpp"].get<std::string>()));
}

// Every suite committed under data/suite passes `suite check` from the checkout alone.
TEST(SuiteEndToEnd, CommittedSuitesCheck) {
  const fs::path root = kSource / "data" / "suite";
  int checked = 0;
  if (fs::is_directory(root))
    for (const auto& d : fs::directory_iterator(root))
      if (fs::exists(d.path() / "suite.json")) {
        const ProcessResult c = vxsynth({"suite", "check", d.path().string()});
        EXPECT_EQ(c.exit_code, 0) << c.output;
        ++checked;
      }
  if (checked == 0) GTEST_SKIP() << "no suite committed under " << root;
}

// --order is reconstruct's, for the ncu backend only.
TEST(SuiteEndToEnd, OrderNeedsTheNcuBackend) {
  const TempDir tmp("vxsuite_order");
  const fs::path& dir = tmp.path();
  const ProcessResult r = vxsynth({"suite", "build", (kRefs / "act" / "bundle.json").string(), "-o",
                                   (dir / "s").string(), "--profile", "vxsim", "--order", "vortex-first", "--sdk",
                                   VXSYNTH_SDK_DIR});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--order vortex-first: an order of the ncu backend"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "s"));
  EXPECT_EQ(vxsynth({"suite", "build", (kRefs / "act" / "bundle.json").string(), "-o", (dir / "t").string(),
                     "--order", "sideways", "--sdk", VXSYNTH_SDK_DIR}).exit_code, 2);
}

TEST(SuiteEndToEnd, RefusesADirectoryThatIsNotASuite) {
  const TempDir tmp("vxsuite_notasuite");
  const fs::path& dir = tmp.path();
  write_file_atomic(dir / "notes.txt", "mine\n");
  const ProcessResult r = vxsynth({"suite", "build", (kRefs / "act" / "bundle.json").string(), "-o", dir.string(),
                                   "--profile", "vxsim", "--sdk", VXSYNTH_SDK_DIR});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("holds no suite"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(dir / "notes.txt"), "mine\n");
  const ProcessResult c = vxsynth({"suite", "check", dir.string()});
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.output.find("suite.json: missing"), std::string::npos) << c.output;
}

}  // namespace
}  // namespace vxsynth::suite::test
