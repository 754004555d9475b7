#include "vxsynth/refine/sandbox.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "vxsynth/common/file_io.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

// A real candidate pair's text (tests/data/clean): every forbidden candidate below is one edit of it.
SourceTree clean_tree() {
  const fs::path root = fs::path(VXSYNTH_REFINE_TEST_DATA) / "clean";
  SourceTree t;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) t[fs::relative(e.path(), root).string()] = read_file(e.path());
  return t;
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

bool has_rule(const std::vector<Violation>& v, const std::string& rule) {
  for (const auto& x : v)
    if (x.rule == rule) return true;
  return false;
}

std::string all(const std::vector<Violation>& v) {
  std::string s;
  for (const auto& x : v) s += x.message() + "\n";
  return s;
}

TEST(Sandbox, AcceptsTheCleanSeedAndACleanEdit) {
  const SourceTree seed = clean_tree();
  ASSERT_EQ(seed.count("cuda/candidate.cu"), 1u);
  EXPECT_TRUE(check_sources({}, seed, default_rules()).empty())
      << all(check_sources({}, seed, default_rules()));
  SourceTree cand = seed;
  cand["cuda/candidate.cu"] = replace_once(cand["cuda/candidate.cu"], "#define TILE_K 8", "#define TILE_K 16");
  EXPECT_TRUE(check_sources(seed, cand, default_rules()).empty());
}

TEST(Sandbox, SwapTargetNamingAVendorKernelIsDataNotCode) {
  // The #1 kernels of ACT and π0 are CUTLASS kernels and Diffusion Policy's are cuDNN's: their names
  // and op stacks in cuda/swap.json must not trip the vendor-library rules meant for candidate code.
  SourceTree seed = clean_tree();
  seed["cuda/swap.json"] =
      R"js({"reference_kernel": "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_tn_align1>(...)",)js"
      R"js( "op_stack": ["aten::conv2d", "aten::cudnn_convolution"], "library": "cudnn"})js";
  EXPECT_TRUE(check_sources({}, seed, default_rules()).empty()) << all(check_sources({}, seed, default_rules()));
  // The same text in candidate code is still rejected.
  SourceTree code = seed;
  code["cuda/candidate.cu"] += "\n// host\nstatic void f() { cutlass::gemm::device::Gemm<float> g; }\n";
  EXPECT_TRUE(has_rule(check_sources({}, code, default_rules()), "vendor_library"));
}

TEST(Sandbox, RejectsACublasCall) {
  const SourceTree seed = clean_tree();
  SourceTree cand = seed;
  cand["cuda/candidate.cu"] = replace_once(
      cand["cuda/candidate.cu"], "  vxs_linear<<<grid, 128>>>",
      "  cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w.data_ptr<float>(), K,\n"
      "              x.data_ptr<float>(), K, &zero, y.data_ptr<float>(), N);\n"
      "  if (0) vxs_linear<<<grid, 128>>>");
  const auto v = check_sources(seed, cand, default_rules());
  ASSERT_TRUE(has_rule(v, "vendor_library")) << all(v);
  EXPECT_EQ(v.front().file, "cuda/candidate.cu");
  EXPECT_NE(v.front().message().find("cublasSgemm"), std::string::npos) << v.front().message();
}

TEST(Sandbox, RejectsATorchOpAndACutlassInclude) {
  const SourceTree seed = clean_tree();
  SourceTree cand = seed;
  cand["cuda/candidate.cu"] = replace_once(cand["cuda/candidate.cu"], "  return y;",
                                       "  return torch::addmm(b, x, w.t());");
  EXPECT_TRUE(has_rule(check_sources(seed, cand, default_rules()), "vendor_library"));
  cand = seed;
  cand["cuda/candidate.cu"] = "#include <cutlass/gemm/device/gemm.h>\n" + cand["cuda/candidate.cu"];
  EXPECT_TRUE(has_rule(check_sources(seed, cand, default_rules()), "vendor_library"));
}

