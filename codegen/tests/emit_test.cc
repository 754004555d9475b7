// Generated candidates compile: CUDA with nvcc for sm_90 (skipped without nvcc), Vortex kernels with
// the SDK's riscv toolchain (skipped without an SDK build). Every op family × precision path, the
// seed and three axis variants each.
#include "vxsynth/codegen/emit.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <sstream>

#include "test_points.h"
#include "vxsynth/codegen/toolchain.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("vxsynth_codegen_" + std::to_string(::getpid())) / name;
  fs::create_directories(d);
  return d;
}

TEST(Emit, CandidatesCarryTheirContract) {
  const DesignPoint p = testing_points::seed(check::OpFamily::kLinear, check::PrecisionPath::kFp32);
  const Candidate cu = emit_cuda(p);
  const std::string& src = cu.file(kCudaFileName).text;
  EXPECT_NE(src.find("extern \"C\" int vxs_launch(const float* x, const float* weight, const float* bias"),
            std::string::npos);
  EXPECT_NE(src.find("#ifdef VXS_TORCH_EXTENSION"), std::string::npos);
  EXPECT_NE(src.find("m.def(\"forward\""), std::string::npos);
  for (const char* banned : {"#include <cublas", "#include <cudnn", "cutlass::", "atomicAdd", "atomicCAS", "red.global"}) {
    EXPECT_EQ(src.find(banned), std::string::npos) << banned;
  }
  const Candidate vx = emit_vortex(p);
  for (const char* f : {"kernel.cpp", "main.cpp", "common.h", "Makefile", "vxs_device.h", "vxs_sample.h", "vxs_driver.cpp"}) {
    EXPECT_NO_THROW((void)vx.file(f)) << f;
  }
  const std::string& k = vx.file("kernel.cpp").text;
  EXPECT_NE(k.find("vx_spawn_threads"), std::string::npos);
  EXPECT_NE(k.find("__local_mem"), std::string::npos);
  EXPECT_NE(k.find("__syncthreads()"), std::string::npos);
  EXPECT_NE(k.find("#include \"vxs_device.h\""), std::string::npos);  // guarded accesses
  EXPECT_NE(k.find("VXS_GLD("), std::string::npos);
  EXPECT_EQ(k.find("vx_split"), std::string::npos);                 // no SPLIT/JOIN pairing (docs/codegen.md)
  EXPECT_EQ(k.find("amoadd"), std::string::npos);
  const std::string& dev = vx.file("vxs_device.h").text;
  EXPECT_NE(dev.find("vx_vote_any"), std::string::npos);             // uniform branch of a guarded access
  EXPECT_NE(dev.find(".insn r 0x0B, 5, 0, x0"), std::string::npos);   // PRED narrows the mask
  EXPECT_EQ(dev.find("vx_split"), std::string::npos);
  EXPECT_NE(vx.file("Makefile").text.find("include $(VXSDK)/sdk.mk"), std::string::npos);
  EXPECT_NE(vx.file("Makefile").text.find("tests/regression/common.mk"), std::string::npos);
  EXPECT_NE(vx.file("Makefile").text.find("$(SRC_DIR)/vxs_driver.cpp"), std::string::npos);
  const std::string& m = vx.file("main.cpp").text;
  EXPECT_NE(m.find("#include \"vxs_driver.h\""), std::string::npos);
  EXPECT_NE(m.find("vxs::run_candidate(c, argc, argv)"), std::string::npos);
  const std::string& host = vx.file("vxs_driver.cpp").text;
  EXPECT_NE(host.find("#include <vortex.h>"), std::string::npos);
  EXPECT_NE(host.find("vx_upload_kernel_file"), std::string::npos);
  EXPECT_NE(host.find("NAN"), std::string::npos);  // output poisoned
  // An invalid point never renders.
  DesignPoint bad = p;
  bad.axes.reg_tile = {3, 3};
  EXPECT_THROW((void)emit_cuda(bad), Error);
  EXPECT_THROW((void)emit_vortex(bad), Error);
}

