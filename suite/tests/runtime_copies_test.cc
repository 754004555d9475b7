// The fixed runtime files of a committed suite (docs/suite.md "Runtime files"): the benchmarks
// leave out their copies of codegen/runtime/, the manifest lists them with SHA-256 and generator
// version, `suite check` and `suite run` name a runtime that changed since the export unless its
// old version is kept in codegen/runtime/previous/, and `suite materialize` (which the suite's
// Makefile runs) writes them back before a benchmark is built.
#include <gtest/gtest.h>

#include "generated.h"
#include "runtime_copies.h"
#include "sources.h"
#include "suite_test_util.h"
#include "validation.h"
#include "vxsynth/common/error.h"
#include "vxsynth/codegen/generator_version.h"
#include "vxsynth/refine/agent.h"

namespace vxsynth::suite::test {
namespace {

using nlohmann::json;

const fs::path kCommitted = kSource / "data" / "suite" / "vx-robotics-h200";
const fs::path kRuntime = kSource / "codegen" / "runtime";

/// File names of codegen/runtime/ that a candidate directory may hold a copy of.
std::set<std::string> runtime_names() {
  std::set<std::string> out;
  for (const char* sub : {"common", "cuda", "vortex"})
    for (const auto& f : fs::directory_iterator(kRuntime / sub)) out.insert(f.path().filename().string());
  return out;
}

std::vector<std::string> built(const fs::path& suite) {
  std::vector<std::string> out;
  const json index = json_file(suite / "suite.json");
  for (const json& b : index["benchmarks"])
    if (b["status"] == "built") out.push_back(b["name"].get<std::string>());
  return out;
}

TEST(SuiteRuntime, CommittedSuiteListsItsRuntimeFilesInsteadOfCopies) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const std::set<std::string> names = runtime_names();
  const RuntimeStore store = RuntimeStore::from_directory(kRuntime);
  const json m = json_file(kCommitted / "manifest.json");
  ASSERT_TRUE(m.contains("runtime")) << "manifest.json has no runtime object";
  for (const std::string& b : built(kCommitted)) {
    for (const char* sub : {"vortex", "cuda"}) {
      if (!fs::exists(kCommitted / b / sub)) continue;  // absent when every file in it is listed or regenerated
      for (const auto& f : fs::directory_iterator(kCommitted / b / sub))
        EXPECT_FALSE(names.count(f.path().filename().string())) << f.path() << ": a copy of codegen/runtime";
    }
    ASSERT_TRUE(m["runtime"].contains(b)) << b;
    const json& e = m["runtime"][b];
    // Made by this generator or an older one, whose runtime files codegen/runtime still holds.
    ASSERT_TRUE(e["generator_version"].is_number_integer()) << b;
    EXPECT_LE(e["generator_version"].get<int>(), codegen::kGeneratorVersion) << b;
    EXPECT_TRUE(e["files"].contains("vortex/vxs_driver.cpp")) << b << ": " << e;
    EXPECT_TRUE(e["files"].contains("cuda/vxs_cuda.cuh")) << b << ": " << e;
    for (const auto& [rel, f] : e["files"].items())
      EXPECT_NE(store.find(f["runtime"].get<std::string>(), f["sha256"].get<std::string>()), nullptr)
          << b << " " << rel << ": neither codegen/runtime/ nor codegen/runtime/previous/ holds it (see its README.md)";
    // Its generated sources: left out when this generator renders them again, else kept with the reason.
    ASSERT_TRUE(m["generated"].contains(b)) << b;
    const json& g = m["generated"][b];
    for (const auto& [rel, sha] : g["files"].items()) EXPECT_FALSE(fs::exists(kCommitted / b / rel)) << b << " " << rel;
    for (const auto& [rel, why] : g["kept"].items()) EXPECT_TRUE(fs::exists(kCommitted / b / rel)) << b << " " << rel;
    EXPECT_FALSE(g["files"].empty() && g["kept"].empty()) << b;
  }
}

TEST(SuiteRuntime, MaterializeWritesTheRuntimeFilesForTheMakefile) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const TempDir tmp("vxsuite_runtime_make");
  const fs::path copy = tmp / "s";
  ASSERT_EQ(vxsynth({"suite", "export", kCommitted.string(), "-o", copy.string()}).exit_code, 0);
  const ProcessResult r = run_process({"make", "-C", copy.string(), "BENCH=act-k4", std::string("VXSYNTH=") + VXSYNTH_EXE,
                                       "src-act-k4"}, {60.0});
  ASSERT_TRUE(r.ok()) << r.output;
  const fs::path src = copy / "build" / "src" / "act-k4";
  for (const char* f : {"common/vxs_dims.h", "vortex/vxs_driver.cpp", "vortex/vxs_driver.h", "vortex/vxs_device.h",
                        "vortex/vxs_kernel_arg.h"})
    EXPECT_EQ(read_file(src / "vortex" / fs::path(f).filename()), read_file(kRuntime / f)) << f;
  EXPECT_EQ(read_file(src / "cuda" / "vxs_cuda.cuh"), read_file(kRuntime / "cuda" / "vxs_cuda.cuh"));
  const json manifest = json_file(kCommitted / "manifest.json");
  EXPECT_EQ(refine::sha256_hex(read_file(src / "vortex" / "kernel.cpp")),
            manifest["generated"]["act-k4"]["files"]["vortex/kernel.cpp"].get<std::string>());
  // An -o that holds someone's files is refused.
  fs::create_directories(tmp / "mine");
  write_file_atomic(tmp / "mine" / "notes.txt", "mine\n");
  const ProcessResult m = vxsynth({"suite", "materialize", copy.string(), "-o", (tmp / "mine").string()});
  EXPECT_EQ(m.exit_code, 2) << m.output;
  EXPECT_NE(m.output.find("vxsynth never writes over it"), std::string::npos) << m.output;
}