TEST(Sandbox, RejectsAtomicAddAndRiscvAmo) {
  const SourceTree seed = clean_tree();
  SourceTree cand = seed;
  cand["cuda/candidate.cu"] = replace_once(cand["cuda/candidate.cu"], "y[r * N + c] = acc[j] + b[c];",
                                       "atomicAdd(&y[r * N + c], acc[j] + b[c]);");
  auto v = check_sources(seed, cand, default_rules());
  ASSERT_TRUE(has_rule(v, "atomics")) << all(v);
  EXPECT_GT(v.front().line, 1);

  cand = seed;
  cand["vortex/kernel.cpp"] = replace_once(
      cand["vortex/kernel.cpp"], "  y[r * arg->N + c] = acc + b[c];",
      "  asm volatile(\"amoadd.w zero, %0, (%1)\" :: \"r\"(acc), \"r\"(&y[r * arg->N + c]));");
  v = check_sources(seed, cand, default_rules());
  EXPECT_TRUE(has_rule(v, "atomics")) << all(v);
  cand = seed;
  cand["vortex/kernel.cpp"] = replace_once(cand["vortex/kernel.cpp"], "float acc = 0.f;",
                                           "float acc = 0.f; __atomic_fetch_add(&arg->K, 0, 0);");
  EXPECT_TRUE(has_rule(check_sources(seed, cand, default_rules()), "atomics"));
}

TEST(Sandbox, RejectsReadingASavedOutput) {
  const SourceTree seed = clean_tree();
  SourceTree cand = seed;
  cand["cuda/candidate.cu"] = replace_once(
      cand["cuda/candidate.cu"], "  return y;",
      "  FILE* f = fopen(\"ref_output.bin\", \"rb\");\n"
      "  fread(y.data_ptr<float>(), sizeof(float), M * N, f);\n  return y;");
  const auto v = check_sources(seed, cand, default_rules());
  EXPECT_TRUE(has_rule(v, "stored_output")) << all(v);
}

TEST(Sandbox, RejectsAnEditOutsideTheNamedFilesAndASwapTargetChange) {
  const SourceTree seed = clean_tree();
  SourceTree cand = seed;
  cand["vortex/Makefile"] += "CFLAGS += -O0\n";
  auto v = check_sources(seed, cand, default_rules());
  ASSERT_EQ(v.size(), 1u) << all(v);
  EXPECT_EQ(v[0].rule, "edit_outside_named_files");
  EXPECT_EQ(v[0].file, "vortex/Makefile");

  // Byte for byte: a line that looks like a comment is a recipe to make when it starts with a tab.
  cand = seed;
  cand["vortex/Makefile"] += "all:\n\t# comment to a reader, a command to make\n";
  v = check_sources(seed, cand, default_rules());
  ASSERT_EQ(v.size(), 1u) << all(v);
  EXPECT_EQ(v[0].rule, "edit_outside_named_files");

  cand = seed;
  cand["vortex/extra.cpp"] = "int x;\n";
  EXPECT_TRUE(has_rule(check_sources(seed, cand, default_rules()), "edit_outside_named_files"));

  cand = seed;
  cand["cuda/swap.json"] = replace_once(cand["cuda/swap.json"], "\"M\": 64", "\"M\": 128");
  v = check_sources(seed, cand, default_rules());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, "swap_target");
}

TEST(Sandbox, JoinsAdjacentLiteralsAndSeesNewSpellings) {
  const SourceTree seed = clean_tree();
  SourceTree cand = seed;
  cand["vortex/main.cpp"] = "void* h = dlopen(\"libcub\" \"las.so\", 2);\n";
  auto v = check_sources(seed, cand, default_rules());
  EXPECT_TRUE(has_rule(v, "vendor_library")) << all(v);
  EXPECT_TRUE(has_rule(v, "dynamic_loading")) << all(v);
  cand = seed;
  cand["cuda/candidate.cu"] += "__device__ void f(float* p) { asm volatile(\"re\"\n \"d.global.add.f32 [%0], 1.0;\" :: \"l\"(p)); }\n";
  EXPECT_TRUE(has_rule(check_sources(seed, cand, default_rules()), "atomics"));
  cand = seed;
  cand["cuda/candidate.cu"] += "__device__ void g(int* p) { __nv_atomic_fetch_add(p, 1, 0, 0); }\n";
  EXPECT_TRUE(has_rule(check_sources(seed, cand, default_rules()), "atomics"));
  cand = seed;
  cand["vortex/kernel.cpp"] += "asm(\".incbin \\\"/tmp/x.bin\\\"\");\n";
  EXPECT_TRUE(has_rule(check_sources(seed, cand, default_rules()), "stored_output"));
}

