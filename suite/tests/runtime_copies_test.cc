// The fixed runtime files of a committed suite (docs/suite.md "Runtime files"): the benchmarks
// leave out their copies of codegen/runtime/, the manifest lists them with SHA-256 and generator
// version, `suite check` and `suite run` name a runtime that changed since the export, and the
// suite's Makefile puts them back from codegen/runtime/ before it builds a benchmark.
#include <gtest/gtest.h>

#include "suite_test_util.h"
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
  for (const json& b : json_file(suite / "suite.json")["benchmarks"])
    if (b["status"] == "built") out.push_back(b["name"].get<std::string>());
  return out;
}

TEST(SuiteRuntime, CommittedSuiteListsItsRuntimeFilesInsteadOfCopies) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const std::set<std::string> names = runtime_names();
  const json m = json_file(kCommitted / "manifest.json");
  ASSERT_TRUE(m.contains("runtime")) << "manifest.json has no runtime object";
  for (const std::string& b : built(kCommitted)) {
    for (const char* sub : {"vortex", "cuda"})
      for (const auto& f : fs::directory_iterator(kCommitted / b / sub))
        EXPECT_FALSE(names.count(f.path().filename().string())) << f.path() << ": a copy of codegen/runtime";
    ASSERT_TRUE(m["runtime"].contains(b)) << b;
    const json& e = m["runtime"][b];
    // Made by this generator or an older one, whose runtime files codegen/runtime still holds.
    ASSERT_TRUE(e["generator_version"].is_number_integer()) << b;
    EXPECT_LE(e["generator_version"].get<int>(), codegen::kGeneratorVersion) << b;
    EXPECT_TRUE(e["files"].contains("vortex/vxs_host.cpp")) << b << ": " << e;
    EXPECT_TRUE(e["files"].contains("cuda/vxs_cuda.cuh")) << b << ": " << e;
    for (const auto& [rel, f] : e["files"].items())
      EXPECT_EQ(f["sha256"], refine::sha256_hex(read_file(kRuntime / f["runtime"].get<std::string>()))) << b << " " << rel;
  }
}

TEST(SuiteRuntime, MakefileTakesTheRuntimeFromCodegenRuntime) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const TempDir tmp("vxsuite_runtime_make");
  const fs::path copy = tmp / "s";
  ASSERT_EQ(vxsynth({"suite", "export", kCommitted.string(), "-o", copy.string()}).exit_code, 0);
  const ProcessResult r =
      run_process({"make", "-C", copy.string(), "BENCH=act-k4", std::string("VXSDK=") + VXSYNTH_SDK_DIR, "src-act-k4"}, {60.0});
  ASSERT_TRUE(r.ok()) << r.output;
  for (const char* f : {"common/vxs_dims.h", "vortex/vxs_host.cpp", "vortex/vxs_host.h", "vortex/vxs_device.h",
                        "vortex/vxs_kernel_arg.h"})
    EXPECT_EQ(read_file(copy / "build" / "act-k4" / "src" / fs::path(f).filename()), read_file(kRuntime / f)) << f;
  EXPECT_EQ(read_file(copy / "build" / "act-k4" / "src" / "kernel.cpp"), read_file(copy / "act-k4" / "vortex" / "kernel.cpp"));
  // A real Vortex tree without VXS_RUNTIME: no sdk.mk names the runtime, and make says what to set.
  fs::remove_all(copy / "build");
  const ProcessResult v = run_process({"make", "-C", copy.string(), "BENCH=act-k4", "VORTEX_HOME=/nonexistent", "build-act-k4"}, {60.0});
  EXPECT_FALSE(v.ok());
  EXPECT_NE(v.output.find("act-k4: no runtime files: set VXS_RUNTIME=<vxsynth source>/codegen/runtime"), std::string::npos)
      << v.output;
}

TEST(SuiteRuntime, ARuntimeChangedSinceTheExportIsNamedByCheckRunAndExport) {
  if (!fs::exists(kCommitted / "suite.json")) GTEST_SKIP() << "no suite at " << kCommitted;
  const TempDir tmp("vxsuite_runtime_changed");
  const fs::path copy = tmp / "s";
  ASSERT_EQ(vxsynth({"suite", "export", kCommitted.string(), "-o", copy.string()}).exit_code, 0);
  // The manifest as an export made with another runtime writes it: vxs_host.cpp's SHA-256 differs.
  json m = json_file(copy / "manifest.json");
  m["runtime"]["act-k4"]["files"]["vortex/vxs_host.cpp"]["sha256"] = std::string(64, '0');
  write_file_atomic(copy / "manifest.json", m.dump(1));
  const std::string said = (copy / "act-k4" / "vortex" / "vxs_host.cpp").string() +
                           ": benchmark act-k4 uses codegen/runtime/vortex/vxs_host.cpp with SHA-256 " +
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
  m["runtime"]["act-k4"]["files"]["vortex/vxs_host.cpp"]["sha256"] =
      refine::sha256_hex(read_file(kRuntime / "vortex" / "vxs_host.cpp"));
  write_file_atomic(copy / "manifest.json", m.dump(1));
  EXPECT_EQ(vxsynth({"suite", "check", copy.string()}).exit_code, 0);
  fs::copy_file(kRuntime / "vortex" / "vxs_host.cpp", copy / "act-k4" / "vortex" / "vxs_host.cpp");
  const ProcessResult twice = vxsynth({"suite", "check", copy.string()});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.output.find("vxs_host.cpp: present, and also listed as a runtime file"), std::string::npos)
      << twice.output;
}

}  // namespace
}  // namespace vxsynth::suite::test
