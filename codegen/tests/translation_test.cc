// The Vortex-first CUDA translation (CudaTranslation::kVortexLiteral, docs/codegen.md "CUDA
// translations"): on every test point (family × precision path × strategy, seed and variants) the
// emitted CUDA candidate has nothing the Vortex kernel lacks — no cp.async, no vector loads, no
// ldmatrix/TMA, no TF32 wmma, no cache hints — while the Vortex kernel is the same one; a TF32
// reference runs FP16 wmma with its operands rounded on the fill. One point per family × path ×
// strategy compiles with nvcc for sm_90 (device code), and its PTX is checked for the same
// instructions.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test_points.h"
#include "vxsynth/check/precision.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/toolchain.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/core/metrics.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;
using testing_points::Case;

/// `p` under the Vortex-first translation; a TF32 reference's m16n16k8 fragment (TF32 wmma's only
/// shape) becomes FP16 m16n16k16, as the Vortex-first seed makes it; lane_map element (no vector
/// fills to drop here) becomes contiguous, the same kernel on both sides.
DesignPoint vortex_literal(DesignPoint p) {
  p.cuda_translation = CudaTranslation::kVortexLiteral;
  if (p.axes.tensor_core.shape == FragShape::kM16N16K8) p.axes.tensor_core.shape = FragShape::kM16N16K16;
  if (p.axes.lane_map == LaneMap::kElement) p.axes.lane_map = LaneMap::kContiguous;
  return p;
}

/// What no literal translation may contain (source text of every file of the CUDA candidate).
constexpr const char* kForbiddenSource[] = {
    "cp.async", "vxs_fill16", "vxs_async", "uint4", "float4", "int4", "ldmatrix", "cp.async.bulk", "memcpy_async",
    "cuda::pipeline", "precision::tf32", "vxs_round_tf32", "__ldg(", "__ldcg(", "VEC_A", "VEC_B"};
/// ... and of its PTX: asynchronous copies, vector global loads, ldmatrix, bulk (TMA) copies, TF32 mma.
constexpr const char* kForbiddenPtx[] = {"cp.async", "ld.global.v", "ld.global.nc.v", "ldmatrix", "cp.async.bulk",
                                         ".tf32"};

std::vector<std::string> forbidden_in(const Candidate& c, std::span<const char* const> words) {
  std::vector<std::string> hits;
  for (const SourceFile& f : c.files)
    for (const char* w : words)
      if (f.text.find(w) != std::string::npos) hits.push_back(f.name + ": " + w);
  return hits;
}

/// `c` without vxs_wmma.cuh: it declares a shared-memory load for every fragment kind, TF32 among
/// them; which ones a candidate uses is what its PTX says (VortexLiteralCompiles: no `.tf32`).
Candidate without_fragment_declarations(const Candidate& c) {
  Candidate own;
  for (const SourceFile& f : c.files)
    if (f.name != "vxs_wmma.cuh") own.files.push_back(f);
  return own;
}