/// A runtime directory like codegen/runtime/ in `dir`, with vortex/vxs_driver.cpp changed as a later
/// non-additive edit would change it.
fs::path changed_runtime(const fs::path& dir) {
  fs::copy(kRuntime, dir, fs::copy_options::recursive);
  write_file_atomic(dir / "vortex" / "vxs_driver.cpp", read_file(kRuntime / "vortex" / "vxs_driver.cpp") + "// changed\n");
  return dir;
}

TEST(SuiteRuntime, AChangedRuntimeFileIsFoundInPrevious) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const TempDir tmp("vxsuite_runtime_previous");
  const fs::path rt = changed_runtime(tmp / "runtime");
  const json m = json_file(kCommitted / "manifest.json");
  const std::string old_sha = refine::sha256_hex(read_file(kRuntime / "vortex" / "vxs_driver.cpp"));
  // Without the old version kept, check names the benchmark's file and both SHA-256.
  std::vector<std::string> problems;
  check_runtime(kCommitted, m, problems, RuntimeStore::from_directory(rt));
  ASSERT_EQ(problems.size(), built(kCommitted).size());
  const std::string new_sha = refine::sha256_hex(read_file(rt / "vortex" / "vxs_driver.cpp"));
  EXPECT_NE(problems[0].find("vortex/vxs_driver.cpp with SHA-256 " + old_sha), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("has SHA-256 " + new_sha), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("codegen/runtime/previous/ holds no vortex/vxs_driver.cpp." + old_sha.substr(0, 16)),
            std::string::npos) << problems[0];
  // Kept as the README in codegen/runtime/previous/ says: the committed suite checks and builds from it.
  fs::create_directories(rt / "previous" / "vortex");
  fs::copy_file(kRuntime / "vortex" / "vxs_driver.cpp", rt / "previous" / "vortex" / ("vxs_driver.cpp." + old_sha.substr(0, 16)));
  const RuntimeStore store = RuntimeStore::from_directory(rt);
  problems.clear();
  check_runtime(kCommitted, m, problems, store);
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_EQ(benchmark_sources(kCommitted, "act-k4", store).at("vortex/vxs_driver.cpp"),
            read_file(kRuntime / "vortex" / "vxs_driver.cpp"));
  // A file of previous/ must be named by its SHA-256.
  fs::copy_file(rt / "vortex" / "vxs_driver.h", rt / "previous" / "vortex" / "vxs_driver.h.0123456789abcdef");
  EXPECT_THROW((void)RuntimeStore::from_directory(rt), Error);
}