TEST(Sandbox, PreprocessedTextIsCheckedOnlyWhereItCameFromTheCandidate) {
  // cpp output: a system header's own atomics are not the candidate's; the candidate's macro use is.
  const std::string tu =
      "# 1 \"/c/kernel.cpp\"\n"
      "# 1 \"/usr/include/atomic\" 1 3\n"
      "int __atomic_load_n_wrapper(int* p) { return __atomic_load_n(p, 0); }\n"
      "# 3 \"/c/kernel.cpp\" 2\n"
      "void k(int* p) { __atomic_fetch_add(p, 1, 0); }\n";
  const auto v = check_preprocessed(tu, {{"/c/kernel.cpp", "vortex/kernel.cpp"}}, default_rules());
  ASSERT_EQ(v.size(), 1u) << all(v);
  EXPECT_EQ(v[0].rule, "atomics");
  EXPECT_EQ(v[0].file, "vortex/kernel.cpp");
  EXPECT_EQ(v[0].line, 3);
  EXPECT_TRUE(check_preprocessed(tu, {{"/c/other.cpp", "x"}}, default_rules()).empty());
}

TEST(Sandbox, ArtefactRules) {
  EXPECT_EQ(check_riscv_disassembly("80000abc:\t0805262f          \tamoadd.w\ta2,zero,(a0)\n", "k").size(), 1u);
  EXPECT_TRUE(check_riscv_disassembly("80000abc:\t00b50533          \tadd\ta0,a0,a1\n", "k").empty());
  // Undecoded (the ELF's attributes name no A extension): the opcode still counts.
  EXPECT_EQ(check_riscv_disassembly("80000640:\t00b5202f          \t.word\t0x00b5202f\n", "k").size(), 1u);
  EXPECT_EQ(check_ptx("\tred.global.add.f32 \t[%rd1], %f1;\n", "p")[0].rule, "atomics");
  EXPECT_EQ(check_ptx("\t@%p1 atom.global.add.u32 \t%r1, [%rd1], 1;\n", "p")[0].rule, "atomics");
  EXPECT_EQ(check_ptx(".extern .func  (.param .b32 func_retval0) cublasSgemm_v2(\n", "p")[0].rule, "vendor_library");
  EXPECT_TRUE(check_ptx("\tld.global.f32 \t%f1, [%rd1];\n", "p").empty());
  EXPECT_EQ(check_sass("        /*0090*/  RED.E.ADD.F32.FTZ.RN.STRONG.GPU [R2.64], R5 ;\n", "s")[0].rule, "atomics");
  ElfFacts f{{"libc.so.6", "libcublas.so.12"}, {"dlsym@GLIBC_2.34", "printf@GLIBC_2.2.5", "system@GLIBC_2.2.5"}};
  const std::vector<std::string> allowed = {"libc.so.6"};
  const auto v = check_elf(f, &allowed, "vortex/vxs_candidate");
  EXPECT_TRUE(has_rule(v, "dynamic_loading")) << all(v);
  EXPECT_TRUE(has_rule(v, "process_spawn")) << all(v);
  EXPECT_TRUE(has_rule(v, "vendor_library")) << all(v);
  CudaFacts design{{"vxs_gemm"}, {"maxntid 256, 1, 1"}, {"grid,256"}};
  CudaFacts cand = design;
  EXPECT_TRUE(check_cuda_launches(cand, design, "c").empty());
  cand.launch_sites = {"grid,128"};
  EXPECT_EQ(check_cuda_launches(cand, design, "c")[0].rule, "launch_mismatch");
  cand = design;
  cand.entries.push_back("decoy");
  EXPECT_EQ(check_cuda_launches(cand, design, "c")[0].rule, "decoy_launch");
}

TEST(Sandbox, CommentsDoNotTripRules) {
  const SourceTree seed = clean_tree();
  SourceTree cand = seed;
  cand["vortex/kernel.cpp"] += "/* not atomicAdd(x), not cublasSgemm, not amoadd.w */\n";
  EXPECT_TRUE(check_sources(seed, cand, default_rules()).empty());
}

core::ReferenceContext linear_context() {
  core::ReferenceContext ctx;
  ctx.op = core::OpKind::kLinear;
  ctx.gemm = core::GemmShape{1, 64, 256, 512};
  ctx.launch.block = {128, 1, 1};
  ctx.engine = core::EngineClass::kSimt;
  return ctx;
}