// A slot's next block reuses the local memory on the same warps (docs/sdk.md "`vx_spawn_threads`
// behaviour"): every Vortex kernel that reads local memory after its K loop ends that read with a
// barrier, so no warp's next operand fill overwrites Cs (tile epilogue) or a warp's scratch Cw
// (warp epilogue) while another warp still reads it.
TEST(Emit, VortexTensorCoreKernelsEndWithABarrierAfterTheirLastLocalMemoryRead) {
  int checked = 0, warp_epilogue = 0;
  for (const testing_points::Case& c : testing_points::all_cases()) {
    if (!c.point.axes.tensor_core.enabled) continue;
    const bool we = schedule_info(c.point.tc_schedule).warp_epilogue;
    const std::string staging = we ? "= Cw[" : "= Cs[";
    const std::string k = emit_vortex(c.point).file("kernel.cpp").text;
    const std::size_t body_end = k.find("static void vxs_epilogue_kernel");
    const std::string gemm = k.substr(0, body_end);
    const std::size_t last_read = gemm.rfind(staging);
    ASSERT_NE(last_read, std::string::npos) << c.name;
    EXPECT_EQ(gemm.find(we ? "= Cs[" : "= Cw["), std::string::npos) << c.name;
    EXPECT_NE(gemm.find("__syncthreads()", last_read), std::string::npos)
        << c.name << ": no barrier after the write-out through " << staging;
    const std::string cu = emit_cuda(c.point).file(kCudaFileName).text;
    EXPECT_EQ(cu.find("overwrites Cs"), std::string::npos) << c.name;
    EXPECT_EQ(cu.find("overwrites the scratch"), std::string::npos) << c.name;
    ++checked;
    warp_epilogue += we;
  }
  EXPECT_GT(checked, 0);
  EXPECT_GT(warp_epilogue, 0);
}

// Generator 9: a warp-epilogue tile wider than its operand fills only the live part and zeroes the
// rest once per block (docs/codegen.md "Tensor-core strategy"). conv1d TF32 at 32x32x16: M = 8
// filters, N·P·Q = 22; CUDA fills A with 16-byte vectors (whole tile) and B (im2col) by element,
// Vortex fills both by element.
TEST(Emit, TilesWiderThanTheOperandFillOnlyTheLivePart) {
  const DesignPoint p =
      testing_points::live_fill_point(check::OpFamily::kConv1d, check::PrecisionPath::kTf32, kDesignSpaceVersion);
  ASSERT_EQ(validation_errors(p), "");
  const std::string cu = emit_cuda(p).file(kCudaFileName).text;
  EXPECT_NE(cu.find("#define LIVE_N 22 "), std::string::npos);
  EXPECT_EQ(cu.find("#define LIVE_M"), std::string::npos) << "A is a vector operand on CUDA";
  EXPECT_NE(cu.find("#define FILL_B ((BK * LIVE_N + BS - 1) / BS)"), std::string::npos);
  EXPECT_NE(cu.find("const int in = tid + i * BS < BK * LIVE_N;"), std::string::npos);
  EXPECT_NE(cu.find("const int c = LIVE_N + x % (BN - LIVE_N);"), std::string::npos);
  const std::string vx = emit_vortex(p).file("kernel.cpp").text;
  EXPECT_NE(vx.find("#define LIVE_M 8 "), std::string::npos);
  EXPECT_NE(vx.find("#define LIVE_N 22 "), std::string::npos);
  EXPECT_NE(vx.find("#define FILL_A (LIVE_M * BK / BS)"), std::string::npos) << "8 x 16 elements, 128 threads";
  EXPECT_NE(vx.find("const int r = LIVE_M + x / BK;"), std::string::npos);
  // Both zero loops come before the K loop, once per block.
  const std::size_t k_loop = vx.find("for (int t = 0; t < kt_per_split; ++t)");
  ASSERT_NE(k_loop, std::string::npos);
  EXPECT_LT(vx.find("As outside LIVE_M x BK"), k_loop);
  EXPECT_LT(vx.find("Bs outside BK x LIVE_N"), k_loop);
  // A generic (unspecialised) K keeps the whole-tile fills.
  DesignPoint generic = p;
  generic.axes.k_range = KRange::kGeneric;
  EXPECT_EQ(emit_vortex(generic).file("kernel.cpp").text.find("LIVE_"), std::string::npos);
}

/// Lines of `text` that do not mention a fragment shape's key (the banner and axis comments).
std::string without_shape_lines(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.find("m64n") == std::string::npos && line.find("m16n16k16") == std::string::npos) out += line + '\n';
  }
  return out;
}