TEST(VortexLiteral, EveryTestPointHasOnlyWhatTheVortexSideHas) {
  int tc = 0;
  for (const Case& c : testing_points::all_cases()) {
    // A warpgroup shape exists only in the native translation (validation rejects it under
    // vortex-literal: Validation.WarpgroupShapesNeedWhatTheLoweringReads).
    if (warpgroup_mma(c.point.axes.tensor_core.shape)) continue;
    const DesignPoint p = vortex_literal(c.point);
    ASSERT_EQ(validation_errors(p), "") << c.name;
    const Candidate cuda = emit_cuda(p);
    EXPECT_EQ(forbidden_in(without_fragment_declarations(cuda), kForbiddenSource), std::vector<std::string>{})
        << c.name;
    const std::string& cu = cuda.file(kCudaFileName).text;
    EXPECT_NE(cu.find("CUDA translation vortex-literal"), std::string::npos) << c.name;
    for (const SourceFile& f : cuda.files) EXPECT_NE(f.name, "vxs_tc.cuh") << c.name;
    if (!p.axes.tensor_core.enabled) continue;
    ++tc;
    EXPECT_NE(cu.find("#define STAGES 1 "), std::string::npos) << c.name;   // register prefetch, no cp.async stages
    EXPECT_NE(cu.find("#define LDA (BK + 0)"), std::string::npos) << c.name;  // Vortex's unpadded rows
    // The Vortex side's K steps (vortex_stage_k) where its local memory does not hold BK.
    EXPECT_EQ(cu.find("#define BK_TILE") != std::string::npos, vortex_stage_k(p) != p.axes.tile.k) << c.name;
    const bool tf32 = c.point.fixed.path == check::PrecisionPath::kTf32;
    EXPECT_EQ(cuda_path(p), tf32 ? check::PrecisionPath::kTf32Fp16 : c.point.fixed.path) << c.name;
    if (tf32) {  // FP16 fragments, fp32 accumulate, operands rounded to FP16 on the fill
      EXPECT_NE(cu.find("FK, half, wmma::row_major> fa[WTM];"), std::string::npos) << c.name;
      EXPECT_NE(cu.find("__float2half_rn(vxs_load_a("), std::string::npos) << c.name;
      EXPECT_NE(cu.find("wmma::fragment<wmma::accumulator, FM, FN, FK, float>"), std::string::npos) << c.name;
    } else {  // the Vortex kernel is the one CUDA-first pairs with the same design
      DesignPoint native = c.point;  // element and contiguous: the same Vortex kernel, named apart
      if (native.axes.lane_map == LaneMap::kElement) native.axes.lane_map = LaneMap::kContiguous;
      const Candidate a = emit_vortex(p), b = emit_vortex(native);
      ASSERT_EQ(a.files.size(), b.files.size()) << c.name;
      for (size_t i = 0; i < a.files.size(); ++i) EXPECT_EQ(a.files[i].text, b.files[i].text) << c.name << " " << a.files[i].name;
    }
  }
  EXPECT_EQ(tc, 100);  // 40 tile-epilogue, 40 warp-epilogue, 10 live-fill and 10 sub-stage points
  // The check can fail: the native translation of a tensor-core seed with contiguous operands has
  // cp.async stages and 16-byte fills.
  const DesignPoint native = testing_points::seed(check::OpFamily::kLinear, check::PrecisionPath::kBf16);
  EXPECT_NE(forbidden_in(emit_cuda(native), kForbiddenSource), std::vector<std::string>{});
}

TEST(VortexLiteral, DesignJsonCarriesTheTranslationAndNativeIsUnchanged) {
  const DesignPoint seed = testing_points::seed(check::OpFamily::kConv1d, check::PrecisionPath::kTf32);
  EXPECT_FALSE(to_json(seed).contains("cuda_translation"));  // CUDA-first records as before
  const DesignPoint p = vortex_literal(seed);
  const nlohmann::json j = to_json(p);
  EXPECT_EQ(j.at("cuda_translation"), "vortex-literal");
  EXPECT_EQ(design_point_from_json(j).cuda_translation, CudaTranslation::kVortexLiteral);
  nlohmann::json bad = j;
  bad["cuda_translation"] = "ptx";
  try {
    (void)design_point_from_json(bad);
    ADD_FAILURE() << "an unknown translation was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'cuda_translation' is \"ptx\", expected one of native, vortex-literal"),
              std::string::npos)
        << e.what();
  }
  // tf32-fp16 is how a translation computes, never a design's fixed data types.
  DesignPoint wrong = p;
  wrong.fixed.path = check::PrecisionPath::kTf32Fp16;
  EXPECT_NE(validation_errors(wrong).find("fixed: path tf32-fp16 is how a translation computes"), std::string::npos);
  // FP16 has no k8 wmma; TF32 only k8.
  DesignPoint k8 = p;
  k8.axes.tensor_core.shape = FragShape::kM16N16K8;
  EXPECT_NE(validation_errors(k8).find("fp16 shapes are"), std::string::npos) << validation_errors(k8);
  // The driver's source-output check uses the FP16 path's tolerance.
  const std::string drv = emit_cuda_driver(p, "t", 1).file("driver.cu").text;
  const auto tol = check::tolerance(check::PrecisionPath::kTf32Fp16, check::CheckKind::kSourceOutput);
  EXPECT_NE(drv.find(fmt::format("s.rtol = {:g};", tol.rtol)), std::string::npos) << drv;
  EXPECT_NE(drv.find("s.path = \"tf32-fp16\";"), std::string::npos);
}

/// One point per family × precision path × strategy: the tensor-core seed (cp.async stages and
/// vector fills natively), the FP32 v1 (no shared memory, read_once: cache hints natively) and the
/// SIMT BF16 v1.
std::vector<Case> one_per_strategy() {
  std::vector<Case> out;
  for (const Case& c : testing_points::all_cases()) {
    const bool tc = c.point.axes.tensor_core.enabled;
    if ((tc && c.name.ends_with("_seed")) || (!tc && c.name.ends_with("_v1")))
      out.push_back({c.name, vortex_literal(c.point)});
  }
  return out;
}