TEST(SuiteRuntime, EveryPreviousRuntimeFileIsNamedByItsSha256) {
  const RuntimeStore store = RuntimeStore::from_directory(kRuntime);  // throws for a misnamed file
  for (const auto& f : fs::directory_iterator(kRuntime / "vortex"))
    EXPECT_NE(store.current("vortex/" + f.path().filename().string()), nullptr) << f.path();
}

TEST(SuiteRuntime, ARuntimeChangedSinceTheExportIsNamedByCheckRunAndExport) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const TempDir tmp("vxsuite_runtime_changed");
  const fs::path copy = tmp / "s";
  ASSERT_EQ(vxsynth({"suite", "export", kCommitted.string(), "-o", copy.string()}).exit_code, 0);
  // The manifest as an export made with another runtime writes it: vxs_driver.cpp's SHA-256 differs.
  json m = json_file(copy / "manifest.json");
  m["runtime"]["act-k4"]["files"]["vortex/vxs_driver.cpp"]["sha256"] = std::string(64, '0');
  write_file_atomic(copy / "manifest.json", m.dump(1));
  const std::string said = (copy / "act-k4" / "vortex" / "vxs_driver.cpp").string() +
                           ": benchmark act-k4 uses codegen/runtime/vortex/vxs_driver.cpp with SHA-256 " +
                           std::string(64, '0');
  const ProcessResult c = vxsynth({"suite", "check", copy.string()});
  EXPECT_EQ(c.exit_code, 1) << c.output;
  EXPECT_NE(c.output.find(said), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("the runtime changed since the suite was exported"), std::string::npos) << c.output;
  const ProcessResult r = vxsynth({"suite", "run", copy.string(), "--benchmark", "act-k4", "--sdk", VXSYNTH_SDK_DIR});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(said), std::string::npos) << r.output;
  const ProcessResult e = vxsynth({"suite", "export", copy.string(), "-o", (tmp / "again").string()});
  EXPECT_EQ(e.exit_code, 2) << e.output;
  EXPECT_NE(e.output.find(said), std::string::npos) << e.output;

  // A copy put back beside the listing is reported too.
  m["runtime"]["act-k4"]["files"]["vortex/vxs_driver.cpp"]["sha256"] =
      refine::sha256_hex(read_file(kRuntime / "vortex" / "vxs_driver.cpp"));
  write_file_atomic(copy / "manifest.json", m.dump(1));
  EXPECT_EQ(vxsynth({"suite", "check", copy.string()}).exit_code, 0);
  fs::create_directories(copy / "act-k4" / "vortex");
  fs::copy_file(kRuntime / "vortex" / "vxs_driver.cpp", copy / "act-k4" / "vortex" / "vxs_driver.cpp");
  const ProcessResult twice = vxsynth({"suite", "check", copy.string()});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.output.find("vxs_driver.cpp: present, and also listed as a runtime file"), std::string::npos)
      << twice.output;
}

}  // namespace
}  // namespace vxsynth::suite::test

