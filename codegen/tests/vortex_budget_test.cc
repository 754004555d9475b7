// The runaway guard of generated kernels (codegen/src/vortex_check.cc, docs/vxsim.md "Budgets of
// generated kernels") measured on the kernels themselves: every small design point, run on vxsim
// in functional mode, must execute well inside its derived warp-instruction budget, with the
// budget's fixed part taken out (at these shapes the fixed part alone would hide any error).
// Includes the shape class that once ran out of its budget on the H200: a convolution whose GEMM
// view has far fewer output columns than one block tile (Diffusion Policy's TF32 conv1d, N·Q = 4).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "test_points.h"
#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;

std::vector<testing_points::Case> budget_cases() {
  using check::OpFamily;
  using check::PrecisionPath;
  std::vector<testing_points::Case> out;
  // The seed and the first variant (fp32: no shared-memory staging, the most instructions per MAC)
  // of each family on the SIMT and a tensor-core path (bf16 executes what tf32 does, within 1 %).
  for (auto f : {OpFamily::kLinear, OpFamily::kBmm, OpFamily::kConv1d, OpFamily::kConv2d})
    for (auto p : {PrecisionPath::kFp32, PrecisionPath::kTf32}) {
      const auto v = testing_points::variants(f, p);
      out.insert(out.end(), v.begin(), v.begin() + 2);
    }
  // Diffusion Policy k2's class: conv1d C→K with 4 output positions and 5 taps (N·Q = 4 columns of
  // the GEMM view against a 32- or 64-wide block tile), TF32 and FP32, seed and split-K.
  for (auto p : {PrecisionPath::kTf32, PrecisionPath::kFp32}) {
    FixedProperties f = testing_points::small_fixed(OpFamily::kConv1d, p);
    f.op.conv.n = 1; f.op.conv.c = 96; f.op.conv.w = 4; f.op.conv.k = 64; f.op.conv.s = 5; f.op.conv.pad = {0, 2};
    const DesignPoint s = seed_design_point(f);
    const std::string base = std::string("conv1d_narrow_") + std::string(check::to_string(p));
    out.push_back({base + "_seed", s});
    DesignPoint k = s;
    k.axes.split_k = 4;
    try {
      validate(k);
      out.push_back({base + "_splitk4", k});
    } catch (const Error&) {  // not a valid point for this path: the seed alone
    }
  }
  return out;
}

class VortexBudget : public ::testing::TestWithParam<testing_points::Case> {};

TEST_P(VortexBudget, KernelRunsWellInsideItsDerivedBudget) {
  const auto sdk = find_sdk_dir(VXSYNTH_BUILD_DIR);
  if (!sdk || !fs::exists(fs::path(VXSYNTH_BUILD_DIR) / "sim/runtime/libvortex.a"))
    GTEST_SKIP() << "no SDK + runtime build in " << VXSYNTH_BUILD_DIR;
  const auto& c = GetParam();
  const fs::path work = fs::temp_directory_path() / ("vxsynth_budget_" + std::to_string(::getpid())) / c.name;
  const fs::path sig = work / "signature.json";
  fs::create_directories(work);
  ::setenv("VXSIM_SIGNATURE", sig.c_str(), 1);
  const auto r = check_vortex_candidate(c.point, work, *sdk, 7, /*timing=*/true);
  ::unsetenv("VXSIM_SIGNATURE");
  ASSERT_TRUE(r.passed()) << r.summary() << "\n" << r.run.run.output;
  ASSERT_TRUE(fs::exists(sig)) << "the runtime wrote no signature";
  const auto j = nlohmann::json::parse(read_file(sig));
  uint64_t executed = 0;
  for (const auto& l : j["launches"]) executed += l["counters"]["warp_instrs"].get<uint64_t>();
  const uint64_t variable = vxsim_instr_budget(c.point) - kVxsimBudgetFixed;
  std::cout << "BUDGET " << c.name << " executed " << executed << " variable budget " << variable << " ratio "
            << static_cast<double>(variable) / static_cast<double>(executed) << " thread instrs per design MAC "
            << j["counters"]["thread_instrs"].get<double>() / static_cast<double>(vxsim_design_macs(c.point)) << "\n";
  // A 2x margin at least over what the kernel executes; the guard's purpose is a runaway kernel.
  EXPECT_GE(variable, 2 * executed) << c.name;
  fs::remove_all(work);
}

INSTANTIATE_TEST_SUITE_P(Designs, VortexBudget, ::testing::ValuesIn(budget_cases()),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace vxsynth::codegen