TEST(Sandbox, RejectsAChangedBlockSizeFromTheLaunch) {
  const FixedProperties fixed = fixed_properties(linear_context(), true);
  ObservedProperties obs;
  obs.block_size = 128;
  obs.gemm = core::GemmShape{1, 64, 256, 512};
  obs.atomics_per_inst = 0.0;
  obs.engine = core::EngineClass::kSimt;
  EXPECT_TRUE(check_fixed_properties(fixed, obs).empty());
  obs.block_size = 256;
  const auto v = check_fixed_properties(fixed, obs);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, "fixed_property");
  EXPECT_NE(v[0].what.find("256"), std::string::npos);
}

TEST(Sandbox, RejectsShapeEngineAndCountedAtomics) {
  const FixedProperties fixed = fixed_properties(linear_context(), true);
  ObservedProperties obs;
  obs.gemm = core::GemmShape{1, 64, 256, 256};
  obs.engine = core::EngineClass::kTensorCore;
  obs.atomics_per_inst = 0.01;
  const auto v = check_fixed_properties(fixed, obs);
  EXPECT_EQ(v.size(), 3u) << all(v);
}

TEST(Sandbox, Tf32BecomesFp16OnVortex) {
  core::ReferenceContext ctx = linear_context();
  ctx.operand_type = core::DType::kTf32;
  ctx.engine = core::EngineClass::kTensorCore;
  EXPECT_EQ(fixed_properties(ctx, true).operand_type, core::DType::kFp16);
  EXPECT_EQ(fixed_properties(ctx, false).operand_type, core::DType::kTf32);
}

// The design's launch as vx_spawn_threads spreads it (docs/sdk.md): 4 blocks of 256 threads on one
// core of 32 warps × 8 threads run one after another on all 32 warps; 5 blocks of 32 threads on
// 2 cores of 8 warps (2 resident blocks of 4 warps): core 0 takes 3 blocks (slot 0 twice), core 1 two.
TEST(Sandbox, SpawnWarpWeightsFollowTheSdkSchedule) {
  const auto one = spawn_warp_weights({4, 256, 1, 32, 8});
  ASSERT_EQ(one.size(), 1u);
  for (uint64_t w : one[0]) EXPECT_EQ(w, 4u * 8u);
  const auto two = spawn_warp_weights({5, 32, 2, 8, 8});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], (std::vector<uint64_t>{16, 16, 16, 16, 8, 8, 8, 8}));
  EXPECT_EQ(two[1], (std::vector<uint64_t>{8, 8, 8, 8, 8, 8, 8, 8}));
  // A partial last warp (100 threads = 12 warps of 8 + one of 4), and thread mode (no check).
  const auto partial = spawn_warp_weights({1, 100, 1, 16, 8});
  EXPECT_EQ(partial[0][11], 8u);
  EXPECT_EQ(partial[0][12], 4u);
  EXPECT_EQ(partial[0][13], 0u);
  EXPECT_TRUE(spawn_warp_weights({64, 1, 1, 4, 4}).empty());
}

TEST(Sandbox, PairAlignmentRejectsWorkOnFewerWarpsThanTheDesign) {
  const VortexLaunchShape s{4, 256, 1, 32, 8};
  std::vector<std::vector<uint64_t>> even(1, std::vector<uint64_t>(32, 2080));
  even[0][0] += 300;  // a little more on warp 0 is within its share
  EXPECT_TRUE(check_warp_work(even, s, "vortex/kernel.cpp").empty());
  std::vector<std::vector<uint64_t>> one(1, std::vector<uint64_t>(32, 0));
  one[0][0] = 66560;
  const auto v = check_warp_work(one, s, "vortex/kernel.cpp");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, "pair_alignment");
  EXPECT_NE(v[0].what.find("32 warp(s)"), std::string::npos) << v[0].what;
  EXPECT_NE(v[0].what.find("core 0 warp 1: 0 flops"), std::string::npos) << v[0].what;
  // Half the warps at twice their share (16 of 32 doing the work) and arithmetic where the design
  // runs no block (a second core) are off as well; no arithmetic at all is too.
  std::vector<std::vector<uint64_t>> half(1, std::vector<uint64_t>(32, 0));
  for (int w = 0; w < 16; ++w) half[0][static_cast<size_t>(w)] = 4200;
  EXPECT_FALSE(check_warp_work(half, s, "vortex/kernel.cpp").empty());
  std::vector<std::vector<uint64_t>> extra = even;
  extra.push_back(std::vector<uint64_t>(32, 100));
  const auto off_core = check_warp_work(extra, VortexLaunchShape{1, 256, 2, 32, 8}, "vortex/kernel.cpp");
  ASSERT_EQ(off_core.size(), 1u);
  EXPECT_NE(off_core[0].what.find("core 1 warp 0: 100 flops where the design runs no block"), std::string::npos)
      << off_core[0].what;
  EXPECT_FALSE(check_warp_work({std::vector<uint64_t>(32, 0)}, s, "vortex/kernel.cpp").empty());
}