// Warpgroup MMA (docs/codegen.md "Warpgroup MMA") lowers the CUDA side only: wgmma from canonical
// shared tiles (no padded rows, no WMMA fragments), the proxy fence after the copies land; the
// Vortex kernel is the one of the same point with a WMMA shape (its TCU fragments over the same
// tile), apart from the lines naming the shape.
TEST(Emit, WarpgroupPointsLowerTheCudaSideOnly) {
  for (const auto& c : testing_points::warpgroup_cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_EQ(validation_errors(c.point), "");
    const Candidate cuda = emit_cuda(c.point);
    const std::string cu = cuda.file(kCudaFileName).text;
    EXPECT_NE(cu.find("#include \"vxs_wgmma.cuh\""), std::string::npos);
    EXPECT_NO_THROW((void)cuda.file("vxs_wgmma.cuh"));
    EXPECT_EQ(cu.find("wmma::"), std::string::npos);
    EXPECT_NE(cu.find("vxs_wgmma_bf16(acc[i][j], da, db);"), std::string::npos);
    EXPECT_NE(cu.find("vxs_fence_async_shared();"), std::string::npos);
    EXPECT_NE(cu.find("vxs_canonical(r, c, BK)"), std::string::npos);
    EXPECT_EQ(cu.find("#define LDA"), std::string::npos) << "canonical tiles: no padded rows";
    DesignPoint wmma = c.point;
    wmma.axes.tensor_core.shape = FragShape::kM16N16K16;
    EXPECT_EQ(without_shape_lines(emit_vortex(c.point).file("kernel.cpp").text),
              without_shape_lines(emit_vortex(wmma).file("kernel.cpp").text));
  }
}

class CudaCompiles : public ::testing::TestWithParam<testing_points::Case> {};

/// The stack frame ptxas reports for the GEMM kernel ("Function properties for …vxs_gemm_kernel…"
/// then "N bytes stack frame"); -1 when the report has no such lines.
long gemm_kernel_stack_frame(const std::string& ptxas_report) {
  const std::size_t f = ptxas_report.find("Function properties for _Z15vxs_gemm_kernel");
  if (f == std::string::npos) return -1;
  const std::size_t e = ptxas_report.find(" bytes stack frame", f);
  if (e == std::string::npos) return -1;
  std::size_t b = e;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(ptxas_report[b - 1]))) --b;
  return b == e ? -1 : std::stol(ptxas_report.substr(b, e - b));
}

TEST_P(CudaCompiles, WithNvccForSm90) {
  if (!find_nvcc()) GTEST_SKIP() << "nvcc not found (/usr/local/cuda/bin/nvcc or $NVCC)";
  const auto& c = GetParam();
  const fs::path dir = scratch("cuda_" + c.name);
  write_candidate(dir, emit_cuda(c.point));
  const NvccResult r = compile_cuda(dir / kCudaFileName, dir / "candidate.o", {"-Xptxas", "-v"});
  EXPECT_TRUE(r.ok) << r.command << "\n" << r.diagnostics;
  EXPECT_EQ(r.diagnostics.find("warning"), std::string::npos) << r.diagnostics;
  // Generator 10: the warp epilogue's fragments stay in registers (no local-memory frame).
  if (c.point.tc_schedule == TcSchedule::kWarpEpilogue && r.ok) {
    EXPECT_EQ(gemm_kernel_stack_frame(r.diagnostics), 0) << r.diagnostics;
  }
  if (r.ok) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
}

INSTANTIATE_TEST_SUITE_P(AllFamiliesAndPaths, CudaCompiles, ::testing::ValuesIn(testing_points::all_cases()),
                         [](const ::testing::TestParamInfo<testing_points::Case>& i) { return i.param.name; });

class VortexKernelCompiles : public ::testing::TestWithParam<testing_points::Case> {};

TEST_P(VortexKernelCompiles, WithTheSdkToolchain) {
  const auto sdk = find_sdk_dir(VXSYNTH_BUILD_DIR);
  if (!sdk) GTEST_SKIP() << "no SDK build (sdk.mk) in " << VXSYNTH_BUILD_DIR;
  const auto& c = GetParam();
  if (c.point.axes.tensor_core.enabled && !fs::exists(fs::path(VXSYNTH_SOURCE_DIR) / "sdk/include/vx_tensor.h")) {
    GTEST_SKIP() << "sdk/include/vx_tensor.h (the SDK's wmma_context) does not exist yet";
  }
  const fs::path dir = scratch("vortex_" + c.name);
  write_candidate(dir, emit_vortex(c.point));
  const ProcessResult r = run_process({"make", "--no-print-directory", "VXSDK=" + sdk->string(), "kernel.vxbin"},
                                      {300, dir});
  EXPECT_EQ(r.exit_code, 0) << r.command << "\n" << r.output;
  EXPECT_TRUE(fs::exists(dir / "kernel.vxbin"));
  if (r.exit_code == 0) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
}

