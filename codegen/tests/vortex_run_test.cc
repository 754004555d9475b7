// End to end on vxsim: generated Vortex candidates build with the SDK, run in strict-divergence
// mode and pass the candidate check against the float64 CPU reference (small shapes).
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "test_points.h"
#include "vxsynth/codegen/vortex_check.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> runnable_sdk() {
  const auto sdk = find_sdk_dir(VXSYNTH_BUILD_DIR);
  if (!sdk) return std::nullopt;
  // sdk.mk links the host runtime (target `vortex`); without it nothing can run.
  if (!fs::exists(fs::path(VXSYNTH_BUILD_DIR) / "sim/runtime/libvortex.a")) return std::nullopt;
  return sdk;
}

class VortexRuns : public ::testing::TestWithParam<testing_points::Case> {};

TEST_P(VortexRuns, PassesCandidateCheckOnVxsim) {
  const auto sdk = runnable_sdk();
  if (!sdk) GTEST_SKIP() << "no SDK + runtime build in " << VXSYNTH_BUILD_DIR;
  const auto& c = GetParam();
  const fs::path work = fs::temp_directory_path() / ("vxsynth_codegen_run_" + std::to_string(::getpid())) / c.name;
  const auto r = check_vortex_candidate(c.point, work, *sdk, /*seed=*/0x5eed0000 + c.name.size());
  if (c.point.axes.tensor_core.enabled && r.run.run.output.find("WMMA) is not implemented") != std::string::npos) {
    GTEST_SKIP() << "vxsim has no tensor unit yet: " << r.summary();
  }
  ASSERT_TRUE(r.report.has_value()) << r.summary();
  EXPECT_TRUE(r.passed()) << r.summary() << "\n" << r.run.run.output;
  EXPECT_EQ(r.report->reference, check::ReferenceKind::kCpuFloat64);
  // One line per run for docs/codegen.md "Measured errors" (grep MEASURED).
  std::cout << "MEASURED " << c.name << " " << r.report->summary() << "\n";
  if (r.passed()) {
    std::error_code ec;
    fs::remove_all(work, ec);  // keep only failing candidates for inspection
  }
  EXPECT_NE(r.run.run.output.find("PASSED!"), std::string::npos) << r.run.run.output;  // main.cpp's own check
}

std::vector<testing_points::Case> fp32_cases() {
  std::vector<testing_points::Case> out;
  for (auto fam : {check::OpFamily::kLinear, check::OpFamily::kMatmul, check::OpFamily::kBmm, check::OpFamily::kConv1d,
                   check::OpFamily::kConv2d}) {
    for (auto path : {check::PrecisionPath::kFp32, check::PrecisionPath::kTf32, check::PrecisionPath::kBf16}) {
      for (auto& c : testing_points::variants(fam, path)) out.push_back(std::move(c));
    }
  }
  for (auto& c : testing_points::simt_bf16_cases()) out.push_back(std::move(c));
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllPaths, VortexRuns, ::testing::ValuesIn(fp32_cases()),
                         [](const ::testing::TestParamInfo<testing_points::Case>& i) { return i.param.name; });

}  // namespace
}  // namespace vxsynth::codegen