// The CUDA side of pair alignment on real ncu captures of the committed H200 suite (the seeds of
// ACT k4, FP32 split-K 16, and π0 k1, BF16 bmm): the design's launch passes; the same CSV with the
// grid or the MAC count tampered fails with its reason.
struct CudaCapture {
  std::string csv;
  CudaLaunchShape shape;
};

CudaCapture act_k4_seed() {
  CudaLaunchShape s;
  s.grid = {2, 8, 16};  // M tiles on x (M = 100 < N = 512), N tiles, split-K 16
  s.block_threads = 256;
  s.m = 100, s.n = 512, s.k = 512;
  s.tile_m = 64, s.tile_n = 64, s.tile_k = 8, s.split_k = 16;
  return {read_file(fs::path(VXSYNTH_SOURCE_DIR) / "data/suite/vx-robotics-h200/act-k4/work/revisions/r0000/cuda/ncu_raw.csv"), s};
}

CudaCapture pi0_k1_seed() {
  CudaLaunchShape s;
  s.grid = {2, 8, 8};
  s.block_threads = 128;
  s.z = 8, s.m = 51, s.n = 256, s.k = 867;
  s.tile_m = 32, s.tile_n = 32, s.tile_k = 32;
  s.counter = MacCounter::kTensorBf16;
  return {read_file(fs::path(VXSYNTH_SOURCE_DIR) / "data/suite/vx-robotics-h200/pi0-k1/work/revisions/r0000/cuda/ncu_raw.csv"), s};
}

std::vector<Violation> cuda_launch_violations(const std::string& csv, const CudaLaunchShape& s) {
  const core::NcuReport rep = core::parse_ncu_csv(csv, "ncu_raw.csv");
  const core::NcuKernel* main = nullptr;
  for (const auto& k : rep.kernels)
    if (k.name.rfind("vxs_gemm_kernel", 0) == 0) main = &k;
  EXPECT_NE(main, nullptr);
  return main ? check_cuda_launch(*main, s, "cuda/candidate.cu") : std::vector<Violation>{};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(CudaLaunch, CommittedCapturesMatchTheirDesigns) {
  for (const CudaCapture& c : {act_k4_seed(), pi0_k1_seed()}) {
    const auto v = cuda_launch_violations(c.csv, c.shape);
    EXPECT_TRUE(v.empty()) << (v.empty() ? "" : v[0].message());
  }
}

TEST(CudaLaunch, AnotherGridIsALaunchMismatch) {
  const CudaCapture c = act_k4_seed();
  const auto v = cuda_launch_violations(replaced(c.csv, "\"(2, 8, 16)\"", "\"(2, 8, 8)\""), c.shape);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, "launch_mismatch");
  EXPECT_NE(v[0].what.find("grid (2, 8, 8)"), std::string::npos) << v[0].what;
  EXPECT_NE(v[0].what.find("the design's has grid (2, 8, 16)"), std::string::npos) << v[0].what;
}

TEST(CudaLaunch, HalfTheMacsOrATensorCountBreaksPairAlignment) {
  const CudaCapture a = act_k4_seed();
  auto v = cuda_launch_violations(replaced(a.csv, "\"33,554,432\"", "\"16,777,216\""), a.shape);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, "pair_alignment");
  EXPECT_NE(v[0].what.find("counted 16777216 (smsp__sass_thread_inst_executed_op_ffma_pred_on.sum)"),
            std::string::npos) << v[0].what;
  const CudaCapture p = pi0_k1_seed();
  v = cuda_launch_violations(replaced(p.csv, "\"234,881,024\"", "\"469,762,048\""), p.shape);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, "pair_alignment");
  // The FP32 design profiled as a tensor-core kernel: the FFMA count of the BF16 capture is 0.
  CudaLaunchShape fp32 = p.shape;
  fp32.counter = MacCounter::kFfma;
  v = cuda_launch_violations(p.csv, fp32);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].what.find("counted 0 "), std::string::npos) << v[0].what;
}

}  // namespace
}  // namespace vxsynth::refine