namespace vxsynth::suite::test {
namespace {

// A benchmark whose expected timing-mode cost exceeds --timeout is listed as not run, with the
// estimate, and does not fail the run: π0 k2 of the committed suite (≈ 10,500 s at the default 3600 s),
// and ACT k4 once --timeout is below its estimate.
TEST(SuiteRunLimit, ABenchmarkBeyondTheTimeoutIsNotRunAndSaysWhy) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const TempDir tmp("vxsuite_run_limit");
  const fs::path copy = tmp / "s";
  ASSERT_EQ(vxsynth({"suite", "export", kCommitted.string(), "-o", copy.string()}).exit_code, 0);
  const ProcessResult r = vxsynth({"suite", "run", copy.string(), "--benchmark", "pi0-k2", "--sdk", VXSYNTH_SDK_DIR});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("pi0-k2: skipped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("more than --timeout 3600 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 of 1 benchmarks passed, 1 not run"), std::string::npos) << r.output;
  EXPECT_NE(read_file(copy / "run.csv").find("pi0-k2,skipped,"), std::string::npos);
  const ProcessResult small =
      vxsynth({"suite", "run", copy.string(), "--benchmark", "act-k4", "--timeout", "0.001", "--sdk", VXSYNTH_SDK_DIR});
  EXPECT_EQ(small.exit_code, 0) << small.output;
  EXPECT_NE(small.output.find("act-k4: skipped"), std::string::npos) << small.output;
}

// Bad options of suite run fail before any benchmark runs and leave the files as they were: an
// unknown --benchmark, a --set that is no timing parameter, a --csv in a missing directory or over
// a file that is not a suite run CSV.
TEST(SuiteRunOptions, BadOptionsFailBeforeAnythingRunsOrIsWritten) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const TempDir tmp("vxsuite_run_options");
  const fs::path copy = tmp / "s";
  ASSERT_EQ(vxsynth({"suite", "export", kCommitted.string(), "-o", copy.string()}).exit_code, 0);
  write_file_atomic(copy / "run.csv", "an earlier run\n");
  const auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"suite", "run", copy.string(), "--sdk", VXSYNTH_SDK_DIR};
    args.insert(args.end(), extra.begin(), extra.end());
    return vxsynth(args);
  };
  ProcessResult r = run({"--benchmark", "act-k9"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--benchmark act-k9: not a built benchmark"), std::string::npos) << r.output;
  r = run({"--benchmark", "act-k4", "--set", "l2.nosuch=3"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown timing parameter 'l2.nosuch'"), std::string::npos) << r.output;
  r = run({"--benchmark", "act-k4", "--csv", (tmp / "missing" / "run.csv").string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
  write_file_atomic(tmp / "mine.csv", "a user's file\n");
  r = run({"--benchmark", "act-k4", "--csv", (tmp / "mine.csv").string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(read_file(tmp / "mine.csv"), "a user's file\n");
  EXPECT_EQ(read_file(copy / "run.csv"), "an earlier run\n");
  EXPECT_FALSE(fs::exists(copy / "run")) << "a benchmark was run";
}

// A benchmark stages the tensors of the op it was built for, its locked design point's: the
// committed π0 k1/k3 were seeded before a broadcast bmm operand kept batch stride 0, so today's
// reading of their reference context gives another B (one key head instead of 8 copies), whose
// redrawn bytes would not match tensors.json.
TEST(SuiteRunTensors, ABenchmarkStagesTheTensorsOfItsLockedDesign) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const TempDir tmp("vxsuite_run_tensors");
  for (const char* name : {"pi0-k3", "act-k4"}) {
    const fs::path bench = kCommitted / name;
    const json tensors = json_file(kCommitted / "validation" / name / "tensors.json");
    const TensorSpec spec = tensor_spec(codegen::design_point_from_json(locked_entry(bench).design));
    EXPECT_EQ(materialize_tensors(tensors, spec, bench / "data", tmp / name), "") << name;
    EXPECT_TRUE(fs::exists(tmp / name / "ref_output.bin")) << name;
  }
}

}  // namespace
}  // namespace vxsynth::suite::test