// lane_map element: the tensor-core CUDA fills of contiguous become one element per lane and load
// (what the Vortex side does anyway); it is a valid value only where contiguous has vector fills.
TEST(Emit, LaneMapElementDropsTheCudaVectorFillsOnly) {
  DesignPoint tc = testing_points::seed(check::OpFamily::kLinear, check::PrecisionPath::kTf32);
  ASSERT_EQ(tc.axes.lane_map, LaneMap::kContiguous);
  EXPECT_EQ(cuda_fill_vectors(tc), (std::array<uint32_t, 2>{4, 4}));
  const std::string vector_cu = emit_cuda(tc).file(kCudaFileName).text;
  EXPECT_NE(vector_cu.find("vxs_fill16"), std::string::npos);
  std::string why;
  const auto element = step_axis(tc, AxisId::kLaneMap, /*forward=*/false, tc.fixed, &why);
  ASSERT_TRUE(element.has_value()) << why;
  EXPECT_EQ(element->axes.lane_map, LaneMap::kElement);
  const std::string element_cu = emit_cuda(*element).file(kCudaFileName).text;
  EXPECT_EQ(element_cu.find("vxs_fill16"), std::string::npos);
  EXPECT_EQ(element_cu.find("VEC_A"), std::string::npos);
  // The Vortex kernel is the same code; only the comments naming the axis value differ.
  const auto code = [](const DesignPoint& p) {
    std::string out;
    std::istringstream lines(emit_vortex(p).file("kernel.cpp").text);
    for (std::string line; std::getline(lines, line);)
      if (line.find("lane_map") == std::string::npos) out += line + "\n";
    return out;
  };
  EXPECT_EQ(code(*element), code(tc));
  const auto strided = step_axis(*element, AxisId::kLaneMap, /*forward=*/false, tc.fixed, &why);
  ASSERT_TRUE(strided.has_value()) << why;
  EXPECT_EQ(strided->axes.lane_map, LaneMap::kStrided);

  // A convolution gathers its input (im2col): only the weights have vector fills.
  FixedProperties conv = testing_points::small_fixed(check::OpFamily::kConv1d, check::PrecisionPath::kTf32);
  conv.op.conv.c = 8;  // GEMM K = C·S = 40, a multiple of the 4-float vector
  EXPECT_EQ(cuda_fill_vectors(seed_design_point(conv)), (std::array<uint32_t, 2>{4, 1}));

  // SIMT has no vector fills: element is rejected and the reverse step goes straight to strided.
  DesignPoint simt = testing_points::seed(check::OpFamily::kLinear, check::PrecisionPath::kFp32);
  EXPECT_EQ(cuda_fill_vectors(simt), (std::array<uint32_t, 2>{1, 1}));
  const auto reversed = step_axis(simt, AxisId::kLaneMap, /*forward=*/false, simt.fixed, &why);
  ASSERT_TRUE(reversed.has_value()) << why;
  EXPECT_EQ(reversed->axes.lane_map, LaneMap::kStrided);
  const auto forward = step_axis(*reversed, AxisId::kLaneMap, /*forward=*/true, simt.fixed, &why);
  ASSERT_TRUE(forward.has_value()) << why;
  EXPECT_EQ(forward->axes.lane_map, LaneMap::kContiguous);
  simt.axes.lane_map = LaneMap::kElement;
  EXPECT_NE(validation_errors(simt).find("lane_map: element renders as contiguous"), std::string::npos)
      << validation_errors(simt);
}

INSTANTIATE_TEST_SUITE_P(AllFamiliesAndPaths, VortexKernelCompiles, ::testing::ValuesIn(testing_points::all_cases()),
                         [](const ::testing::TestParamInfo<testing_points::Case>& i) { return i.param.name; });

}  // namespace
}  // namespace vxsynth::codegen