/// PTX of `p`'s CUDA candidate (device code only: -cubin runs cicc and ptxas for sm_90, half the
/// time of -c; the host side is what CudaCompiles builds). Empty when nvcc failed (a test failure
/// is recorded with its command and output).
std::string candidate_ptx(const DesignPoint& p, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("vxsynth_ptx_" + std::to_string(::getpid())) / name;
  fs::create_directories(dir / "keep");
  write_candidate(dir, emit_cuda(p));
  const ProcessResult r = run_process({find_nvcc()->string(), core::nvcc_target_flag("sm_90"), "-std=c++17", "-O2", "-cubin", "--keep",
                                       "--keep-dir", (dir / "keep").string(), kCudaFileName, "-o", "candidate.cubin"},
                                      {300, dir});
  EXPECT_TRUE(r.ok()) << r.command << "\n" << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  std::string ptx;
  for (const auto& e : fs::directory_iterator(dir / "keep"))
    if (e.path().extension() == ".ptx") ptx += read_file(e.path());
  std::error_code ec;
  fs::remove_all(dir, ec);
  return ptx;
}

/// The wmma lines of `ptx`, one per line.
std::string wmma_lines(const std::string& ptx) {
  std::string wmma;
  for (size_t at = ptx.find("wmma."); at != std::string::npos; at = ptx.find("wmma.", at + 1))
    wmma += ptx.substr(at, ptx.find('\n', at) - at) + "\n";
  return wmma;
}

/// Every wmma.load / wmma.store of a tensor-core candidate names the shared state space: the
/// generic form compiles to LD.E / ST.E, which ncu counts as global loads (vxs_wmma.cuh).
void expect_shared_fragments(const std::string& wmma, const std::string& name) {
  std::istringstream lines(wmma);
  int accesses = 0;
  for (std::string l; std::getline(lines, l);) {
    if (!l.starts_with("wmma.load") && !l.starts_with("wmma.store")) continue;
    ++accesses;
    EXPECT_NE(l.find(".shared."), std::string::npos) << name << ": generic fragment access: " << l;
  }
  EXPECT_GT(accesses, 0) << name << ": no wmma.load/store in\n" << wmma;
}

class VortexLiteralCompiles : public ::testing::TestWithParam<Case> {};

TEST_P(VortexLiteralCompiles, WithNvccForSm90AndItsPtxHasNoneOfIt) {
  if (!find_nvcc()) GTEST_SKIP() << "nvcc not found (/usr/local/cuda/bin/nvcc or $NVCC)";
  const Case& c = GetParam();
  const std::string ptx = candidate_ptx(c.point, c.name);
  ASSERT_FALSE(ptx.empty()) << "nvcc --keep left no .ptx";
  Candidate as_ptx;
  as_ptx.files.push_back({"candidate.ptx", ptx});
  EXPECT_EQ(forbidden_in(as_ptx, kForbiddenPtx), std::vector<std::string>{}) << c.name;
  const std::string wmma = wmma_lines(ptx);
  if (cuda_path(c.point) == check::PrecisionPath::kTf32Fp16) {  // FP16 fragments (PTX ISA: wmma.load .f16)
    EXPECT_NE(wmma.find("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16"), std::string::npos) << wmma;
    EXPECT_NE(wmma.find("wmma.mma.sync.aligned.row."), std::string::npos) << wmma;
  }
  if (c.point.axes.tensor_core.enabled) expect_shared_fragments(wmma, c.name);
}

/// The native translation of the same tensor-core points: TF32 and BF16 fragments too.
std::vector<Case> tensor_core_seeds() {
  std::vector<Case> out;
  for (const Case& c : testing_points::all_cases())
    if (c.point.axes.tensor_core.enabled && c.name.ends_with("_seed")) out.push_back(c);
  return out;
}

class NativeFragments : public ::testing::TestWithParam<Case> {};

TEST_P(NativeFragments, LoadAndStoreThroughSharedMemory) {
  if (!find_nvcc()) GTEST_SKIP() << "nvcc not found (/usr/local/cuda/bin/nvcc or $NVCC)";
  const Case& c = GetParam();
  const std::string ptx = candidate_ptx(c.point, "native_" + c.name);
  ASSERT_FALSE(ptx.empty()) << "nvcc --keep left no .ptx";
  expect_shared_fragments(wmma_lines(ptx), c.name);
}

INSTANTIATE_TEST_SUITE_P(FamilyPath, NativeFragments, ::testing::ValuesIn(tensor_core_seeds()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

INSTANTIATE_TEST_SUITE_P(FamilyPathStrategy, VortexLiteralCompiles, ::testing::ValuesIn(one_per_strategy()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace vxsynth::codegen
